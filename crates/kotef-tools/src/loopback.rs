//! Loopback services for sandboxed commands (`[test] network = "loopback"`): on the host, one
//! unix socket per allowed port, each connection forwarded to that port on the host's
//! loopback; inside the sandbox the bridge (the kotef binary, see [`crate::egress`]) listens on
//! `127.0.0.1:PORT` in the command's own network namespace and hands each connection to the
//! port's socket. Only the listed ports exist there: nothing else of the host's network, no
//! outside world.

use std::path::{Path, PathBuf};
use tokio::net::{TcpStream, UnixListener};

/// Most connections forwarded at once, over all ports.
const MAX_CONNECTIONS: usize = 64;

/// What a sandboxed command needs to reach the forwarded ports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopbackMount {
    /// The kotef executable, run inside as the bridge.
    pub bridge: PathBuf,
    /// Each port and its socket on the host.
    pub ports: Vec<(u16, PathBuf)>,
}

/// Where a port's socket appears inside the sandbox.
pub fn socket_in_sandbox(port: u16) -> String {
    format!("/run/kotef/loopback-{port}.sock")
}

/// The running forwarders of one run; they stop when this is dropped.
pub struct LoopbackForward {
    ports: Vec<(u16, PathBuf)>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Drop for LoopbackForward {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl LoopbackForward {
    /// Starts one forwarder per port, its socket in a private temp dir.
    pub fn start(ports: &[u16]) -> std::io::Result<Self> {
        let dir = tempfile::Builder::new().prefix("kotef-lo-").tempdir()?;
        let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
        let mut out = Self {
            ports: Vec::new(),
            tasks: Vec::new(),
            _dir: dir,
        };
        for &port in ports {
            let socket = out._dir.path().join(format!("{port}.sock"));
            let listener = UnixListener::bind(&socket)?;
            let slots = slots.clone();
            out.tasks.push(tokio::spawn(async move {
                while let Ok((mut conn, _)) = listener.accept().await {
                    let Ok(permit) = slots.clone().acquire_owned().await else {
                        return;
                    };
                    tokio::spawn(async move {
                        if let Some(mut tcp) = connect(port).await {
                            let _ = tokio::io::copy_bidirectional(&mut conn, &mut tcp).await;
                        }
                        drop(permit);
                    });
                }
            }));
            out.ports.push((port, socket));
        }
        Ok(out)
    }

    /// The mount for the runner, with `bridge` as the kotef executable.
    pub fn mount(&self, bridge: &Path) -> LoopbackMount {
        LoopbackMount {
            bridge: bridge.to_path_buf(),
            ports: self.ports.clone(),
        }
    }
}

/// The host's loopback at `port`, IPv4 first.
async fn connect(port: u16) -> Option<TcpStream> {
    match TcpStream::connect(("127.0.0.1", port)).await {
        Ok(s) => Some(s),
        Err(_) => TcpStream::connect(("::1", port)).await.ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn a_connection_to_a_ports_socket_reaches_that_port_on_loopback() {
        let service = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = service.local_addr().unwrap().port();
        tokio::spawn(async move {
            let (mut s, _) = service.accept().await.unwrap();
            s.write_all(b"hello from the service").await.unwrap();
        });
        let fwd = LoopbackForward::start(&[port]).unwrap();
        let mount = fwd.mount(Path::new("/kotef"));
        let mut conn = tokio::net::UnixStream::connect(&mount.ports[0].1)
            .await
            .unwrap();
        let mut got = String::new();
        conn.read_to_string(&mut got).await.unwrap();
        assert_eq!(got, "hello from the service");
    }
}
