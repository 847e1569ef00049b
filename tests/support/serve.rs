//! `kotef serve` as a process: a free port to give it, its address read from its log, and
//! waiting until it answers `/healthz`.

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
