//! The command line: `kotef run`, `kotef scenario`, `kotef example` (the README's offline
//! demo). Exit codes follow the contract: `run` exits with its terminal status's code (0, 2,
//! 3, 4) or 1 for an error before the graph could run; `scenario` exits 0 when every
//! expectation holds, 1 when one fails, 2 on a malformed scenario.

use anyhow::{bail, Context as _};
use clap::{Args, Parser, Subcommand};
use kotef::run::{self, RunSetup};
use kotef::scenario;
use kotef_core::{
    EditFormat, KotefConfig, LimitsOverride, Profile, Redactor, RunOutcome, StepProgress,
};
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The bundled example for the README's first command.
pub const EXAMPLE_SCENARIO: &str = include_str!("../../../examples/hello-fix.json");

#[derive(Debug, Parser)]
#[command(
    name = "kotef",
    version,
    about = "A bounded coding agent for GitHub issues and pull requests"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the agent graph on a local git repository.
    Run(RunArgs),
    /// Run a scenario file offline with its scripted model and check its expectations.
    Scenario(ScenarioArgs),
    /// Run the bundled example offline (scripted model, no API key).
    Example(ExampleArgs),
    /// Serve GitHub webhooks: label an issue `kotef` (or comment `/kotef run`) to start a run.
    Serve(Box<crate::serve::ServeArgs>),
    /// Run as a GitHub Action step (reads the GITHUB_* environment).
    Action(crate::action::ActionArgs),
    /// Summarise a run's transcript (`.sdd/runs/<id>.transcript.jsonl`, or the Action's
    /// artifact), or with --html turn it into a page.
    Report(ReportArgs),
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The transcript file.
    pub transcript: PathBuf,
    /// Write a one-page HTML view (self-contained: open it in a browser) instead of printing
    /// a plain-text summary.
    #[arg(long)]
    pub html: bool,
    /// Where the page goes (default: the transcript's name with `.html`).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
}

/// Limits given as flags (names as in the contract and the config file).
#[derive(Debug, Clone, Default, Args)]
pub struct LimitFlags {
    /// Global cap on graph steps.
    #[arg(long)]
    pub max_steps: Option<u32>,
    /// planner→researcher hops without progress allowed.
    #[arg(long)]
    pub edge_limit_researcher: Option<u32>,
    /// planner→coder hops without progress allowed.
    #[arg(long)]
    pub edge_limit_coder: Option<u32>,
    /// planner→verifier hops without progress allowed.
    #[arg(long)]
    pub edge_limit_verifier: Option<u32>,
    /// Steps of any shape without progress allowed.
    #[arg(long)]
    pub no_progress_steps: Option<u32>,
    /// Failing verifications after code changes allowed.
    #[arg(long)]
    pub fix_attempts: Option<u32>,
    /// Model calls per coder step before a budget review.
    #[arg(long)]
    pub coder_turns: Option<u32>,
    /// Model calls one coder step may make at all.
    #[arg(long)]
    pub coder_step_calls: Option<u32>,
    /// Prompt + completion tokens allowed in the run.
    #[arg(long)]
    pub token_budget: Option<u64>,
    /// Wall-clock seconds allowed for the run.
    #[arg(long)]
    pub time_budget_s: Option<u64>,
    /// Seconds one command may run.
    #[arg(long)]
    pub command_timeout_s: Option<u64>,
    /// Model calls allowed in the whole run.
    #[arg(long)]
    pub max_model_calls: Option<u32>,
    /// Dollars allowed in the run (without a known price for the model: tokens at $4 per
    /// million instead, with a warning).
    #[arg(long)]
    pub cost_budget_usd: Option<f64>,
}

