//! `kotef serve` started the way people write its environment: `KOTEF_ALLOW_UNSANDBOXED=1`
//! starts the server (it used to stop at "invalid value '1'"), and a word that is no boolean
//! is refused with the flag's name.

mod support;

use std::process::Stdio;
use support::serve::{free_port, wait_healthy};

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
    let healthy = wait_healthy(&mut child, &format!("http://127.0.0.1:{port}/healthz")).await;
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

/// Row 9 (SECURITY.md): a secret file's path given as a flag is visible to every process in
/// the world-readable `/proc/<pid>/cmdline` (`environ` is guarded, `cmdline` is not). Once
/// read, kotef blanks it there.
#[tokio::test]
async fn secret_file_paths_leave_the_servers_command_line() {
    let data = tempfile::tempdir().unwrap();
    let secrets = tempfile::tempdir().unwrap();
    let secret = secrets.path().join("webhook-secret-row9");
    let token = secrets.path().join("github-token-row9");
    std::fs::write(&secret, "row9-webhook-secret").unwrap();
    std::fs::write(&token, "ghp_row9_fake_token").unwrap();
    let port = free_port();
    let mut cmd = serve("1", port, data.path());
    cmd.env_remove("KOTEF_WEBHOOK_SECRET")
        .env_remove("KOTEF_GITHUB_TOKEN")
        .arg("--webhook-secret-file")
        .arg(&secret)
        .arg(format!("--github-token-file={}", token.display()));
    let mut child = cmd.spawn().unwrap();
    let pid = child.id().unwrap();
    let healthy = wait_healthy(&mut child, &format!("http://127.0.0.1:{port}/healthz")).await;
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    let _ = child.kill().await;
    let out = child.wait_with_output().await.unwrap();
    assert!(healthy, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(cmdline.contains("--listen"), "{cmdline}");
    assert!(
        !cmdline.contains("row9"),
        "a secret file's path is visible: {cmdline}"
    );
}
