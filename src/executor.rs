//! The bridge from the GitHub edge to the graph: `GraphExecutor` implements
//! `kotef_github::RunExecutor` by resolving the run's model spec and calling `run::execute`.
//! The server and the Action both run the graph through it.

use crate::run::{self, CostFn, RunSetup};
use anyhow::Context as _;
use kotef_core::{LimitsOverride, Redactor, RunOutcome, RunRequest, StepProgress};
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;

/// Runs the real graph for GitHub jobs.
#[derive(Debug, Clone, Default)]
pub struct GraphExecutor {
    /// Used when neither the server nor the repository names a model.
    pub default_model: Option<String>,
}

#[async_trait::async_trait]
impl kotef_github::RunExecutor for GraphExecutor {
    async fn execute(
        &self,
        req: RunRequest,
        progress: UnboundedSender<StepProgress>,
    ) -> anyhow::Result<RunOutcome> {
        let spec = req
            .config
            .model
            .name
            .clone()
            .or_else(|| self.default_model.clone())
            .context(
                "no model configured: set KOTEF_MODEL or [model] name in .github/kotef.toml",
            )?;
        if req.config.sandbox == Some(kotef_core::SandboxMode::None) {
            tracing::warn!(
                run_id = %req.run_id,
                "the repository's config sets sandbox = \"none\": agent commands run without bubblewrap on this server"
            );
        }
        let model = crate::cli::resolve_model(&spec, &req.config)?;
        let model_cfg = req.config.model.clone();
        let model_name = model.name();
        let priced_name = model_name.clone();
        let cost: CostFn = Arc::new(move |p, c| {
            kotef_model::cost_usd(
                kotef_model::Usage {
                    prompt_tokens: p,
                    completion_tokens: c,
                },
                &model_cfg,
                &priced_name,
            )
        });
        run::execute(RunSetup {
            run_id: req.run_id,
            workdir: req.workdir,
            goal: req.goal,
            config: req.config,
            profile: None,
            limit_overrides: LimitsOverride::default(),
            test_command: None,
            model,
            model_name,
            progress: Some(progress),
            redactor: Redactor::from_env(),
            cost: Some(cost),
        })
        .await
    }
}