impl LimitFlags {
    pub fn to_override(&self) -> LimitsOverride {
        LimitsOverride {
            max_steps: self.max_steps,
            edge_limit_researcher: self.edge_limit_researcher,
            edge_limit_coder: self.edge_limit_coder,
            edge_limit_verifier: self.edge_limit_verifier,
            no_progress_steps: self.no_progress_steps,
            fix_attempts: self.fix_attempts,
            coder_turns: self.coder_turns,
            coder_step_calls: self.coder_step_calls,
            token_budget: self.token_budget,
            time_budget_s: self.time_budget_s,
            command_timeout_s: self.command_timeout_s,
            max_model_calls: self.max_model_calls,
            cost_budget_usd: self.cost_budget_usd,
        }
    }
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The git work tree to change (its config file `kotef.toml` or `.github/kotef.toml` is read).
    #[arg(long)]
    pub repo: PathBuf,
    /// The goal, as an issue would state it.
    #[arg(long)]
    pub goal: String,
    /// `openai:NAME`, `anthropic:NAME`, `local` (the bundled model at KOTEF_LOCAL_MODEL_URL) or
    /// `scripted:FILE` (default: `[model] name` in the config).
    #[arg(long, env = "KOTEF_MODEL")]
    pub model: Option<String>,
    /// `strict` or `yolo` (default: the config's, else strict).
    #[arg(long)]
    pub profile: Option<String>,
    /// The verifier's command (default: the config's, else detected).
    #[arg(long)]
    pub test_command: Option<String>,
    /// How the coder writes code changes: `auto`, `tools` or `blocks` (default: the config's,
    /// else auto).
    #[arg(long)]
    pub edit_format: Option<String>,
    /// A config file to use instead of the repository's.
    #[arg(long)]
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub limits: LimitFlags,
    /// Print the run summary as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ScenarioArgs {
    /// The scenario file (JSON).
    pub file: PathBuf,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Make the workspace in DIR (created; absent or empty) and leave it there.
    #[arg(long)]
    pub keep: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ExampleArgs {
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Make the workspace in DIR (created; absent or empty) and leave it there.
    #[arg(long)]
    pub keep: Option<PathBuf>,
}

/// Runs the parsed command line and returns the process exit code.
pub async fn main_with(cli: Cli) -> i32 {
    match cli.command {
        Command::Run(args) => match cmd_run(args).await {
            Ok(code) => code,
            Err(e) => {
                eprintln!("kotef: {}", Redactor::from_env().redact(&format!("{e:#}")));
                1
            }
        },
        Command::Scenario(args) => {
            let keep = args.keep.map(Workspace::Keep).unwrap_or(Workspace::Remove);
            cmd_scenario(&args.file, None, args.json, keep).await
        }
        Command::Serve(args) => match cmd_serve(args).await {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("kotef: {}", Redactor::from_env().redact(&format!("{e:#}")));
                1
            }
        },
        Command::Action(args) => crate::action::cmd_action(args).await,
        Command::Report(args) => match cmd_report(&args) {
            Ok(path) => {
                if let Some(p) = path {
                    println!("{}", p.display());
                }
                0
            }
            Err(e) => {
                eprintln!("kotef: {e:#}");
                1
            }
        },
        Command::Example(args) => {
            // The example's report is what a newcomer reads next: its workspace stays.
            let keep = args
                .keep
                .map(Workspace::Keep)
                .unwrap_or(Workspace::KeepTemporary);
            cmd_scenario(
                Path::new("examples/hello-fix.json"),
                Some(EXAMPLE_SCENARIO),
                args.json,
                keep,
            )
            .await
        }
    }
}

/// Bytes of a transcript `kotef report` reads at most (a transcript is capped at 8 MiB).
const REPORT_INPUT_CAP: u64 = 16 * 1024 * 1024;

/// `kotef report FILE`: the plain-text summary on stdout, or with `--html` the page (its
/// path is returned to be named).
fn cmd_report(args: &ReportArgs) -> anyhow::Result<Option<PathBuf>> {
    let (tree, rel) = tree_for(&args.transcript)?;
    let text = tree
        .read_text(&rel, REPORT_INPUT_CAP)
        .with_context(|| format!("cannot read {}", args.transcript.display()))?;
    if !args.html {
        if args.output.is_some() {
            bail!("-o names the page's file: add --html");
        }
        let summary = format!(
            "{}the page: kotef report --html {}\n",
            kotef::sdd::transcript_text::render(&text),
            args.transcript.display()
        );
        // A reader that stops reading (`| head`) is not an error.
        let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), summary.as_bytes());
        return Ok(None);
    }
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| args.transcript.with_extension("html"));
    let title = format!(
        "kotef run: {}",
        args.transcript
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    let page = kotef::sdd::transcript_html::render(&text, &title);
    let (tree, rel) = tree_for(&out)?;
    tree.write(&rel, page.as_bytes(), kotef_tools::Links::Refuse)
        .with_context(|| {
            format!(
                "cannot write {} (kotef writes no page through a link a run may have planted)",
                out.display()
            )
        })?;
    Ok(Some(out))
}

