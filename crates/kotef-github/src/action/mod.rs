//! The GitHub Action entry point (`kotef action`): the `GITHUB_*` environment an Actions runner
//! sets and the action's inputs become one [`Job`] (`issues`, `issue_comment`, `pull_request`
//! through the server's own [`crate::decide`]; `workflow_dispatch` from its inputs, including
//! runs handed over by `kotef serve --executor actions`), which [`process_job`] runs with the
//! same permission check, graph, commits and publishing as the server. Afterwards the step's
//! outputs go to `$GITHUB_OUTPUT`, the status comment's Markdown to `$GITHUB_STEP_SUMMARY`, and
//! `::error::`/`::warning::`/`::notice::` annotations to stdout. Pure parts (environment,
//! inputs, outputs, annotations, exit code) are functions with unit tests.

use crate::client::{GitHub, GitHubAuth};
use crate::dispatch::{DispatchedRun, INPUT_GOAL, INPUT_ISSUE, INPUT_RUN};
use crate::job::{Job, Work};
use crate::pipeline::{process_job, JobContext, JobResult, JobStatus};
use crate::retry::RetryPolicy;
use crate::sanitize::clean_text;
use crate::secret::Secret;
use crate::trigger::{Actor, DecisionConfig, Target, Trigger};
use crate::workspace::GitSettings;
use crate::RunExecutor;
use anyhow::Context as _;
use kotef_core::{
    DeliveryId, IssueNumber, LimitsOverride, Profile, Redactor, RepoName, RunId, TerminalStatus,
};
use serde::Deserialize;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// What the runner's environment says about this step.
#[derive(Debug, Clone)]
pub struct ActionEnv {
    /// `GITHUB_EVENT_NAME`.
    pub event_name: String,
    /// `GITHUB_EVENT_PATH`: the event's payload file.
    pub event_path: PathBuf,
    /// `GITHUB_REPOSITORY`.
    pub repository: RepoName,
    /// `GITHUB_TOKEN` (the action's `github-token` input).
    pub token: Secret,
    /// `GITHUB_WORKSPACE`, when set.
    pub workspace: Option<PathBuf>,
    /// `GITHUB_SERVER_URL` (default `https://github.com`): web links.
    pub server_url: String,
    /// `GITHUB_API_URL` (default `https://api.github.com`).
    pub api_url: String,
    /// `GITHUB_RUN_ID`, for the link to this run.
    pub run_id: Option<String>,
    /// `GITHUB_RUN_ATTEMPT`.
    pub run_attempt: Option<String>,
    /// `GITHUB_OUTPUT`.
    pub output_path: Option<PathBuf>,
    /// `GITHUB_STEP_SUMMARY`.
    pub summary_path: Option<PathBuf>,
    /// `RUNNER_TEMP` (else the system's temporary directory): where clones go.
    pub temp_dir: PathBuf,
    /// `KOTEF_GIT_BASE_URL` (default: the server URL): `{base}/{owner}/{repo}.git`.
    pub git_base_url: String,
}

fn non_empty(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

impl ActionEnv {
    /// Reads the environment through `env`; the error names every missing or bad variable.
    pub fn from_lookup(env: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let get = |k: &str| non_empty(env(k));
        let mut missing = Vec::new();
        let mut need = |k: &'static str| {
            let v = get(k);
            if v.is_none() {
                missing.push(k);
            }
            v.unwrap_or_default()
        };
        let event_name = need("GITHUB_EVENT_NAME");
        let event_path = need("GITHUB_EVENT_PATH");
        let repository = need("GITHUB_REPOSITORY");
        let token = need("GITHUB_TOKEN");
        if !missing.is_empty() {
            return Err(format!(
                "not running in GitHub Actions? {} not set{}",
                missing.join(", "),
                if missing.contains(&"GITHUB_TOKEN") {
                    " (GITHUB_TOKEN comes from the action's `github-token` input)"
                } else {
                    ""
                }
            ));
        }
        let repository = RepoName::parse(&repository)
            .ok_or_else(|| format!("GITHUB_REPOSITORY `{repository}` is not owner/name"))?;
        let server_url = get("GITHUB_SERVER_URL")
            .unwrap_or_else(|| "https://github.com".into())
            .trim_end_matches('/')
            .to_string();
        Ok(Self {
            event_name,
            event_path: PathBuf::from(event_path),
            repository,
            token: Secret::new(token),
            workspace: get("GITHUB_WORKSPACE").map(PathBuf::from),
            api_url: get("GITHUB_API_URL").unwrap_or_else(|| "https://api.github.com".into()),
            run_id: get("GITHUB_RUN_ID"),
            run_attempt: get("GITHUB_RUN_ATTEMPT"),
            output_path: get("GITHUB_OUTPUT").map(PathBuf::from),
            summary_path: get("GITHUB_STEP_SUMMARY").map(PathBuf::from),
            temp_dir: get("RUNNER_TEMP")
                .map(PathBuf::from)
                .unwrap_or_else(std::env::temp_dir),
            git_base_url: get("KOTEF_GIT_BASE_URL").unwrap_or_else(|| server_url.clone()),
            server_url,
        })
    }

    /// The web page of this Actions run.
    pub fn run_url(&self) -> Option<String> {
        let id = self.run_id.as_deref()?;
        if !id.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        Some(format!(
            "{}/{}/{}/actions/runs/{id}",
            self.server_url, self.repository.owner, self.repository.name
        ))
    }
}

