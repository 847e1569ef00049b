//! Row 8 of the hostile-repository table (SECURITY.md): without a sandbox (`sandbox = "none"`,
//! the Action's fallback, `--allow-unsandboxed`), a test command runs as kotef's own user and
//! can walk up to the kotef process. Through the real `kotef run`: the model key kotef was
//! started with is not in its `/proc/<pid>/environ` (kotef zeroes and removes secrets once
//! read), a same-user process cannot open that file at all (kotef is non-dumpable), and
//! neither can a command of root (it starts with an empty capability bounding set).

mod support;

use serde_json::json;
use std::path::Path;
use support::recording_model::RecordingModel;
use support::unprivileged;

const KEY: &str = "sk-row8-0123456789abcdefSECRET";

/// A repository whose test command copies its parent's (kotef's) environment into the work
/// tree and records whether it could read it.
fn repo() -> tempfile::TempDir {
    let probe = "cat /proc/$PPID/environ > parent.env 2>/dev/null; echo $? > parent.code; false";
    let config = format!("sandbox = \"none\"\ntest_command = {probe:?}\n");
    kotef_testkit::committed_repo(
        &[("kotef.toml", &config), (".gitignore", "parent.*\n")],
        &[],
    )
}

/// `kotef run` with the model key in its environment, optionally as another user (`prefix`
/// is a command such as `setpriv --reuid …` that then runs the binary); what it printed on
/// stderr.
async fn kotef_run(model: &RecordingModel, repo: &Path, prefix: &[&str]) -> String {
    kotef_testkit::KotefRun::with_prefix(prefix, env!("CARGO_BIN_EXE_kotef"), repo)
        .openai(&model.base_url(), KEY)
        .goal("Make the check pass")
        .env("HOME", repo)
        .run()
        .await
        .stderr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_is_not_in_kotefs_environment_as_its_commands_see_it() {
    let model = RecordingModel::start(json!({"next": "done", "reason": "stop"})).await;
    let dir = repo();
    let stderr = kotef_run(&model, dir.path(), &[]).await;
    let seen = std::fs::read(dir.path().join("parent.env"))
        .unwrap_or_else(|e| panic!("the probe did not run ({e}): {stderr}"));
    assert!(
        !String::from_utf8_lossy(&seen).contains(KEY),
        "the key was readable in /proc/<kotef>/environ"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_same_user_command_cannot_open_kotefs_environment() {
    // The check needs an unprivileged user: root may read any process's /proc files. The work
    // tree belongs to the unprivileged user that runs kotef and its commands.
    let dir = repo();
    let nobody = match unprivileged::prefix(&[dir.path()]) {
        Some(prefix) if !prefix.is_empty() => prefix,
        _ => {
            eprintln!("skipped: needs root and setpriv to run kotef as an unprivileged user");
            return;
        }
    };
    let model = RecordingModel::start(json!({"next": "done", "reason": "stop"})).await;
    let stderr = kotef_run(&model, dir.path(), &nobody).await;
    let code = std::fs::read_to_string(dir.path().join("parent.code"))
        .unwrap_or_else(|e| panic!("the probe did not run ({e}): {stderr}"));
    assert_ne!(
        code.trim(),
        "0",
        "a same-user command read /proc/<kotef>/environ"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsandboxed_command_of_root_cannot_open_kotefs_environment() {
    if !unprivileged::is_root() {
        eprintln!("skipped: this checks what a command of root may read");
        return;
    }
    let model = RecordingModel::start(json!({"next": "done", "reason": "stop"})).await;
    let dir = repo();
    let stderr = kotef_run(&model, dir.path(), &[]).await;
    let code = std::fs::read_to_string(dir.path().join("parent.code"))
        .unwrap_or_else(|e| panic!("the probe did not run ({e}): {stderr}"));
    assert_ne!(
        code.trim(),
        "0",
        "root's command read /proc/<kotef>/environ"
    );
}

/// Processes whose command line holds `marker` (killed as they are found, so a failing run
/// leaves nothing behind).
fn kill_marked(marker: &str) -> usize {
    let mut found = 0;
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(marker) {
            found += 1;
            // SAFETY: kill takes plain integers.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    found
}

/// Row 10 (SECURITY.md): without a sandbox, a test command starts a daemon in a session of
/// its own (`setsid`, outside the command's process group). It must end with the command,
/// not live on to read later jobs' git tokens from `/proc`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_setsid_daemon_ends_with_its_command() {
    let model = RecordingModel::start(json!({"next": "done", "reason": "stop"})).await;
    let marker = format!("kotef-daemon-{}", std::process::id());
    let daemon = format!(
        "setsid sh -c 'while :; do sleep 1; done # {marker}' > /dev/null 2>&1 < /dev/null &"
    );
    let config = format!(
        "sandbox = \"none\"\ntest_command = {:?}\n",
        format!("{daemon} sleep 1; true")
    );
    let dir = kotef_testkit::committed_repo(&[("kotef.toml", &config)], &[]);
    // As an unprivileged user, as on a runner: root's commands get a cgroup of their own,
    // which ends the daemon whatever kotef does.
    let nobody =
        unprivileged::prefix(&[dir.path()]).expect("setpriv, to run kotef as an unprivileged user");
    let stderr = kotef_run(&model, dir.path(), &nobody).await;
    assert_eq!(
        kill_marked(&marker),
        0,
        "the daemon outlived its command: {stderr}"
    );
}