/// The [`kotef_tools::Tree`] a path given to `kotef report` is opened through, and the path
/// inside it. A relative path without `..` (the documented `-o run.html`, the default
/// `.sdd/runs/<stem>.transcript.html`) is opened from the current directory following no link
/// in any component: on a kotef branch every one of them may be a link the run committed.
/// Any other path is opened in its parent directory, as the person typed it, and its last
/// component is never followed.
fn tree_for(path: &Path) -> anyhow::Result<(kotef_tools::Tree, String)> {
    use std::path::Component;
    let plain = path
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    let (dir, rel) = if plain {
        (Path::new("."), path.to_string_lossy().into_owned())
    } else {
        let name = path
            .file_name()
            .with_context(|| format!("{}: not a file name", path.display()))?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        (dir, name.to_string_lossy().into_owned())
    };
    let tree = kotef_tools::Tree::open(dir)
        .with_context(|| format!("cannot open the directory {}", dir.display()))?;
    Ok((tree, rel))
}

async fn cmd_serve(args: Box<crate::serve::ServeArgs>) -> anyhow::Result<()> {
    let cfg = (*args).into_config()?;
    // With `--executor actions` the runs happen on Actions runners, not here.
    let local = cfg.executor == kotef_github::ExecutorMode::Local;
    if let (true, Err(why)) = (local, kotef_tools::bwrap_status()) {
        let what = if cfg.allow_unsandboxed {
            "agent commands run WITHOUT a sandbox on this server (--allow-unsandboxed)"
        } else {
            "runs will be refused until the `bubblewrap` package is installed (or the server is started with --allow-unsandboxed)"
        };
        tracing::warn!("no working bubblewrap ({why}): {what}");
        eprintln!("kotef: warning: no working bubblewrap ({why}): {what}");
    }
    kotef_github::serve(cfg, Arc::new(kotef::executor::GraphExecutor::default())).await
}

fn progress_printer() -> Option<tokio::sync::mpsc::UnboundedSender<StepProgress>> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<StepProgress>();
    tokio::spawn(async move {
        while let Some(p) = rx.recv().await {
            eprintln!(
                "step {:>3} {:<10} {:<12} {}{}",
                p.step,
                p.node.as_str(),
                p.decision,
                p.reason,
                if p.progress { " [progress]" } else { "" }
            );
        }
    });
    Some(tx)
}

async fn cmd_run(args: RunArgs) -> anyhow::Result<i32> {
    if !args.repo.is_dir() {
        bail!("--repo {}: no such directory", args.repo.display());
    }
    if !args.repo.join(".git").exists() {
        bail!(
            "--repo {}: not a git work tree (run `git init` first)",
            args.repo.display()
        );
    }
    let tree = kotef_tools::Tree::open(&args.repo)
        .with_context(|| format!("--repo {}: cannot open it", args.repo.display()))?;
    let mut config = match &args.config {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
            KotefConfig::parse(&text, p)?
        }
        None => KotefConfig::load_from_repo(&args.repo, |name| read_in_tree(&tree, name))?.0,
    };
    let files: Vec<(&str, String)> = kotef_core::config::INSTRUCTION_FILES
        .iter()
        .filter_map(|p| Some((*p, read_in_tree(&tree, p).ok()??)))
        .collect();
    config.add_instruction_files(&files);
    let profile = match &args.profile {
        Some(p) => Some(
            Profile::parse(p)
                .with_context(|| format!("--profile {p:?}: expected strict or yolo"))?,
        ),
        None => None,
    };
    if let Some(f) = &args.edit_format {
        config.edit_format = Some(
            EditFormat::parse(f)
                .with_context(|| format!("--edit-format {f:?}: expected auto, tools or blocks"))?,
        );
    }
    let setup = RunSetup::for_model_spec(
        args.repo.clone(),
        args.goal.clone(),
        config,
        args.model.as_deref(),
        &kotef_core::process::var,
    )?
    .profile(profile)
    .limits(args.limits.to_override())
    .test_command(args.test_command.clone())
    .progress(progress_printer());
    let outcome = run::execute(setup).await?;
    print_outcome(&outcome, args.json);
    Ok(outcome.summary.terminal_status.exit_code())
}

fn print_outcome(outcome: &RunOutcome, json: bool) {
    if json {
        println!(
            "{}",
            serde_json::to_string(&outcome.summary).unwrap_or_default()
        );
    } else {
        print!("{}", summary_text(&outcome.summary, &outcome.files_changed));
    }
}

