//! The network the repository's `setup` gets: not the host's. `setup` runs in its own
//! network namespace (no route anywhere), where a bridge ([`bridge`]) listens on a loopback
//! port and hands each connection over a unix socket to this proxy on the host. The proxy
//! speaks HTTP proxying (`CONNECT host:port` for TLS, absolute-form requests for plain HTTP),
//! resolves the host itself and connects only to addresses the [`EgressPolicy`] allows, to
//! the address it checked (no DNS rebinding). Package managers follow the `https_proxy`
//! variables it sets; anything else has no network.
//!
//! Why a proxy and not pasta or slirp4netns: it needs nothing installed beyond kotef and
//! bubblewrap, it works unprivileged (a GitHub runner, a server's service user), and it
//! decides per host name and resolved address, which a user-mode network stack does not.

pub mod bridge;
pub mod policy;

pub use policy::EgressPolicy;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener, UnixStream};

/// The argument that makes the kotef binary run as the bridge (see [`bridge`]).
pub const BRIDGE_COMMAND: &str = "__egress-bridge";
/// The loopback port the bridge listens on inside the sandbox.
pub const BRIDGE_PORT: u16 = 3128;
/// A request head larger than this is refused.
const MAX_HEAD: usize = 16 * 1024;
/// Reading a request head, and connecting, may take this long.
const HANDSHAKE: Duration = Duration::from_secs(30);
/// Connections at once.
const MAX_CONNECTIONS: usize = 64;
/// Refusals remembered for the report.
const MAX_REFUSALS: usize = 20;

/// The variables that point a command's package managers at the bridge: the `*_proxy` ones
/// most tools read, and the JVM's proxy properties (Maven and Gradle read no variable).
pub fn proxy_env(port: u16) -> Vec<(String, String)> {
    let url = format!("http://127.0.0.1:{port}");
    let jvm = format!(
        "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort={port} -Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort={port}"
    );
    let names = [
        "http_proxy",
        "https_proxy",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "npm_config_proxy",
    ];
    names
        .iter()
        .map(|k| (k.to_string(), url.clone()))
        .chain([
            ("NO_PROXY".into(), String::new()),
            ("no_proxy".into(), String::new()),
            ("JAVA_TOOL_OPTIONS".into(), jvm),
        ])
        .collect()
}

