use super::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn ask(proxy: &EgressProxy, request: &str) -> String {
    let mut s = UnixStream::connect(proxy.socket()).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

/// A one-shot HTTP server on loopback answering `hello`; returns its port.
async fn origin() -> u16 {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let n = s.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).into_owned();
                let body = format!("hello {}", head.lines().next().unwrap_or(""));
                let _ = s
                    .write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                            body.len()
                        )
                        .as_bytes(),
                    )
                    .await;
            });
        }
    });
    port
}

#[tokio::test]
async fn loopback_is_refused_by_default_and_the_refusal_is_remembered() {
    let port = origin().await;
    let proxy = EgressProxy::start(EgressPolicy::default()).unwrap();
    let r = ask(
        &proxy,
        &format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n"),
    )
    .await;
    assert!(r.starts_with("HTTP/1.1 403"), "{r}");
    assert_eq!(
        proxy.refusals(),
        [format!("127.0.0.1:{port}: 127.0.0.1 is loopback")]
    );
}

#[tokio::test]
async fn a_host_resolving_to_loopback_is_refused_too() {
    let port = origin().await;
    let proxy = EgressProxy::start(EgressPolicy::default()).unwrap();
    let r = ask(
        &proxy,
        &format!("GET http://localhost:{port}/x HTTP/1.1\r\nHost: localhost\r\n\r\n"),
    )
    .await;
    assert!(r.starts_with("HTTP/1.1 403"), "{r}");
}

#[tokio::test]
async fn a_host_the_operator_names_is_reached_in_origin_form() {
    let port = origin().await;
    let policy = EgressPolicy::parse(&format!("127.0.0.1:{port}")).unwrap();
    let proxy = EgressProxy::start(policy).unwrap();
    let r = ask(
        &proxy,
        &format!("GET http://127.0.0.1:{port}/simple/ HTTP/1.1\r\nHost: x\r\nProxy-Connection: keep-alive\r\n\r\n"),
    )
    .await;
    assert!(r.ends_with("hello GET /simple/ HTTP/1.1"), "{r}");
}

#[tokio::test]
async fn connect_tunnels_to_a_named_host() {
    let port = origin().await;
    let policy = EgressPolicy::parse(&format!("127.0.0.1:{port}")).unwrap();
    let proxy = EgressProxy::start(policy).unwrap();
    let r = ask(
        &proxy,
        &format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\nGET /t HTTP/1.1\r\n\r\n"),
    )
    .await;
    assert!(r.starts_with("HTTP/1.1 200 Connection established"), "{r}");
    assert!(r.ends_with("hello GET /t HTTP/1.1"), "{r}");
}

#[tokio::test]
async fn a_request_that_is_not_a_proxy_request_gets_400() {
    let proxy = EgressProxy::start(EgressPolicy::default()).unwrap();
    let r = ask(&proxy, "GET /local HTTP/1.1\r\n\r\n").await;
    assert!(r.starts_with("HTTP/1.1 400"), "{r}");
}

#[test]
fn request_lines_parse_with_default_ports() {
    let c = Request::parse(b"CONNECT pypi.org HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!(
        (c.host.as_str(), c.port, c.connect),
        ("pypi.org", 443, true)
    );
    let g = Request::parse(b"GET http://[::1]:8080/a?b HTTP/1.0\r\n\r\n").unwrap();
    assert_eq!(
        (g.host.as_str(), g.port, g.path.as_str()),
        ("[::1]", 8080, "/a?b")
    );
    assert!(Request::parse(b"GET http://user@host/ HTTP/1.1\r\n\r\n").is_none());
}