/// The human-readable run summary (pure).
pub fn summary_text(s: &kotef_core::RunSummary, files_changed: &[String]) -> String {
    let c = &s.loop_counters;
    let mut out = format!(
        "{} {}\nstop rule:   {}\nstop reason: {}\nloop counters: planner_to_researcher {}, planner_to_coder {}, planner_to_verifier {}\nsteps {}, model calls {}, tokens {} prompt + {} completion, fix attempts {}\n",
        s.terminal_status.emoji(),
        s.terminal_status,
        s.stop_rule.map(|r| r.as_str()).unwrap_or("none"),
        s.stop_reason,
        c.planner_to_researcher,
        c.planner_to_coder,
        c.planner_to_verifier,
        s.total_steps,
        s.model_calls,
        s.prompt_tokens,
        s.completion_tokens,
        s.fix_attempts
    );
    if !files_changed.is_empty() {
        out.push_str(&format!("files changed: {}\n", files_changed.join(", ")));
    }
    out.push_str(&format!("report: {}\n", s.report_path));
    out
}

/// Where a scenario's workspace goes after the run.
enum Workspace {
    /// Made in DIR (absent or empty) and left there (`--keep DIR`).
    Keep(PathBuf),
    /// A fresh temporary directory, left there and named (`kotef example`).
    KeepTemporary,
    /// A fresh temporary directory, removed at the end.
    Remove,
}

async fn cmd_scenario(file: &Path, embedded: Option<&str>, json: bool, keep: Workspace) -> i32 {
    let parsed = match embedded {
        Some(text) => scenario::parse(text, file),
        None => scenario::load(file),
    };
    let s = match parsed {
        Ok(s) => s,
        Err(e) => {
            eprintln!("kotef: {e}");
            return 2;
        }
    };
    let name = s.name.clone().unwrap_or_else(|| file.display().to_string());
    let scenario_dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let removed = matches!(keep, Workspace::Remove);
    let (workdir, _guard) = match keep {
        Workspace::Keep(dir) => {
            if dir.exists()
                && std::fs::read_dir(&dir)
                    .map(|mut d| d.next().is_some())
                    .unwrap_or(true)
            {
                eprintln!("kotef: --keep {}: must be absent or empty", dir.display());
                return 1;
            }
            if let Err(e) = std::fs::create_dir_all(&dir) {
                eprintln!("kotef: --keep {}: {e}", dir.display());
                return 1;
            }
            (std::fs::canonicalize(&dir).unwrap_or(dir), None)
        }
        Workspace::KeepTemporary | Workspace::Remove => {
            match tempfile::Builder::new().prefix("kotef-scenario-").tempdir() {
                Ok(t) if removed => (t.path().to_path_buf(), Some(t)),
                Ok(t) => (t.keep(), None),
                Err(e) => {
                    eprintln!("kotef: cannot make a workspace: {e}");
                    return 1;
                }
            }
        }
    };
    let result = match scenario::run_in(&s, &scenario_dir, &workdir, progress_printer()).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("kotef: scenario {}: {e:#}", file.display());
            return 2;
        }
    };
    for f in &result.failed_expectations {
        eprintln!("expectation failed: {f}");
    }
    if json {
        println!("{}", scenario::summary_json(&result));
    } else {
        println!("scenario {name}");
        let text = summary_text(&result.summary, &result.files_changed);
        match removed {
            // No path to a file that is gone by the time the reader looks.
            true => print!(
                "{}",
                text.replace(&format!("report: {}\n", result.summary.report_path), "")
            ),
            false => print!("{text}"),
        }
        println!(
            "expectations: {}",
            if result.failed_expectations.is_empty() {
                "all met"
            } else {
                "FAILED"
            }
        );
        if removed {
            println!("(the workspace was removed; pass --keep DIR to keep it and read the report)");
        } else {
            println!(
                "workspace kept in {} (remove it when done)",
                workdir.display()
            );
        }
    }
    i32::from(!result.failed_expectations.is_empty())
}

/// Bytes of a config or instruction file read at most.
const REPO_FILE_CAP: u64 = 1024 * 1024;

/// A config or instruction file in the repository, read through [`kotef_tools::Tree`]: `None`
/// when absent, an error for a link or special file (kotef follows no link in a work tree).
fn read_in_tree(tree: &kotef_tools::Tree, name: &str) -> Result<Option<String>, String> {
    match tree.kind(name) {
        Ok(kotef_tools::Kind::Missing) => Ok(None),
        _ => tree
            .read_text(name, REPO_FILE_CAP)
            .map(Some)
            .map_err(|e| e.to_string()),
    }
}