/// A running proxy; stops when dropped.
pub struct EgressProxy {
    socket: PathBuf,
    refusals: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
    _dir: tempfile::TempDir,
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl EgressProxy {
    /// Listens on a fresh unix socket in a private temp dir.
    pub fn start(policy: EgressPolicy) -> std::io::Result<Self> {
        let dir = tempfile::Builder::new().prefix("kotef-egress-").tempdir()?;
        let socket = dir.path().join("egress.sock");
        let listener = UnixListener::bind(&socket)?;
        let refusals = Arc::new(Mutex::new(Vec::new()));
        let policy = Arc::new(policy);
        let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
        let log = refusals.clone();
        let task = tokio::spawn(async move {
            while let Ok((conn, _)) = listener.accept().await {
                let Ok(permit) = slots.clone().acquire_owned().await else {
                    return;
                };
                let (policy, log) = (policy.clone(), log.clone());
                tokio::spawn(async move {
                    if let Err(why) = serve(conn, &policy).await {
                        let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
                        if log.len() < MAX_REFUSALS && !log.contains(&why) {
                            tracing::info!(%why, "setup's network request refused");
                            log.push(why);
                        }
                    }
                    drop(permit);
                });
            }
        });
        Ok(Self {
            socket,
            refusals,
            task,
            _dir: dir,
        })
    }

    /// The socket the bridge connects to.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// What was refused so far, one line each (`127.0.0.1:8080: loopback`).
    pub fn refusals(&self) -> Vec<String> {
        self.refusals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// One proxied connection. `Err` carries a refusal worth reporting.
async fn serve(mut conn: UnixStream, policy: &EgressPolicy) -> Result<(), String> {
    let head = match tokio::time::timeout(HANDSHAKE, read_head(&mut conn)).await {
        Ok(Ok(h)) => h,
        _ => return Ok(()),
    };
    let Some(req) = Request::parse(&head.bytes[..head.end]) else {
        let _ = conn
            .write_all(&reply(400, "kotef: not an HTTP proxy request"))
            .await;
        return Ok(());
    };
    let target = match tokio::time::timeout(HANDSHAKE, connect(&req.host, req.port, policy)).await {
        Ok(Ok(s)) => s,
        Ok(Err(why)) => {
            let text = format!("{}:{}: {why}", req.host, req.port);
            let body = format!("kotef: setup may not reach {text}");
            let _ = conn.write_all(&reply(403, &body)).await;
            return Err(text);
        }
        Err(_) => {
            let _ = conn
                .write_all(&reply(504, "kotef: connect timed out"))
                .await;
            return Ok(());
        }
    };
    let mut target = target;
    let rest = &head.bytes[head.end..];
    let sent = if req.connect {
        conn.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .await
            .and(target.write_all(rest).await)
    } else {
        target
            .write_all(&req.origin_form(&head.bytes[..head.end]))
            .await
            .and(target.write_all(rest).await)
    };
    if sent.is_ok() {
        let _ = tokio::io::copy_bidirectional(&mut conn, &mut target).await;
    }
    Ok(())
}

/// Resolves `host` and connects to the first address the policy allows.
async fn connect(host: &str, port: u16, policy: &EgressPolicy) -> Result<TcpStream, String> {
    let named = policy.names(host, port);
    if !named && !policy.public {
        return Err("not on the operator's list".into());
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((bare, port))
        .await
        .map_err(|e| format!("does not resolve ({e})"))?
        .take(16)
        .collect();
    let mut why = "does not resolve".to_string();
    for addr in addrs {
        if !named {
            if let Some(range) = policy.refuses(addr.ip()) {
                why = format!("{} is {range}", addr.ip());
                continue;
            }
        }
        match TcpStream::connect(addr).await {
            Ok(s) => return Ok(s),
            Err(e) => why = format!("{addr}: {e}"),
        }
    }
    Err(why)
}

struct Head {
    bytes: Vec<u8>,
    /// Where the head ends (after the blank line); what follows is the body.
    end: usize,
}

async fn read_head(conn: &mut UnixStream) -> std::io::Result<Head> {
    let mut bytes = Vec::with_capacity(1024);
    let mut buf = [0u8; 4096];
    loop {
        let n = conn.read(&mut buf).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        bytes.extend_from_slice(&buf[..n]);
        if let Some(i) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            return Ok(Head { bytes, end: i + 4 });
        }
        if bytes.len() > MAX_HEAD {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
    }
}

/// A proxy request's first line.
#[derive(Debug, PartialEq, Eq)]
struct Request {
    connect: bool,
    method: String,
    host: String,
    port: u16,
    /// The path for a plain-HTTP request (`/simple/`).
    path: String,
    version: String,
}

impl Request {
    fn parse(head: &[u8]) -> Option<Self> {
        let text = std::str::from_utf8(head).ok()?;
        let line = text.split("\r\n").next()?;
        let mut parts = line.split(' ');
        let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || !version.starts_with("HTTP/1.") {
            return None;
        }
        if method == "CONNECT" {
            let (host, port) = split_host_port(target, 443)?;
            return Some(Self {
                connect: true,
                method: method.into(),
                host,
                port,
                path: String::new(),
                version: version.into(),
            });
        }
        let rest = target.strip_prefix("http://")?;
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let (host, port) = split_host_port(authority, 80)?;
        Some(Self {
            connect: false,
            method: method.into(),
            host,
            port,
            path: path.into(),
            version: version.into(),
        })
    }

    /// The head rewritten for the origin server: origin-form target, no proxy headers, and
    /// `Connection: close` (one request per connection, so a reused connection cannot reach
    /// a second host unchecked).
    fn origin_form(&self, head: &[u8]) -> Vec<u8> {
        let text = String::from_utf8_lossy(head);
        let mut out = format!("{} {} {}\r\n", self.method, self.path, self.version);
        for line in text.split("\r\n").skip(1).filter(|l| !l.is_empty()) {
            let name = line
                .split(':')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if matches!(
                name.as_str(),
                "proxy-connection" | "proxy-authorization" | "connection" | "keep-alive"
            ) {
                continue;
            }
            out.push_str(line);
            out.push_str("\r\n");
        }
        out.push_str("Connection: close\r\n\r\n");
        out.into_bytes()
    }
}

fn split_host_port(authority: &str, default: u16) -> Option<(String, u16)> {
    if authority.is_empty() || authority.contains('@') {
        return None;
    }
    let (host, port) = match authority.rfind(':') {
        Some(i) if !authority[i..].contains(']') => {
            (&authority[..i], authority[i + 1..].parse().ok()?)
        }
        _ => (authority, default),
    };
    (!host.is_empty()).then(|| (host.to_ascii_lowercase(), port))
}

fn reply(code: u16, body: &str) -> Vec<u8> {
    let reason = match code {
        400 => "Bad Request",
        403 => "Forbidden",
        _ => "Gateway Timeout",
    };
    format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[cfg(test)]
mod tests;
