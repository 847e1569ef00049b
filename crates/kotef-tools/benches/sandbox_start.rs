//! What starting one sandboxed command costs: runs `true` through the real [`CommandRunner`]
//! with bubblewrap (and, for reference, without) and prints the median and the slowest of N
//! runs. `cargo bench -p kotef-tools --bench sandbox_start [-- N]` (default 20).

use kotef_core::SandboxMode;
use kotef_tools::runner::{CommandRunner, RunnerConfig};
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> (Duration, Duration) {
    v.sort();
    (v[v.len() / 2], v[v.len() - 1])
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(20)
        .max(1);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let dir = tempfile::tempdir().expect("a temp dir");
    for (name, sandbox) in [("bwrap", SandboxMode::Bwrap), ("none", SandboxMode::None)] {
        let runner = CommandRunner::new(RunnerConfig {
            sandbox,
            ..RunnerConfig::default()
        });
        let mut times = Vec::with_capacity(n);
        let mut failed = 0;
        for _ in 0..n {
            let start = Instant::now();
            let r = rt.block_on(runner.run("true", dir.path()));
            times.push(start.elapsed());
            failed += usize::from(!r.success());
        }
        let (med, max) = median(times);
        println!(
            "sandbox {name}: `true` x{n}: median {:.1} ms, slowest {:.1} ms, {failed} failed",
            med.as_secs_f64() * 1e3,
            max.as_secs_f64() * 1e3
        );
    }
}