/// Which endings fail the step: terminal statuses, and `error` for runs that ended without an
/// outcome (clone, config, model set-up or push trouble).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailOn {
    pub statuses: Vec<TerminalStatus>,
    pub error: bool,
}

impl Default for FailOn {
    /// `aborted_stuck,aborted_constraint,error`.
    fn default() -> Self {
        Self {
            statuses: vec![
                TerminalStatus::AbortedStuck,
                TerminalStatus::AbortedConstraint,
            ],
            error: true,
        }
    }
}

impl FailOn {
    /// Comma- or space-separated names; empty or `none` fails on nothing.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut out = Self {
            statuses: Vec::new(),
            error: false,
        };
        for word in text
            .split([',', ' ', '\n'])
            .map(str::trim)
            .filter(|w| !w.is_empty())
        {
            match word {
                "none" => {}
                "error" => out.error = true,
                w => match TerminalStatus::parse(w) {
                    Some(s) if !out.statuses.contains(&s) => out.statuses.push(s),
                    Some(_) => {}
                    None => {
                        return Err(format!(
                        "fail-on: unknown status `{w}` (use done_success, done_partial, aborted_stuck, aborted_constraint, error or none)"
                    ))
                    }
                },
            }
        }
        Ok(out)
    }
}

/// The action's inputs, already parsed.
#[derive(Debug, Clone)]
pub struct ActionInputs {
    /// Model spec; wins over the repository's `[model] name`.
    pub model: Option<String>,
    pub profile: Option<Profile>,
    pub trigger_label: String,
    /// Replaces the goal built from the issue (and the `goal` input of `workflow_dispatch`).
    pub goal: Option<String>,
    /// The issue or PR for `workflow_dispatch` (else its `issue-number` input).
    pub issue_number: Option<u64>,
    pub limits: LimitsOverride,
    pub test_command: Option<String>,
    /// Used instead of the repository's config file (relative: inside the work tree).
    pub config_path: Option<PathBuf>,
    pub fail_on: FailOn,
}

impl Default for ActionInputs {
    fn default() -> Self {
        Self {
            model: None,
            profile: None,
            trigger_label: crate::DEFAULT_TRIGGER_LABEL.into(),
            goal: None,
            issue_number: None,
            limits: LimitsOverride::default(),
            test_command: None,
            config_path: None,
            fail_on: FailOn::default(),
        }
    }
}

/// A bad event file, environment or input: the step fails with this message.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    #[error("cannot read the event file {path}: {message}")]
    EventFile { path: String, message: String },
    #[error(transparent)]
    Payload(#[from] crate::trigger::PayloadError),
    #[error("{0}")]
    Input(String),
    #[error("{0}")]
    GitHub(String),
}

/// What the event asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Prepared {
    Run(Box<Job>),
    /// Nothing to do, and why.
    Skip(String),
}

#[derive(Debug, Deserialize)]
struct DispatchUser {
    login: String,
    id: u64,
}

#[derive(Debug, Deserialize)]
struct DispatchRepo {
    #[serde(default)]
    default_branch: Option<String>,
}

