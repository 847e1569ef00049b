//! The red-team suite for the host side of a run (SECURITY.md, "The work tree is hostile"):
//! each test is one attack by a repository, driven through the real `kotef run` binary with
//! a recording model server over loopback, and shows the attack failing. A repository only
//! commits files (symlinks included) and chooses its test command, which may rewrite the work
//! tree between kotef's own reads and writes.
//!
//! | row | attack | test |
//! |---|---|---|
//! | 1 | a file the task names is a link to `/proc/self/environ` | `a_named_link_to_proc_environ_puts_no_secret_in_any_prompt` |
//! | 3 | the test command swaps an edited file for a link before the undo | `an_undo_replaces_a_swapped_in_link_instead_of_writing_through_it` |
//! | 4 | `.sdd/runs` and `.sdd/issues.md` are links out of the workspace | `report_and_issues_entry_stay_in_the_workspace_when_sdd_paths_are_links` |
//! | 5 | the test command leaves a FIFO in the work tree | `a_fifo_in_the_work_tree_does_not_hang_the_run` |
//! | 6 | a file the task names is a link to `/dev/zero` | `a_named_link_to_dev_zero_keeps_memory_under_the_cap` |
//! | — | a fork bomb in the tests | `a_fork_bomb_in_the_tests_ends_the_run_naming_the_process_limit` |
//! | — | a 10 GB write in the tests | `a_10_gb_write_in_the_tests_ends_the_run_naming_the_file_size_limit` |
//! | 29/6 | files with their mtime set back fill the disk | `old_mtimes_do_not_hide_writes_from_the_disk_cap` |
//! | 29/8 | sparse 64 MiB files in the work tree | `sparse_files_do_not_stall_the_snapshot` |
//!
//! Rows 2 and 7 (git on the host, private repositories) are in
//! `crates/kotef-github/tests/hostile_git.rs`; row 8 (no sandbox) in
//! `tests/unsandboxed_secrets.rs`.

mod support;

use kotef_core::TerminalStatus;
use kotef_testkit::Ran;
use serde_json::{json, Value};
use std::path::Path;
use support::recording_model::RecordingModel;

const KEY: &str = "sk-hostile-0123456789abcdef";
/// Data segment a run may use (`RLIMIT_DATA`): reading `/dev/zero` whole would pass it.
const MEMORY_CAP: u64 = 1024 * 1024 * 1024;

/// The stop reason of a run that must have ended `aborted_constraint`.
fn constraint_reason(ran: &Ran) -> String {
    let summary = ran.summary();
    assert_eq!(
        summary.terminal_status,
        TerminalStatus::AbortedConstraint,
        "{}",
        ran.stdout
    );
    summary.stop_reason
}

/// `kotef run` against `model` with the operator's key in its environment, under a data-size
/// cap, stopped by the test only if it outlives `guard` (a hung run fails the test, it does not
/// hang it).
async fn kotef_run(model: &RecordingModel, repo: &Path, goal: &str, test_command: &str) -> Ran {
    let no_env: [(&str, &str); 0] = [];
    kotef_run_with(model, repo, goal, test_command, &no_env).await
}

/// [`kotef_run`] with the goal "Make the check pass" and `env` added to kotef's environment.
async fn kotef_run_env(
    model: &RecordingModel,
    repo: &Path,
    test_command: &str,
    env: &[(&str, &str)],
) -> Ran {
    kotef_run_with(model, repo, "Make the check pass", test_command, env).await
}

