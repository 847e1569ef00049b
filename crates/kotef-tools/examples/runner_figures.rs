//! Prints runner figures on this machine: per-command overhead with and without bwrap, the time
//! a 300 ms timeout really takes, and the time to push 50 MB through the output cap.
//!
//!     cargo run -p kotef-tools --example runner_figures --release

use kotef_core::SandboxMode;
use kotef_tools::{CommandRunner, RunnerConfig};
use std::time::{Duration, Instant};

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    for mode in [SandboxMode::None, SandboxMode::Bwrap] {
        let r = CommandRunner::new(RunnerConfig {
            sandbox: mode,
            ..RunnerConfig::default()
        });
        if mode == SandboxMode::Bwrap && r.sandbox_in_force() != "bwrap" {
            println!("bwrap: not available ({:?})", kotef_tools::bwrap_status());
            continue;
        }
        let _ = r.run("true", dir.path()).await; // warm-up (and the one-time probe)
        let n = 20;
        let mut times = Vec::with_capacity(n);
        for _ in 0..n {
            let start = Instant::now();
            let out = r.run("true", dir.path()).await;
            times.push(start.elapsed());
            assert!(out.success(), "{out:?}");
        }
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{:?}: `true` takes {:.1} ms per command (median of {n}; slowest {:.1} ms)",
            mode,
            ms(times[n / 2]),
            ms(times[n - 1])
        );
        let t = CommandRunner::new(RunnerConfig {
            sandbox: mode,
            timeout: Duration::from_millis(300),
            ..RunnerConfig::default()
        });
        let start = Instant::now();
        let out = t.run("sleep 30 & sleep 30", dir.path()).await;
        println!(
            "{:?}: 300 ms timeout on `sleep 30 & sleep 30` returned after {} ms (timed_out={})",
            mode,
            start.elapsed().as_millis(),
            out.timed_out
        );
        let start = Instant::now();
        let out = r
            .run("head -c 50000000 /dev/zero | tr '\\0' a", dir.path())
            .await;
        println!(
            "{:?}: 50 MB of output capped to {} bytes in {} ms",
            mode,
            out.stdout.len(),
            start.elapsed().as_millis()
        );
    }
}