#[derive(Debug, Deserialize)]
struct DispatchEvent {
    #[serde(default)]
    inputs: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(default)]
    repository: Option<DispatchRepo>,
    sender: DispatchUser,
}

fn input_text(inputs: &serde_json::Map<String, serde_json::Value>, key: &str) -> Option<String> {
    match inputs.get(key)? {
        serde_json::Value::String(s) => non_empty(Some(s.clone())),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Turns the event into a job: `Skip` when the event asks for nothing.
pub async fn prepare_job(
    env: &ActionEnv,
    inputs: &ActionInputs,
    payload: &[u8],
    github: &GitHub,
) -> Result<Prepared, ActionError> {
    let delivery = DeliveryId(format!(
        "actions-{}-{}",
        env.run_id.as_deref().unwrap_or("local"),
        env.run_attempt.as_deref().unwrap_or("1")
    ));
    let mut job = if env.event_name == "workflow_dispatch" {
        match dispatch_job(env, inputs, payload, github, delivery).await? {
            Ok(job) => job,
            Err(reason) => return Ok(Prepared::Skip(reason)),
        }
    } else {
        let cfg = DecisionConfig {
            trigger_label: inputs.trigger_label.clone(),
            bot_login: None,
            app_id: None,
        };
        match Job::from_event(&env.event_name, payload, &cfg, delivery)? {
            Ok(job) => job,
            Err(reason) => return Ok(Prepared::Skip(reason)),
        }
    };
    if job.repo() != &env.repository {
        return Err(ActionError::Input(format!(
            "the event is about {} but GITHUB_REPOSITORY is {}",
            job.repo(),
            env.repository
        )));
    }
    job.attempts = 1;
    job.profile = inputs.profile;
    job.limits = inputs.limits;
    job.test_command = inputs.test_command.clone();
    if let Some(g) = &inputs.goal {
        job.goal = Some(g.clone());
    }
    Ok(Prepared::Run(Box::new(job)))
}

async fn dispatch_job(
    env: &ActionEnv,
    inputs: &ActionInputs,
    payload: &[u8],
    github: &GitHub,
    delivery: DeliveryId,
) -> Result<Result<Job, String>, ActionError> {
    let de = &mut serde_json::Deserializer::from_slice(payload);
    let event: DispatchEvent = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        crate::trigger::PayloadError {
            event: "workflow_dispatch".into(),
            path: if path.is_empty() { ".".into() } else { path },
            message: e.into_inner().to_string(),
        }
    })?;
    let given = event.inputs.unwrap_or_default();
    let number = match inputs.issue_number {
        Some(n) => n,
        None => match input_text(&given, INPUT_ISSUE) {
            Some(t) => parse_issue_number(&t).map_err(ActionError::Input)?,
            None => {
                return Err(ActionError::Input(format!(
                    "workflow_dispatch needs the issue or pull request to work on: set the action's `issue-number` input (or the workflow's `{INPUT_ISSUE}` input)"
                )))
            }
        },
    };
    let handed_over = match input_text(&given, INPUT_RUN) {
        Some(t) => Some(DispatchedRun::parse(&t).map_err(ActionError::Input)?),
        None => None,
    };
    let issue = github
        .issue(&env.repository, IssueNumber(number))
        .await
        .map_err(|e| ActionError::GitHub(format!("cannot read issue #{number}: {e}")))?;
    if issue.state.as_deref() == Some("closed") {
        return Ok(Err(format!("#{number} is closed")));
    }
    let sender = match &handed_over {
        Some(r) => Actor {
            login: r.requested_by.clone(),
            id: r.requested_by_id,
        },
        None => Actor {
            login: event.sender.login.clone(),
            id: event.sender.id,
        },
    };
    let target = Target {
        repo: env.repository.clone(),
        default_branch: event.repository.and_then(|r| r.default_branch),
        number: IssueNumber(number),
        title: clean_text(&issue.title),
        body: clean_text(issue.body.as_deref().unwrap_or_default()),
        sender,
    };
    let trigger = Trigger::Dispatch {
        target,
        is_pull_request: issue.pull_request.is_some(),
    };
    let mut job = Job::new(
        delivery,
        Work::Run { trigger },
        inputs.trigger_label.clone(),
    );
    job.goal = input_text(&given, INPUT_GOAL);
    if let Some(r) = handed_over {
        job.run_id = RunId(r.run_id);
        job.status_comment = r.comment_id;
    }
    Ok(Ok(job))
}