async fn kotef_run_with(
    model: &RecordingModel,
    repo: &Path,
    goal: &str,
    test_command: &str,
    env: &[(&str, &str)],
) -> Ran {
    model
        .kotef_run(repo, KEY)
        // The scripted coder answers with tool calls: the tool loop's file display and undo
        // are what these rows attack (a self-hosted URL would otherwise pick edit blocks).
        .args(["--time-budget-s", "60", "--edit-format", "tools"])
        .test_command(test_command)
        .goal(goal)
        .envs(env)
        .timeout(std::time::Duration::from_secs(120))
        .configure(|cmd| {
            // SAFETY: setrlimit is async-signal-safe and only touches the child being started.
            unsafe {
                cmd.pre_exec(|| {
                    let lim = libc::rlimit {
                        rlim_cur: MEMORY_CAP,
                        rlim_max: MEMORY_CAP,
                    };
                    if libc::setrlimit(libc::RLIMIT_DATA, &lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        })
        .run()
        .await
}

/// Every regular file under `dir` (links not followed), with its text.
fn files_under(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                stack.push(e.path());
            } else if ft.is_file() {
                let bytes = std::fs::read(e.path()).unwrap_or_default();
                out.push((
                    e.path().display().to_string(),
                    String::from_utf8_lossy(&bytes).into_owned(),
                ));
            }
        }
    }
    out
}

fn coder_reads(path: &str) -> Value {
    json!({"name": "read_file", "arguments": {"path": path}})
}

fn give_up() -> Value {
    json!({"next": "done", "reason": "stopping here"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_link_to_proc_environ_puts_no_secret_in_any_prompt() {
    let model = RecordingModel::scripted(give_up(), vec![coder_reads("notes.txt")]).await;
    let dir = kotef_testkit::committed_repo(
        &[("README.md", "# notes\n")],
        &[("notes.txt", "/proc/self/environ")],
    );
    let ran = kotef_run(
        &model,
        dir.path(),
        "Fix the typo in notes.txt",
        "grep -q fixed notes.txt",
    )
    .await;
    let coder = model.requests().into_iter().find(|r| r.is_coder());
    let coder = coder.unwrap_or_else(|| panic!("no coder call: {}", ran.stderr));
    assert!(
        coder
            .text()
            .contains("a symbolic link to `/proc/self/environ`"),
        "the coder is shown the link, not its target: {}",
        coder.text()
    );
    for r in model.requests() {
        assert!(
            !r.body.to_string().contains(KEY),
            "the key reached a prompt"
        );
    }
    for (path, text) in files_under(dir.path()) {
        assert!(!text.contains(KEY), "the key was written to {path}");
    }
    assert!(!ran.stdout.contains(KEY) && !ran.stderr.contains(KEY));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_link_to_dev_zero_keeps_memory_under_the_cap() {
    let model = RecordingModel::scripted(give_up(), vec![coder_reads("data.bin")]).await;
    let dir =
        kotef_testkit::committed_repo(&[("README.md", "# data\n")], &[("data.bin", "/dev/zero")]);
    let ran = kotef_run(
        &model,
        dir.path(),
        "data.bin should hold the seed; fix data.bin",
        "test -s seed.txt",
    )
    .await;
    let coder = model.requests().into_iter().find(|r| r.is_coder());
    let coder = coder.unwrap_or_else(|| panic!("no coder call: {}", ran.stderr));
    assert!(coder.text().contains("a symbolic link to `/dev/zero`"));
    assert!(
        ran.try_summary().is_some(),
        "the run ended with a named status under a {MEMORY_CAP}-byte data cap (exit {}): {}",
        ran.code,
        ran.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_in_the_work_tree_does_not_hang_the_run() {
    let model = RecordingModel::scripted(give_up(), vec![coder_reads("pipe")]).await;
    let dir = kotef_testkit::committed_repo(&[("README.md", "# pipe\n")], &[]);
    let ran = kotef_run(
        &model,
        dir.path(),
        "Make the check pass",
        "test -p pipe || mkfifo pipe; false",
    )
    .await;
    assert!(
        ran.try_summary().is_some(),
        "the run ended with a named status: {}",
        ran.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn report_and_issues_entry_stay_in_the_workspace_when_sdd_paths_are_links() {
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("issues.md");
    std::fs::write(&victim, "untouched\n").unwrap();
    let model = RecordingModel::scripted(give_up(), Vec::new()).await;
    let runs_target = outside.path().to_string_lossy().into_owned();
    let issues_target = victim.to_string_lossy().into_owned();
    let dir = kotef_testkit::committed_repo(
        &[("README.md", "# x\n")],
        &[
            (".sdd/runs", &runs_target),
            (".sdd/issues.md", &issues_target),
        ],
    );
    let ran = kotef_run(&model, dir.path(), "Make the check pass", "false").await;
    assert_ne!(
        ran.summary().terminal_status,
        TerminalStatus::DoneSuccess,
        "{}",
        ran.stdout
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched\n");
    let written: Vec<_> = std::fs::read_dir(outside.path())
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(
        written.len(),
        1,
        "only the victim file is outside: {written:?}"
    );
    let report = ran.summary().report_path;
    assert!(
        Path::new(&report).is_file() && !Path::new(&report).is_symlink(),
        "{report}"
    );
    let issues = dir.path().join(".sdd/issues.md");
    assert!(!issues.is_symlink() && issues.is_file());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undo_replaces_a_swapped_in_link_instead_of_writing_through_it() {
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "untouched\n").unwrap();
    // The coder breaks calc.py (a syntax error is worse than a failing test, so it is undone);
    // the test command then swaps calc.py for a link to the victim before the undo.
    let coder = vec![
        coder_reads("calc.py"),
        json!({"name": "write_file", "arguments": {
            "path": "calc.py", "content": "def add(a, b):\n    return (a +\n"}}),
    ];
    let model = RecordingModel::scripted(give_up(), coder).await;
    let dir = kotef_testkit::committed_repo(
        &[
            ("calc.py", "def add(a, b):\n    return a - b\n"),
            (
                "test_calc.py",
                "import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
            ),
        ],
        &[],
    );
    let swap = format!(
        "python3 -m unittest -q test_calc; r=$?; if grep -q '(a +' calc.py; then ln -sf {} calc.py; fi; exit $r",
        victim.display()
    );
    let ran = kotef_run(&model, dir.path(), "Fix add() in calc.py", &swap).await;
    assert!(ran.try_summary().is_some(), "{}", ran.stderr);
    assert!(
        model.requests().iter().filter(|r| r.is_coder()).count() >= 2,
        "the coder wrote its change: {}",
        ran.stderr
    );
    let report = ran.summary().report_path;
    let report = std::fs::read_to_string(report).unwrap_or_default();
    assert!(report.contains("undone"), "the undo ran: {report}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched\n");
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_bomb_in_the_tests_ends_the_run_naming_the_process_limit() {
    let model = RecordingModel::scripted(give_up(), Vec::new()).await;
    // In a script: the policy refuses a literal fork bomb as the test command before it runs.
    let bomb = "bomb_w9r(){ bomb_w9r | bomb_w9r; }; bomb_w9r\n";
    let dir = kotef_testkit::committed_repo(&[("README.md", "# x\n"), ("bomb_w9r.sh", bomb)], &[]);
    let ran = kotef_run(&model, dir.path(), "Make the check pass", "sh bomb_w9r.sh").await;
    let reason = constraint_reason(&ran);
    assert!(reason.contains("processes"), "{reason}");
    assert_eq!(running("bomb_w9r"), 0, "the bomb outlived its run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_10_gb_write_in_the_tests_ends_the_run_naming_the_file_size_limit() {
    let model = RecordingModel::scripted(give_up(), Vec::new()).await;
    let dir =
        kotef_testkit::committed_repo(&[("README.md", "# x\n"), (".gitignore", "big\n")], &[]);
    let ran = kotef_run(
        &model,
        dir.path(),
        "Make the check pass",
        "head -c 10G /dev/zero > big",
    )
    .await;
    let reason = constraint_reason(&ran);
    assert!(reason.contains("file larger than"), "{reason}");
    let size = std::fs::metadata(dir.path().join("big"))
        .map(|m| m.len())
        .unwrap_or(0);
    assert!(size <= 1 << 30, "{size} bytes written");
}

/// Issue 29, row 6: files whose mtime is set back (`touch -d 2001-01-01`) used to be left out of
/// the disk count. The operator's quota is set low (`KOTEF_DISK_BYTES`) so the test allocates
/// 96 MiB with `fallocate`, not gigabytes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn old_mtimes_do_not_hide_writes_from_the_disk_cap() {
    let model = RecordingModel::scripted(give_up(), Vec::new()).await;
    let dir = kotef_testkit::committed_repo(&[("README.md", "# x\n"), (".gitignore", "f*\n")], &[]);
    let fill = "for i in 1 2 3; do fallocate -l 32M f$i && touch -d 2001-01-01 f$i; done; false";
    let ran = kotef_run_env(
        &model,
        dir.path(),
        fill,
        &[("KOTEF_DISK_BYTES", "67108864")],
    )
    .await;
    let reason = constraint_reason(&ran);
    assert!(reason.contains("wrote more than"), "{reason}");
}

/// Issue 29, row 8: sparse files (`truncate -s 64M`, no blocks on disk) used to be hashed whole
/// by every snapshot, on the async runtime, beyond the reach of the time budget: 256 of them are
/// 16 GiB of zeros per snapshot. Now they are fingerprinted, unchanged files are not read again,
/// and a snapshot reads a bounded number of bytes off the runtime.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sparse_files_do_not_stall_the_snapshot() {
    let model = RecordingModel::scripted(give_up(), Vec::new()).await;
    let dir = kotef_testkit::committed_repo(&[("README.md", "# x\n")], &[]);
    for i in 0..256 {
        std::fs::File::create(dir.path().join(format!("sparse{i}.bin")))
            .unwrap()
            .set_len(64 << 20)
            .unwrap();
    }
    let started = std::time::Instant::now();
    let ran = kotef_run(&model, dir.path(), "Make the check pass", "false").await;
    let took = started.elapsed();
    assert!(ran.try_summary().is_some(), "{}", ran.stderr);
    assert!(
        took < std::time::Duration::from_secs(20),
        "the run took {took:?} over 16 GiB of holes"
    );
}
