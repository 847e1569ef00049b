//! The bridge from the GitHub edge to the graph: `GraphExecutor` implements
//! `kotef_github::RunExecutor` by resolving the run's model from the config the pipeline
//! built (on a server: the operator's model settings only) and calling `run::execute`. The
//! server and the Action both run the graph through it.

use crate::run::{self, RunSetup};
use anyhow::Context as _;
use kotef_core::{LimitsOverride, Redactor, RunOutcome, RunRequest, StepProgress};
use std::collections::BTreeMap;
use tokio::sync::mpsc::UnboundedSender;

/// Runs the real graph for GitHub jobs.
#[derive(Debug, Clone, Default)]
pub struct GraphExecutor {
    /// Where provider keys and base URLs (`OPENAI_API_KEY`, ...) are read: the process
    /// environment when `None`, else this map (tests run several servers in one process).
    pub env: Option<BTreeMap<String, String>>,
}

impl GraphExecutor {
    /// An executor reading provider settings from `env` instead of the process environment.
    pub fn with_env(env: BTreeMap<String, String>) -> Self {
        Self { env: Some(env) }
    }

    fn var(&self, name: &str) -> Option<String> {
        match &self.env {
            Some(map) => map.get(name).cloned(),
            None => std::env::var(name).ok(),
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
        let spec = req.config.model.name.clone().context(
            "no model configured: the operator sets KOTEF_MODEL (a repository's config names a model only in the Action)",
        )?;
        let (model, cost) = run::resolve_model(&spec, &req.config, &|k| self.var(k))?;
        run::execute(RunSetup {
            run_id: req.run_id,
            workdir: req.workdir,
            goal: req.goal,
            config: req.config,
            profile: None,
            limit_overrides: LimitsOverride::default(),
            test_command: None,
            model_name: model.name(),
            model,
            progress: Some(progress),
            redactor: self.redactor(),
            cost: Some(cost),
            settings_notes: req.settings_notes,
            hidden_paths: req.hidden_paths,
        })
        .await
    }
}
