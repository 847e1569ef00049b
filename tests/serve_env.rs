//! `kotef serve` started the way people write its environment: `KOTEF_ALLOW_UNSANDBOXED=1`
//! starts the server (it used to stop at "invalid value '1'"), and a word that is no boolean
//! is refused with the flag's name.

use std::process::Stdio;
use std::time::Duration;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn serve(allow: &str, port: u16, data: &std::path::Path) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_kotef"));
    cmd.args([
        "serve",
        "--listen",
        &format!("127.0.0.1:{port}"),
        "--data-dir",
    ])
    .arg(data)
    .env_clear()
    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
    .env("KOTEF_ALLOW_UNSANDBOXED", allow)
    .env("KOTEF_WEBHOOK_SECRET", "serve-env-secret")
    .env("KOTEF_GITHUB_TOKEN", "ghp_serve_env_fake_token")
    .env("KOTEF_BOT_LOGIN", "kotef-bot")
    .env("KOTEF_GITHUB_API_URL", "http://127.0.0.1:9")
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .kill_on_drop(true);
    cmd
}

#[tokio::test]
async fn allow_unsandboxed_1_starts_the_server() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut child = serve("1", port, data.path()).spawn().unwrap();
    let client = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{port}/healthz");
    let mut healthy = false;
    for _ in 0..200 {
        if client
            .get(&url)
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            healthy = true;
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = child.kill().await;
    let out = child.wait_with_output().await.unwrap();
    assert!(healthy, "{}", String::from_utf8_lossy(&out.stderr));
}

#[tokio::test]
async fn a_word_that_is_no_boolean_is_refused_naming_the_flag() {
    let data = tempfile::tempdir().unwrap();
    let out = serve("maybe", free_port(), data.path())
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--allow-unsandboxed") && err.contains("maybe"),
        "{err}"
    );
}
