//! The server's settings, validated: [`ServeConfig`] (what `kotef serve`'s flags become, in
//! the binary) and the operator's model config file. Secrets are never echoed (their `Debug`
//! prints `[REDACTED]`).

use crate::outbound::client::GitHubAuth;
use crate::outbound::retry::RetryPolicy;
use crate::outbound::workspace::GitSettings;
use crate::secret::{ExposeSecret, Secret};
use anyhow::{bail, Context};
use kotef_core::config::ModelConfig;
use kotef_core::Ceilings;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where accepted runs execute.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ExecutorMode {
    /// On this machine: clone, run the graph, push (the default).
    #[default]
    Local,
    /// On GitHub Actions runners: each accepted trigger becomes a `workflow_dispatch` of the
    /// repository's kotef workflow (`--workflow`), which runs `kotef action`.
    Actions,
}

impl ExecutorMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Local => "local",
            Self::Actions => "actions",
        }
    }
}

/// The kotef workflow dispatched by `--executor actions` unless configured otherwise.
pub const DEFAULT_WORKFLOW: &str = "kotef.yml";

/// Everything the server needs, validated.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub listen: SocketAddr,
    pub webhook_path: String,
    /// Accepted webhook secrets (at least one).
    pub webhook_secrets: Vec<Secret>,
    pub auth: GitHubAuth,
    pub github_api_url: String,
    pub git: GitSettings,
    pub data_dir: PathBuf,
    pub model: Option<String>,
    pub trigger_label: String,
    /// The account whose assignment of an issue starts a run (a machine user); kotef's own
    /// login when unset.
    pub assignee_trigger: Option<String>,
    /// The phrase at the start of a comment's line that starts a run (`/kotef run`).
    pub trigger_phrase: String,
    /// The prefix of the branch an issue's run creates (`kotef/`).
    pub branch_prefix: String,
    pub workers: usize,
    pub bot_login: Option<String>,
    /// Retries of GitHub API calls.
    pub retry: RetryPolicy,
    /// Least time between progress edits of a status comment.
    pub progress_interval: Duration,
    /// Starts of one job before it is ended with a comment (crash recovery).
    pub max_attempts: u32,
    /// Largest webhook body accepted (bigger → 413).
    pub body_limit: usize,
    /// Longest time one HTTP request may take.
    pub request_timeout: Duration,
    /// HTTP requests handled at once.
    pub max_concurrent_requests: usize,
    /// How long the workers wait between looks at the queue when nothing woke them.
    pub poll_interval: Duration,
    /// Where runs execute.
    pub executor: ExecutorMode,
    /// The workflow dispatched in [`ExecutorMode::Actions`].
    pub workflow: String,
    /// The operator's ceilings on a repository's limits.
    pub ceilings: Ceilings,
    /// The operator's `[model]` settings; a repository's are ignored.
    pub operator_model: ModelConfig,
    /// Agent commands may run without a sandbox (else a server without a working bubblewrap
    /// refuses to run them).
    pub allow_unsandboxed: bool,
    /// Files holding the server's secrets (token, App key, webhook secrets, model config),
    /// hidden from agent commands with the data directory.
    pub secret_files: Vec<PathBuf>,
    /// Loopback ports a repository's tests may reach (`KOTEF_LOOPBACK_PORTS`; none by default).
    pub loopback_ports: Vec<u16>,
    /// Running jobs of one installation (repository owner) before its other jobs wait while
    /// other installations have work (`None`: half the workers, rounded up).
    pub max_jobs_per_installation: Option<usize>,
    /// Runs one installation may have waiting; a trigger beyond them is answered 429 and,
    /// on the issue, with a comment saying so.
    pub max_queued_per_installation: usize,
    /// How long the edge uses its copy of a repository's trigger label before confirming it
    /// (a `push` that may change the config makes it read again at once).
    pub label_ttl: Duration,
    /// Extra time past a run's time budget before its executor is cancelled.
    pub run_grace: Duration,
    /// Time a job gets beyond its run's time budget and grace, for admission, cloning, the
    /// config and publishing; a job still going after all of it is ended failed.
    pub job_margin: Duration,
}

/// Jobs one installation may have waiting unless configured otherwise.
pub const DEFAULT_MAX_QUEUED_PER_INSTALLATION: usize = 100;

/// How long a repository's trigger label is used before it is confirmed (conditionally).
pub const DEFAULT_LABEL_TTL: Duration = Duration::from_secs(300);

/// The 25 MB webhook body cap (GitHub's own maximum payload size).
pub const BODY_LIMIT: usize = 25 * 1024 * 1024;

