//! A job: one accepted trigger (or a rejection to answer) with everything the pipeline needs
//! to run it later, serialisable so the job store can keep it across restarts.

use crate::trigger::{Rejection, Trigger};
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
        }
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
