//! `kotef serve` as a process: a free port to give it, its address read from its log, and
//! waiting until it answers `/healthz`.

use std::path::Path;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

/// A loopback port free a moment ago.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `kotef serve --executor actions` on a port of its choosing, against the fake GitHub whose
/// API is at `api_url`, with `data` as its home and `secret` as its webhook secret: nothing of
/// the test's own environment but `PATH`, its log piped on stderr. Spawn it and read
/// [`listening_addr`].
pub fn actions_executor(api_url: &str, data: &Path, secret: &str) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_kotef"));
    cmd.args(["serve", "--executor", "actions", "--listen", "127.0.0.1:0"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", data)
        .env("KOTEF_LOG", "info")
        .env("KOTEF_WEBHOOK_SECRET", secret)
        .env("KOTEF_GITHUB_TOKEN", kotef_testkit::FAKE_TOKEN)
        .env("KOTEF_GITHUB_API_URL", api_url)
        .env("KOTEF_GIT_BASE_URL", "https://github.test")
        .env("KOTEF_DATA_DIR", data.join("state"))
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true);
    cmd
}

/// The address in the server's "kotef listening" log line (its stderr, piped), once `check`
/// has seen that line; the rest of the log is drained so the server never blocks on a full
/// pipe.
pub async fn listening_addr(child: &mut tokio::process::Child, check: impl Fn(&str)) -> String {
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.contains("kotef listening") {
                check(&line);
                return line
                    .split_whitespace()
                    .find_map(|w| w.strip_prefix("addr="))
                    .expect("addr in the log line")
                    .to_string();
            }
        }
        panic!("the server exited before listening")
    })
    .await
    .expect("the server started");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    addr
}

/// Whether the server answers `url` with a success within ten seconds, before it exits.
pub async fn wait_healthy(child: &mut tokio::process::Child, url: &str) -> bool {
    let client = reqwest::Client::new();
    for _ in 0..200 {
        if client
            .get(url)
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}