/// An issue number as typed into an input (`12` or `#12`).
pub fn parse_issue_number(text: &str) -> Result<u64, String> {
    let t = text.trim().trim_start_matches('#');
    match t.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "issue-number `{}` is not an issue or pull request number",
            text.trim()
        )),
    }
}

/// The step's outputs, in the order action.yml declares them (empty when unknown).
pub fn outputs(result: Option<&JobResult>) -> Vec<(&'static str, String)> {
    let outcome = result.and_then(|r| r.outcome.as_ref());
    let s = outcome.map(|o| &o.summary);
    vec![
        (
            "terminal-status",
            s.map(|s| s.terminal_status.as_str().to_string())
                .unwrap_or_default(),
        ),
        (
            "stop-rule",
            s.and_then(|s| s.stop_rule)
                .map(|r| r.as_str().to_string())
                .unwrap_or_default(),
        ),
        (
            "stop-reason",
            s.map(|s| s.stop_reason.clone()).unwrap_or_default(),
        ),
        (
            "report-path",
            outcome
                .map(|o| o.report_rel_path.clone())
                .unwrap_or_default(),
        ),
        (
            "pr-url",
            result.and_then(|r| r.pull_url.clone()).unwrap_or_default(),
        ),
        (
            "branch",
            result.and_then(|r| r.branch.clone()).unwrap_or_default(),
        ),
    ]
}

/// `$GITHUB_OUTPUT` text: `name=value` lines, or a heredoc with a delimiter the value does not
/// contain for values with line breaks.
pub fn github_output(pairs: &[(&str, String)]) -> String {
    let mut out = String::new();
    for (name, value) in pairs {
        if value.contains(['\n', '\r']) {
            let mut n = 0u32;
            let delimiter = loop {
                let d = format!("ghadelimiter_kotef_{n}");
                if !value.contains(&d) {
                    break d;
                }
                n += 1;
            };
            out.push_str(&format!("{name}<<{delimiter}\n{value}\n{delimiter}\n"));
        } else {
            out.push_str(&format!("{name}={value}\n"));
        }
    }
    out
}

/// The step summary: the status comment's Markdown, or why nothing ran.
pub fn step_summary(result: Option<&JobResult>, skipped: Option<&str>) -> String {
    match (result, skipped) {
        (Some(r), _) => match &r.comment {
            Some(c) => c.clone(),
            None => match r.status {
                JobStatus::Ignored => format!("### kotef did not run\n\n{}\n", r.message),
                _ => format!("### ❌ kotef run failed\n\n{}\n", r.message),
            },
        },
        (None, Some(reason)) => format!("### kotef did not run\n\n{reason}\n"),
        (None, None) => String::new(),
    }
}

/// Escapes a workflow command's message.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

fn command(level: &str, title: &str, message: &str) -> String {
    format!(
        "::{level} title={}::{}",
        escape_property(title),
        escape_data(message)
    )
}

/// The annotations for how the job ended (errors for endings in `fail_on`).
pub fn annotations(
    result: Option<&JobResult>,
    skipped: Option<&str>,
    fail_on: &FailOn,
) -> Vec<String> {
    let Some(r) = result else {
        return skipped
            .map(|why| {
                vec![command(
                    "notice",
                    "kotef",
                    &format!("kotef did not run: {why}"),
                )]
            })
            .unwrap_or_default();
    };
    match (r.status, r.outcome.as_ref()) {
        (JobStatus::Finished, Some(o)) => {
            let s = &o.summary;
            let level = if fail_on.statuses.contains(&s.terminal_status) {
                "error"
            } else if s.terminal_status == TerminalStatus::DoneSuccess {
                "notice"
            } else {
                "warning"
            };
            let rule = s
                .stop_rule
                .map(|r| format!(" (stop rule {r})"))
                .unwrap_or_default();
            let mut v = vec![command(
                level,
                &format!("kotef: {}", s.terminal_status),
                &format!(
                    "kotef run ended {}{rule}: {}",
                    s.terminal_status, s.stop_reason
                ),
            )];
            if let Some(f) = o
                .failure_summary
                .as_deref()
                .filter(|f| !f.trim().is_empty())
            {
                v.push(command("warning", "kotef: failing check", f));
            }
            v
        }
        (JobStatus::Ignored, _) => vec![command(
            "notice",
            "kotef",
            &format!("kotef did not run: {}", r.message),
        )],
        (JobStatus::Rejected, _) => vec![command(
            "warning",
            "kotef",
            &format!("kotef will not run here: {}", r.message),
        )],
        _ => vec![command(
            if fail_on.error { "error" } else { "warning" },
            "kotef: run failed",
            &format!("kotef run failed: {}", r.message),
        )],
    }
}

