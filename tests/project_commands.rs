//! The run's one command policy, through the real `kotef run`: the repository's `allow`
//! entries in `kotef.toml` run for the coder under `strict`, an entry that reaches outside the
//! workspace stops the run before any model call with the field named, and the verifier
//! applies the coder's policy to the test command.

use kotef_core::TerminalStatus;
use kotef_testkit::{KotefRun, Ran, Script};
use serde_json::json;

/// A scripted model: the planner sends the coder, the coder runs `command` then says done,
/// the planner then says done.
fn script(command: &str) -> Script {
    Script::new()
        .planner("coder", "fix it", json!({"task": "make the check pass"}))
        .planner("done", "the check passes", json!({}))
        .planner("done", "the check passes", json!({}))
        .coder_call("run_command", json!({"command": command}))
        .coder_done("ran it")
}

/// Runs `kotef run --json --profile strict` on a committed repository holding `files`.
fn kotef_run(files: &[(&str, &str)], command: &str) -> (Ran, tempfile::TempDir) {
    let repo = kotef_testkit::committed_repo(files, &[]);
    let scratch = tempfile::tempdir().unwrap();
    let ran = KotefRun::new(env!("CARGO_BIN_EXE_kotef"), repo.path())
        .args(["--profile", "strict"])
        .scripted(&script(command).write_to(scratch.path()))
        .goal("greeting.txt must say hello")
        .run_blocking();
    (ran, repo)
}

const GREET: (&str, &str) = ("greet.sh", "echo hello > greeting.txt\n");
const CHECK: &str = "grep -qx hello greeting.txt";

#[test]
fn an_allow_entry_runs_for_the_coder_under_strict() {
    let config = format!("test_command = \"{CHECK}\"\nallow = [\"sh greet.sh\"]\n");
    let (ran, repo) = kotef_run(
        &[("kotef.toml", &config), GREET, ("greeting.txt", "bye\n")],
        "sh greet.sh",
    );
    assert_eq!(
        ran.summary().terminal_status,
        TerminalStatus::DoneSuccess,
        "{}",
        ran.stderr
    );
    let greeting = std::fs::read_to_string(repo.path().join("greeting.txt")).unwrap();
    assert_eq!(greeting, "hello\n");
}

#[test]
fn without_the_allow_entry_the_same_command_is_refused_under_strict() {
    let config = format!("test_command = \"{CHECK}\"\n");
    let (ran, repo) = kotef_run(
        &[("kotef.toml", &config), GREET, ("greeting.txt", "bye\n")],
        "sh greet.sh",
    );
    assert_ne!(
        ran.summary().terminal_status,
        TerminalStatus::DoneSuccess,
        "{}",
        ran.stdout
    );
    let greeting = std::fs::read_to_string(repo.path().join("greeting.txt")).unwrap();
    assert_eq!(greeting, "bye\n");
}

#[test]
fn an_allow_entry_that_reaches_outside_stops_the_run_naming_the_field() {
    let config = format!("test_command = \"{CHECK}\"\nallow = [\"curl\"]\n");
    let (ran, _) = kotef_run(&[("kotef.toml", &config), GREET], "curl x");
    let stderr = &ran.stderr;
    assert_ne!(ran.code, 0);
    assert!(
        stderr.contains("`allow` entry `curl` cannot be used: it reaches outside the workspace"),
        "{stderr}"
    );
}

#[test]
fn the_verifier_refuses_a_denylisted_test_command_as_the_coder_would() {
    let (ran, _) = kotef_run(
        &[("kotef.toml", "test_command = \"git push origin main\"\n")],
        "true",
    );
    let summary = ran.summary();
    assert_eq!(
        summary.terminal_status,
        TerminalStatus::AbortedConstraint,
        "{summary:?}"
    );
    let reason = summary.stop_reason;
    assert!(
        reason.starts_with("The test command `git push origin main` is not allowed"),
        "{reason}"
    );
}
