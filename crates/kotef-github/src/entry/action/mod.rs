//! The GitHub Action entry point (`kotef action`): the `GITHUB_*` environment an Actions runner
//! sets and the action's inputs become one [`Job`](crate::Job) (`issues`, `issue_comment`,
//! `pull_request` through the server's own [`crate::decide`]; `workflow_dispatch` from its
//! inputs, including runs handed over by `kotef serve --executor actions`), which
//! [`process_job`] runs with the same permission check, graph, commits and publishing as the
//! server. Afterwards the step's outputs go to `$GITHUB_OUTPUT`, the status comment's Markdown
//! to `$GITHUB_STEP_SUMMARY`, and `::error::`/`::warning::`/`::notice::` annotations to stdout.
//! Pure parts (environment, inputs, outputs, annotations, exit code) are functions with unit
//! tests.
//!
//! This module is the run of the step; its parts live in `env` (the runner's environment),
//! `inputs` (the action's inputs), `event` (the event → the job), `outputs` (outputs, step
//! summary, exit code) and `annotations` (workflow commands).

mod annotations;
mod env;
mod event;
mod inputs;
mod outputs;

pub use annotations::{annotations, escape_data, escape_property, fence, fresh_token};
pub use env::ActionEnv;
pub use event::{prepare_job, ActionError, Prepared};
pub use inputs::{parse_issue_number, ActionInputs, Branching, FailOn};
pub use outputs::{exit_code, github_output, outputs, step_summary};

use crate::outbound::client::{GitHub, GitHubAuth};
use crate::outbound::workspace::GitSettings;
use crate::pipeline::{process_job, JobContext, JobResult, JobStatus};
use crate::secret::ExposeSecret;
use crate::RunExecutor;
use annotations::command;
use anyhow::Context as _;
use kotef_core::Redactor;
use std::io::Write as _;
use std::path::Path;

/// How the step ended.
#[derive(Debug)]
pub struct ActionReport {
    pub result: Option<JobResult>,
    /// Why nothing ran, when nothing did.
    pub skipped: Option<String>,
    pub exit_code: i32,
}

/// Appends to one of the runner's files (`$GITHUB_OUTPUT`, `$GITHUB_STEP_SUMMARY`). They live
/// outside the work tree, but the agent ran before this: a link in their place is refused
/// (`O_NOFOLLOW`), not written through.
fn append(path: &Path, text: &str, what: &str) -> anyhow::Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
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

/// The artifact holding a run's transcript and its page: `kotef-run-<run id>`.
pub fn artifact_name(run_id: &str) -> String {
    format!("kotef-run-{run_id}")
}

/// Where a run's transcript and page wait for the upload step: `$RUNNER_TEMP/kotef-run-<id>`.
pub fn artifact_dir(env: &ActionEnv, run_id: &str) -> std::path::PathBuf {
    env.temp_dir.join(artifact_name(run_id))
}

/// The step's artifact outputs (`artifact-name`, `artifact-path`) when the run left files to
/// upload, else empty values.
fn artifact_outputs(env: &ActionEnv, result: Option<&JobResult>) -> Vec<(&'static str, String)> {
    let run_id = result
        .and_then(|r| r.outcome.as_ref())
        .map(|o| o.run_id.0.clone());
    let dir = run_id.as_deref().map(|id| artifact_dir(env, id));
    let has_files = dir
        .as_ref()
        .and_then(|d| std::fs::read_dir(d).ok())
        .is_some_and(|mut entries| entries.next().is_some());
    match (run_id, dir) {
        (Some(id), Some(d)) if has_files => vec![
            ("artifact-name", artifact_name(&id)),
            ("artifact-path", d.display().to_string()),
        ],
        _ => vec![
            ("artifact-name", String::new()),
            ("artifact-path", String::new()),
        ],
    }
}