/// 0 unless the ending is in `fail_on`: then the terminal status's exit code (2, 3, 4; 1 for
/// `done_success`), or 1 for `error`.
pub fn exit_code(result: Option<&JobResult>, fail_on: &FailOn) -> i32 {
    let Some(r) = result else { return 0 };
    match (r.status, r.terminal_status()) {
        (JobStatus::Finished, Some(t)) if fail_on.statuses.contains(&t) => t.exit_code().max(1),
        (JobStatus::Failed | JobStatus::GaveUp, _) if fail_on.error => 1,
        _ => 0,
    }
}

/// How the step ended.
#[derive(Debug)]
pub struct ActionReport {
    pub result: Option<JobResult>,
    /// Why nothing ran, when nothing did.
    pub skipped: Option<String>,
    pub exit_code: i32,
}

fn append(path: &Path, text: &str, what: &str) -> anyhow::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {what} {}", path.display()))?;
    f.write_all(text.as_bytes())
        .with_context(|| format!("cannot write {what} {}", path.display()))
}

/// Writes the summary of an error that stopped the step before a job existed.
pub fn report_error(env: Option<&ActionEnv>, message: &str) {
    println!("{}", command("error", "kotef", message));
    if let Some(p) = env.and_then(|e| e.summary_path.as_deref()) {
        let _ = append(
            p,
            &format!("### ❌ kotef could not start\n\n{}\n", message),
            "the step summary",
        );
    }
}

