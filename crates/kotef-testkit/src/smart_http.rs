//! A private git remote for the tests: git's smart HTTP protocol over loopback, served by
//! `git http-backend` (CGI, one process per request, killed after a timeout) behind a small
//! axum handler that refuses every request without the expected token (`401` with a Basic
//! challenge, as GitHub does for a private repository). Partial clones (`--filter`) and
//! pushes are enabled through the backend's environment, so the bare repositories' own config
//! stays as the test wrote it. Every request is logged with the `Authorization` it carried.

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use std::net::SocketAddr;
use std::path::{Path as FsPath, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// The longest one backend process may take.
const BACKEND_TIMEOUT: Duration = Duration::from_secs(60);
/// The largest request body accepted.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// One request the remote saw.
#[derive(Debug, Clone)]
pub struct SeenRequest {
    pub method: String,
    /// Path and query.
    pub uri: String,
    /// The `Authorization` header, verbatim.
    pub authorization: Option<String>,
    pub status: u16,
}

struct Shared {
    root: PathBuf,
    /// The one `Authorization` value accepted.
    expected: String,
    seen: Mutex<Vec<SeenRequest>>,
}

/// A running private remote; stops when dropped.
pub struct SmartHttp {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for SmartHttp {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The `Authorization` value git sends for an installation token (`x-access-token:<token>`).
pub fn basic_auth(token: &str) -> String {
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("x-access-token:{token}"))
    )
}

impl SmartHttp {
    /// Serves the bare repositories under `root` (`root/owner/name.git`) on 127.0.0.1 to
    /// requests carrying `token` only.
    pub async fn start(root: &FsPath, token: &str) -> Self {
        let shared = Arc::new(Shared {
            root: root.to_path_buf(),
            expected: basic_auth(token),
            seen: Mutex::new(Vec::new()),
        });
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the smart HTTP remote");
        let addr = listener.local_addr().expect("local addr");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { addr, shared, task }
    }

    /// The base URL to give kotef (`{base}/owner/name.git`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, oldest first.
    pub fn requests(&self) -> Vec<SeenRequest> {
        self.shared.seen.lock().expect("log lock").clone()
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let authorization = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let response = if authorization.as_deref() != Some(shared.expected.as_str()) {
        (
            StatusCode::UNAUTHORIZED,
            [("www-authenticate", "Basic realm=\"private\"")],
            "authentication required\n",
        )
            .into_response()
    } else if body.len() > MAX_BODY {
        StatusCode::PAYLOAD_TOO_LARGE.into_response()
    } else {
        backend(&shared.root, &method, &uri, &headers, body).await
    };
    shared.seen.lock().expect("log lock").push(SeenRequest {
        method: method.to_string(),
        uri: uri.to_string(),
        authorization,
        status: response.status().as_u16(),
    });
    response
}

/// Runs `git http-backend` for one request and turns its CGI output into a response.
async fn backend(
    root: &FsPath,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: Bytes,
) -> Response {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    let mut cmd = tokio::process::Command::new("git");
    cmd.arg("http-backend")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REMOTE_USER", "x-access-token")
        .env("REMOTE_ADDR", "127.0.0.1")
        .env("REQUEST_METHOD", method.as_str())
        .env("PATH_INFO", uri.path())
        .env("QUERY_STRING", uri.query().unwrap_or_default())
        .env("CONTENT_TYPE", header("content-type"))
        .env("CONTENT_LENGTH", body.len().to_string())
        .env("HTTP_CONTENT_ENCODING", header("content-encoding"))
        .env("HTTP_GIT_PROTOCOL", header("git-protocol"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_COUNT", "3")
        .env("GIT_CONFIG_KEY_0", "http.receivepack")
        .env("GIT_CONFIG_VALUE_0", "true")
        .env("GIT_CONFIG_KEY_1", "uploadpack.allowFilter")
        .env("GIT_CONFIG_VALUE_1", "true")
        .env("GIT_CONFIG_KEY_2", "uploadpack.allowAnySHA1InWant")
        .env("GIT_CONFIG_VALUE_2", "true")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let run = async {
        let mut child = cmd.spawn()?;
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let feed = async move {
            let r = stdin.write_all(&body).await;
            drop(stdin);
            r
        };
        let (fed, out) = tokio::join!(feed, child.wait_with_output());
        fed.or_else(|e| {
            // The backend may answer without reading everything (an error reply).
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                Ok(())
            } else {
                Err(e)
            }
        })?;
        out
    };
    let out = match tokio::time::timeout(BACKEND_TIMEOUT, run).await {
        Ok(Ok(out)) => out.stdout,
        Ok(Err(e)) => {
            return (StatusCode::INTERNAL_SERVER_ERROR, format!("backend: {e}\n")).into_response()
        }
        Err(_) => return (StatusCode::GATEWAY_TIMEOUT, "backend timed out\n").into_response(),
    };
    cgi_response(&out)
}

/// Splits CGI output into its headers (`Status:` among them) and body.
fn cgi_response(out: &[u8]) -> Response {
    let split = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, i + 4))
        .or_else(|| {
            out.windows(2)
                .position(|w| w == b"\n\n")
                .map(|i| (i, i + 2))
        });
    let Some((head_end, body_start)) = split else {
        return (StatusCode::BAD_GATEWAY, "malformed CGI output\n").into_response();
    };
    let mut status = StatusCode::OK;
    let mut builder = Response::builder();
    for line in String::from_utf8_lossy(&out[..head_end]).lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("status") {
            let code = value.split_whitespace().next().unwrap_or("200");
            status = code
                .parse::<u16>()
                .ok()
                .and_then(|c| StatusCode::from_u16(c).ok())
                .unwrap_or(StatusCode::BAD_GATEWAY);
        } else {
            builder = builder.header(name.trim(), value);
        }
    }
    builder
        .status(status)
        .body(Body::from(out[body_start..].to_vec()))
        .unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response())
}
