//! A run that changes the tests' own code, through the real `kotef run` with a scripted
//! coder (the tool loop): the test command's file cannot be changed, but the helper it
//! asserts through can; a run whose tests pass after it emptied that helper says so in its
//! report, and a run that only adds a test does not.

use kotef_core::TerminalStatus;
use kotef_testkit::{KotefRun, Ran, Script};
use serde_json::json;

const MEAN: &str = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n";
const CHECKS: &str = "def check(case, got, want):\n    case.assertEqual(got, want)\n";
const MEAN_TEST: &str = "import unittest\n\nfrom stats import mean\nfrom testutil import check\n\n\nclass T(unittest.TestCase):\n    def test_mean(self):\n        check(self, mean([1, 2, 3]), 2)\n";
const TEST: &str = "python3 -m unittest -q test_stats";

/// Runs `kotef run` on the repository whose `mean()` is wrong, with a coder that writes
/// `writes` (path and text, in order; a file that exists read first) and says done.
fn kotef_run(writes: &[(&str, &str)]) -> (Ran, tempfile::TempDir) {
    let repo = kotef_testkit::committed_repo(
        &[
            ("stats.py", MEAN),
            ("testutil.py", CHECKS),
            ("test_stats.py", MEAN_TEST),
        ],
        &[],
    );
    let mut script = Script::new()
        .planner("coder", "fix it", json!({"task": "make test_stats pass"}))
        .planner("done", "the tests pass", json!({}));
    for (path, content) in writes {
        // A file that exists is read before it is written (the coder's rule).
        if repo.path().join(path).exists() {
            script = script.coder_call("read_file", json!({"path": path}));
        }
        script = script.coder_call("write_file", json!({"path": path, "content": content}));
    }
    let scratch = tempfile::tempdir().unwrap();
    let ran = KotefRun::new(env!("CARGO_BIN_EXE_kotef"), repo.path())
        .scripted(&script.coder_done("fixed").write_to(scratch.path()))
        .goal("mean() is wrong")
        .test_command(TEST)
        .run_blocking();
    assert_eq!(
        ran.summary().terminal_status,
        TerminalStatus::DoneSuccess,
        "{}\n{}",
        ran.stdout,
        ran.stderr
    );
    (ran, repo)
}

fn report(ran: &Ran, repo: &tempfile::TempDir) -> String {
    std::fs::read_to_string(repo.path().join(ran.summary().report_path)).unwrap()
}

#[test]
fn a_run_that_emptied_the_tests_helper_leaves_a_check_naming_it() {
    let (ran, repo) = kotef_run(&[("testutil.py", "def check(case, got, want):\n    pass\n")]);
    assert!(
        report(&ran, &repo).contains(
            "- ⚠️ Check before merging: the change edits the tests' own code (`testutil.py`); \
             check that the tests still test what they did"
        ),
        "{}",
        report(&ran, &repo)
    );
}

#[test]
fn a_run_that_fixed_the_code_and_added_a_test_leaves_no_check() {
    let (ran, repo) = kotef_run(&[
        ("stats.py", "def mean(xs):\n    return sum(xs) / len(xs)\n"),
        ("tests/test_more.py", "def test_one():\n    assert True\n"),
    ]);
    assert!(
        !report(&ran, &repo).contains("Check before merging"),
        "{}",
        report(&ran, &repo)
    );
}
