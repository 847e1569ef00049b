//! The run's one command policy, through the real `kotef run`: the repository's `allow`
//! entries in `kotef.toml` run for the coder under `strict`, an entry that reaches outside the
//! workspace stops the run before any model call with the field named, and the verifier
//! applies the coder's policy to the test command.

use serde_json::{json, Value};
use std::path::Path;

/// A scripted model: the planner sends the coder, the coder runs `command` then says done,
/// the planner then says done.
fn script(dir: &Path, command: &str) -> std::path::PathBuf {
    let path = dir.join("script.json");
    let model = json!({"model": {
        "planner": [
            {"content": json!({"next": "coder", "reason": "fix it", "task": "make the check pass"}).to_string()},
            {"content": json!({"next": "done", "reason": "the check passes"}).to_string()},
            {"content": json!({"next": "done", "reason": "the check passes"}).to_string()}
        ],
        "coder": [
            {"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]},
            {"tool_calls": [{"name": "done", "arguments": {"summary": "ran it"}}]}
        ]
    }});
    std::fs::write(&path, model.to_string()).unwrap();
    path
}

/// Runs `kotef run --json` on a committed repository holding `files`.
fn kotef_run(
    files: &[(&str, &str)],
    command: &str,
) -> (std::process::Output, Value, tempfile::TempDir) {
    let repo = kotef_testkit::committed_repo(files, &[]);
    let scratch = tempfile::tempdir().unwrap();
    let script = script(scratch.path(), command);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kotef"))
        .args(["run", "--json", "--profile", "strict", "--model"])
        .arg(format!("scripted:{}", script.display()))
        .arg("--repo")
        .arg(repo.path())
        .args(["--goal", "greeting.txt must say hello"])
        .env_remove("KOTEF_MODEL")
        .output()
        .unwrap();
    let summary = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out, summary, repo)
}

const GREET: (&str, &str) = ("greet.sh", "echo hello > greeting.txt\n");
const CHECK: &str = "grep -qx hello greeting.txt";

#[test]
fn an_allow_entry_runs_for_the_coder_under_strict() {
    let config = format!("test_command = \"{CHECK}\"\nallow = [\"sh greet.sh\"]\n");
    let (out, summary, repo) = kotef_run(
        &[("kotef.toml", &config), GREET, ("greeting.txt", "bye\n")],
        "sh greet.sh",
    );
    assert_eq!(
        summary["terminal_status"],
        "done_success",
        "{summary}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let greeting = std::fs::read_to_string(repo.path().join("greeting.txt")).unwrap();
    assert_eq!(greeting, "hello\n");
}

#[test]
fn without_the_allow_entry_the_same_command_is_refused_under_strict() {
    let config = format!("test_command = \"{CHECK}\"\n");
    let (_, summary, repo) = kotef_run(
        &[("kotef.toml", &config), GREET, ("greeting.txt", "bye\n")],
        "sh greet.sh",
    );
    assert_ne!(summary["terminal_status"], "done_success", "{summary}");
    let greeting = std::fs::read_to_string(repo.path().join("greeting.txt")).unwrap();
    assert_eq!(greeting, "bye\n");
}

#[test]
fn an_allow_entry_that_reaches_outside_stops_the_run_naming_the_field() {
    let config = format!("test_command = \"{CHECK}\"\nallow = [\"curl\"]\n");
    let (out, _, _) = kotef_run(&[("kotef.toml", &config), GREET], "curl x");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("`allow` entry `curl` cannot be used: it reaches outside the workspace"),
        "{stderr}"
    );
}

#[test]
fn the_verifier_refuses_a_denylisted_test_command_as_the_coder_would() {
    let (_, summary, _) = kotef_run(
        &[("kotef.toml", "test_command = \"git push origin main\"\n")],
        "true",
    );
    assert_eq!(
        summary["terminal_status"], "aborted_constraint",
        "{summary}"
    );
    let reason = summary["stop_reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("The test command `git push origin main` is not allowed"),
        "{reason}"
    );
}
