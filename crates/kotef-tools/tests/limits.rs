//! Resource limits with real processes in the real sandbox: a fork bomb, a 10 GB write, many
//! files and a memory hog each end that command with the limit named, and leave nothing
//! running; an ordinary command is untouched. Limits are set low so the tests stay fast.

use kotef_core::SandboxMode;
use kotef_tools::{CommandLimits, CommandResult, CommandRunner, RunnerConfig};
use std::path::Path;
use std::time::Duration;

const MIB: u64 = 1 << 20;

fn limits() -> CommandLimits {
    CommandLimits {
        memory_bytes: 256 * MIB,
        processes: 64,
        file_bytes: 32 * MIB,
        disk_bytes: 128 * MIB,
    }
}

async fn run(command: &str, dir: &Path) -> CommandResult {
    let r = CommandRunner::new(RunnerConfig {
        timeout: Duration::from_secs(120),
        sandbox: SandboxMode::Auto,
        limits: limits(),
        ..RunnerConfig::default()
    });
    r.run(command, dir).await
}

/// Processes whose command line holds `marker`.
fn running(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
        })
        .count()
}

/// Bytes of the regular files directly in `dir`.
fn written(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

#[tokio::test]
async fn a_fork_bomb_ends_with_the_process_limit_named() {
    let dir = tempfile::tempdir().unwrap();
    let r = run("bomb_kx7(){ bomb_kx7 | bomb_kx7; }; bomb_kx7", dir.path()).await;
    assert_eq!(r.limit.as_deref(), Some("processes"), "{r:?}");
    assert!(!r.timed_out && !r.success());
}

#[tokio::test]
async fn a_fork_bomb_leaves_nothing_running() {
    let dir = tempfile::tempdir().unwrap();
    let _ = run("bomb_q2z(){ bomb_q2z | bomb_q2z; }; bomb_q2z", dir.path()).await;
    assert_eq!(running("bomb_q2z"), 0);
}

#[tokio::test]
async fn a_10_gb_write_stops_at_the_file_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    let r = run("head -c 10G /dev/zero > big", dir.path()).await;
    assert_eq!(r.limit.as_deref(), Some("file_size"), "{r:?}");
    assert!(written(dir.path()) <= limits().file_bytes);
}

#[tokio::test]
async fn many_files_stop_at_the_disk_limit() {
    let dir = tempfile::tempdir().unwrap();
    let cmd = "for i in $(seq 1 64); do head -c 30M /dev/zero > f$i; done";
    let r = run(cmd, dir.path()).await;
    assert_eq!(r.limit.as_deref(), Some("disk"), "{r:?}");
    assert!(
        written(dir.path()) < 64 * 30 * MIB,
        "stopped before the end"
    );
}

#[tokio::test]
async fn a_memory_hog_fails_and_a_cgroup_names_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(
        "python3 -c \"x = b'x' * (2 * 1024 ** 3); print(len(x))\"",
        dir.path(),
    )
    .await;
    assert!(!r.success(), "{r:?}");
    // With a cgroup the OOM kill is named; with rlimits the allocation fails (MemoryError).
    assert!(
        r.limit.as_deref() == Some("memory") || r.stderr.contains("MemoryError"),
        "{r:?}"
    );
}

#[tokio::test]
async fn an_ordinary_command_is_untouched_by_the_limits() {
    let dir = tempfile::tempdir().unwrap();
    let r = run("echo ok && head -c 1M /dev/zero > small", dir.path()).await;
    assert!(r.success() && r.limit.is_none(), "{r:?}");
}

/// Red-team row 6: files whose mtime is set back (`touch -d 2001-01-01`) still count, and so
/// does what an earlier command of the same job left (the quota is the job's). `fallocate`
/// allocates the blocks without writing them, so the test stays fast.
#[tokio::test]
async fn old_mtimes_do_not_hide_writes_from_the_disk_cap() {
    let dir = tempfile::tempdir().unwrap();
    let cmd = "for i in 1 2 3 4 5; do fallocate -l 30M f$i && touch -d 2001-01-01 f$i; done";
    let r = run(cmd, dir.path()).await;
    assert_eq!(r.limit.as_deref(), Some("disk"), "{r:?}");
    assert!(
        r.limit_message().unwrap().contains("wrote more than"),
        "{r:?}"
    );
}

#[tokio::test]
async fn two_commands_of_one_job_share_the_disk_cap() {
    let dir = tempfile::tempdir().unwrap();
    let r = CommandRunner::new(RunnerConfig {
        timeout: Duration::from_secs(120),
        limits: limits(),
        ..RunnerConfig::default()
    });
    let first = r
        .run("for i in 1 2 3; do fallocate -l 30M a$i; done", dir.path())
        .await;
    assert!(first.success(), "{first:?}");
    let second = r
        .run("for i in 1 2 3; do fallocate -l 30M b$i; done", dir.path())
        .await;
    assert_eq!(second.limit.as_deref(), Some("disk"), "{second:?}");
}

/// `/tmp` on another file system than the work tree is counted too.
#[tokio::test]
async fn tmp_counts_toward_the_disk_cap() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(
        "for i in 1 2 3 4 5; do fallocate -l 30M /tmp/t$i && touch -d 2001-01-01 /tmp/t$i; done",
        dir.path(),
    )
    .await;
    assert_eq!(r.limit.as_deref(), Some("disk"), "{r:?}");
}