/// Runs the step: event → job → [`process_job`] → outputs, summary, annotations.
pub async fn run_action(
    env: &ActionEnv,
    inputs: &ActionInputs,
    executor: &dyn RunExecutor,
) -> anyhow::Result<ActionReport> {
    let mut redactor = Redactor::from_env();
    redactor.add(env.token.expose());
    let payload = std::fs::read(&env.event_path).map_err(|e| ActionError::EventFile {
        path: env.event_path.display().to_string(),
        message: e.to_string(),
    })?;
    let github = GitHub::new(
        &env.api_url,
        GitHubAuth::Token(env.token.clone()),
        RetryPolicy::default(),
    )?;
    let prepared = prepare_job(env, inputs, &payload, &github)
        .await
        .map_err(|e| anyhow::anyhow!(redactor.redact(&e.to_string())))?;
    let (result, skipped) = match prepared {
        Prepared::Skip(reason) => {
            println!(
                "kotef: nothing to do for this `{}` event: {reason}",
                env.event_name
            );
            (None, Some(reason))
        }
        Prepared::Run(job) => {
            println!(
                "kotef: run {} on {}#{} (requested by {})",
                job.run_id,
                job.repo(),
                job.number(),
                job.sender_login()
            );
            let git = GitSettings {
                base_url: env.git_base_url.clone(),
                ..GitSettings::default()
            };
            let mut ctx = JobContext::new(github, git, env.temp_dir.join("kotef-workspaces"));
            ctx.web_base_url = env.server_url.clone();
            ctx.model = inputs.model.clone();
            ctx.redactor = redactor.clone();
            ctx.checkout = env.workspace.clone().filter(|w| w.join(".git").exists());
            if ctx.checkout.is_none() {
                println!("kotef: no checkout in GITHUB_WORKSPACE; cloning the repository");
            }
            ctx.config_path = inputs.config_path.clone();
            ctx.actions_run_url = env.run_url();
            let result = process_job(&ctx, &job, executor).await;
            match result.status {
                JobStatus::Ignored => println!("kotef: not running: {}", result.message),
                _ => println!("kotef: {}: {}", result.status.as_str(), result.message),
            }
            (Some(result), None)
        }
    };
    let pairs: Vec<(&str, String)> = outputs(result.as_ref())
        .into_iter()
        .map(|(k, v)| (k, redactor.redact(&v)))
        .collect();
    if let Some(p) = &env.output_path {
        append(p, &github_output(&pairs), "GITHUB_OUTPUT")?;
    }
    if let Some(p) = &env.summary_path {
        let text = step_summary(result.as_ref(), skipped.as_deref());
        append(p, &redactor.redact(&text), "GITHUB_STEP_SUMMARY")?;
    }
    for line in annotations(result.as_ref(), skipped.as_deref(), &inputs.fail_on) {
        println!("{}", redactor.redact(&line));
    }
    let code = exit_code(result.as_ref(), &inputs.fail_on);
    Ok(ActionReport {
        result,
        skipped,
        exit_code: code,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_core::{RunOutcome, RunSummary, StopRule};

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: std::collections::HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    fn outcome(status: TerminalStatus, rule: Option<StopRule>) -> RunOutcome {
        RunOutcome {
            run_id: RunId("r1".into()),
            summary: RunSummary {
                terminal_status: status,
                stop_rule: rule,
                stop_reason: "the planner looped\nsecond line".into(),
                loop_counters: Default::default(),
                total_steps: 3,
                model_calls: 2,
                prompt_tokens: 10,
                completion_tokens: 5,
                fix_attempts: 0,
                report_path: "/w/.sdd/runs/r1.md".into(),
                issues_md_path: "/w/.sdd/issues.md".into(),
            },
            cost_usd: None,
            duration_ms: 5,
            failure_summary: None,
            mermaid: String::new(),
            files_changed: vec![],
            report_rel_path: ".sdd/runs/r1.md".into(),
            issues_rel_path: None,
            model: "scripted".into(),
        }
    }

    fn finished(status: TerminalStatus, rule: Option<StopRule>) -> JobResult {
        JobResult {
            status: JobStatus::Finished,
            outcome: Some(outcome(status, rule)),
            branch: Some("kotef/issue-4".into()),
            pull: Some(5),
            pull_url: Some("https://github.com/o/r/pull/5".into()),
            comment_id: Some(9),
            comment: Some("<!-- kotef:run {} -->\n### comment".into()),
            message: "done".into(),
        }
    }

    #[test]
    fn environment_is_read_and_gaps_are_named() {
        let e = ActionEnv::from_lookup(env_of(&[
            ("GITHUB_EVENT_NAME", "issues"),
            ("GITHUB_EVENT_PATH", "/tmp/event.json"),
            ("GITHUB_REPOSITORY", "acme/widgets"),
            ("GITHUB_TOKEN", "ghs_x"),
            ("GITHUB_SERVER_URL", "https://github.example/"),
            ("GITHUB_RUN_ID", "42"),
            ("GITHUB_WORKSPACE", ""),
        ]))
        .unwrap();
        assert_eq!(e.repository, RepoName::new("acme", "widgets"));
        assert_eq!(e.api_url, "https://api.github.com");
        assert_eq!(e.git_base_url, "https://github.example");
        assert_eq!(e.workspace, None, "empty counts as unset");
        assert_eq!(
            e.run_url().as_deref(),
            Some("https://github.example/acme/widgets/actions/runs/42")
        );
        let err = ActionEnv::from_lookup(env_of(&[("GITHUB_EVENT_NAME", "issues")])).unwrap_err();
        assert!(
            err.contains("GITHUB_EVENT_PATH") && err.contains("GITHUB_TOKEN"),
            "{err}"
        );
        let err = ActionEnv::from_lookup(env_of(&[
            ("GITHUB_EVENT_NAME", "issues"),
            ("GITHUB_EVENT_PATH", "/e"),
            ("GITHUB_REPOSITORY", "nope"),
            ("GITHUB_TOKEN", "t"),
        ]))
        .unwrap_err();
        assert!(err.contains("owner/name"), "{err}");
    }

    #[test]
    fn fail_on_parses_names_and_rejects_typos() {
        let f = FailOn::parse("aborted_stuck, done_partial error").unwrap();
        assert_eq!(
            f.statuses,
            vec![TerminalStatus::AbortedStuck, TerminalStatus::DonePartial]
        );
        assert!(f.error);
        assert_eq!(FailOn::parse("none").unwrap().statuses, vec![]);
        assert!(FailOn::parse("aborted").unwrap_err().contains("aborted"));
        assert_eq!(parse_issue_number("#12"), Ok(12));
        assert!(parse_issue_number("twelve").is_err());
        assert!(parse_issue_number("0").is_err());
    }

    #[test]
    fn outputs_and_multiline_values() {
        let r = finished(
            TerminalStatus::AbortedStuck,
            Some(StopRule::PlannerToResearcher),
        );
        let pairs = outputs(Some(&r));
        let text = github_output(&pairs);
        assert!(
            text.starts_with("terminal-status=aborted_stuck\nstop-rule=planner_to_researcher\n")
        );
        assert!(text.contains(
            "stop-reason<<ghadelimiter_kotef_0\nthe planner looped\nsecond line\nghadelimiter_kotef_0\n"
        ));
        assert!(text.contains("report-path=.sdd/runs/r1.md\n"));
        assert!(text.contains("pr-url=https://github.com/o/r/pull/5\n"));
        assert!(text.ends_with("branch=kotef/issue-4\n"));
        let tricky = github_output(&[("x", "a\nghadelimiter_kotef_0".to_string())]);
        assert!(tricky.starts_with("x<<ghadelimiter_kotef_1\n"), "{tricky}");
        let none = outputs(None);
        assert_eq!(none.len(), 6);
        assert!(none.iter().all(|(_, v)| v.is_empty()));
    }

    #[test]
    fn exit_codes_follow_fail_on() {
        let fail_on = FailOn::default();
        let stuck = finished(TerminalStatus::AbortedStuck, Some(StopRule::NoProgress));
        assert_eq!(exit_code(Some(&stuck), &fail_on), 3);
        let partial = finished(TerminalStatus::DonePartial, None);
        assert_eq!(exit_code(Some(&partial), &fail_on), 0);
        assert_eq!(
            exit_code(Some(&partial), &FailOn::parse("done_partial").unwrap()),
            2
        );
        let failed = JobResult {
            status: JobStatus::Failed,
            outcome: None,
            ..finished(TerminalStatus::DoneSuccess, None)
        };
        assert_eq!(exit_code(Some(&failed), &fail_on), 1);
        assert_eq!(exit_code(Some(&failed), &FailOn::parse("none").unwrap()), 0);
        assert_eq!(exit_code(None, &fail_on), 0);
    }

    #[test]
    fn annotations_are_escaped_and_levelled() {
        let fail_on = FailOn::default();
        let stuck = finished(
            TerminalStatus::AbortedStuck,
            Some(StopRule::PlannerToResearcher),
        );
        let a = annotations(Some(&stuck), None, &fail_on);
        assert_eq!(
            a[0],
            "::error title=kotef%3A aborted_stuck::kotef run ended aborted_stuck (stop rule planner_to_researcher): the planner looped%0Asecond line"
        );
        let ok = finished(TerminalStatus::DoneSuccess, None);
        assert!(annotations(Some(&ok), None, &fail_on)[0].starts_with("::notice "));
        let partial = finished(TerminalStatus::DonePartial, None);
        assert!(annotations(Some(&partial), None, &fail_on)[0].starts_with("::warning "));
        let skipped = annotations(None, Some("label `bug` is not the trigger label"), &fail_on);
        assert!(skipped[0].starts_with("::notice title=kotef::kotef did not run: label"));
        assert_eq!(escape_data("50% done\r\n"), "50%25 done%0D%0A");
    }

    #[test]
    fn summary_is_the_comment_or_the_reason() {
        let r = finished(TerminalStatus::DoneSuccess, None);
        assert_eq!(step_summary(Some(&r), None), r.comment.clone().unwrap());
        let ignored = JobResult {
            status: JobStatus::Ignored,
            comment: None,
            message: "`rita` has Read permission".into(),
            ..r
        };
        assert!(step_summary(Some(&ignored), None).contains("did not run"));
        assert!(step_summary(None, Some("why")).contains("why"));
    }
}
