//! The shared state and the result of one job: [`JobContext`] (what every job needs, set up
//! once by a server or an Action), [`JobStatus`] (how a job ended) and [`JobResult`] (what
//! [`super::process_job`] did).

use crate::metrics::Metrics;
use crate::outbound::client::GitHub;
use crate::outbound::workspace::GitSettings;
use kotef_core::config::ModelConfig;
use kotef_core::{Ceilings, Redactor, RepoName, RunOutcome, SandboxMode, TerminalStatus, Trust};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// What every job needs, shared by all jobs of a server (or the one job of an Action).
#[derive(Clone)]
pub struct JobContext {
    pub github: GitHub,
    pub git: GitSettings,
    /// Where workspaces are cloned (temporary directories, removed after each job).
    pub work_dir: PathBuf,
    /// The model spec (`KOTEF_MODEL`) given to the executor through the run's config; it wins
    /// over the repository's `[model] name`.
    pub model: Option<String>,
    /// Least time between two progress edits of the status comment.
    pub progress_interval: Duration,
    /// Starts of one job before it is ended with a comment instead (crash recovery).
    pub max_attempts: u32,
    /// Extra time past the run's `time_budget_s` before the executor is cancelled.
    pub run_grace: Duration,
    /// Base of web links (`{web}/{owner}/{repo}/tree/{branch}`); usually the git base URL.
    pub web_base_url: String,
    /// Secrets removed from everything kotef posts.
    pub redactor: Redactor,
    pub metrics: Option<Arc<Metrics>>,
    /// An existing checkout of the repository to work in instead of a fresh clone (the
    /// Action's `GITHUB_WORKSPACE`); a fresh clone is used when it is not usable.
    pub checkout: Option<PathBuf>,
    /// A config file used instead of the repository's `kotef.toml` / `.github/kotef.toml`;
    /// a relative path is read inside the work tree.
    pub config_path: Option<PathBuf>,
    /// The GitHub Actions run doing the work, linked from the status comment.
    pub actions_run_url: Option<String>,
    /// The operator's say over the repository's config.
    pub operator: OperatorSettings,
    /// Where run transcripts are kept off the branch (the Action's artifact directory, the
    /// server's data directory); `None`: nowhere (a transcript not committed is dropped).
    pub transcripts: Option<super::TranscriptStore>,
}

/// What the operator decides about every run, whatever the repository's config says.
#[derive(Debug, Clone, Default)]
pub struct OperatorSettings {
    /// How far the repository's config is trusted: a server's is not (its operator-only
    /// fields are ignored), the Action's is (the repository is the operator).
    pub trust: Trust,
    /// The operator's `[model]` settings (endpoint, prices, retries, timeouts) for
    /// [`Trust::Untrusted`] runs; [`JobContext::model`] wins for the name.
    pub model: ModelConfig,
    /// The operator's sandbox, which wins over the repository's (`None`: the config's).
    pub sandbox: Option<SandboxMode>,
    /// The operator's ceilings on the repository's limits.
    pub ceilings: Ceilings,
    /// The loopback ports a repository's tests may reach on a server (`[test] network`).
    pub loopback_ports: Vec<u16>,
    /// The prefix of an issue run's branch when the job names none (`kotef/` when unset).
    pub branch_prefix: Option<String>,
    /// Paths the agent's commands must not read: the server's data directory (the job store,
    /// other repositories' clones) and its secret files.
    pub hidden_paths: Vec<PathBuf>,
}

impl OperatorSettings {
    /// A server's: the repository's config untrusted, the default ceilings.
    pub fn server() -> Self {
        Self {
            ceilings: Ceilings::SERVER_DEFAULT,
            ..Self::default()
        }
    }
}

impl std::fmt::Debug for JobContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobContext")
            .field("work_dir", &self.work_dir)
            .field("model", &self.model)
            .field("operator", &self.operator)
            .finish_non_exhaustive()
    }
}

impl JobContext {
    /// A context with defaults for everything but the client, git settings and directory.
    pub fn new(github: GitHub, git: GitSettings, work_dir: PathBuf) -> Self {
        let web_base_url = git.base_url.trim_end_matches('/').to_string();
        Self {
            github,
            git,
            work_dir,
            model: None,
            progress_interval: Duration::from_secs(10),
            max_attempts: 2,
            run_grace: Duration::from_secs(600),
            web_base_url,
            redactor: Redactor::new(),
            metrics: None,
            checkout: None,
            config_path: None,
            actions_run_url: None,
            operator: OperatorSettings::server(),
            transcripts: None,
        }
    }

    /// The repository's web page: `{web_base_url}/{owner}/{repo}`.
    pub(crate) fn repo_web_url(&self, repo: &RepoName) -> String {
        format!("{}/{}/{}", self.web_base_url, repo.owner, repo.name)
    }
}

/// How a job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    /// The executor returned an outcome (see `terminal_status`).
    Finished,
    /// Something failed before or instead of an outcome; a final comment says what.
    Failed,
    /// Not run: the sender lacks permission, or the target is closed. No comment.
    Ignored,
    /// Not run, answered with a comment (fork PR, ...).
    Rejected,
    /// Interrupted too many times by server restarts; ended with a comment.
    GaveUp,
    /// Handed to a GitHub Actions workflow (`kotef serve --executor actions`).
    Dispatched,
}

impl JobStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Finished => "finished",
            Self::Failed => "failed",
            Self::Ignored => "ignored",
            Self::Rejected => "rejected",
            Self::GaveUp => "gave_up",
            Self::Dispatched => "dispatched",
        }
    }
}

/// What `process_job` did.
#[derive(Debug, Clone)]
pub struct JobResult {
    pub status: JobStatus,
    pub outcome: Option<RunOutcome>,
    /// The branch the work was pushed to.
    pub branch: Option<String>,
    pub pull: Option<u64>,
    /// The pull request's web URL.
    pub pull_url: Option<String>,
    pub comment_id: Option<u64>,
    /// The last body kotef wrote to the status comment (redacted), e.g. for a step summary.
    pub comment: Option<String>,
    /// Why the run's work was not pushed (a tampered git directory, a refused push), redacted;
    /// `None` when it was pushed or there was nothing to push.
    pub not_pushed: Option<String>,
    /// One line for logs and the job store.
    pub message: String,
}

impl JobResult {
    pub(crate) fn simple(status: JobStatus, message: impl Into<String>) -> Self {
        Self {
            status,
            outcome: None,
            branch: None,
            pull: None,
            pull_url: None,
            comment_id: None,
            comment: None,
            not_pushed: None,
            message: message.into(),
        }
    }

    pub fn terminal_status(&self) -> Option<TerminalStatus> {
        self.outcome.as_ref().map(|o| o.summary.terminal_status)
    }

    /// The label for metrics: the terminal status, or the job status.
    pub fn metric_status(&self) -> &'static str {
        self.terminal_status()
            .map(|t| t.as_str())
            .unwrap_or(self.status.as_str())
    }
}
