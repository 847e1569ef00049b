//! Drives signed `issues.labeled` deliveries at a running kotef server over loopback and prints
//! acknowledgement throughput and p50/p99 latency, then the time from a delivery to the first
//! (and the final) comment on the fake GitHub. Figures only; nothing is asserted.
//!
//! `cargo bench -p kotef-github --bench webhook` (env `BENCH_DELIVERIES`, `BENCH_CONCURRENCY`,
//! `BENCH_RUNS` change the sizes).

use kotef_testkit::{FakeBehavior, FakeExecutor, FakeGitHub};
use std::sync::Arc;
use std::time::{Duration, Instant};

const SECRET: &str = "bench-secret";
const REPO: &str = "bench/repo";

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> anyhow::Result<()> {
    let deliveries = env_usize("BENCH_DELIVERIES", 1000);
    let concurrency = env_usize("BENCH_CONCURRENCY", 16).max(1);
    let runs = env_usize("BENCH_RUNS", 20);

    let gh = FakeGitHub::start().await;
    gh.add_repo(REPO, "main");
    gh.set_permission(REPO, "maintainer", "admin");
    gh.set_permission(REPO, "reader", "read");
    let git_root = tempfile::tempdir()?;
    kotef_testkit::init_bare_repo(git_root.path(), REPO, &[("README.md", "bench\n")]);
    let data = tempfile::tempdir()?;
    let mut cfg = gh.serve_config(&[SECRET], git_root.path(), data.path());
    cfg.progress_interval = Duration::from_millis(100);
    cfg.poll_interval = Duration::from_millis(100);
    // Every delivery here is a trigger the bench wants stored: room for all of them.
    cfg.max_queued_per_installation = deliveries.max(1);
    let exec = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    let server = kotef_github::start(cfg, exec.clone()).await?;
    let url = format!("http://{}/webhook", server.addr());
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency)
        .build()?;

    // 1. Acknowledgement: every delivery is verified, decided and stored durably before its
    // 202. The sender is read-only, so workers drop the jobs after the permission check and
    // the numbers measure the edge, not the agent.
    let bodies: Vec<Vec<u8>> = (0..deliveries)
        .map(|i| {
            let n = gh.add_issue(REPO, "bench", "bench");
            let _ = i;
            kotef_testkit::issues_labeled(REPO, n, "Bench issue", "body", "kotef", "reader")
        })
        .collect();
    let bodies = Arc::new(bodies);
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let (client, url, bodies, next) =
            (client.clone(), url.clone(), bodies.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            let mut non_2xx = 0usize;
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= bodies.len() {
                    break;
                }
                let t = Instant::now();
                let r = kotef_testkit::send_webhook(
                    &client,
                    &url,
                    SECRET,
                    "issues",
                    &format!("bench-{i}"),
                    &bodies[i],
                )
                .await;
                lat.push(t.elapsed());
                if !r.map(|r| r.status().is_success()).unwrap_or(false) {
                    non_2xx += 1;
                }
            }
            (lat, non_2xx)
        }));
    }
    let mut lat = Vec::new();
    let mut failures = 0;
    for t in tasks {
        let (l, f) = t.await?;
        lat.extend(l);
        failures += f;
    }
    let wall = started.elapsed();
    lat.sort();
    println!("== webhook acknowledgement ({deliveries} signed issues.labeled deliveries, {concurrency} concurrent clients, loopback)");
    println!(
        "throughput: {:.0} deliveries/s (wall {:.2} s)",
        deliveries as f64 / wall.as_secs_f64(),
        wall.as_secs_f64()
    );
    println!(
        "ack latency: p50 {}  p90 {}  p99 {}  max {}",
        ms(percentile(&lat, 0.5)),
        ms(percentile(&lat, 0.9)),
        ms(percentile(&lat, 0.99)),
        ms(*lat.last().unwrap_or(&Duration::ZERO))
    );
    println!("non-2xx answers: {failures}");

    // Let the workers drain the queue before timing real runs.
    let drain = Instant::now();
    while server.store().queue_depth().await? > 0 || server.store().running().await? > 0 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!(
        "queue drained (permission-refused jobs) in {:.2} s",
        drain.elapsed().as_secs_f64()
    );

    // 2. Real runs, one at a time: delivery → 👀 + first (status) comment, and → final comment
    // (clone, fake executor, commit, push, draft PR, final edit).
    let mut first = Vec::new();
    let mut fin = Vec::new();
    for i in 0..runs {
        let n = gh.add_issue(REPO, "Run", "run");
        let body = kotef_testkit::issues_labeled(REPO, n, "Run", "run", "kotef", "maintainer");
        let t = Instant::now();
        let r = kotef_testkit::send_webhook(
            &client,
            &url,
            SECRET,
            "issues",
            &format!("run-{i}"),
            &body,
        )
        .await?;
        anyhow::ensure!(
            r.status().as_u16() == 202,
            "run delivery answered {}",
            r.status()
        );
        gh.wait_until(Duration::from_secs(30), |g| {
            !g.kotef_comments(REPO, n).is_empty()
        })
        .await;
        first.push(t.elapsed());
        gh.wait_final_comment(REPO, n, Duration::from_secs(60))
            .await;
        fin.push(t.elapsed());
    }
    first.sort();
    fin.sort();
    println!("== delivery to comment ({runs} sequential runs, fake executor, file:// bare repo)");
    println!(
        "first comment: p50 {}  p99 {}",
        ms(percentile(&first, 0.5)),
        ms(percentile(&first, 0.99))
    );
    println!(
        "final comment: p50 {}  p99 {}",
        ms(percentile(&fin, 0.5)),
        ms(percentile(&fin, 0.99))
    );
    println!("executor calls: {}", exec.calls());
    server.shutdown().await;
    Ok(())
}
