//! kotef against a real local model: llama.cpp's server with a small Qwen2.5-Coder GGUF
//! (`scripts/local-model.sh` installs and starts it; its URL goes in `KOTEF_LOCAL_MODEL_URL`).
//! Two public tasks run through `kotef run` and one issue through `kotef action` with the fake
//! GitHub. A real model's answers vary, so these tests assert only what must always hold: a
//! named ending, a report, at least one tool call executed, and no more model calls than the
//! limit. Whether the bug got fixed is the benchmark's question (`scripts/agent-bench.py`).
//!
//! Ignored by default (they need the server); CI starts it and runs
//! `cargo test --test real_model -- --ignored --test-threads 1`.

mod support;

use kotef::sdd::report::ReportJson;
use kotef_core::RunSummary;
use kotef_testkit::{self as testing, FakeGitHub, FAKE_TOKEN};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Model calls a run may make; the runs are bounded by it and by the time budget.
const MAX_MODEL_CALLS: u64 = 10;
const TIME_BUDGET_S: u64 = 300;
const ENDINGS: [&str; 4] = [
    "done_success",
    "done_partial",
    "aborted_stuck",
    "aborted_constraint",
];

fn base_url() -> String {
    std::env::var("KOTEF_LOCAL_MODEL_URL").expect(
        "KOTEF_LOCAL_MODEL_URL is not set: start the model with scripts/local-model.sh and export the URL it prints",
    )
}

struct Task {
    goal: String,
    test_command: String,
    dir: PathBuf,
}

fn task(name: &str) -> Task {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/agent-tasks")
        .join(name);
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("task.json")).unwrap()).unwrap();
    Task {
        goal: meta["goal"].as_str().unwrap().to_string(),
        test_command: meta["test_command"].as_str().unwrap().to_string(),
        dir: dir.join("repo"),
    }
}

/// The task's files as (path, text), for a checkout or the fake GitHub's bare repository.
fn task_files(t: &Task) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(&t.dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_file() {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            out.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    out
}

/// Tool calls the run executed.
fn tools_run(report: &ReportJson) -> u32 {
    report.tools_run.values().sum()
}

/// `kotef run` on a fresh copy of a public task; returns the `--json` summary and the report.
fn kotef_run(name: &str) -> (RunSummary, ReportJson<'static>) {
    let t = task(name);
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join(name);
    std::fs::create_dir_all(&repo).unwrap();
    for (path, text) in task_files(&t) {
        std::fs::write(repo.join(path), text).unwrap();
    }
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &["commit", "-qm", "task"],
    ] {
        testing::git(&repo, args);
    }
    let ran = support::kotef_run(&repo)
        .goal(&t.goal)
        .test_command(&t.test_command)
        .local_server(&base_url())
        .args(["--max-model-calls", &MAX_MODEL_CALLS.to_string()])
        .args(["--time-budget-s", &TIME_BUDGET_S.to_string()])
        .timeout(Duration::from_secs(TIME_BUDGET_S + 120))
        .run_blocking();
    let summary = ran.summary();
    let report = support::report::twin(Path::new(&summary.report_path));
    eprintln!(
        "{name}: {} ({}) in {} calls, tools {:?}",
        summary.terminal_status, summary.stop_reason, summary.model_calls, report.tools_run
    );
    (summary, report)
}

/// The run ended with a named status, made at most [`MAX_MODEL_CALLS`] model calls and
/// executed at least one tool call.
fn assert_bounded_and_named(status: &str, report: &ReportJson) {
    let calls = u64::from(report.summary.model_calls);
    assert!(
        ENDINGS.contains(&status) && calls <= MAX_MODEL_CALLS && tools_run(report) >= 1,
        "a named ending, at most {MAX_MODEL_CALLS} calls and at least one tool call: {status} in {calls} calls\ntools: {:?}",
        report.tools_run
    );
}

#[test]
#[ignore = "needs a local model: scripts/local-model.sh, then KOTEF_LOCAL_MODEL_URL"]
fn a_bug_fix_task_ends_named_and_bounded() {
    let (summary, report) = kotef_run("py-wrong-operator");
    assert_bounded_and_named(summary.terminal_status.as_str(), &report);
}

#[test]
#[ignore = "needs a local model: scripts/local-model.sh, then KOTEF_LOCAL_MODEL_URL"]
fn a_second_bug_fix_task_ends_named_and_bounded() {
    let (summary, report) = kotef_run("py-leap-year");
    assert_bounded_and_named(summary.terminal_status.as_str(), &report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a local model: scripts/local-model.sh, then KOTEF_LOCAL_MODEL_URL"]
async fn a_labeled_issue_through_the_action_ends_named_with_one_status_comment() {
    const REPO: &str = "acme/calc";
    let t = task("py-off-by-one");
    let gh = FakeGitHub::start().await;
    gh.add_repo(REPO, "main");
    gh.set_permission(REPO, "alice", "admin");
    let root = tempfile::tempdir().unwrap();
    let config = format!(
        "test_command = \"{}\"\n[limits]\nmax_model_calls = {MAX_MODEL_CALLS}\ntime_budget_s = {TIME_BUDGET_S}\n",
        t.test_command
    );
    let mut files = task_files(&t);
    files.push((".github/kotef.toml".into(), config));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, s)| (p.as_str(), s.as_str()))
        .collect();
    testing::init_bare_repo(root.path(), REPO, &files);
    let n = gh.add_issue(REPO, "A bug", &t.goal);
    let event = root.path().join("event.json");
    let payload = testing::issues_labeled(REPO, n, "A bug", &t.goal, "kotef", "alice");
    std::fs::write(&event, payload).unwrap();
    let workspace = root.path().join("workspace");
    let url = format!("{}/{REPO}.git", testing::file_base_url(root.path()));
    testing::git(
        root.path(),
        &["clone", "-q", &url, workspace.to_str().unwrap()],
    );
    let output = root.path().join("github_output");

    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_kotef"));
    cmd.arg("action")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", root.path())
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "issues")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", REPO)
        .env("GITHUB_TOKEN", FAKE_TOKEN)
        .env("GITHUB_WORKSPACE", &workspace)
        .env("GITHUB_API_URL", gh.api_url())
        .env("GITHUB_OUTPUT", &output)
        .env("RUNNER_TEMP", root.path())
        .env("KOTEF_GIT_BASE_URL", testing::file_base_url(root.path()))
        .env("KOTEF_MODEL", "openai:local")
        .env("OPENAI_BASE_URL", base_url())
        .env("OPENAI_API_KEY", "sk-local")
        .env("KOTEF_TRIGGER_LABEL", "kotef")
        .env("KOTEF_FAIL_ON", "error")
        .kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_secs(TIME_BUDGET_S + 300), cmd.output())
        .await
        .expect("kotef action finished within its time budget and a margin")
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let outputs = std::fs::read_to_string(&output).unwrap_or_default();
    let output_of = |name: &str| {
        outputs
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .unwrap_or("")
            .to_string()
    };
    let status = output_of("terminal-status");
    let report = support::report::twin(&workspace.join(output_of("report-path")));
    let comments = gh.comments(REPO, n);
    eprintln!(
        "action: {status} in {} calls, tools {:?}",
        report.summary.model_calls, report.tools_run
    );
    assert_bounded_and_named(&status, &report);
    assert_eq!(
        (
            out.status.code(),
            comments.len(),
            comments.first().is_some_and(|c| c.body.contains(&status))
        ),
        (Some(0), 1, true),
        "one status comment naming the ending; stderr:\n{stderr}"
    );
}
