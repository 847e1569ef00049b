//! The repository's `setup` command through the real `kotef run`: it installs what the tests
//! need (a local package into `node_modules`, offline) before the agent starts, and a failing
//! `setup` ends the run with its output quoted and no model call.

mod support;

use kotef_core::TerminalStatus;
use kotef_testkit::Ran;
use serde_json::json;
use std::path::Path;
use std::process::Command;
use support::recording_model::RecordingModel;

/// A Node project whose test needs the package `greet`, vendored in `vendor/greet` and not
/// installed; `kotef.toml` holds `setup`.
fn repo(setup: &str) -> tempfile::TempDir {
    let config = format!("setup = {setup:?}\ntest_command = \"node test.js\"\n");
    let files = [
        ("vendor/greet/package.json", r#"{"name": "greet", "version": "1.0.0", "main": "index.js"}"#),
        ("vendor/greet/index.js", "exports.hello = () => 'hello';\n"),
        (
            "package.json",
            r#"{"name": "app", "version": "1.0.0", "private": true, "dependencies": {"greet": "file:vendor/greet"}}"#,
        ),
        (".gitignore", "node_modules/\n"),
        (
            "test.js",
            "const assert = require('assert');\nassert.strictEqual(require('greet').hello(), 'hello');\n",
        ),
        ("kotef.toml", config.as_str()),
    ];
    kotef_testkit::committed_repo(&files, &[])
}

/// `kotef run` against `model` with the goal "Make the tests pass".
async fn kotef_run(model: &RecordingModel, repo: &Path) -> Ran {
    model
        .kotef_run(repo, "sk-setup-test-0123456789")
        .goal("Make the tests pass")
        .run()
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_installs_what_the_tests_need_before_the_agent_runs() {
    if !kotef_testkit::tools::npm() {
        return;
    }
    let model = RecordingModel::start(json!({"next": "done", "reason": "the tests pass"})).await;
    let dir = repo("npm install --offline --no-audit --no-fund --install-links");
    let ran = kotef_run(&model, dir.path()).await;
    assert_eq!(
        ran.summary().terminal_status,
        TerminalStatus::DoneSuccess,
        "{}",
        ran.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_setup_the_same_tests_fail() {
    if !kotef_testkit::tools::npm() {
        return;
    }
    let model = RecordingModel::start(json!({"next": "done", "reason": "stop"})).await;
    let dir = repo("true");
    let ran = kotef_run(&model, dir.path()).await;
    assert_ne!(
        ran.summary().terminal_status,
        TerminalStatus::DoneSuccess,
        "{}",
        ran.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_setup_ends_the_run_before_any_model_call() {
    let model = RecordingModel::start(json!({"next": "done", "reason": "stop"})).await;
    let dir = repo("echo 'npm ERR! 404 no such package' >&2; exit 3");
    let ran = kotef_run(&model, dir.path()).await;
    assert_eq!(ran.code, 1, "an error before the graph: {}", ran.stderr);
    assert!(
        ran.stderr.contains("setup command") && ran.stderr.contains("npm ERR! 404 no such package"),
        "{}",
        ran.stderr
    );
    assert!(model.requests().is_empty(), "no model call");
}

/// Through the Action (a labeled issue, a runner's checkout, a bare remote): a repository
/// with no `.gitignore` whose `setup` creates a virtualenv-like folder, a source folder and a
/// file; the pushed branch holds the agent's change and kotef's
/// record, none of what `setup` made, and the comment says so.
mod setup_outputs_are_not_committed {
    use super::support::action_runner::{
        hello_model, run_labeled, world_with_config, Launch, REPO,
    };

    const SETUP: &str = "mkdir -p .venv/bin src/pkg.egg-info && echo x > .venv/bin/tool \
                         && echo info > src/pkg.egg-info/PKG-INFO && echo built > build-stamp.txt";

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_branch_holds_the_agents_change_and_nothing_setup_made() {
        let config = format!(
            "setup = {SETUP:?}\ntest_command = \"grep -q hello hello.txt\"\n[limits]\nmax_steps = 40\n"
        );
        let w = world_with_config(&config).await;
        let model = hello_model("go", "wrote hello.txt");
        let (n, _, ran) = run_labeled(&w, true, &model, &[], Launch::Direct).await;
        let files = kotef_testkit::git_output(
            &w.bare,
            &["ls-tree", "-r", "--name-only", &format!("kotef/issue-{n}")],
        )
        .unwrap_or_default();
        assert!(
            files.lines().any(|f| f == "hello.txt"),
            "{files}\n{}",
            ran.stderr
        );
        assert!(
            files.lines().any(|f| f.starts_with(".sdd/runs/")),
            "{files}"
        );
        for made in [".venv/", "src/", "build-stamp.txt"] {
            assert!(!files.contains(made), "{made} was committed:\n{files}");
        }
        let comment =
            w.gh.kotef_comments(REPO, n)
                .pop()
                .map(|c| c.body)
                .unwrap_or_default();
        assert!(
            comment.contains("`setup` created `.venv/`, `build-stamp.txt`, `src/`; kotef left it out of the commit"),
            "{comment}"
        );
    }
}

/// The job's package cache: `setup` installs where users install outside a virtualenv, and
/// the tests (and the agent's commands) see it; with and without bubblewrap.
mod job_cache {
    use super::*;

    /// Builds `greet-1.0-py3-none-any.whl` (a pure-Python wheel) with the standard library.
    pub const MKWHEEL: &str = r#"import zipfile
files = {
    "greet/__init__.py": "def hello():\n    return 'hello'\n",
    "greet-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: greet\nVersion: 1.0\n",
    "greet-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = "".join(f"{n},,\n" for n in files) + "greet-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile("greet-1.0-py3-none-any.whl", "w") as z:
    for n, t in files.items():
        z.writestr(n, t)
    z.writestr("greet-1.0.dist-info/RECORD", record)
"#;

    fn repo(setup: &str, test: &str, sandbox: &str) -> tempfile::TempDir {
        let config = format!("setup = {setup:?}\ntest_command = {test:?}\nsandbox = {sandbox:?}\n");
        kotef_testkit::committed_repo(
            &[
                ("kotef.toml", &config),
                ("mkwheel.py", MKWHEEL),
                (".gitignore", "*.whl\n"),
            ],
            &[],
        )
    }

    async fn status(setup: &str, test: &str, sandbox: &str) -> Ran {
        let model = RecordingModel::start(json!({"next": "done", "reason": "stop"})).await;
        let dir = repo(setup, test, sandbox);
        kotef_run(&model, dir.path()).await
    }

    fn sandboxed() -> bool {
        kotef_tools::bwrap_status().is_ok()
    }

    const MARK: &str = "mkdir -p \"$PYTHONUSERBASE\" && echo ok > \"$PYTHONUSERBASE/mark\"";
    const READ_MARK: &str = "grep -qx ok \"$PYTHONUSERBASE/mark\"";

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn what_setup_puts_in_the_job_cache_the_tests_see_without_a_sandbox() {
        let ran = status(MARK, READ_MARK, "none").await;
        assert_eq!(
            ran.summary().terminal_status,
            TerminalStatus::DoneSuccess,
            "{}",
            ran.stderr
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn what_setup_puts_in_the_job_cache_the_tests_see_in_the_sandbox() {
        assert!(
            sandboxed(),
            "bubblewrap must work here (.ci/run installs it)"
        );
        let ran = status(MARK, READ_MARK, "bwrap").await;
        assert_eq!(
            ran.summary().terminal_status,
            TerminalStatus::DoneSuccess,
            "{}",
            ran.stderr
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_tests_cannot_write_the_job_cache_in_the_sandbox() {
        assert!(
            sandboxed(),
            "bubblewrap must work here (.ci/run installs it)"
        );
        let ran = status("true", "touch \"$PYTHONUSERBASE\"/x", "bwrap").await;
        assert_ne!(
            ran.summary().terminal_status,
            TerminalStatus::DoneSuccess,
            "{}",
            ran.stderr
        );
    }

    /// `pip install` without a virtualenv: the interpreter's site-packages is read-only in the
    /// sandbox, so pip installs for the user, into the job cache. (The interpreter itself, not a
    /// pyenv shim: pyenv's shim rehashes after an install, and its shims are read-only there.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_plain_pip_install_in_setup_is_importable_by_the_tests_in_the_sandbox() {
        assert!(
            sandboxed(),
            "bubblewrap must work here (.ci/run installs it)"
        );
        let setup = "python3 mkwheel.py && PY=$(python3 -c 'import sys; print(sys.executable)') \
                     && \"$PY\" -m pip install --no-index --disable-pip-version-check --break-system-packages \
                     greet-1.0-py3-none-any.whl";
        let test = "python3 -c 'import greet; assert greet.hello() == \"hello\"'";
        let ran = status(setup, test, "bwrap").await;
        assert_eq!(
            ran.summary().terminal_status,
            TerminalStatus::DoneSuccess,
            "{}",
            ran.stderr
        );
    }
}

/// The README's `setup` as written (a virtualenv in the work tree, `pip install -r
/// requirements.txt` into it) with the README's kind of test command, with and without
/// bubblewrap. The requirement is a wheel in the tree, so no index is needed.
mod readme_setup {
    use super::job_cache::MKWHEEL;
    use super::*;

    const SETUP: &str = "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt";

    async fn run(sandbox: &str) -> Ran {
        let config = format!(
            "setup = {SETUP:?}\ntest_command = \".venv/bin/python -m unittest -q\"\nsandbox = {sandbox:?}\n"
        );
        let dir = kotef_testkit::committed_repo(
            &[
                ("kotef.toml", &config),
                ("mkwheel.py", MKWHEEL),
                ("requirements.txt", "./greet-1.0-py3-none-any.whl\n"),
                (
                    "test_greet.py",
                    "import unittest, greet\n\nclass T(unittest.TestCase):\n    def test_hello(self):\n        self.assertEqual(greet.hello(), 'hello')\n",
                ),
                (".gitignore", "*.whl\n"),
            ],
            &[],
        );
        let built = Command::new("python3")
            .arg("mkwheel.py")
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(built.success());
        let model = RecordingModel::start(json!({"next": "done", "reason": "stop"})).await;
        kotef_run(&model, dir.path()).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_readmes_setup_works_without_a_sandbox() {
        let ran = run("none").await;
        assert_eq!(
            ran.summary().terminal_status,
            TerminalStatus::DoneSuccess,
            "{}",
            ran.stderr
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_readmes_setup_works_in_the_sandbox() {
        assert!(
            kotef_tools::bwrap_status().is_ok(),
            "bubblewrap must work here (.ci/run installs it)"
        );
        let ran = run("bwrap").await;
        assert_eq!(
            ran.summary().terminal_status,
            TerminalStatus::DoneSuccess,
            "{}",
            ran.stderr
        );
    }
}
