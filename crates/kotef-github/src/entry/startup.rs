//! What the server does once before it listens: the data and work directories (and the
//! clones a dead process left there), the job store (old jobs forgotten, interrupted ones
//! queued again), kotef's own login and the redactor for the process's secrets.

use crate::config::ServeConfig;
use crate::outbound::client::GitHub;
use crate::queue::store::{JobStore, TenantLimits};
use crate::secret::ExposeSecret;
use anyhow::Context;
use kotef_core::Redactor;
use std::time::Duration;

/// Creates the data and work directories, and removes the clones a process that died left
/// there (before any worker clones).
pub(super) async fn prepare_work_dir(cfg: &ServeConfig) -> anyhow::Result<std::path::PathBuf> {
    std::fs::create_dir_all(&cfg.data_dir)
        .with_context(|| format!("cannot create the data dir {}", cfg.data_dir.display()))?;
    let work_dir = cfg.data_dir.join("workspaces");
    std::fs::create_dir_all(&work_dir)
        .with_context(|| format!("cannot create {}", work_dir.display()))?;
    // Before any worker clones: what is there now was left by a process that died.
    let leftovers = {
        let dir = work_dir.clone();
        tokio::task::spawn_blocking(move || crate::entry::leftovers::remove_leftover_clones(&dir))
            .await
            .unwrap_or_default()
    };
    if leftovers > 0 {
        tracing::warn!(
            removed = leftovers,
            "clones left by an earlier stop were removed"
        );
    }
    Ok(work_dir)
}

/// Where transcripts stay off the branch: `<data dir>/transcripts` (named in the status
/// comment); `None`, with a warning, when it cannot be created.
pub(super) fn transcript_store(cfg: &ServeConfig) -> Option<crate::pipeline::TranscriptStore> {
    let dir = cfg.data_dir.join("transcripts");
    match std::fs::create_dir_all(&dir) {
        Ok(()) => Some(crate::pipeline::TranscriptStore {
            dir: std::path::absolute(&dir).unwrap_or(dir),
            artifact: None,
        }),
        Err(e) => {
            tracing::warn!(error = %e, dir = %dir.display(), "cannot create the transcripts directory; transcripts are not kept");
            None
        }
    }
}

/// Opens the job store with the per-installation limits, forgets old finished jobs and puts
/// jobs a stop interrupted back in the queue.
pub(super) async fn open_store(cfg: &ServeConfig) -> anyhow::Result<JobStore> {
    let store =
        JobStore::open(&cfg.data_dir.join("jobs.sqlite3"))?.with_tenant_limits(TenantLimits {
            running: u32::try_from(cfg.jobs_per_installation()).unwrap_or(u32::MAX),
            queued: u32::try_from(cfg.max_queued_per_installation).unwrap_or(u32::MAX),
        });
    let pruned = store
        .prune_finished(Duration::from_secs(30 * 24 * 3600))
        .await?;
    if pruned > 0 {
        tracing::info!(pruned, "old finished jobs forgotten");
    }
    let requeued = store.requeue_interrupted().await?;
    if requeued > 0 {
        tracing::warn!(
            requeued,
            "jobs interrupted by a stop were put back in the queue"
        );
    }
    Ok(store)
}

/// kotef's own login (to ignore its own events): configured, else asked of GitHub; `None`
/// when GitHub does not say within 15 s (then only bots are filtered).
pub(super) async fn bot_login(cfg: &ServeConfig, github: &GitHub) -> Option<String> {
    match &cfg.bot_login {
        Some(l) => Some(l.clone()),
        None => match tokio::time::timeout(Duration::from_secs(15), github.own_login()).await {
            Ok(Ok(l)) if !l.is_empty() => Some(l),
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "cannot learn kotef's own login; only bots are filtered");
                None
            }
            _ => None,
        },
    }
}

/// A redactor for the process's secrets: the environment's, the webhook secrets and the
/// GitHub token or App key.
pub(super) fn server_redactor(cfg: &ServeConfig) -> Redactor {
    let mut redactor = Redactor::from_env();
    for s in &cfg.webhook_secrets {
        redactor.add(s.expose_secret());
    }
    match &cfg.auth {
        crate::outbound::client::GitHubAuth::Token(t) => redactor.add(t.expose_secret()),
        crate::outbound::client::GitHubAuth::App { private_key, .. } => {
            redactor.add(private_key.expose_secret())
        }
    }
    redactor
}
