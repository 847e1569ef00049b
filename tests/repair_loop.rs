//! The repair loop from outside: `kotef run` against a fake self-hosted OpenAI-compatible
//! server on loopback (so the `auto` edit format picks edit blocks), through the real client.
//! The fake answers the repair prompt with the texts a test gives, one per attempt, in plain
//! content as llama.cpp serves a small model; the planner gives up when asked.

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use kotef_core::{RunSummary, StopRule, TerminalStatus};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::{Arc, Mutex};

struct Fake {
    /// What the repair attempts answer, in order; the last one repeats.
    replies: Vec<String>,
    /// Every repair request's body.
    repair_requests: Vec<Value>,
}

async fn chat(State(fake): State<Arc<Mutex<Fake>>>, Json(body): Json<Value>) -> Json<Value> {
    let mut f = fake.lock().unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap_or_default();
    let content = if system.starts_with("You fix a bug.") {
        let n = f.repair_requests.len();
        f.repair_requests.push(body.clone());
        f.replies[n.min(f.replies.len() - 1)].clone()
    } else if system.contains("**planner**") {
        json!({"next": "snitch", "reason": "the fix did not work"}).to_string()
    } else {
        "I cannot call tools.".to_string()
    };
    Json(
        json!({"id": "x", "object": "chat.completion", "model": "local",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 200, "completion_tokens": 40}}),
    )
}

async fn serve(replies: &[&str]) -> (String, Arc<Mutex<Fake>>) {
    let state = Arc::new(Mutex::new(Fake {
        replies: replies.iter().map(|s| s.to_string()).collect(),
        repair_requests: Vec::new(),
    }));
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/v1"), state)
}

const CALC: &str = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a + b\n";
const TESTS: &str = "import unittest\n\nfrom calc import add, sub\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_sub(self):\n        self.assertEqual(sub(5, 3), 2)\n";

fn block(search: &str, replace: &str) -> String {
    format!("The operator is wrong.\n\ncalc.py\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n")
}

/// Runs `kotef run` on a calc repository against the fake; (summary, repo).
async fn run(replies: &[&str]) -> (RunSummary, tempfile::TempDir, Arc<Mutex<Fake>>) {
    run_on(
        &[("calc.py", CALC), ("test_calc.py", TESTS)],
        "Fix calc.py so that the tests in test_calc.py pass.",
        "python3 -m unittest -q test_calc",
        replies,
    )
    .await
}

/// Runs `kotef run` on a repository of `files` against the fake; (summary, repo).
async fn run_on(
    files: &[(&str, &str)],
    goal: &str,
    test_command: &str,
    replies: &[&str],
) -> (RunSummary, tempfile::TempDir, Arc<Mutex<Fake>>) {
    let repo = kotef_testkit::committed_repo(files, &[]);
    let (url, fake) = serve(replies).await;
    let summary = kotef_testkit::KotefRun::new(env!("CARGO_BIN_EXE_kotef"), repo.path())
        .goal(goal)
        .local_server(&url)
        .test_command(test_command)
        .args(["--time-budget-s", "120"])
        .timeout(std::time::Duration::from_secs(240))
        .run()
        .await
        .summary();
    (summary, repo, fake)
}

fn read(repo: &Path, file: &str) -> String {
    std::fs::read_to_string(repo.join(file)).unwrap()
}

const FIX_ADD: (&str, &str) = ("    return a - b", "    return a + b");
const FIX_SUB: (&str, &str) = ("    return a + b", "    return a - b");

fn both_fixed() -> String {
    format!(
        "Both operators are swapped.\n\ncalc.py\n<<<<<<< SEARCH\ndef add(a, b):\n{}\n=======\ndef add(a, b):\n{}\n>>>>>>> REPLACE\n\ncalc.py\n<<<<<<< SEARCH\ndef sub(a, b):\n{}\n=======\ndef sub(a, b):\n{}\n>>>>>>> REPLACE\n",
        FIX_ADD.0, FIX_ADD.1, FIX_SUB.0, FIX_SUB.1
    )
}

#[tokio::test]
async fn a_fix_written_as_an_edit_block_ends_the_run_in_success() {
    let (summary, repo, _) = run(&[&both_fixed()]).await;
    assert_eq!(
        (summary.terminal_status, read(repo.path(), "calc.py")),
        (
            TerminalStatus::DoneSuccess,
            "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n".into()
        )
    );
}

#[tokio::test]
async fn a_failed_attempt_goes_back_with_its_diff_and_the_failure() {
    let wrong = block("    return a - b", "    return a * b");
    let (summary, _repo, fake) = run(&[&wrong, &both_fixed()]).await;
    assert_eq!(summary.terminal_status, TerminalStatus::DoneSuccess);
    let f = fake.lock().unwrap();
    let second = f.repair_requests[1]["messages"].as_array().unwrap();
    let feedback = second.last().unwrap()["content"].as_str().unwrap();
    assert!(
        feedback.starts_with("These changes were tried and did not fix it")
            && feedback.contains(
                "Attempt 1: This change did not fix it: it changed `return a - b` to `return a * b`. It was undone. The tests then: "
            )
            && feedback.contains("AssertionError"),
        "{feedback}"
    );
}

