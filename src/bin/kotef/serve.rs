//! `kotef serve`'s flags: each backed by an environment variable, secrets read from the
//! environment or files and never echoed (`--help` hides their env values), turned into the
//! library's validated [`ServeConfig`].

use anyhow::{bail, Context};
use kotef_core::Ceilings;
use kotef_github::config::{read_model_config, DEFAULT_WORKFLOW};
use kotef_github::{ExecutorMode, ExposeSecret, GitHubAuth, Secret, ServeConfig};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// Where accepted runs execute (the flag's values).
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ExecutorFlag {
    /// On this machine: clone, run the graph, push (the default).
    #[default]
    Local,
    /// On GitHub Actions runners: each accepted trigger becomes a `workflow_dispatch` of the
    /// repository's kotef workflow (`--workflow`), which runs `kotef action`.
    Actions,
}

impl From<ExecutorFlag> for ExecutorMode {
    fn from(f: ExecutorFlag) -> Self {
        match f {
            ExecutorFlag::Local => ExecutorMode::Local,
            ExecutorFlag::Actions => ExecutorMode::Actions,
        }
    }
}

/// Flags of `kotef serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Webhook secret(s) used to verify `X-Hub-Signature-256`; comma-separated to accept
    /// several during a rotation.
    #[arg(
        long = "webhook-secret",
        env = "KOTEF_WEBHOOK_SECRET",
        value_delimiter = ',',
        hide_env_values = true
    )]
    pub webhook_secret: Vec<Secret>,
    /// A file holding the webhook secret(s), one per line (instead of the variable).
    #[arg(long, env = "KOTEF_WEBHOOK_SECRET_FILE")]
    pub webhook_secret_file: Option<PathBuf>,
    /// A GitHub token (PAT or `GITHUB_TOKEN`); `GITHUB_TOKEN` is used when this is unset.
    #[arg(long, env = "KOTEF_GITHUB_TOKEN", hide_env_values = true)]
    pub github_token: Option<Secret>,
    /// A file holding the GitHub token (instead of the variable).
    #[arg(long, env = "KOTEF_GITHUB_TOKEN_FILE")]
    pub github_token_file: Option<PathBuf>,
    /// GitHub App id; with a private key, kotef authenticates as the App (wins over a token).
    #[arg(long, env = "KOTEF_APP_ID")]
    pub app_id: Option<u64>,
    /// The GitHub App's RSA private key (PEM text).
    #[arg(long, env = "KOTEF_APP_PRIVATE_KEY", hide_env_values = true)]
    pub app_private_key: Option<Secret>,
    /// A file holding the GitHub App's private key (PEM).
    #[arg(long, env = "KOTEF_APP_PRIVATE_KEY_PATH")]
    pub app_private_key_path: Option<PathBuf>,
    /// Address and port to listen on.
    #[arg(long, env = "KOTEF_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Directory for the job store and the temporary workspaces.
    #[arg(long, env = "KOTEF_DATA_DIR", default_value = ".kotef")]
    pub data_dir: PathBuf,
    /// Model spec passed through to the executor (`openai:NAME`, `anthropic:NAME`,
    /// `scripted:FILE`); it wins over a repository's `[model] name`.
    #[arg(long = "model", env = "KOTEF_MODEL")]
    pub model: Option<String>,
    /// GitHub REST API base URL (GitHub Enterprise: `https://HOST/api/v3`).
    #[arg(
        long,
        env = "KOTEF_GITHUB_API_URL",
        default_value = "https://api.github.com"
    )]
    pub github_api_url: String,
    /// Base URL repositories are cloned from: `{base}/{owner}/{repo}.git`.
    #[arg(long, env = "KOTEF_GIT_BASE_URL", default_value = "https://github.com")]
    pub git_base_url: String,
    /// The issue/PR label that triggers a run.
    #[arg(long, env = "KOTEF_TRIGGER_LABEL", default_value = kotef_github::DEFAULT_TRIGGER_LABEL)]
    pub trigger_label: String,
    /// The account whose assignment of an issue starts a run (a machine user: GitHub does not
    /// assign issues to App bots); default: kotef's own login.
    #[arg(long, env = "KOTEF_ASSIGNEE_TRIGGER")]
    pub assignee_trigger: Option<String>,
    /// The phrase at the start of a comment's line that starts a run.
    #[arg(long, env = "KOTEF_TRIGGER_PHRASE", default_value = kotef_github::inbound::sanitize::DEFAULT_TRIGGER_PHRASE)]
    pub trigger_phrase: String,
    /// The prefix of the branch an issue's run creates (`kotef/` makes `kotef/issue-7`).
    #[arg(long, env = "KOTEF_BRANCH_PREFIX", default_value = kotef_github::outbound::workspace::DEFAULT_BRANCH_PREFIX)]
    pub branch_prefix: String,
    /// The path webhooks are posted to.
    #[arg(long, env = "KOTEF_WEBHOOK_PATH", default_value = "/webhook")]
    pub webhook_path: String,
    /// Jobs run at the same time (at most one per issue or PR).
    #[arg(long, env = "KOTEF_WORKERS", default_value_t = 2)]
    pub workers: usize,
    /// Jobs of one installation (repository owner) run at once while other installations have
    /// jobs waiting (default: half the workers, rounded up).
    #[arg(long, env = "KOTEF_MAX_JOBS_PER_INSTALLATION")]
    pub max_jobs_per_installation: Option<usize>,
    /// Runs one installation may have waiting; a trigger beyond them is answered 429 and with
    /// a comment on its issue (events that cannot start a run are never queued).
    #[arg(
        long,
        env = "KOTEF_MAX_QUEUED_PER_INSTALLATION",
        default_value_t = kotef_github::config::DEFAULT_MAX_QUEUED_PER_INSTALLATION
    )]
    pub max_queued_per_installation: usize,
    /// kotef's own login, whose events are ignored; looked up from GitHub when unset.
    #[arg(long, env = "KOTEF_BOT_LOGIN")]
    pub bot_login: Option<String>,
    /// Commit author name of kotef's commits.
    #[arg(long, env = "KOTEF_GIT_AUTHOR_NAME", default_value = "kotef[bot]")]
    pub git_author_name: String,
    /// Commit author email of kotef's commits.
    #[arg(
        long,
        env = "KOTEF_GIT_AUTHOR_EMAIL",
        default_value = "kotef[bot]@users.noreply.github.com"
    )]
    pub git_author_email: String,
    /// Where runs execute: `local` (this machine) or `actions` (a `workflow_dispatch` of the
    /// repository's kotef workflow per accepted trigger; this server only dispatches).
    #[arg(long, env = "KOTEF_EXECUTOR", value_enum, default_value_t = ExecutorFlag::Local)]
    pub executor: ExecutorFlag,
    /// The workflow file (in `.github/workflows/`) or id dispatched by `--executor actions`.
    #[arg(long, env = "KOTEF_WORKFLOW", default_value = DEFAULT_WORKFLOW)]
    pub workflow: String,
    /// Most prompt + completion tokens a run may get; a repository's `token_budget` above it is
    /// lowered (default 2,000,000).
    #[arg(long, env = "KOTEF_MAX_TOKEN_BUDGET")]
    pub max_token_budget: Option<u64>,
    /// Most wall-clock seconds a run may get (default 3600).
    #[arg(long, env = "KOTEF_MAX_TIME_BUDGET_S")]
    pub max_time_budget_s: Option<u64>,
    /// Most dollars a run may spend, from the model's price (default: no dollar ceiling).
    #[arg(long, env = "KOTEF_MAX_COST_USD")]
    pub max_cost_usd: Option<f64>,
    /// Run agent commands without bubblewrap when no working sandbox exists (by default such
    /// a server refuses to run them).
    /// `KOTEF_ALLOW_UNSANDBOXED` takes `1/0/true/false/yes/no/on/off` in any case.
    #[arg(
        long,
        env = "KOTEF_ALLOW_UNSANDBOXED",
        num_args = 0..=1,
        default_missing_value = "true",
        default_value = "false",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub allow_unsandboxed: bool,
    /// Loopback ports a repository's tests may reach with `[test] network = "loopback"`
    /// (comma-separated, e.g. `5432,6379`): this machine's services are the operator's, so by
    /// default none.
    #[arg(long, env = "KOTEF_LOOPBACK_PORTS", value_parser = parse_ports, default_value = "")]
    pub loopback_ports: Ports,
    /// A TOML file with the operator's `[model]` settings (base_url, prices, timeout_s,
    /// max_retries, ...); repositories cannot set these on a server.
    #[arg(long, env = "KOTEF_MODEL_CONFIG")]
    pub model_config: Option<PathBuf>,
}