/// Runs the step: event → job → [`process_job`] → outputs, summary, annotations.
pub async fn run_action(
    env: &ActionEnv,
    inputs: &ActionInputs,
    executor: &dyn RunExecutor,
) -> anyhow::Result<ActionReport> {
    let mut redactor = Redactor::from_env();
    redactor.add(env.token.expose_secret());
    let payload = std::fs::read(&env.event_path).map_err(|e| ActionError::EventFile {
        path: env.event_path.display().to_string(),
        message: e.to_string(),
    })?;
    let github = GitHub::new(
        &env.api_url,
        GitHubAuth::Token(env.token.clone()),
        crate::outbound::retry::github_default(),
    )?;
    let prepared = prepare_job(env, inputs, &payload, &github)
        .await
        .map_err(|e| anyhow::anyhow!(redactor.redact(&e.to_string())))?;
    let (result, skipped) = match prepared {
        Prepared::Skip(reason) => {
            let line = format!(
                "kotef: nothing to do for this `{}` event: {reason}",
                env.event_name
            );
            print!("{}", fence(&line, &fresh_token()));
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
            // The transcript and its page go to the artifact action.yml uploads.
            let artifact = artifact_dir(env, &job.run_id.0);
            match std::fs::create_dir_all(&artifact) {
                Ok(()) => {
                    ctx.transcripts = Some(crate::pipeline::TranscriptStore {
                        dir: artifact,
                        artifact: Some(artifact_name(&job.run_id.0)),
                    })
                }
                Err(e) => println!(
                    "kotef: cannot create {} ({e}); the transcript will not be uploaded",
                    artifact.display()
                ),
            }
            // In the Action the repository is the operator: its config is taken whole.
            ctx.operator = crate::pipeline::OperatorSettings {
                trust: kotef_core::Trust::Operator,
                ceilings: inputs.ceilings,
                ..Default::default()
            };
            let result = process_job(&ctx, &job, executor).await;
            let line = match result.status {
                JobStatus::Ignored => format!("kotef: not running: {}", result.message),
                _ => format!("kotef: {}: {}", result.status.as_str(), result.message),
            };
            print!("{}", fence(&redactor.redact(&line), &fresh_token()));
            (Some(result), None)
        }
    };
    let pairs: Vec<(&str, String)> = outputs(result.as_ref())
        .into_iter()
        .chain(artifact_outputs(env, result.as_ref()))
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

/// Job results for the unit tests of the step's renderers.
#[cfg(test)]
mod test_support {
    use crate::pipeline::{JobResult, JobStatus};
    use kotef_core::{RunId, RunOutcome, RunSummary, StopRule, TerminalStatus};

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
                transcript_path: None,
            },
            cost_usd: None,
            duration_ms: 5,
            failure_summary: None,
            mermaid: String::new(),
            files_changed: vec![],
            report_rel_path: ".sdd/runs/r1.md".into(),
            issues_rel_path: None,
            model: "scripted".into(),
            change_summary: None,
            verification: None,
            sandbox: None,
            setup_created: Vec::new(),
            checks: Vec::new(),
        }
    }

    pub(super) fn finished(status: TerminalStatus, rule: Option<StopRule>) -> JobResult {
        JobResult {
            status: JobStatus::Finished,
            outcome: Some(outcome(status, rule)),
            branch: Some("kotef/issue-4".into()),
            pull: Some(5),
            pull_url: Some("https://github.com/o/r/pull/5".into()),
            comment_id: Some(9),
            comment: Some("<!-- kotef:run {} -->\n### comment".into()),
            not_pushed: None,
            message: "done".into(),
        }
    }
}

#[cfg(test)]
mod append_tests {
    #[test]
    fn the_step_summary_is_not_written_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("authorized_keys");
        std::fs::write(&victim, "own key\n").unwrap();
        let summary = dir.path().join("step_summary");
        std::os::unix::fs::symlink(&victim, &summary).unwrap();
        let written = super::append(&summary, "ssh-ed25519 attacker\n", "the step summary");
        assert_eq!(
            (written.is_err(), std::fs::read_to_string(&victim).unwrap()),
            (true, "own key\n".to_string())
        );
    }
}
