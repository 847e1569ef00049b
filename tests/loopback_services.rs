//! `[test] network = "loopback"` through the real `kotef run` in bubblewrap: the tests reach
//! the services the job started on the machine's loopback, on the ports the repository names
//! (or that its variables' loopback URLs name), and nothing else: another loopback port is
//! not there, and without the setting no port is.

mod support;

use kotef_core::{RunSummary, TerminalStatus};
use serde_json::json;
use support::recording_model::RecordingModel;

/// A service on the host's loopback that answers `pong` to every connection; its port.
async fn service() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let _ = tokio::io::AsyncWriteExt::write_all(&mut s, b"pong").await;
            });
        }
    });
    port
}

/// A test command that passes when `127.0.0.1:port` answers `pong`.
fn ping(port: u16) -> String {
    format!(
        "python3 -c \"import socket; s = socket.create_connection(('127.0.0.1', {port}), timeout=5); assert s.recv(4) == b'pong'\""
    )
}

/// `kotef run` in bubblewrap on a repository whose `kotef.toml` is `config`; its summary.
async fn kotef_run(config: &str) -> RunSummary {
    assert!(
        kotef_tools::bwrap_status().is_ok(),
        "bubblewrap must work here (.ci/run installs it)"
    );
    let model = RecordingModel::start(json!({"next": "done", "reason": "stop"})).await;
    let dir = kotef_testkit::committed_repo(&[("kotef.toml", config)], &[]);
    model
        .kotef_run(dir.path(), "sk-loopback-test-0123456789")
        .goal("Make the check pass")
        .run()
        .await
        .summary()
}

fn config(test: &str, extra: &str) -> String {
    format!("sandbox = \"bwrap\"\ntest_command = {test:?}\n{extra}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tests_reach_a_listed_loopback_port() {
    let port = service().await;
    let extra = format!("[test]\nnetwork = \"loopback\"\nports = [{port}]\n");
    let summary = kotef_run(&config(&ping(port), &extra)).await;
    assert_eq!(
        summary.terminal_status,
        TerminalStatus::DoneSuccess,
        "{summary:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loopback_url_in_the_variables_names_its_port() {
    let port = service().await;
    let extra = format!(
        "[env]\nSERVICE_URL = \"tcp://localhost:{port}/x\"\n[test]\nnetwork = \"loopback\"\n"
    );
    let summary = kotef_run(&config(&ping(port), &extra)).await;
    assert_eq!(
        summary.terminal_status,
        TerminalStatus::DoneSuccess,
        "{summary:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loopback_port_not_listed_is_not_there() {
    let (listed, other) = (service().await, service().await);
    let extra = format!("[test]\nnetwork = \"loopback\"\nports = [{listed}]\n");
    let summary = kotef_run(&config(&ping(other), &extra)).await;
    assert_ne!(
        summary.terminal_status,
        TerminalStatus::DoneSuccess,
        "{summary:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_setting_no_loopback_port_is_there() {
    let port = service().await;
    let summary = kotef_run(&config(&ping(port), "")).await;
    assert_ne!(
        summary.terminal_status,
        TerminalStatus::DoneSuccess,
        "{summary:?}"
    );
}