#[tokio::test]
async fn every_attempt_shares_the_prompt_prefix_and_samples_hotter() {
    let wrong = block("    return a - b", "    return a * b");
    let (_, _repo, fake) = run(&[&wrong, &both_fixed()]).await;
    let f = fake.lock().unwrap();
    let prefix = |i: usize| f.repair_requests[i]["messages"].as_array().unwrap()[..2].to_vec();
    let temps: Vec<&Value> = f
        .repair_requests
        .iter()
        .map(|r| &r["temperature"])
        .collect();
    assert_eq!(prefix(0), prefix(1));
    assert!(temps[0].as_f64() < temps[1].as_f64(), "{temps:?}");
}

#[tokio::test]
async fn the_repair_prompt_shows_the_code_and_the_failure_but_not_the_test() {
    let (_, _repo, fake) = run(&[&both_fixed()]).await;
    let f = fake.lock().unwrap();
    let opening = f.repair_requests[0]["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        (
            opening.contains(CALC.trim_end()),
            opening.contains("AssertionError"),
            opening.contains("class T(unittest.TestCase)"),
            f.repair_requests[0]["max_tokens"].as_u64(),
        ),
        (true, true, false, Some(600))
    );
}

#[tokio::test]
async fn the_best_attempt_is_kept_when_none_passes() {
    let half = block(FIX_ADD.0, FIX_ADD.1);
    let (summary, repo, _) = run(&[&half, "I am not sure what to change."]).await;
    assert_ne!(summary.terminal_status, TerminalStatus::DoneSuccess);
    assert_eq!(
        read(repo.path(), "calc.py"),
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n"
    );
}

#[tokio::test]
async fn a_block_that_changes_the_test_is_refused_and_the_test_kept() {
    let cheat = "test_calc.py\n<<<<<<< SEARCH\n        self.assertEqual(add(2, 3), 5)\n=======\n        pass\n>>>>>>> REPLACE\n";
    let (_, repo, fake) = run(&[cheat, &both_fixed()]).await;
    assert_eq!(read(repo.path(), "test_calc.py"), TESTS);
    let f = fake.lock().unwrap();
    let feedback = f.repair_requests[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(feedback.contains("`test_calc.py` is a test"), "{feedback}");
}

#[tokio::test]
async fn a_model_that_repeats_one_wrong_change_ends_in_a_named_bounded_state() {
    let wrong = block("    return a - b", "    return a * b");
    let (summary, repo, fake) = run(&[&wrong]).await;
    assert!(
        matches!(
            summary.terminal_status,
            TerminalStatus::AbortedStuck
                | TerminalStatus::AbortedConstraint
                | TerminalStatus::DonePartial
        ),
        "{summary:?}"
    );
    assert!(!summary.stop_reason.is_empty());
    assert!(fake.lock().unwrap().repair_requests.len() <= 30);
    assert_eq!(read(repo.path(), "calc.py"), CALC);
}

#[tokio::test]
async fn a_whole_corrected_function_in_a_fence_replaces_the_buggy_one() {
    let reply = "`add` subtracts and `sub` adds.\n\ncalc.py\n```python\ndef add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n```\n";
    let (summary, repo, _) = run(&[reply]).await;
    assert_eq!(
        (summary.terminal_status, read(repo.path(), "calc.py")),
        (
            TerminalStatus::DoneSuccess,
            "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n".into()
        )
    );
}

const VERSION: &str = "def version():\n    return \"1.0\"\n";
const VERSION_TESTS: &str = "import unittest\n\nfrom version import version\n\n\nclass T(unittest.TestCase):\n    def test_is_one(self):\n        self.assertEqual(version(), \"1.0\")\n\n    def test_is_two(self):\n        self.assertEqual(version(), \"2.0\")\n";

#[tokio::test]
async fn tests_that_check_one_call_for_two_values_end_the_run_after_one_trade_off() {
    let two =
        "It must return 2.0.\n\nversion.py\n```python\ndef version():\n    return \"2.0\"\n```\n";
    let (summary, repo, fake) = run_on(
        &[("version.py", VERSION), ("test_version.py", VERSION_TESTS)],
        "Make both tests in test_version.py pass.",
        "python3 -m unittest -q test_version",
        &[two],
    )
    .await;
    let reason = &summary.stop_reason;
    assert_eq!(
        (
            summary.terminal_status,
            summary.stop_rule,
            fake.lock().unwrap().repair_requests.len()
        ),
        (TerminalStatus::AbortedStuck, Some(StopRule::NoProgress), 1),
        "{summary:?}"
    );
    assert!(
        reason.starts_with(
            "The tests contradict each other: `test_is_two` checks `self.assertEqual(version(), \"2.0\")` and `test_is_one` checks `self.assertEqual(version(), \"1.0\")`"
        ),
        "{reason}"
    );
    assert_eq!(read(repo.path(), "version.py"), VERSION);
}
