//! The bridge: the kotef binary run inside `setup`'s sandbox as
//! `kotef __egress-bridge PORT SOCKET -- PROGRAM ARGS...`. It listens on `127.0.0.1:PORT` in
//! the sandbox's own network namespace, starts the program, hands every connection to the
//! proxy's unix socket, and exits with the program's status when the program ends. It holds
//! no secret and decides nothing: the proxy on the host does.

use std::path::Path;
use tokio::net::{TcpListener, UnixStream};

/// Runs the bridge from its arguments (those after [`super::BRIDGE_COMMAND`]) and returns the
/// exit code: the program's, or 125 when the bridge could not start it.
pub fn main(args: &[String]) -> i32 {
    let usage = || {
        eprintln!("usage: kotef __egress-bridge PORT SOCKET -- PROGRAM [ARGS...]");
        125
    };
    let (Some(port), Some(socket), Some("--")) = (
        args.first().and_then(|p| p.parse::<u16>().ok()),
        args.get(1),
        args.get(2).map(String::as_str),
    ) else {
        return usage();
    };
    let program = &args[3..];
    if program.is_empty() {
        return usage();
    }
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(run(port, Path::new(socket), program)),
        Err(e) => {
            eprintln!("kotef bridge: no runtime: {e}");
            125
        }
    }
}

async fn run(port: u16, socket: &Path, program: &[String]) -> i32 {
    let listener = match TcpListener::bind(("127.0.0.1", port)).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("kotef bridge: cannot listen on 127.0.0.1:{port}: {e}");
            return 125;
        }
    };
    let mut child = match tokio::process::Command::new(&program[0])
        .args(&program[1..])
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("kotef bridge: cannot start {}: {e}", program[0]);
            return 125;
        }
    };
    loop {
        tokio::select! {
            status = child.wait() => {
                return match status {
                    Ok(s) => s.code().unwrap_or_else(|| {
                        128 + std::os::unix::process::ExitStatusExt::signal(&s).unwrap_or(0)
                    }),
                    Err(_) => 125,
                };
            }
            accepted = listener.accept() => {
                let Ok((mut tcp, _)) = accepted else { continue };
                let socket = socket.to_path_buf();
                tokio::spawn(async move {
                    if let Ok(mut unix) = UnixStream::connect(&socket).await {
                        let _ = tokio::io::copy_bidirectional(&mut tcp, &mut unix).await;
                    }
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn bad_arguments_exit_125() {
        assert_eq!(main(&args(&["x", "/s", "--", "true"])), 125);
        assert_eq!(main(&args(&["3128", "/s", "true"])), 125);
        assert_eq!(main(&args(&["3128", "/s", "--"])), 125);
    }

    #[test]
    fn the_programs_exit_code_is_the_bridges() {
        assert_eq!(
            main(&args(&[
                "0",
                "/nonexistent",
                "--",
                "/bin/sh",
                "-c",
                "exit 7"
            ])),
            7
        );
    }
}
