//! The edge's copy of each repository's own trigger label (`trigger_label` in the `kotef.toml`
//! on its default branch), so a label that is not a trigger is answered at once and queues
//! nothing. One read per repository and branch (concurrent deliveries wait for the same read);
//! the copy is read again when a `push` to the default branch may have changed the file
//! ([`RepoLabels::note_push`]) and at most every [`RepoLabels::ttl`] otherwise, as a
//! conditional request (`If-None-Match`) that GitHub answers `304` without counting it.

use crate::inbound::push::ConfigPush;
use crate::outbound::client::{FileRead, GitHub};
use kotef_core::config::CONFIG_FILES;
use kotef_core::RepoName;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Repositories (and branches) whose label is kept; beyond this the copy starts over.
const MAX_REPOSITORIES: usize = 10_000;

/// How long after a failed read the edge does not try again (the label counts as unknown).
const AFTER_FAILURE: Duration = Duration::from_secs(30);

/// How long one read of the config may take before the edge gives up on it.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// One config file as last read.
#[derive(Debug, Clone, Default)]
struct FileCopy {
    etag: Option<String>,
    label: Option<String>,
}

/// What is known of one repository's branch.
#[derive(Debug, Default)]
struct Slot {
    /// Per [`CONFIG_FILES`] entry, the copy of the file when it was there.
    files: [Option<FileCopy>; CONFIG_FILES.len()],
    /// The label of the first file present, when it sets one.
    label: Option<String>,
    /// When the copy was last confirmed; `None` once a push may have changed it.
    checked: Option<Instant>,
    /// When the last read failed, if it did.
    failed: Option<Instant>,
}

/// Why the repository's label could not be read (the caller lets the job find out).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LabelError {
    #[error("the payload does not name the repository's default branch")]
    NoBranch,
    #[error("cannot read the repository's config: {0}")]
    Read(String),
    #[error("reading the repository's config took longer than {0:?}")]
    Timeout(Duration),
    #[error("the repository's config could not be read moments ago; not tried again yet")]
    RecentFailure,
}

/// One repository's branch, and what is known of it (locked while it is read).
type Slots = HashMap<(RepoName, String), Arc<tokio::sync::Mutex<Slot>>>;

/// The cache; cheap to share behind an `Arc`.
pub struct RepoLabels {
    github: GitHub,
    ttl: Duration,
    slots: Mutex<Slots>,
}

impl RepoLabels {
    pub fn new(github: GitHub, ttl: Duration) -> Self {
        Self {
            github,
            ttl,
            slots: Mutex::new(HashMap::new()),
        }
    }

    /// How long a copy is used before it is confirmed again.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    fn slot(&self, repo: &RepoName, branch: &str) -> Arc<tokio::sync::Mutex<Slot>> {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        if slots.len() >= MAX_REPOSITORIES && !slots.contains_key(&(repo.clone(), branch.into())) {
            slots.clear();
        }
        slots
            .entry((repo.clone(), branch.to_string()))
            .or_default()
            .clone()
    }

    /// The repository's own trigger label on `branch` (`None`: its config sets none).
    pub async fn label(
        &self,
        repo: &RepoName,
        branch: Option<&str>,
    ) -> Result<Option<String>, LabelError> {
        let branch = branch
            .filter(|b| !b.is_empty())
            .ok_or(LabelError::NoBranch)?;
        let slot = self.slot(repo, branch);
        let mut slot = slot.lock().await;
        if slot.checked.is_some_and(|at| at.elapsed() < self.ttl) {
            return Ok(slot.label.clone());
        }
        if slot.failed.is_some_and(|at| at.elapsed() < AFTER_FAILURE) {
            return Err(LabelError::RecentFailure);
        }
        let read = tokio::time::timeout(READ_TIMEOUT, self.refresh(repo, branch, &mut slot))
            .await
            .map_err(|_| LabelError::Timeout(READ_TIMEOUT))
            .and_then(|r| r);
        slot.failed = read.is_err().then(Instant::now);
        read.map(|()| slot.label.clone())
    }

    /// Reads the config files again (conditionally where a copy is kept); the first present
    /// one decides, as when a run loads it.
    async fn refresh(
        &self,
        repo: &RepoName,
        branch: &str,
        slot: &mut Slot,
    ) -> Result<(), LabelError> {
        let mut label = None;
        for (i, path) in CONFIG_FILES.iter().enumerate() {
            let etag = slot.files[i].as_ref().and_then(|f| f.etag.clone());
            let read = self
                .github
                .file_if_changed(repo, path, branch, etag.as_deref())
                .await
                .map_err(|e| LabelError::Read(e.to_string()))?;
            match read {
                FileRead::Found { text, etag } => {
                    let own = kotef_core::KotefConfig::parse(&text, std::path::Path::new(path))
                        .ok()
                        .and_then(|c| c.trigger_label);
                    slot.files[i] = Some(FileCopy { etag, label: own });
                }
                FileRead::NotModified if slot.files[i].is_some() => {}
                // A 304 for a copy this process does not have: read it plainly next time.
                FileRead::NotModified | FileRead::Missing => {
                    slot.files[i] = None;
                }
            }
            if let Some(f) = &slot.files[i] {
                label = f.label.clone();
                break;
            }
        }
        slot.label = label;
        slot.checked = Some(Instant::now());
        Ok(())
    }

    /// A push to a default branch: when it may have changed the config, the next label
    /// check reads it again.
    pub async fn note_push(&self, push: &ConfigPush) {
        let slot = {
            let slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            slots
                .get(&(push.repo.clone(), push.branch.clone()))
                .cloned()
        };
        let Some(slot) = slot else {
            return;
        };
        if push.touches_config {
            tracing::debug!(repo = %push.repo, head = %push.head, "the config may have changed; its label is read again");
            slot.lock().await.checked = None;
        }
    }
}