fn read_secret_file(path: &Path, what: &str) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the {what} file {}", path.display()))?;
    Ok(text.trim().to_string())
}

impl ServeArgs {
    /// The validated config, taking `GITHUB_TOKEN` from the process environment as fallback.
    pub fn into_config(self) -> anyhow::Result<ServeConfig> {
        self.into_config_with(kotef_core::process::var)
    }

    /// As [`Self::into_config`], reading fallback variables through `env`.
    pub fn into_config_with(
        self,
        env: impl Fn(&str) -> Option<String>,
    ) -> anyhow::Result<ServeConfig> {
        let mut secrets: Vec<Secret> = self
            .webhook_secret
            .into_iter()
            .map(|s| Secret::from(s.expose_secret().trim()))
            .filter(|s| !s.expose_secret().is_empty())
            .collect();
        if let Some(p) = &self.webhook_secret_file {
            secrets.extend(
                read_secret_file(p, "webhook secret")?
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(Secret::from),
            );
        }
        let token = match (self.github_token, &self.github_token_file) {
            (Some(t), _) if !t.expose_secret().is_empty() => Some(t),
            (_, Some(p)) => Some(Secret::from(read_secret_file(p, "GitHub token")?)),
            _ => env("GITHUB_TOKEN")
                .filter(|t| !t.trim().is_empty())
                .map(Secret::from),
        };
        let auth = match self.app_id {
            Some(app_id) => {
                let key = match (self.app_private_key, &self.app_private_key_path) {
                    (Some(k), _) if !k.expose_secret().is_empty() => k,
                    (_, Some(p)) => Secret::from(read_secret_file(p, "GitHub App private key")?),
                    _ => bail!("KOTEF_APP_ID is set but neither KOTEF_APP_PRIVATE_KEY nor KOTEF_APP_PRIVATE_KEY_PATH is"),
                };
                GitHubAuth::App {
                    app_id,
                    private_key: key,
                }
            }
            None => match token {
                Some(t) => GitHubAuth::Token(t),
                None => bail!("no GitHub credentials: set KOTEF_GITHUB_TOKEN (or GITHUB_TOKEN), or KOTEF_APP_ID with KOTEF_APP_PRIVATE_KEY or KOTEF_APP_PRIVATE_KEY_PATH"),
            },
        };
        let mut cfg = ServeConfig::new(
            secrets,
            auth,
            self.github_api_url,
            self.git_base_url,
            self.data_dir,
        );
        cfg.listen = self.listen;
        cfg.webhook_path = self.webhook_path;
        cfg.model = self.model;
        cfg.trigger_label = self.trigger_label;
        cfg.assignee_trigger = self
            .assignee_trigger
            .map(|a| a.trim().trim_start_matches('@').to_string())
            .filter(|a| !a.is_empty());
        cfg.trigger_phrase = self
            .trigger_phrase
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        cfg.branch_prefix = self.branch_prefix;
        cfg.workers = self.workers;
        cfg.max_jobs_per_installation = self.max_jobs_per_installation;
        cfg.max_queued_per_installation = self.max_queued_per_installation;
        cfg.bot_login = self.bot_login;
        cfg.git.author_name = self.git_author_name;
        cfg.git.author_email = self.git_author_email;
        cfg.executor = self.executor.into();
        cfg.workflow = self.workflow.trim().to_string();
        cfg.ceilings = Ceilings::SERVER_DEFAULT.with(Ceilings {
            token_budget: self.max_token_budget,
            time_budget_s: self.max_time_budget_s,
            cost_usd: self.max_cost_usd,
        });
        cfg.allow_unsandboxed = self.allow_unsandboxed;
        cfg.loopback_ports = self.loopback_ports.0;
        cfg.secret_files = [
            &self.webhook_secret_file,
            &self.github_token_file,
            &self.app_private_key_path,
            &self.model_config,
        ]
        .into_iter()
        .flatten()
        .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
        .collect();
        if let Some(p) = &self.model_config {
            cfg.operator_model = read_model_config(p)?;
        }
        cfg.validate()?;
        Ok(cfg)
    }
}

