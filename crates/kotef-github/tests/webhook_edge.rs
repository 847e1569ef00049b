//! Bad input at the webhook edge, against the running server: signatures, malformed JSON,
//! oversized bodies, unknown events, ping, permissions, kotef's own comments; plus health and
//! metrics.

mod common;

use common::{Harness, REPO, SECRET};
use kotef_testkit::{FakeBehavior, FakeExecutor};
use std::sync::Arc;

async fn harness() -> (Harness, Arc<FakeExecutor>) {
    let mut h = Harness::new().await;
    let exec = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    h.start(exec.clone()).await;
    (h, exec)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signatures_are_checked_before_anything_else() {
    let (h, exec) = harness().await;
    let body = kotef_testkit::issues_labeled(REPO, 1, "t", "b", "kotef", "alice");
    let url = h.url("/webhook");
    // Missing signature.
    let r = h
        .client
        .post(&url)
        .header("x-github-event", "issues")
        .header("x-github-delivery", "x1")
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(r.text().await.unwrap(), "", "no detail");
    // Wrong secret.
    let r = kotef_testkit::send_webhook(&h.client, &url, "not-the-secret", "issues", "x2", &body)
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // Tampered body.
    let r = h
        .client
        .post(&url)
        .header("x-github-event", "issues")
        .header("x-github-delivery", "x3")
        .header(
            "x-hub-signature-256",
            kotef_github::inbound::signature::sign(SECRET, b"{}"),
        )
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // Garbage is refused with 401 too, before any parsing.
    let r = kotef_testkit::send_webhook(&h.client, &url, "nope", "issues", "x4", b"{not json")
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // The older of two rotated secrets still works.
    let r = kotef_testkit::send_webhook(
        &h.client,
        &url,
        "an-old-secret",
        "ping",
        "x5",
        b"{\"zen\":\"z\"}",
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), "pong");
    assert_eq!(exec.calls(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_payloads_get_400_naming_the_field() {
    let (h, _) = harness().await;
    let r = h.send("issues", "m1", b"{not json").await;
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("invalid issues payload"));
    let body = br#"{"action":"labeled","issue":{"number":"seven","title":"t"},"label":{"name":"kotef"},"repository":{"full_name":"acme/widgets"},"sender":{"login":"alice","id":1}}"#;
    let r = h.send("issues", "m2", body).await;
    assert_eq!(r.status(), 400);
    let text = r.text().await.unwrap();
    assert!(text.contains("issue.number"), "{text}");
    // A missing event header is a 400 too (after the signature).
    let r = h
        .client
        .post(h.url("/webhook"))
        .header("x-github-delivery", "m3")
        .header(
            "x-hub-signature-256",
            kotef_github::inbound::signature::sign(SECRET, b"{}"),
        )
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
}

/// Sends a 30 MB body over a raw socket (with a Content-Length, or chunked) and returns the
/// status line; the server may answer and close before the body is through, which a normal
/// client reports as a broken pipe.
async fn post_30_mb(addr: std::net::SocketAddr, chunked: bool) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    const MB: usize = 1024 * 1024;
    let mut sock = tokio::net::TcpStream::connect(addr).await.unwrap();
    let length = if chunked {
        "transfer-encoding: chunked".to_string()
    } else {
        format!("content-length: {}", 30 * MB)
    };
    let head = format!(
        "POST /webhook HTTP/1.1\r\nhost: {addr}\r\nx-github-event: issues\r\nx-github-delivery: big\r\nx-hub-signature-256: sha256=00\r\n{length}\r\n\r\n"
    );
    sock.write_all(head.as_bytes()).await.unwrap();
    let chunk = vec![b' '; MB];
    for _ in 0..30 {
        let frame = if chunked {
            [
                format!("{:x}\r\n", MB).into_bytes(),
                chunk.clone(),
                b"\r\n".to_vec(),
            ]
            .concat()
        } else {
            chunk.clone()
        };
        if sock.write_all(&frame).await.is_err() {
            break; // the server already answered and closed
        }
    }
    if chunked {
        let _ = sock.write_all(b"0\r\n\r\n").await;
    }
    let mut answer = vec![0u8; 256];
    let n = sock.read(&mut answer).await.unwrap_or(0);
    String::from_utf8_lossy(&answer[..n])
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_30_mb_body_is_413() {
    let (h, exec) = harness().await;
    let addr = h.server.as_ref().unwrap().addr();
    assert!(post_30_mb(addr, false).await.starts_with("HTTP/1.1 413"));
    assert!(post_30_mb(addr, true).await.starts_with("HTTP/1.1 413"));
    assert_eq!(exec.calls(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_events_are_ignored_with_2xx() {
    let (h, exec) = harness().await;
    let r = h.send("star", "u1", br#"{"action":"created"}"#).await;
    assert!(r.status().is_success());
    assert!(r.text().await.unwrap().starts_with("ignored"));
    assert_eq!(exec.calls(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_label_without_a_repository_trigger_label_starts_no_run() {
    let (h, exec) = harness().await;
    let n = h.gh.add_issue(REPO, "t", "b");
    let body = kotef_testkit::issues_labeled(REPO, n, "t", "b", "bug", "alice");
    assert!(h.send("issues", "u2", &body).await.status().is_success());
    assert!(h.wait_jobs_done().await);
    assert_eq!((exec.calls(), h.gh.kotef_comments(REPO, n).len()), (0, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_label_by_a_read_only_user_starts_no_run() {
    let (h, exec) = harness().await;
    let (n, r) = h.label_issue("ro", "rita").await;
    assert_eq!(
        r.status(),
        202,
        "accepted, then the permission check refuses"
    );
    assert!(h.wait_jobs_done().await);
    assert_eq!(exec.calls(), 0);
    let replies = h.gh.kotef_comments(REPO, n);
    assert_eq!(replies.len(), 1, "one reply saying why");
    assert!(replies[0]
        .body
        .starts_with(kotef_github::outbound::render::REFUSED_MARKER));
    assert!(kotef_testkit::git_output(
        &h.bare,
        &["rev-parse", "--verify", &format!("kotef/issue-{n}")]
    )
    .is_none());
    // A stranger with no access at all.
    let (_, r) = h.label_issue("stranger", "mallory").await;
    assert_eq!(r.status(), 202);
    assert!(h.wait_jobs_done().await);
    assert_eq!(exec.calls(), 0);
    let rows = h.server.as_ref().unwrap().store().all_rows().await.unwrap();
    assert!(
        rows.iter()
            .all(|r| r.result.as_deref().unwrap_or("").starts_with("ignored")),
        "{rows:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kotef_own_comment_and_bots_start_no_run() {
    let (h, exec) = harness().await;
    let n = h.gh.add_issue(REPO, "t", "b");
    // kotef's login (learned from GET /user) writing `/kotef run`.
    let (id, at) =
        h.gh.add_comment(REPO, n, kotef_testkit::FAKE_BOT_LOGIN, "/kotef run");
    let body = kotef_testkit::issue_comment_created(
        REPO,
        n,
        false,
        id,
        at,
        "/kotef run",
        kotef_testkit::FAKE_BOT_LOGIN,
    );
    let r = h.send("issue_comment", "own", &body).await;
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("own"));
    // A bot account.
    let body = kotef_testkit::issue_comment_created(
        REPO,
        n,
        false,
        id + 1,
        at,
        "/kotef run",
        "dependabot[bot]",
    );
    let r = h.send("issue_comment", "bot", &body).await;
    assert_eq!(r.status(), 200);
    assert_eq!(exec.calls(), 0);
    assert!(h
        .server
        .as_ref()
        .unwrap()
        .store()
        .all_rows()
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_metrics() {
    let (h, _) = harness().await;
    let r = h.client.get(h.url("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let (n, _) = h.label_issue("met", "alice").await;
    h.gh.wait_final_comment(REPO, n, common::WAIT)
        .await
        .expect("final comment");
    let _ = h.send("star", "met2", b"{}").await;
    assert!(h.wait_jobs_done().await);
    let text = h
        .client
        .get(h.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains("kotef_webhook_deliveries_total{event=\"issues\",result=\"accepted\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("kotef_webhook_deliveries_total{event=\"star\",result=\"ignored\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("kotef_runs_total{status=\"done_success\"} 1"),
        "{text}"
    );
    assert!(text.contains("kotef_queue_depth 0"));
    assert!(text.contains("kotef_run_duration_seconds_count 1"));
    assert!(text.contains("kotef_tokens_total{kind=\"prompt\"} 1000"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_refused_trigger_within_the_hour_gets_no_second_reply() {
    let (h, exec) = harness().await;
    let (n, _) = h.label_issue("ro-a", "rita").await;
    assert!(h.wait_jobs_done().await);
    let again = kotef_testkit::issues_labeled(
        REPO,
        n,
        "Add a greeting",
        "Please add hello.txt",
        "kotef",
        "rita",
    );
    assert_eq!(h.send("issues", "ro-b", &again).await.status(), 202);
    assert!(h.wait_jobs_done().await);
    assert_eq!(exec.calls(), 0);
    assert_eq!(h.gh.kotef_comments(REPO, n).len(), 1);
}
