//! The bridge: the kotef binary run inside a sandbox as
//! `kotef __egress-bridge PORT SOCKET [PORT SOCKET]... -- PROGRAM ARGS...`. For each pair it
//! listens on `127.0.0.1:PORT` in the sandbox's own network namespace and hands every
//! connection to SOCKET (the egress proxy's for `setup`, a loopback forwarder's for
//! `[test] network = "loopback"`), starts the program, and exits with the program's status when
//! the program ends. It holds no secret and decides nothing: the host side does.

use std::path::PathBuf;
use tokio::net::{TcpListener, UnixStream};

/// Most ports one bridge listens on.
const MAX_PAIRS: usize = 32;

/// Each port the bridge listens on and the socket it hands connections to.
type Pairs = Vec<(u16, PathBuf)>;

/// `PORT SOCKET` pairs up to `--`, then the program; `None` when malformed. Pure.
fn parse(args: &[String]) -> Option<(Pairs, &[String])> {
    let end = args.iter().position(|a| a == "--")?;
    let (pairs, program) = (&args[..end], &args[end + 1..]);
    if pairs.is_empty() || pairs.len() % 2 != 0 || pairs.len() / 2 > MAX_PAIRS || program.is_empty()
    {
        return None;
    }
    let pairs = pairs
        .chunks(2)
        .map(|c| Some((c[0].parse::<u16>().ok()?, PathBuf::from(&c[1]))))
        .collect::<Option<Vec<_>>>()?;
    Some((pairs, program))
}

/// Runs the bridge from its arguments (those after [`super::BRIDGE_COMMAND`]) and returns the
/// exit code: the program's, or 125 when the bridge could not start it.
pub fn main(args: &[String]) -> i32 {
    let Some((pairs, program)) = parse(args) else {
        eprintln!("usage: kotef __egress-bridge PORT SOCKET [PORT SOCKET]... -- PROGRAM [ARGS...]");
        return 125;
    };
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(run(pairs, program)),
        Err(e) => {
            eprintln!("kotef bridge: no runtime: {e}");
            125
        }
    }
}

async fn run(pairs: Pairs, program: &[String]) -> i32 {
    let mut listeners = Vec::new();
    for (port, socket) in pairs {
        match TcpListener::bind(("127.0.0.1", port)).await {
            Ok(l) => listeners.push((l, socket)),
            Err(e) => {
                eprintln!("kotef bridge: cannot listen on 127.0.0.1:{port}: {e}");
                return 125;
            }
        }
    }
    for (listener, socket) in listeners {
        tokio::spawn(async move {
            loop {
                let Ok((mut tcp, _)) = listener.accept().await else {
                    break;
                };
                let socket = socket.clone();
                tokio::spawn(async move {
                    if let Ok(mut unix) = UnixStream::connect(&socket).await {
                        let _ = tokio::io::copy_bidirectional(&mut tcp, &mut unix).await;
                    }
                });
            }
        });
    }
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
    match child.wait().await {
        Ok(s) => s.code().unwrap_or_else(|| {
            128 + std::os::unix::process::ExitStatusExt::signal(&s).unwrap_or(0)
        }),
        Err(_) => 125,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn several_ports_each_with_its_socket_precede_the_program() {
        let a = args(&["3128", "/e.sock", "5432", "/l.sock", "--", "sh", "-c", "x"]);
        let (pairs, program) = parse(&a).unwrap();
        assert_eq!(
            pairs,
            [
                (3128, PathBuf::from("/e.sock")),
                (5432, PathBuf::from("/l.sock"))
            ]
        );
        assert_eq!(program, ["sh", "-c", "x"]);
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
