//! The command runner against real processes: output, exit codes, timeouts that kill the whole
//! process group, grandchildren holding pipes, output caps, environment scrubbing.

use kotef_core::SandboxMode;
use kotef_tools::{classify_failure, CommandRunner, FailureKind, RunnerConfig};
use std::time::{Duration, Instant};

fn runner(timeout_ms: u64) -> CommandRunner {
    CommandRunner::new(RunnerConfig {
        timeout: Duration::from_millis(timeout_ms),
        sandbox: SandboxMode::None,
        ..RunnerConfig::default()
    })
}

#[test]
fn defaults_are_the_contract() {
    let d = RunnerConfig::default();
    assert_eq!(d.timeout, Duration::from_secs(600));
    assert_eq!(d.output_cap_bytes, 64 * 1024);
    assert_eq!(d.sandbox, SandboxMode::Auto);
    assert!(d.extra_env.is_empty());
}

#[tokio::test]
async fn captures_output_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let r = runner(10_000)
        .run("echo out; echo err >&2; pwd; exit 3", dir.path())
        .await;
    assert_eq!(r.exit_code, Some(3));
    assert!(!r.success());
    assert!(r.stdout.starts_with("out\n"), "{r:?}");
    let canon = std::fs::canonicalize(dir.path()).unwrap();
    assert!(r.stdout.contains(canon.to_str().unwrap()), "{r:?}");
    assert_eq!(r.stderr, "err\n");
    assert!(!r.timed_out && !r.truncated && r.spawn_error.is_none());
    let ok = runner(10_000).run("true", dir.path()).await;
    assert!(ok.success(), "{ok:?}");
}

#[tokio::test]
async fn missing_cwd_is_a_spawn_error() {
    let dir = tempfile::tempdir().unwrap();
    let r = runner(10_000).run("true", &dir.path().join("nope")).await;
    assert!(r.spawn_error.is_some(), "{r:?}");
    assert_eq!(r.exit_code, None);
    assert_eq!(classify_failure(&r), FailureKind::ToolingError);
}

#[tokio::test]
async fn unknown_command_is_tooling_error() {
    let dir = tempfile::tempdir().unwrap();
    let r = runner(10_000)
        .run("kotef-no-such-binary --x", dir.path())
        .await;
    assert_eq!(r.exit_code, Some(127));
    assert_eq!(classify_failure(&r), FailureKind::ToolingError);
}

#[tokio::test]
async fn timeout_kills_promptly() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let r = runner(300).run("sleep 30", dir.path()).await;
    let took = start.elapsed();
    assert!(r.timed_out, "{r:?}");
    assert_eq!(r.exit_code, None);
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(r.duration_ms >= 300, "{r:?}");
    assert_eq!(classify_failure(&r), FailureKind::ToolingError);
}

#[tokio::test]
async fn timeout_kills_background_grandchildren_too() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("survived");
    let cmd = format!(
        "(sleep 1; touch {}) & sleep 30 & sleep 30",
        marker.display()
    );
    let start = Instant::now();
    let r = runner(300).run(&cmd, dir.path()).await;
    assert!(r.timed_out);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    // The whole group died: the delayed grandchild never gets to write its marker.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(!marker.exists(), "a grandchild survived the group kill");
}

#[tokio::test]
async fn background_child_holding_stdout_does_not_hang() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let r = runner(60_000)
        .run("sleep 30 & echo started", dir.path())
        .await;
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(r.exit_code, Some(0));
    assert_eq!(r.stdout, "started\n");
}

#[tokio::test]
async fn escaped_grandchild_holding_the_pipe_is_abandoned() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    // `setsid` leaves our process group, so only the bounded drain saves us.
    let r = runner(60_000)
        .run(
            "setsid sh -c 'touch ready; exec sleep 8' & \
             while [ ! -e ready ]; do sleep 0.01; done; echo started",
            dir.path(),
        )
        .await;
    let took = start.elapsed();
    assert!(took < Duration::from_secs(6), "took {took:?}");
    assert_eq!(r.exit_code, Some(0));
    assert!(r.stdout.starts_with("started\n"), "{r:?}");
    // Without a cgroup the drain is abandoned (cut output); with one, the escaped process is
    // killed with its command's group and the pipe closes by itself.
    let sleeping = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c.starts_with(b"sleep\x008\x00"))
        })
        .count();
    assert!(r.truncated || sleeping == 0, "{r:?}");
}

#[tokio::test]
async fn huge_output_is_capped_head_and_tail() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let r = runner(60_000)
        .run(
            "printf START; head -c 50000000 /dev/zero | tr '\\0' a; printf END",
            dir.path(),
        )
        .await;
    let took = start.elapsed();
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert_eq!(r.exit_code, Some(0));
    assert!(r.truncated);
    assert!(r.stdout.starts_with("STARTaaa"));
    assert!(r.stdout.ends_with("aaaEND"));
    let cut = 50_000_000 + 8 - 64 * 1024;
    assert!(
        r.stdout.contains(&format!("[... {cut} bytes cut ...]")),
        "{}",
        &r.stdout[32 * 1024 - 10..32 * 1024 + 40]
    );
    assert!(r.stdout.len() < 64 * 1024 + 100);
    eprintln!("50 MB through the runner took {took:?}");
}

#[tokio::test]
async fn environment_is_scrubbed() {
    let dir = tempfile::tempdir().unwrap();
    let parent = vec![
        (
            "PATH".to_string(),
            std::env::var("PATH").unwrap_or_default(),
        ),
        ("HOME".to_string(), "/home/kotef".to_string()),
        (
            "KOTEF_TEST_SECRET_TOKEN".to_string(),
            "tok-123456789".to_string(),
        ),
        ("OPENAI_API_KEY".to_string(), "sk-abcdefghijkl".to_string()),
        ("GITHUB_TOKEN".to_string(), "ghp_zzzzzzzzzz".to_string()),
        (
            "KOTEF_WEBHOOK_SECRET".to_string(),
            "whsec-9876543".to_string(),
        ),
        ("SOME_OTHER".to_string(), "other-value".to_string()),
    ];
    let r = CommandRunner::new(RunnerConfig {
        sandbox: SandboxMode::None,
        extra_env: vec![
            ("CI".to_string(), "true".to_string()),
            ("EXTRA_API_KEY".to_string(), "sk-extra-secret".to_string()),
        ],
        ..RunnerConfig::default()
    })
    .with_parent_env(parent);
    let out = r.run("env", dir.path()).await;
    assert!(out.success(), "{out:?}");
    for bad in [
        "KOTEF_TEST_SECRET_TOKEN",
        "tok-123456789",
        "OPENAI_API_KEY",
        "sk-abcdefghijkl",
        "GITHUB_TOKEN",
        "ghp_zzzzzzzzzz",
        "KOTEF_WEBHOOK_SECRET",
        "whsec-9876543",
        "SOME_OTHER",
        "sk-extra-secret",
    ] {
        assert!(!out.stdout.contains(bad), "{bad} leaked:\n{}", out.stdout);
    }
    assert!(out.stdout.contains("HOME=/home/kotef"), "{}", out.stdout);
    assert!(out.stdout.contains("CI=true"), "{}", out.stdout);
    assert!(out.stdout.contains("PATH="), "{}", out.stdout);
}
