//! Every example scenario under `examples/` run through the real `kotef` binary: the whole
//! graph with the scripted model, real git and real test commands, checked against the
//! scenario's own `expect` and the contract's summary and exit codes.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn kotef() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kotef"))
}

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// A temporary folder holding an empty git repository `repo`.
fn git_repo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    kotef_testkit::git::git(&repo, &["init", "-q"]);
    (dir, repo)
}

/// `kotef run` on `repo` with goal "x", the scripted model in `script` and `flags`.
fn run_scripted(repo: &Path, script: &Path, flags: &[&str]) -> std::process::Output {
    kotef()
        .arg("run")
        .args(flags)
        .arg("--repo")
        .arg(repo)
        .args(["--goal", "x", "--model"])
        .arg(format!("scripted:{}", script.display()))
        .output()
        .unwrap()
}

/// Runs one scenario with `--json --keep` and returns (exit code, summary, workspace).
fn run_scenario(file: &Path) -> (i32, Value, tempfile::TempDir) {
    let keep = tempfile::tempdir().unwrap();
    let ws = keep.path().join("ws");
    let out = kotef()
        .args(["scenario", "--json", "--keep"])
        .arg(&ws)
        .arg(file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "{}: stdout is not one JSON object ({e}): {stdout}\nstderr: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), summary, keep)
}

/// Runs `examples/<name>.json` and checks its expectations, the contract's summary fields and
/// the report files.
fn check_scenario(name: &str) {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(format!("{name}.json"));
    let (code, s, _keep) = run_scenario(&file);
    eprintln!(
        "{name:<28} {:<18} {:<22} steps {:>3} calls {:>3}",
        s["terminal_status"].as_str().unwrap_or("?"),
        s["stop_rule"].as_str().unwrap_or("null"),
        s["total_steps"],
        s["model_calls"]
    );
    assert!(
        code == 0 && s["expectations_met"] == Value::Bool(true),
        "{name}: exit {code}, failed expectations {}",
        s["failed_expectations"]
    );
    // The contract's fields are all there, and the report files exist.
    for k in [
        "terminal_status",
        "stop_rule",
        "stop_reason",
        "loop_counters",
        "total_steps",
        "model_calls",
        "prompt_tokens",
        "completion_tokens",
        "fix_attempts",
        "report_path",
        "issues_md_path",
        "failed_expectations",
    ] {
        assert!(s.get(k).is_some(), "{name}: summary lacks {k}");
    }
    let report = PathBuf::from(s["report_path"].as_str().unwrap());
    assert!(
        report.is_absolute() && report.exists(),
        "{name}: {}",
        report.display()
    );
    let twin = support::report::twin(&report);
    assert_eq!(
        twin.summary.terminal_status.as_str(),
        s["terminal_status"],
        "{name}"
    );
    assert_eq!(
        twin.calls.len() as u64,
        s["model_calls"].as_u64().unwrap(),
        "{name}"
    );
    assert!(!s["stop_reason"].as_str().unwrap().is_empty(), "{name}");
}

/// One `#[test]` per example scenario, so a failure names its scenario.
macro_rules! scenarios {
    ($($test:ident => $name:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check_scenario($name);
            }
        )*
        const SCENARIOS: &[&str] = &[$($name),*];
    };
}

scenarios! {
    budget => "budget",
    coder_noop => "coder-noop",
    constraint => "constraint",
    done_partial => "done-partial",
    empty_done_refused => "empty-done-refused",
    fix_attempts_strict => "fix-attempts-strict",
    fix_attempts_yolo => "fix-attempts-yolo",
    fixed_and_done => "fixed-and-done",
    follow_up => "follow-up",
    hello_fix => "hello-fix",
    malformed_planner => "malformed-planner",
    model_error => "model-error",
    no_progress => "no-progress",
    noisy_verifier => "noisy-verifier",
    off_list_command => "off-list-command",
    oscillation => "oscillation",
    outside_repository => "outside-repository",
    planner_verify => "planner-verify",
    premature_done => "premature-done",
    prose_coder => "prose-coder",
    provider_blip => "provider-blip",
    researcher_loop => "researcher-loop",
    slow_progress => "slow-progress",
    slow_progress_noisy => "slow-progress-noisy",
    success_then_idle_coder => "success-then-idle-coder",
    test_edits_only => "test-edits-only",
    undo_regression => "undo-regression",
    unknown_tool => "unknown-tool",
    verified_success_wins => "verified-success-wins",
    verifier_loop => "verifier-loop",
    verify_first => "verify-first",
    verify_first_tooling => "verify-first-tooling",
}

#[test]
fn every_example_scenario_has_its_own_test() {
    let mut found: Vec<String> = examples()
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert_eq!(
        found, SCENARIOS,
        "examples/*.json and the scenarios! list differ: add the new scenario to the list"
    );
}