impl ServeConfig {
    /// A config with defaults around the required parts (used by tests and embedders).
    pub fn new(
        webhook_secrets: Vec<Secret>,
        auth: GitHubAuth,
        github_api_url: impl Into<String>,
        git_base_url: impl Into<String>,
        data_dir: impl Into<PathBuf>,
    ) -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            webhook_path: "/webhook".into(),
            webhook_secrets,
            auth,
            github_api_url: github_api_url.into(),
            git: GitSettings {
                base_url: git_base_url.into(),
                ..GitSettings::default()
            },
            data_dir: data_dir.into(),
            model: None,
            trigger_label: crate::DEFAULT_TRIGGER_LABEL.into(),
            assignee_trigger: None,
            trigger_phrase: crate::inbound::sanitize::DEFAULT_TRIGGER_PHRASE.into(),
            branch_prefix: crate::outbound::workspace::DEFAULT_BRANCH_PREFIX.into(),
            workers: 2,
            bot_login: None,
            retry: crate::outbound::retry::github_default(),
            progress_interval: Duration::from_secs(10),
            max_attempts: 2,
            body_limit: BODY_LIMIT,
            request_timeout: Duration::from_secs(30),
            max_concurrent_requests: 128,
            poll_interval: Duration::from_secs(2),
            executor: ExecutorMode::Local,
            workflow: DEFAULT_WORKFLOW.into(),
            ceilings: Ceilings::SERVER_DEFAULT,
            operator_model: ModelConfig::default(),
            allow_unsandboxed: false,
            secret_files: Vec::new(),
            loopback_ports: Vec::new(),
            max_jobs_per_installation: None,
            max_queued_per_installation: DEFAULT_MAX_QUEUED_PER_INSTALLATION,
            run_grace: Duration::from_secs(600),
            job_margin: Duration::from_secs(600),
            label_ttl: DEFAULT_LABEL_TTL,
        }
    }

    /// Running jobs of one installation before its other jobs wait for other installations':
    /// the setting, else half the workers rounded up; at least 1.
    pub fn jobs_per_installation(&self) -> usize {
        self.max_jobs_per_installation
            .unwrap_or(self.workers.div_ceil(2))
            .max(1)
    }

    /// The longest a job may take from claim to its final comment: the run's largest time
    /// budget (the operator's ceiling, else a day), its grace and [`Self::job_margin`].
    pub fn job_deadline(&self) -> Duration {
        Duration::from_secs(self.ceilings.time_budget_s.unwrap_or(24 * 3600))
            .saturating_add(self.run_grace)
            .saturating_add(self.job_margin)
    }

    /// Checks what flags cannot express.
    pub fn validate(&self) -> anyhow::Result<()> {
        if self
            .webhook_secrets
            .iter()
            .all(|s| s.expose_secret().is_empty())
        {
            bail!("a webhook secret is required: set KOTEF_WEBHOOK_SECRET or KOTEF_WEBHOOK_SECRET_FILE");
        }
        if !self.webhook_path.starts_with('/') {
            bail!(
                "--webhook-path must start with `/` (got `{}`)",
                self.webhook_path
            );
        }
        if matches!(self.webhook_path.as_str(), "/healthz" | "/metrics") {
            bail!("--webhook-path cannot be `{}`", self.webhook_path);
        }
        if self.workers == 0 || self.workers > 64 {
            bail!("--workers must be between 1 and 64 (got {})", self.workers);
        }
        if self.max_jobs_per_installation == Some(0) {
            bail!("--max-jobs-per-installation must be at least 1");
        }
        if self.max_queued_per_installation == 0 {
            bail!("--max-queued-per-installation must be at least 1");
        }
        if self.trigger_label.trim().is_empty() {
            bail!("the trigger label cannot be empty");
        }
        if self.trigger_phrase.trim().is_empty() || self.trigger_phrase.contains('\n') {
            bail!("--trigger-phrase must be one line of words, e.g. `/kotef run`");
        }
        let example = crate::outbound::workspace::prefixed_issue_branch(
            &self.branch_prefix,
            kotef_core::IssueNumber(1),
        );
        if !crate::outbound::workspace::valid_branch_name(&example) {
            bail!(
                "--branch-prefix `{}` does not make a branch name kotef can use (`{example}`)",
                self.branch_prefix
            );
        }
        for (name, v) in [
            ("--max-token-budget", self.ceilings.token_budget),
            ("--max-time-budget-s", self.ceilings.time_budget_s),
        ] {
            if v == Some(0) {
                bail!("{name} must be at least 1");
            }
        }
        if let Some(c) = self
            .ceilings
            .cost_usd
            .filter(|c| !(c.is_finite() && *c > 0.0))
        {
            bail!("--max-cost-usd must be a positive number of dollars (got {c})");
        }
        if self.executor == ExecutorMode::Actions && !valid_workflow(&self.workflow) {
            bail!(
                "--workflow must be a workflow file name such as `kotef.yml` (or its numeric id), got `{}`",
                self.workflow
            );
        }
        Ok(())
    }
}

/// A workflow file name (`kotef.yml`) or numeric id, as the dispatch API takes it.
pub fn valid_workflow(w: &str) -> bool {
    let is_id = !w.is_empty() && w.chars().all(|c| c.is_ascii_digit());
    let is_file = (w.ends_with(".yml") || w.ends_with(".yaml"))
        && w.len() <= 200
        && !w.starts_with('.')
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    is_id || is_file
}

/// The `[model]` table of the operator's model config file.
pub fn read_model_config(path: &Path) -> anyhow::Result<ModelConfig> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the model config file {}", path.display()))?;
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        #[serde(default)]
        model: ModelConfig,
    }
    let file: File = toml::from_str(&text)
        .map_err(|e| anyhow::anyhow!("invalid model config {}: {}", path.display(), e.message()))?;
    Ok(file.model)
}
