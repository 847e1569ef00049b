//! The bridge from the GitHub edge to the graph: `GraphExecutor` implements
//! `kotef_github::RunExecutor` by resolving the run's model from the config the pipeline
//! built (on a server: the operator's model settings only) and calling `run::execute`. The
//! server and the Action both run the graph through it.

use crate::run::{self, RunSetup};
use anyhow::Context as _;
use kotef_core::{Redactor, RunOutcome, RunRequest, StepProgress};
use std::collections::BTreeMap;
use tokio::sync::mpsc::UnboundedSender;

/// Runs the real graph for GitHub jobs.
#[derive(Debug, Clone, Default)]
pub struct GraphExecutor {
    /// Where provider keys and base URLs (`OPENAI_API_KEY`, ...) are read: the process
    /// environment when `None`, else this map (tests run several servers in one process).
    pub env: Option<BTreeMap<String, String>>,
    /// Stream each run's steps into stdout as a GitHub Actions log (`kotef action`).
    pub actions_log: bool,
}

impl GraphExecutor {
    /// An executor reading provider settings from `env` instead of the process environment.
    pub fn with_env(env: BTreeMap<String, String>) -> Self {
        Self {
            env: Some(env),
            actions_log: false,
        }
    }

    fn var(&self, name: &str) -> Option<String> {
        match &self.env {
            Some(map) => map.get(name).cloned(),
            None => kotef_core::process::var(name),
        }
    }

    fn redactor(&self) -> Redactor {
        let mut r = Redactor::from_env();
        for (k, v) in self.env.iter().flatten() {
            if kotef_core::redact::is_secret_var(k) {
                r.add(v.clone());
            }
        }
        r
    }
}

#[async_trait::async_trait]
impl kotef_github::RunExecutor for GraphExecutor {
    async fn execute(
        &self,
        req: RunRequest,
        progress: UnboundedSender<StepProgress>,
    ) -> anyhow::Result<RunOutcome> {
        // On a server the pipeline already put the operator's `[model]` into the config.
        req.config.model.name.as_deref().context(
            "no model configured: the operator sets KOTEF_MODEL (a repository's config names a model only in the Action)",
        )?;
        let setup =
            RunSetup::for_model_spec(req.workdir, req.goal, req.config, None, &|k| self.var(k))?
                .run_id(req.run_id)
                .progress(Some(progress))
                .redactor(self.redactor())
                .settings_notes(req.settings_notes)
                .hidden_paths(req.hidden_paths)
                .read_only_paths(req.protected_paths);
        let setup = if self.actions_log {
            let debug = crate::actions_log::runner_debug(|k| self.var(k));
            let sink = crate::actions_log::stdout_sink(self.redactor(), debug);
            setup.log_events(Some(sink))
        } else {
            setup
        };
        run::execute(setup).await
    }

    fn take_transcript(
        &self,
        workdir: &std::path::Path,
        rel: &str,
        keep: bool,
    ) -> Result<Option<String>, String> {
        let tree = kotef_tools::Tree::open(workdir).map_err(|e| e.to_string())?;
        if !matches!(tree.kind(rel), Ok(kotef_tools::Kind::File { .. })) {
            return Ok(None);
        }
        // A transcript is capped (its last line says so); a bit more is read, never more.
        let cap = crate::sdd::transcript::TRANSCRIPT_CAP + 64 * 1024;
        let text = tree.read_text(rel, cap).map_err(|e| e.to_string())?;
        if !keep {
            tree.remove_file(rel).map_err(|e| e.to_string())?;
        }
        Ok(Some(text))
    }

    fn transcript_page(&self, transcript: &str, title: &str) -> Option<String> {
        Some(crate::sdd::transcript_html::render(transcript, title))
    }
}
