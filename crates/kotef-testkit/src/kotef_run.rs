//! `kotef run` invocations as builders: the real binary (its path given by the test, as
//! `env!("CARGO_BIN_EXE_kotef")`), `--json`, a repository, no `KOTEF_MODEL` inherited from the
//! test's environment, killed when dropped and bounded by a timeout, its summary read back as
//! the [`RunSummary`] it is. One builder instead of a `kotef_run` per test file:
//!
//! ```text
//! let ran = KotefRun::new(env!("CARGO_BIN_EXE_kotef"), repo.path())
//!     .openai(&model.base_url(), "sk-test-0123")
//!     .goal("Make the check pass")
//!     .run()
//!     .await;
//! assert_eq!(ran.summary().terminal_status, TerminalStatus::DoneSuccess, "{}", ran.stderr);
//! ```

use kotef_core::RunSummary;
use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;
use tokio::process::Command;

/// How long a run may take before the test fails, unless [`KotefRun::timeout`] says otherwise:
/// a hung run fails its test, it does not hang it.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(180);

/// A `kotef run --json` invocation being built.
pub struct KotefRun {
    cmd: Command,
    timeout: Duration,
}

/// What a finished run printed.
#[derive(Debug)]
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl KotefRun {
    /// `BIN run --json --repo REPO` (with no `--goal` yet).
    pub fn new(bin: impl AsRef<OsStr>, repo: &Path) -> Self {
        Self::with_prefix(&[], bin, repo)
    }

    /// The same run started through `prefix` (a command such as `setpriv --reuid …` that then
    /// runs the binary).
    pub fn with_prefix(prefix: &[&str], bin: impl AsRef<OsStr>, repo: &Path) -> Self {
        let mut cmd = match prefix.split_first() {
            Some((first, rest)) => {
                let mut c = Command::new(first);
                c.args(rest).arg(bin);
                c
            }
            None => Command::new(bin),
        };
        cmd.args(["run", "--json", "--repo"])
            .arg(repo)
            .env_remove("KOTEF_MODEL")
            .kill_on_drop(true);
        Self {
            cmd,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// `--model SPEC`.
    pub fn model(self, spec: &str) -> Self {
        self.args(["--model", spec])
    }

    /// `--model scripted:PATH` (a file written by [`crate::script::Script::write_to`]).
    pub fn scripted(self, path: &Path) -> Self {
        self.model(&format!("scripted:{}", path.display()))
    }

    /// An OpenAI-compatible server at `base_url` (`--model openai:fake-model`, with
    /// `OPENAI_BASE_URL` and `OPENAI_API_KEY` set).
    pub fn openai(self, base_url: &str, key: &str) -> Self {
        self.model("openai:fake-model")
            .env("OPENAI_BASE_URL", base_url)
            .env("OPENAI_API_KEY", key)
    }

    /// A self-hosted server at `base_url` as a local model is reached (`--model openai:local`,
    /// `OPENAI_BASE_URL`, the placeholder key `sk-local`).
    pub fn local_server(self, base_url: &str) -> Self {
        self.model("openai:local")
            .env("OPENAI_BASE_URL", base_url)
            .env("OPENAI_API_KEY", "sk-local")
    }

    /// `--goal GOAL`.
    pub fn goal(self, goal: &str) -> Self {
        self.args(["--goal", goal])
    }

    /// `--test-command COMMAND`.
    pub fn test_command(self, command: &str) -> Self {
        self.args(["--test-command", command])
    }

    /// Further arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.cmd.args(args);
        self
    }

    /// One variable in kotef's environment.
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Self {
        self.cmd.env(key, value);
        self
    }

    /// Variables added to kotef's environment.
    pub fn envs(mut self, vars: &[(&str, &str)]) -> Self {
        self.cmd.envs(vars.iter().copied());
        self
    }

    /// Variables kept out of kotef's environment.
    pub fn env_remove(mut self, keys: &[&str]) -> Self {
        for key in keys {
            self.cmd.env_remove(key);
        }
        self
    }

    /// The longest the run may take before the test fails.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Anything else on the command (resource limits set before it starts, for one).
    pub fn configure(mut self, f: impl FnOnce(&mut Command)) -> Self {
        f(&mut self.cmd);
        self
    }

    /// Runs it to its end. Panics (failing the test) when the binary cannot start or the run
    /// outlives its timeout.
    pub async fn run(mut self) -> Ran {
        let out = tokio::time::timeout(self.timeout, self.cmd.output())
            .await
            .unwrap_or_else(|_| panic!("kotef run did not end within {:?}", self.timeout))
            .expect("the kotef binary starts");
        Ran {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// [`KotefRun::run`] from synchronous code, on a runtime of its own.
    pub fn run_blocking(self) -> Ran {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a test runtime starts")
            .block_on(self.run())
    }
}

impl Ran {
    /// The summary the run printed, when it printed one (a run refused before it started
    /// prints none).
    pub fn try_summary(&self) -> Option<RunSummary> {
        serde_json::from_str(self.stdout.trim()).ok()
    }

    /// The summary the run printed; fails the test, showing what the run printed, when there
    /// is none.
    pub fn summary(&self) -> RunSummary {
        self.try_summary().unwrap_or_else(|| {
            panic!(
                "kotef run printed no summary (exit {}).\nstdout:\n{}\nstderr:\n{}",
                self.code, self.stdout, self.stderr
            )
        })
    }
}
