//! The server's edge decisions that need GitHub: whether a labeled trigger carries a label
//! that starts a run ([`label_gate`], from the repositories' cached config), and the answer on
//! the issue to a trigger refused because its installation has too many runs pending
//! ([`Refusals`]: one comment per issue, posted off the request path by one bounded task).

use super::labels::RepoLabels;
use crate::inbound::trigger::{label_triggers, Trigger};
use crate::marker::MARKER_PREFIX;
use crate::outbound::client::GitHub;
use kotef_core::{IssueNumber, RepoName};
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// What the edge does with a labeled trigger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelGate {
    /// Not a labeled trigger, or its label starts a run: queue it, carrying the trigger label
    /// that matched (the repository's own when the server's did not, so the job need not
    /// read the config again).
    Queue { trigger_label: String },
    /// The label is neither the server's nor the repository's trigger: answer, queue nothing.
    Ignore(String),
    /// The repository's label could not be read: queue it and let the job read it.
    Unknown(String),
}

/// Whether `trigger` should be queued, judged by its label against the server's trigger label
/// and the repository's own (read through `labels` only when the server's does not match).
pub async fn label_gate(labels: &RepoLabels, trigger: &Trigger, server_label: &str) -> LabelGate {
    let queue = |l: &str| LabelGate::Queue {
        trigger_label: l.to_string(),
    };
    let Some(label) = trigger.label() else {
        return queue(server_label);
    };
    if label_triggers(label, server_label, None) {
        return queue(server_label);
    }
    let target = trigger.target();
    match labels
        .label(&target.repo, target.default_branch.as_deref())
        .await
    {
        Ok(Some(own)) if label_triggers(label, server_label, Some(&own)) => queue(&own),
        Ok(own) => LabelGate::Ignore(format!(
            "label `{label}` is neither the server's trigger label `{server_label}` nor the repository's ({})",
            own.map(|l| format!("`{l}`")).unwrap_or_else(|| "none set".into())
        )),
        Err(e) => LabelGate::Unknown(e.to_string()),
    }
}

/// The marker of a queue-full answer (kotef's own comments are never triggers).
pub const QUEUE_FULL_MARKER: &str = "<!-- kotef:queue-full -->";

/// The answer on an issue whose trigger was refused because `pending` runs of its
/// installation already wait.
pub fn queue_full_comment(owner: &str, pending: u32) -> String {
    debug_assert!(QUEUE_FULL_MARKER.starts_with(MARKER_PREFIX));
    format!(
        "{QUEUE_FULL_MARKER}\nkotef refused this request (more than {pending} pending): `{owner}`'s installation already has as many runs waiting as it may. Add the label again or comment `/kotef run` once some have finished.\n"
    )
}

/// Refused triggers waiting for their comment; beyond this the refusal is only logged.
const BACKLOG: usize = 1_000;

/// How long an issue that got a queue-full answer gets no other.
const QUIET: Duration = Duration::from_secs(3600);

/// Issues remembered as answered; beyond this the memory starts over.
const MAX_REMEMBERED: usize = 10_000;

/// Posts queue-full answers, one at a time, at most one per issue per [`QUIET`].
#[derive(Clone)]
pub struct Refusals {
    tx: mpsc::Sender<(RepoName, IssueNumber)>,
}

impl Refusals {
    /// Starts the task that posts the answers (it ends when the last handle is dropped).
    pub fn start(github: GitHub, pending: u32) -> Self {
        let (tx, mut rx) = mpsc::channel::<(RepoName, IssueNumber)>(BACKLOG);
        tokio::spawn(async move {
            let mut answered: HashMap<(RepoName, IssueNumber), Instant> = HashMap::new();
            while let Some((repo, number)) = rx.recv().await {
                if answered.len() >= MAX_REMEMBERED {
                    answered.retain(|_, at| at.elapsed() < QUIET);
                    if answered.len() >= MAX_REMEMBERED {
                        answered.clear();
                    }
                }
                let key = (repo, number);
                if answered.get(&key).is_some_and(|at| at.elapsed() < QUIET) {
                    continue;
                }
                let body = queue_full_comment(&key.0.owner, pending);
                match github.create_comment(&key.0, number, &body).await {
                    Ok(_) => {
                        answered.insert(key, Instant::now());
                    }
                    Err(e) => {
                        tracing::warn!(repo = %key.0, issue = %number, error = %e, "cannot post the queue-full answer")
                    }
                }
            }
        });
        Self { tx }
    }

    /// Asks for the answer on `number`; `false` when the backlog is full (only logged then).
    pub fn refuse(&self, repo: &RepoName, number: IssueNumber) -> bool {
        self.tx.try_send((repo.clone(), number)).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queue_full_answer_names_the_limit_and_is_kotefs_own() {
        let c = queue_full_comment("acme", 100);
        assert!(
            c.contains("refused this request (more than 100 pending)"),
            "{c}"
        );
        assert!(c.starts_with(MARKER_PREFIX));
    }
}
