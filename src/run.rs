//! One run from start to report: resolves profile, limits, test command and sandbox, builds
//! the tool box, runs the graph, writes the run report and hands back a `RunOutcome`. Every
//! entry point (CLI, scenario, server, Action) comes through here.

use crate::graph::memory::state::{CommandSource, RunState};
use crate::graph::{self, GraphContext};
use crate::sdd::report::{self, ReportMeta};
use anyhow::Context as _;
use kotef_core::{
    KotefConfig, Limits, LimitsOverride, Profile, Redactor, RunId, RunOutcome, SandboxMode,
    StepProgress,
};
use kotef_model::Model;
use kotef_tools::{CommandRunner, ToolBox, WorkDir};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;

mod commands;
pub use commands::command_env;
use commands::{forward_loopback, run_policy, run_setup_command, runner_config};

pub use crate::graph::CostFn;

/// The variable (the Action's `price-per-mtok` input) with the operator's price of the model:
/// `"IN,OUT"` USD per million input / output tokens. It wins over `[model] price_*`.
pub const PRICE_ENV: &str = "KOTEF_PRICE_PER_MTOK";

/// The model for `spec` with `config`'s `[model]` settings, reading provider keys and base
/// URLs through `env`, and its cost function: priced by `KOTEF_PRICE_PER_MTOK`, `[model]
/// price_*`, the price table, else $0 for a local or self-hosted endpoint
/// ([`kotef_model::price_of`]); unknown otherwise.
pub fn resolve_model(
    spec: &str,
    config: &KotefConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<(Arc<dyn Model>, CostFn)> {
    let model = kotef_model::model_from_spec(spec, &config.model, env)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let operator = env(PRICE_ENV)
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .map(|v| kotef_model::Price::parse(&v))
        .transpose()
        .map_err(|e| anyhow::anyhow!("{e} ({PRICE_ENV})"))?;
    let price = kotef_model::price_of(
        operator,
        &config.model,
        &model.name(),
        model.local_endpoint(),
    )
    .map(|(p, _)| p);
    let cost: CostFn = Arc::new(move |p, c| {
        price?.cost(kotef_model::Usage {
            prompt_tokens: p,
            completion_tokens: c,
        })
    });
    Ok((model, cost))
}

/// Longest repository `instructions` passed to the agent, in characters.
/// (The instruction files' budget plus the config's own `instructions`.)
const MAX_INSTRUCTIONS_CHARS: usize = kotef_core::config::INSTRUCTION_BUDGET_CHARS + 4_000;

/// The goal with the repository's `instructions` (capped) appended.
fn goal_with_instructions(goal: &str, instructions: Option<&str>) -> String {
    match instructions.map(str::trim).filter(|i| !i.is_empty()) {
        None => goal.to_string(),
        Some(i) => {
            let capped: String = i.chars().take(MAX_INSTRUCTIONS_CHARS).collect();
            format!("{goal}\n\nRepository instructions (from its kotef config):\n{capped}\n")
        }
    }
}

/// Everything needed to run the graph once.
pub struct RunSetup {
    pub run_id: RunId,
    pub workdir: PathBuf,
    pub goal: String,
    pub config: KotefConfig,
    /// A profile chosen on the command line (wins over the config file).
    pub profile: Option<Profile>,
    /// Limits given on the command line or in a scenario (win over the config file).
    pub limit_overrides: LimitsOverride,
    /// A test command given on the command line or in a scenario.
    pub test_command: Option<String>,
    pub model: Arc<dyn Model>,
    pub model_name: String,
    pub progress: Option<UnboundedSender<StepProgress>>,
    pub redactor: Redactor,
    /// Prices for the cost estimate: (prompt, completion) USD per million tokens.
    pub cost: Option<CostFn>,
    /// What the operator's rules changed in the config, for the report.
    pub settings_notes: Vec<String>,
    /// Paths the agent's commands must not read (hidden inside the sandbox).
    pub hidden_paths: Vec<PathBuf>,
    /// Paths the agent's commands may read but not write (bound read-only in the sandbox).
    pub read_only_paths: Vec<PathBuf>,
    /// Verify before the first model call; wins over the config file (see
    /// [`RunSetup::resolve_verify_first`]).
    pub verify_first: Option<bool>,
    /// A second place the run's events go besides the transcript (the Actions log).
    pub log_events: Option<crate::graph::memory::events::EventSink>,
    /// The bundled model on a CPU (`local`): the limits start from
    /// [`LimitsOverride::cpu_model`] (see [`RunSetup::resolve_limits`]).
    pub cpu_model: bool,
}

impl RunSetup {
    /// A run of `goal` in `workdir` under `config` with `model`: a fresh run id, the config's
    /// profile and limits, no progress channel, the environment's secrets redacted and no
    /// price (a cost budget then refuses to start). The other fields have builder methods.
    pub fn new(
        workdir: impl Into<PathBuf>,
        goal: impl Into<String>,
        config: KotefConfig,
        model: Arc<dyn Model>,
    ) -> Self {
        Self {
            run_id: RunId::generate(),
            workdir: workdir.into(),
            goal: goal.into(),
            config,
            profile: None,
            limit_overrides: LimitsOverride::default(),
            test_command: None,
            model_name: model.name(),
            model,
            progress: None,
            redactor: Redactor::from_env(),
            cost: None,
            settings_notes: Vec::new(),
            hidden_paths: Vec::new(),
            read_only_paths: Vec::new(),
            verify_first: None,
            log_events: None,
            cpu_model: false,
        }
    }

    /// As [`Self::new`] with the model resolved from `spec` (else the config's `[model] name`)
    /// and the config's `[model]` settings, its keys and base URLs read through `env`, and
    /// its prices. Every entry point that names a model (CLI, server, Action) comes here.
    pub fn for_model_spec(
        workdir: impl Into<PathBuf>,
        goal: impl Into<String>,
        config: KotefConfig,
        spec: Option<&str>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> anyhow::Result<Self> {
        let spec = spec
            .map(str::to_string)
            .or_else(|| config.model.name.clone())
            .context("no model configured: pass --model openai:NAME | anthropic:NAME | scripted:FILE, set KOTEF_MODEL, or [model] name in kotef.toml")?;
        let (model, cost) = resolve_model(&spec, &config, env)?;
        let mut setup = Self::new(workdir, goal, config, model);
        setup.cost = Some(cost);
        setup.cpu_model = kotef_model::parse_spec(&spec) == Ok(kotef_model::ModelSpec::Local);
        Ok(setup)
    }

    pub fn run_id(mut self, id: RunId) -> Self {
        self.run_id = id;
        self
    }

    /// A profile that wins over the config file.
    pub fn profile(mut self, profile: Option<Profile>) -> Self {
        self.profile = profile;
        self
    }

    /// Limits that win over the config file.
    pub fn limits(mut self, overrides: LimitsOverride) -> Self {
        self.limit_overrides = overrides;
        self
    }

    /// A test command that wins over the config file and detection.
    pub fn test_command(mut self, command: Option<String>) -> Self {
        self.test_command = command;
        self
    }

    pub fn model_name(mut self, name: impl Into<String>) -> Self {
        self.model_name = name.into();
        self
    }

    pub fn progress(mut self, tx: Option<UnboundedSender<StepProgress>>) -> Self {
        self.progress = tx;
        self
    }

    pub fn redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    pub fn settings_notes(mut self, notes: Vec<String>) -> Self {
        self.settings_notes = notes;
        self
    }

    pub fn hidden_paths(mut self, paths: Vec<PathBuf>) -> Self {
        self.hidden_paths = paths;
        self
    }

    pub fn read_only_paths(mut self, paths: Vec<PathBuf>) -> Self {
        self.read_only_paths = paths;
        self
    }

    /// Sends the run's events to `sink` too (besides the transcript).
    pub fn log_events(mut self, sink: Option<crate::graph::memory::events::EventSink>) -> Self {
        self.log_events = sink;
        self
    }

    /// Verify before the first model call (wins over the config file's `verify_first`).
    pub fn verify_first(mut self, on: Option<bool>) -> Self {
        self.verify_first = on;
        self
    }

    /// Whether the run verifies before its first model call: this setup's choice, else the
    /// config file's, else on for every real model (a scripted model's turns are written for
    /// a planner-first run).
    pub fn resolve_verify_first(&self) -> bool {
        self.verify_first
            .or(self.config.verify_first)
            .unwrap_or(self.model_name != "scripted")
    }

    /// How the coder writes its changes: the config's `edit_format`; `auto` starts with tools
    /// and follows what the server does (see [`graph::rules::edit_format`]), except for the bundled
    /// small model (`local`, or `openai:local` as docs/local-model.md serves it), which
    /// writes code best as fenced blocks (docs/benchmarks.md: 12 of 13 hand-written tasks
    /// against 9 with the JSON tools).
    pub fn resolve_edit_format(&self) -> graph::rules::edit_format::EditChoice {
        use kotef_core::EditFormat;
        let configured = match self.config.edit_format.unwrap_or_default() {
            EditFormat::Auto if self.model_name == "openai:local" => EditFormat::Blocks,
            f => f,
        };
        graph::rules::edit_format::EditChoice::new(configured)
    }

    /// The profile and limits in force: profile defaults < the CPU model's (`local`) < config
    /// file < overrides.
    pub fn resolve_limits(&self) -> (Profile, Limits) {
        let profile = self.profile.or(self.config.profile).unwrap_or_default();
        let mut limits = Limits::for_profile(profile);
        if self.cpu_model {
            limits.apply(&LimitsOverride::cpu_model());
        }
        limits.apply(&self.config.limits);
        limits.apply(&self.limit_overrides);
        (profile, limits)
    }
}

/// The snitch's writer: one redacted entry appended to `.sdd/issues.md` under `root`.
fn issue_writer(
    tree: &kotef_tools::Tree,
    run_id: &RunId,
    redactor: &Redactor,
) -> graph::IssueWriter {
    let (tree, run_id, redactor) = (tree.clone(), run_id.clone(), redactor.clone());
    Arc::new(move |state: &RunState| {
        let entry = crate::sdd::issues::render_entry(state, &run_id, chrono::Utc::now());
        crate::sdd::issues::append(&tree, &redactor.redact(&entry)).map_err(|e| e.to_string())
    })
}

/// The test command: the one given (flag or config), else the one detected in the tree.
fn test_command_of(
    setup: &RunSetup,
    root: &std::path::Path,
) -> (Option<String>, Option<CommandSource>) {
    let configured = setup
        .test_command
        .clone()
        .or_else(|| setup.config.test_command.clone());
    match configured {
        Some(c) => (Some(c), Some(CommandSource::Configured)),
        None => match kotef_tools::detect_test_command(root) {
            Some(c) => (Some(c), Some(CommandSource::Detected)),
            None => (None, None),
        },
    }
}

/// The last failing verification in one line, for the run's outcome.
fn failure_summary(state: &RunState) -> Option<String> {
    state.test.as_ref().filter(|t| !t.passed).map(|t| {
        format!(
            "`{}` failed ({}): {}",
            t.command,
            t.kind.map(|k| k.as_str()).unwrap_or("unknown"),
            t.summary
        )
    })
}

/// `first`, then `second` when there is one.
fn tee(
    first: crate::graph::memory::events::EventSink,
    second: Option<crate::graph::memory::events::EventSink>,
) -> crate::graph::memory::events::EventSink {
    match second {
        None => first,
        Some(second) => Arc::new(move |e| {
            first(e);
            second(e);
        }),
    }
}

/// The transcript's last record (see [`crate::graph::memory::events::Ending`]).
fn ending_event(
    setup: &RunSetup,
    state: &RunState,
    summary: &kotef_core::RunSummary,
    meta: &ReportMeta,
) -> crate::graph::memory::events::RunEvent {
    crate::graph::memory::events::RunEvent::Ending(Box::new(crate::graph::memory::events::Ending {
        status: summary.terminal_status,
        stop_rule: summary.stop_rule,
        reason: summary.stop_reason.clone(),
        goal: setup.goal.clone(),
        model: meta.model.clone(),
        steps: summary.total_steps,
        model_calls: summary.model_calls,
        prompt_tokens: summary.prompt_tokens,
        completion_tokens: summary.completion_tokens,
        fix_attempts: summary.fix_attempts,
        duration_ms: meta.duration_ms,
        cost_usd: meta.cost_usd,
        limits: meta.limits,
        files_changed: state.files_changed(),
        verification: state.test.as_ref().map(|t| (t.command.clone(), t.passed)),
    }))
}

/// What must hold before a run starts: a dollar budget has a price to count with (else it
/// becomes a token budget, said in the returned notes with the operator's), and a required
/// sandbox is there.
fn preflight(
    setup: &RunSetup,
    limits: &mut kotef_core::Limits,
    sandbox: SandboxMode,
) -> anyhow::Result<Vec<String>> {
    let price_known = setup.cost.as_ref().is_some_and(|f| f(0, 0).is_some());
    let mut settings_notes = setup.settings_notes.clone();
    if let Some(note) =
        graph::rules::budgets::dollars_without_price(limits, price_known, &setup.model_name)
            .map_err(|problem| anyhow::anyhow!("{problem} (model `{}`)", setup.model_name))?
    {
        tracing::warn!("{note}");
        settings_notes.push(note);
    }
    if let (SandboxMode::Bwrap, Err(why)) = (sandbox, kotef_tools::bwrap_status()) {
        anyhow::bail!(
            "agent commands must run sandboxed here, but no working bubblewrap is available ({why}); \
             the operator must install the `bubblewrap` package, or start `kotef serve` with --allow-unsandboxed"
        );
    }
    Ok(settings_notes)
}

/// Runs the graph and writes the report. An `Err` means the run could not start (a missing
/// workspace) or its report could not be written; every other ending is an `Ok` outcome.
pub async fn execute(setup: RunSetup) -> anyhow::Result<RunOutcome> {
    let started = Instant::now();
    let started_at = chrono::Utc::now();
    let (profile, mut limits) = setup.resolve_limits();
    let sandbox = setup.config.sandbox.unwrap_or(SandboxMode::Auto);
    let settings_notes = preflight(&setup, &mut limits, sandbox)?;
    let workdir = WorkDir::new(&setup.workdir)
        .with_context(|| format!("workspace {} is not usable", setup.workdir.display()))?;
    let root = workdir.root().to_path_buf();
    let tree = workdir.tree().clone();
    // The run's package cache (setup writes it, every later command reads it); removed
    // when the run ends.
    let job_cache = tempfile::Builder::new()
        .prefix("kotef-job-")
        .tempdir()
        .context("cannot create the job's package cache")?;
    let mut runner_config = runner_config(&setup, limits.command_timeout_s, sandbox, &job_cache);
    let _loopback = forward_loopback(&setup.config.test, &mut runner_config)?;
    // The repository's `setup` before anything else: its failure costs no model call.
    let setup_created =
        run_setup_command(&setup, &tree, &runner_config, limits.time_budget_s).await?;
    let runner = CommandRunner::new(runner_config);
    let sandbox_name = runner.sandbox_in_force().to_string();
    let (test_command, source) = test_command_of(&setup, &root);
    let policy = run_policy(&setup, profile, test_command.clone())?;
    let tools = ToolBox::new(workdir, runner, profile).with_policy(policy);

    let transcript_rel = crate::sdd::transcript::rel_path(&report::stem(started_at, &setup.run_id));
    let goal = goal_with_instructions(&setup.goal, setup.config.instructions.as_deref());
    let hashes = graph::workspace_hashes(&root, Duration::from_secs(limits.time_budget_s)).await;
    let mut state = RunState::new(&goal, profile, hashes.unwrap_or_default());
    state.test_command = test_command;
    state.test_command_source = source;
    let ctx = GraphContext {
        run_id: setup.run_id.clone(),
        model: setup.model.clone(),
        tools,
        limits,
        sandbox,
        hidden_paths: setup.hidden_paths.clone(),
        read_only_paths: setup.read_only_paths.clone(),
        started,
        redactor: setup.redactor.clone(),
        progress: setup.progress.clone(),
        cost: setup.cost.clone(),
        issue_writer: issue_writer(&tree, &setup.run_id, &setup.redactor),
        events: tee(
            crate::sdd::transcript::writer(
                tree.clone(),
                transcript_rel.clone(),
                setup.redactor.clone(),
            ),
            setup.log_events.clone(),
        ),
        verify_first: setup.resolve_verify_first(),
        edit_format: setup.resolve_edit_format(),
    };
    let state = graph::run_graph(&ctx, state).await;

    let cost_usd = setup
        .cost
        .as_ref()
        .and_then(|f| f(state.prompt_tokens, state.completion_tokens));
    let meta = ReportMeta {
        run_id: setup.run_id.clone(),
        started_at,
        duration_ms: started.elapsed().as_millis() as u64,
        model: setup.model_name.clone(),
        limits,
        cost_usd,
        sandbox: sandbox_name,
        settings_notes,
        instruction_files: setup.config.instruction_files.clone(),
    };
    let redactor = setup.redactor.clone();
    let written = report::write(&tree, &state, &meta, &|t| redactor.redact(t))
        .with_context(|| format!("cannot write the run report under {}", root.display()))?;
    let mut summary = report::summary(&state, &written.markdown, &written.issues_md);
    ctx.record(ending_event(&setup, &state, &summary, &meta));
    if matches!(
        tree.kind(&transcript_rel),
        Ok(kotef_tools::Kind::File { .. })
    ) {
        summary.transcript_path = Some(root.join(&transcript_rel).display().to_string());
    }
    let rel = |p: &std::path::Path| {
        p.strip_prefix(&root)
            .map(|r| r.display().to_string())
            .unwrap_or_else(|_| p.display().to_string())
    };
    Ok(RunOutcome {
        run_id: setup.run_id,
        summary,
        cost_usd,
        duration_ms: meta.duration_ms,
        failure_summary: failure_summary(&state).map(|f| redactor.redact(&f)),
        mermaid: crate::sdd::mermaid::render(&state.path_edges),
        files_changed: state.files_changed(),
        report_rel_path: rel(&written.markdown),
        issues_rel_path: matches!(
            tree.kind(crate::sdd::ISSUES_MD),
            Ok(kotef_tools::Kind::File { .. })
        )
        .then(|| rel(&written.issues_md)),
        model: setup.model_name,
        change_summary: state
            .coder_summary
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| redactor.redact(s)),
        verification: state.test.as_ref().map(|t| kotef_core::Verification {
            command: redactor.redact(&t.command),
            passed: t.passed,
        }),
        sandbox: Some(meta.sandbox.clone()),
        setup_created,
        checks: state.checks.iter().map(|c| redactor.redact(c)).collect(),
    })
}
