//! A job: one accepted trigger (or a rejection to answer) with everything the pipeline needs
//! to run it later, serialisable so the job store can keep it across restarts.

use crate::inbound::decide::decide;
use crate::inbound::trigger::{Admission, AdmissionConfig, PayloadError, Rejection, Trigger};
use kotef_core::{DeliveryId, IssueNumber, LimitsOverride, Profile, RepoName, RunId};
use serde::{Deserialize, Serialize};

/// What a job does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "work", rename_all = "snake_case")]
pub enum Work {
    /// A run of the agent.
    Run { trigger: Trigger },
    /// A comment saying why kotef will not run.
    Reject { rejection: Rejection },
}

/// One unit of work for the pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// The job store's id (0 outside the server, e.g. in Action mode).
    #[serde(default)]
    pub id: i64,
    pub delivery: DeliveryId,
    pub run_id: RunId,
    pub work: Work,
    /// How many times a worker has started this job (1 on the first run).
    #[serde(default)]
    pub attempts: u32,
    /// The label that triggered (or would trigger) runs.
    pub trigger_label: String,
    /// A profile that wins over the repository's config file (e.g. an Action input).
    #[serde(default)]
    pub profile: Option<Profile>,
    /// Limits that win over the repository's config file.
    #[serde(default)]
    pub limits: LimitsOverride,
    /// A goal that replaces the one built from the issue or PR (an Action's `goal` input, or
    /// the goal a dispatching server built).
    #[serde(default)]
    pub goal: Option<String>,
    /// A verifier command that wins over the repository's config file (an Action input).
    #[serde(default)]
    pub test_command: Option<String>,
    /// The status comment this run continues (one a dispatching server already posted).
    #[serde(default)]
    pub status_comment: Option<u64>,
    /// The prefix of the branch an issue's run creates (`kotef/` when unset).
    #[serde(default)]
    pub branch_prefix: Option<String>,
    /// The branch an issue's run starts from and targets (the repository's default when
    /// unset).
    #[serde(default)]
    pub base_branch: Option<String>,
}

/// What an event asks of kotef outside a server.
#[derive(Debug)]
pub enum Asked {
    /// A job: a run, or a rejection to comment on.
    Job(Box<Job>),
    /// Nothing, and why (a ping, an event kotef ignores).
    Nothing(String),
}

impl Asked {
    /// The job, or why there is none.
    pub fn into_job(self) -> Result<Job, String> {
        match self {
            Asked::Job(job) => Ok(*job),
            Asked::Nothing(reason) => Err(reason),
        }
    }
}

impl Job {
    pub fn new(delivery: DeliveryId, work: Work, trigger_label: impl Into<String>) -> Self {
        Self {
            id: 0,
            delivery,
            run_id: RunId::generate(),
            work,
            attempts: 0,
            trigger_label: trigger_label.into(),
            profile: None,
            limits: LimitsOverride::default(),
            goal: None,
            test_command: None,
            status_comment: None,
            branch_prefix: None,
            base_branch: None,
        }
    }

    /// What one event asks for, for entry points without a server (e.g. a GitHub Action
    /// given `GITHUB_EVENT_NAME` and the event file).
    pub fn from_event(
        event: &str,
        payload: &[u8],
        cfg: &AdmissionConfig,
        delivery: DeliveryId,
    ) -> Result<Asked, PayloadError> {
        let work = match decide(event, payload, cfg)? {
            Admission::Run(trigger) => Work::Run { trigger },
            Admission::Reject(rejection) => Work::Reject { rejection },
            Admission::Ignore(reason) => return Ok(Asked::Nothing(reason)),
            Admission::Ping => return Ok(Asked::Nothing("ping".into())),
        };
        let job = Job::new(delivery, work, cfg.trigger_label.clone());
        Ok(Asked::Job(Box::new(job)))
    }

    pub fn repo(&self) -> &RepoName {
        match &self.work {
            Work::Run { trigger } => &trigger.target().repo,
            Work::Reject { rejection } => &rejection.repo,
        }
    }

    pub fn number(&self) -> IssueNumber {
        match &self.work {
            Work::Run { trigger } => trigger.target().number,
            Work::Reject { rejection } => rejection.number,
        }
    }

    pub fn sender_login(&self) -> &str {
        match &self.work {
            Work::Run { trigger } => &trigger.target().sender.login,
            Work::Reject { rejection } => &rejection.sender.login,
        }
    }
}

/// A job labeling issue `number` of `o/r` (default branch `main`) as the unit tests need.
#[cfg(test)]
pub(crate) fn test_job(delivery: &str, number: u64) -> Job {
    use crate::inbound::trigger::{Actor, Target};
    let target = Target {
        repo: RepoName::new("o", "r"),
        default_branch: Some("main".into()),
        number: IssueNumber(number),
        title: "t".into(),
        body: "b".into(),
        sender: Actor {
            login: "u".into(),
            id: 1,
        },
        author: None,
    };
    Job::new(
        DeliveryId(delivery.into()),
        Work::Run {
            trigger: Trigger::IssueLabeled {
                target,
                label: "kotef".into(),
                pull_request: false,
            },
        },
        "kotef",
    )
}