#[test]
fn fix_attempt_counts_match_the_profile() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    for (file, attempts) in [
        ("fix-attempts-strict.json", 5),
        ("fix-attempts-yolo.json", 3),
    ] {
        let (_, s, keep) = run_scenario(&dir.join(file));
        assert_eq!(s["stop_rule"], "fix_attempts", "{file}");
        assert_eq!(s["fix_attempts"], attempts, "{file}");
        let twin = support::report::twin(Path::new(s["report_path"].as_str().unwrap()));
        assert_eq!(twin.failure_history.attempts, attempts, "{file}");
        let issues = std::fs::read_to_string(s["issues_md_path"].as_str().unwrap()).unwrap();
        assert!(issues.contains("Suggested follow-up"), "{issues}");
        drop(keep);
    }
}

#[test]
fn failed_expectation_exits_1_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.json");
    std::fs::write(
        &file,
        r#"{"goal": "nothing", "files": {"a.txt": "a"}, "test_command": "true",
            "model": {"planner": [{"content": "{\"next\": \"verifier\"}"}, {"content": "{\"next\": \"done\"}"}]},
            "expect": {"terminal_status": "aborted_stuck", "files": {"a.txt": "b", "gone.txt": null}}}"#,
    )
    .unwrap();
    let out = kotef()
        .args(["scenario", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["terminal_status"], "done_success");
    assert_eq!(s["expectations_met"], false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("terminal_status"), "{stderr}");
    assert!(stderr.contains("a.txt"), "{stderr}");
}

#[test]
fn malformed_scenario_exits_2_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.json");
    std::fs::write(&file, r#"{"goal": "g", "limits": {"max_stepz": 3}}"#).unwrap();
    let out = kotef().args(["scenario"]).arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("max_stepz"));
}

#[test]
fn the_examples_report_path_is_there_after_it_ends() {
    let tmp = tempfile::tempdir().unwrap();
    let out = kotef()
        .arg("example")
        .env("TMPDIR", tmp.path())
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = stdout
        .lines()
        .find_map(|l| l.strip_prefix("report: "))
        .unwrap_or_else(|| panic!("no report line:\n{stdout}"));
    assert!(
        std::path::Path::new(report).is_file() && stdout.contains("workspace kept in "),
        "{stdout}"
    );
}

#[test]
fn a_scenario_whose_workspace_is_removed_prints_no_report_path() {
    let tmp = tempfile::tempdir().unwrap();
    let out = kotef()
        .arg("scenario")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/hello-fix.json"
        ))
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("report: ") && stdout.contains("pass --keep DIR"),
        "{stdout}"
    );
}

#[test]
fn bundled_example_runs_offline() {
    let tmp = tempfile::tempdir().unwrap();
    let out = kotef()
        .args(["example", "--json"])
        .env("TMPDIR", tmp.path())
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["terminal_status"], "done_success");
    assert_eq!(s["stop_rule"], Value::Null);
}

#[test]
fn run_command_exit_codes_and_errors() {
    // A missing repository is an error before the graph runs: exit 1 with a clear message.
    let out = kotef()
        .args([
            "run",
            "--repo",
            "/nonexistent/kotef",
            "--goal",
            "x",
            "--model",
            "scripted:/x.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such directory"));

    // A real run on a local repository with a scripted model file: exit code of its status.
    let (dir, repo) = git_repo();
    std::fs::write(repo.join("a.txt"), "x\n").unwrap();
    // No model configured at all: exit 1.
    let out = kotef()
        .args(["run", "--repo"])
        .arg(&repo)
        .args(["--goal", "x"])
        .env_remove("KOTEF_MODEL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no model configured"));

    // A provider without its key: a clear error before the run starts, exit 1.
    let out = kotef()
        .args(["run", "--repo"])
        .arg(&repo)
        .args(["--goal", "x", "--model", "anthropic:claude-sonnet-4"])
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ANTHROPIC_API_KEY"));
    assert!(!repo.join(".sdd").exists(), "nothing ran");

    let script = dir.path().join("model.json");
    std::fs::write(
        &script,
        r#"{"model": {"planner": [{"content": "{\"next\": \"verifier\", \"reason\": \"check\"}"}, {"content": "{\"next\": \"done\", \"reason\": \"ok\"}"}]}}"#,
    )
    .unwrap();
    let out = kotef()
        .args(["run", "--json", "--test-command", "false", "--repo"])
        .arg(&repo)
        .args(["--goal", "check things", "--model"])
        .arg(format!("scripted:{}", script.display()))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["terminal_status"], "done_partial");
    assert!(repo.join(".sdd/issues.md").exists());

    // An invalid config file names its field: exit 1.
    std::fs::write(repo.join("kotef.toml"), "[limits]\nmax_stepz = 3\n").unwrap();
    let out = run_scripted(&repo, &script, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("max_stepz"));
}

#[test]
fn a_dollar_budget_for_an_unpriced_model_warns_and_counts_tokens() {
    let (dir, repo) = git_repo();
    let script = dir.path().join("model.json");
    std::fs::write(&script, r#"{"model": {}}"#).unwrap();
    let out = run_scripted(&repo, &script, &["--cost-budget-usd", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("The price of `scripted` is unknown, so the $2 budget counts tokens instead: at most 500000 tokens"),
        "{stderr}"
    );
    assert!(repo.join(".sdd/runs").exists(), "the run went on: {stderr}");
}
