//! The event becomes a job ([`prepare_job`]): `issues`, `issue_comment` and `pull_request`
//! through the server's own [`crate::decide`]; `workflow_dispatch` from its inputs, including
//! runs handed over by `kotef serve --executor actions`.

use super::env::non_empty;
use super::{parse_issue_number, ActionEnv, ActionInputs};
use crate::entry::dispatch::{DispatchedRun, INPUT_GOAL, INPUT_ISSUE, INPUT_RUN};
use crate::inbound::sanitize::{plain_text, visible_text};
use crate::inbound::trigger::{Actor, AdmissionConfig, Target, Trigger};
use crate::outbound::client::GitHub;
use crate::queue::job::{Asked, Job, Work};
use kotef_core::{DeliveryId, IssueNumber, RunId};
use serde::Deserialize;

/// A bad event file, environment or input: the step fails with this message.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    #[error("cannot read the event file {path}: {message}")]
    EventFile { path: String, message: String },
    #[error(transparent)]
    Payload(#[from] crate::inbound::trigger::PayloadError),
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
            Asked::Job(job) => *job,
            Asked::Nothing(reason) => return Ok(Prepared::Skip(reason)),
        }
    } else {
        let cfg = AdmissionConfig {
            trigger_label: inputs.trigger_label.clone(),
            bot_login: None,
            assignee: inputs
                .assignee_trigger
                .as_deref()
                .map(|a| a.trim_start_matches('@').to_string()),
            trigger_phrase: inputs.branches.trigger_phrase.clone(),
            app_id: None,
            // Another label becomes a job whose admission checks it against the repository's
            // own `trigger_label` (its kotef.toml on the default branch), as on a server.
            repository_labels: true,
        };
        match Job::from_event(&env.event_name, payload, &cfg, delivery)? {
            Asked::Job(job) => *job,
            Asked::Nothing(reason) => return Ok(Prepared::Skip(reason)),
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
    job.branch_prefix = Some(inputs.branches.branch_prefix.clone());
    job.base_branch = inputs.branches.base_branch.clone();
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
) -> Result<Asked, ActionError> {
    let de = &mut serde_json::Deserializer::from_slice(payload);
    let event: DispatchEvent = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        crate::inbound::trigger::PayloadError {
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
        return Ok(Asked::Nothing(format!("#{number} is closed")));
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
        title: plain_text(&issue.title),
        body: visible_text(issue.body.as_deref().unwrap_or_default()),
        sender,
        author: issue
            .user
            .as_ref()
            .map(|u| crate::inbound::trigger::Author {
                login: u.login.clone(),
                association: issue.author_association.clone(),
            }),
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
    Ok(Asked::Job(Box::new(job)))
}