/// A list of loopback ports from the command line or `KOTEF_LOOPBACK_PORTS`.
#[derive(Debug, Clone, Default)]
pub struct Ports(pub Vec<u16>);

fn parse_ports(v: &str) -> Result<Ports, String> {
    kotef_core::test_network::parse_ports(v).map(Ports)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use kotef_github::config::valid_workflow;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn parse(args: &[&str]) -> ServeArgs {
        let mut v = vec!["kotef"];
        v.extend_from_slice(args);
        Cli::try_parse_from(v).unwrap().serve
    }

    #[test]
    fn allow_unsandboxed_takes_booleans_as_people_write_them() {
        for (word, want) in [
            ("1", true),
            ("0", false),
            ("true", true),
            ("FALSE", false),
            ("yes", true),
            ("No", false),
            ("on", true),
            ("OFF", false),
        ] {
            let arg = format!("--allow-unsandboxed={word}");
            assert_eq!(parse(&[arg.as_str()]).allow_unsandboxed, want, "{word}");
        }
    }

    #[test]
    fn allow_unsandboxed_alone_means_true_and_absent_false() {
        assert!(parse(&["--allow-unsandboxed"]).allow_unsandboxed);
        assert!(!parse(&[]).allow_unsandboxed);
    }

    #[test]
    fn token_falls_back_to_github_token_and_secrets_split() {
        let a = parse(&[
            "--webhook-secret",
            "old-secret,new-secret",
            "--workers",
            "3",
        ]);
        let cfg = a
            .into_config_with(|k| (k == "GITHUB_TOKEN").then(|| "ghp_fallback".to_string()))
            .unwrap();
        assert_eq!(cfg.webhook_secrets.len(), 2);
        assert_eq!(cfg.workers, 3);
        assert!(matches!(&cfg.auth, GitHubAuth::Token(t) if t.expose_secret() == "ghp_fallback"));
        assert_eq!(cfg.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(cfg.trigger_label, "kotef");
        assert_eq!(
            (
                cfg.trigger_phrase.as_str(),
                cfg.branch_prefix.as_str(),
                cfg.assignee_trigger.as_deref()
            ),
            ("/kotef run", "kotef/", None)
        );
        let shown = format!("{cfg:?}");
        assert!(
            !shown.contains("ghp_fallback") && !shown.contains("old-secret"),
            "{shown}"
        );
    }

    fn config(args: &[&str]) -> anyhow::Result<ServeConfig> {
        let mut all = vec!["--webhook-secret", "s"];
        all.extend_from_slice(args);
        parse(&all).into_config_with(|k| (k == "GITHUB_TOKEN").then(|| "t".to_string()))
    }

    #[test]
    fn an_installation_gets_half_the_workers_by_default() {
        let cfg = config(&["--workers", "5"]).unwrap();
        assert_eq!(cfg.jobs_per_installation(), 3);
    }

    #[test]
    fn an_installation_share_can_be_set() {
        let cfg = config(&["--workers", "4", "--max-jobs-per-installation", "1"]).unwrap();
        assert_eq!(cfg.jobs_per_installation(), 1);
    }

    #[test]
    fn an_installation_share_of_zero_is_refused() {
        assert!(config(&["--max-jobs-per-installation", "0"]).is_err());
    }

    #[test]
    fn a_server_without_ceiling_flags_is_still_bounded() {
        assert_eq!(config(&[]).unwrap().ceilings, Ceilings::SERVER_DEFAULT);
    }

    #[test]
    fn ceiling_flags_lay_over_the_defaults() {
        let c = config(&["--max-time-budget-s", "600", "--max-cost-usd", "2.5"])
            .unwrap()
            .ceilings;
        assert_eq!(
            (c.token_budget, c.time_budget_s, c.cost_usd),
            (Some(2_000_000), Some(600), Some(2.5))
        );
    }

    #[test]
    fn a_senseless_ceiling_is_named() {
        let err = config(&["--max-cost-usd", "0"]).unwrap_err().to_string();
        assert!(err.contains("--max-cost-usd"), "{err}");
    }

    #[test]
    fn the_operator_model_settings_come_from_their_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.toml");
        std::fs::write(&path, "[model]\nbase_url = \"http://127.0.0.1:8081/v1\"\n").unwrap();
        let cfg = config(&["--model-config", path.to_str().unwrap()]).unwrap();
        assert_eq!(
            cfg.operator_model.base_url.as_deref(),
            Some("http://127.0.0.1:8081/v1")
        );
    }

    #[test]
    fn an_unknown_field_in_the_operator_model_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.toml");
        std::fs::write(&path, "[model]\nbase_ulr = \"x\"\n").unwrap();
        let err = config(&["--model-config", path.to_str().unwrap()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("base_ulr"), "{err}");
    }

    #[test]
    fn missing_pieces_are_named() {
        let err = parse(&[])
            .into_config_with(|_| Some("t".into()))
            .unwrap_err();
        assert!(err.to_string().contains("KOTEF_WEBHOOK_SECRET"), "{err}");
        let err = parse(&["--webhook-secret", "s"])
            .into_config_with(|_| None)
            .unwrap_err();
        assert!(err.to_string().contains("KOTEF_GITHUB_TOKEN"), "{err}");
        let err = parse(&["--webhook-secret", "s", "--app-id", "5"])
            .into_config_with(|_| None)
            .unwrap_err();
        assert!(err.to_string().contains("KOTEF_APP_PRIVATE_KEY"), "{err}");
        let err = parse(&["--webhook-secret", "s", "--workers", "0"])
            .into_config_with(|_| Some("t".into()))
            .unwrap_err();
        assert!(err.to_string().contains("--workers"), "{err}");
    }

    #[test]
    fn executor_defaults_to_local_and_actions_needs_a_workflow_file() {
        let cfg = parse(&["--webhook-secret", "s"])
            .into_config_with(|_| Some("t".into()))
            .unwrap();
        assert_eq!(cfg.executor, ExecutorMode::Local);
        assert_eq!(cfg.workflow, "kotef.yml");
        let cfg = parse(&[
            "--webhook-secret",
            "s",
            "--executor",
            "actions",
            "--workflow",
            "agent.yaml",
        ])
        .into_config_with(|_| Some("t".into()))
        .unwrap();
        assert_eq!(cfg.executor, ExecutorMode::Actions);
        assert_eq!(cfg.workflow, "agent.yaml");
        let err = parse(&[
            "--webhook-secret",
            "s",
            "--executor",
            "actions",
            "--workflow",
            "../x.yml",
        ])
        .into_config_with(|_| Some("t".into()))
        .unwrap_err();
        assert!(err.to_string().contains("--workflow"), "{err}");
        assert!(valid_workflow("12345"));
        assert!(!valid_workflow("kotef"));
        assert!(!valid_workflow(".github/workflows/kotef.yml"));
        let bad = Cli::try_parse_from(["kotef", "--executor", "lambda"]);
        assert!(bad.is_err());
    }

    #[test]
    fn secrets_can_come_from_files() {
        let dir = tempfile::tempdir().unwrap();
        let sf = dir.path().join("secret");
        std::fs::write(&sf, "one\ntwo\n").unwrap();
        let tf = dir.path().join("token");
        std::fs::write(&tf, "ghp_from_file\n").unwrap();
        let cfg = parse(&[
            "--webhook-secret-file",
            sf.to_str().unwrap(),
            "--github-token-file",
            tf.to_str().unwrap(),
        ])
        .into_config_with(|_| None)
        .unwrap();
        assert_eq!(cfg.webhook_secrets.len(), 2);
        assert!(matches!(&cfg.auth, GitHubAuth::Token(t) if t.expose_secret() == "ghp_from_file"));
    }
}
