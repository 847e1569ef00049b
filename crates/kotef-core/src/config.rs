//! Profiles, limits and the per-repository config file (`kotef.toml` or `.github/kotef.toml`).
//!
//! Precedence, lowest first: the profile's defaults, the config file, then flags (or a
//! scenario's `limits`). An unknown field in the file is an error that names it.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How cautious a run is. `strict` allows only build/test/lint commands and more fix attempts;
/// `yolo` allows any command but a denylist and fewer fix attempts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    #[default]
    Strict,
    Yolo,
}

/// How the coder writes code changes. `blocks`: a generate-and-validate repair loop whose
/// replies carry fenced search/replace or whole-function blocks (code never inside JSON);
/// `tools`: the JSON tool loop (`edit_file`, `write_file`, ...); `auto` (default): blocks for
/// a self-hosted OpenAI-compatible server's model while the tests fail, tools otherwise.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EditFormat {
    #[default]
    Auto,
    Tools,
    Blocks,
}

impl EditFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Tools => "tools",
            Self::Blocks => "blocks",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "auto" => Some(Self::Auto),
            "tools" => Some(Self::Tools),
            "blocks" => Some(Self::Blocks),
            _ => None,
        }
    }
}

impl Profile {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Strict => "strict",
            Self::Yolo => "yolo",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "strict" => Some(Self::Strict),
            "yolo" => Some(Self::Yolo),
            _ => None,
        }
    }
}

/// Where agent commands run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SandboxMode {
    /// bubblewrap when installed (no network; only the workspace and a temp dir writable),
    /// otherwise plain processes with a warning.
    #[default]
    Auto,
    /// Always bubblewrap; a missing `bwrap` is an error.
    Bwrap,
    /// Plain processes (still with timeout, output cap and a scrubbed environment).
    None,
}

/// Every cap a run obeys. Names are the contract's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// Global cap on graph steps (one node execution each).
    pub max_steps: u32,
    /// planner→researcher hops without progress before `planner_to_researcher` fires.
    pub edge_limit_researcher: u32,
    /// planner→coder hops without progress before `planner_to_coder` fires.
    pub edge_limit_coder: u32,
    /// planner→verifier hops without progress before `planner_to_verifier` fires.
    pub edge_limit_verifier: u32,
    /// Steps of any shape without progress before `no_progress` fires.
    pub no_progress_steps: u32,
    /// Failing verifications after code changes before `fix_attempts` fires.
    pub fix_attempts: u32,
    /// Model calls in one coder step before its budget review.
    pub coder_turns: u32,
    /// Model calls one coder step may make at all (its hard cap, budget reviews included).
    pub coder_step_calls: u32,
    /// Prompt + completion tokens allowed in the run (failed calls count).
    pub token_budget: u64,
    /// Wall-clock seconds allowed for the run.
    pub time_budget_s: u64,
    /// Seconds one command (verifier or tool) may run.
    pub command_timeout_s: u64,
    /// Model calls allowed in the whole run (failed calls count).
    pub max_model_calls: u32,
    /// Dollars allowed in the run, from the price table or configured prices; `None`: no
    /// dollar cap (tokens and time still bound the run).
    #[serde(default)]
    pub cost_budget_usd: Option<f64>,
}

impl Limits {
    pub fn for_profile(profile: Profile) -> Self {
        match profile {
            Profile::Strict => Self {
                max_steps: 120,
                edge_limit_researcher: 5,
                edge_limit_coder: 5,
                edge_limit_verifier: 3,
                no_progress_steps: 10,
                fix_attempts: 5,
                coder_turns: 12,
                coder_step_calls: 48,
                token_budget: 2_000_000,
                time_budget_s: 3600,
                command_timeout_s: 600,
                max_model_calls: 300,
                cost_budget_usd: None,
            },
            Profile::Yolo => Self {
                fix_attempts: 3,
                ..Self::for_profile(Profile::Strict)
            },
        }
    }

    /// Takes every limit `o` sets.
    pub fn apply(&mut self, o: &LimitsOverride) {
        macro_rules! take {
            ($($f:ident),*) => { $( if let Some(v) = o.$f { self.$f = v; } )* };
        }
        for_each_limit!(take);
        if o.cost_budget_usd.is_some() {
            self.cost_budget_usd = o.cost_budget_usd;
        }
    }

    /// Every limit as an override, so a run given them resolves exactly these limits.
    pub fn as_override(&self) -> LimitsOverride {
        macro_rules! all {
            ($($f:ident),*) => { LimitsOverride { $( $f: Some(self.$f), )* cost_budget_usd: self.cost_budget_usd } };
        }
        for_each_limit!(all)
    }

    /// The per-edge loop limit.
    pub fn edge_limit(&self, edge: crate::Edge) -> u32 {
        match edge {
            crate::Edge::Researcher => self.edge_limit_researcher,
            crate::Edge::Coder => self.edge_limit_coder,
            crate::Edge::Verifier => self.edge_limit_verifier,
        }
    }
}

/// Calls `$m!` with the name of every limit, so the structs below can never drift apart.
macro_rules! for_each_limit {
    ($m:ident) => {
        $m!(
            max_steps,
            edge_limit_researcher,
            edge_limit_coder,
            edge_limit_verifier,
            no_progress_steps,
            fix_attempts,
            coder_turns,
            coder_step_calls,
            token_budget,
            time_budget_s,
            command_timeout_s,
            max_model_calls
        )
    };
}
use for_each_limit;

/// Optional overrides of [`Limits`], as written in a config file, a scenario or on flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsOverride {
    pub max_steps: Option<u32>,
    pub edge_limit_researcher: Option<u32>,
    pub edge_limit_coder: Option<u32>,
    pub edge_limit_verifier: Option<u32>,
    pub no_progress_steps: Option<u32>,
    pub fix_attempts: Option<u32>,
    pub coder_turns: Option<u32>,
    pub coder_step_calls: Option<u32>,
    pub token_budget: Option<u64>,
    pub time_budget_s: Option<u64>,
    pub command_timeout_s: Option<u64>,
    pub max_model_calls: Option<u32>,
    pub cost_budget_usd: Option<f64>,
}

impl LimitsOverride {
    /// The bundled local model on a CPU (`local`; a 1.5B model on a 2-core runner: a call
    /// takes 30 s to 3 min): fewer, longer calls. 40 model calls instead of 300 (about 40
    /// minutes of calls), 12 calls per coder step instead of 48 with a budget review after
    /// 6, 600,000 tokens instead of 2,000,000; the time budget stays the hour a hosted run
    /// gets, all of it usable inside the README job's 70 minutes, and each call may take 10
    /// minutes instead of 2 (`kotef_model::select::LOCAL_TIMEOUT_S`). The config file and
    /// flags still win.
    pub fn cpu_model() -> LimitsOverride {
        LimitsOverride {
            max_model_calls: Some(40),
            coder_step_calls: Some(12),
            coder_turns: Some(6),
            token_budget: Some(600_000),
            time_budget_s: Some(3600),
            ..LimitsOverride::default()
        }
    }

    /// These overrides laid over `base`: a limit set here wins, otherwise `base`'s.
    pub fn over(&self, base: &LimitsOverride) -> LimitsOverride {
        macro_rules! pick {
            ($($f:ident),*) => { LimitsOverride { $( $f: self.$f.or(base.$f), )* cost_budget_usd: self.cost_budget_usd.or(base.cost_budget_usd) } };
        }
        for_each_limit!(pick)
    }
}

/// `[model]` in the config file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// As `--model`: `openai:NAME`, `anthropic:NAME` or `scripted:FILE`.
    pub name: Option<String>,
    /// Base URL of an OpenAI-compatible or Anthropic server (overrides the env variable).
    pub base_url: Option<String>,
    /// The idle limit in seconds (default 120): how long a model call may show no progress (no
    /// byte of a streamed reply, or longer than the server's measured speed explains before
    /// the first one). A long call that shows progress is not cut.
    pub timeout_s: Option<u64>,
    /// Retries of a failing call (429, 5xx, connection errors, timeouts).
    pub max_retries: Option<u32>,
    /// Seconds one call keeps retrying through a provider outage (default 120).
    pub retry_window_s: Option<u64>,
    /// Price in USD per million prompt tokens, for the cost estimate.
    pub price_prompt_per_mtok: Option<f64>,
    /// Price in USD per million completion tokens, for the cost estimate.
    pub price_completion_per_mtok: Option<f64>,
    /// Sampling temperature sent with every call (0 to 2; default 0.2: small models stray less).
    pub temperature: Option<f64>,
    /// Completion tokens one reply may use (default 1024): an uncapped reply of a small local
    /// model can run for thousands of tokens and hold the server's only slot.
    pub max_tokens: Option<u32>,
}

/// The per-repository config file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KotefConfig {
    /// `strict` (default) or `yolo`.
    pub profile: Option<Profile>,
    /// The verifier's command; detected from the repository when absent.
    pub test_command: Option<String>,
    /// The issue/PR label that triggers a run (server and Action; default `kotef`).
    pub trigger_label: Option<String>,
    /// `auto` (default), `bwrap` or `none`. Operator-only on a server.
    pub sandbox: Option<SandboxMode>,
    /// Run the test command before the first model call (default: on, except with a scripted
    /// model, whose turns are written for a planner-first run). When it fails, the coder gets
    /// the failure as its task with no planner call; when it passes, the planner decides.
    pub verify_first: Option<bool>,
    /// `auto` (default), `tools` or `blocks`: how the coder writes code changes (see
    /// [`EditFormat`]).
    pub edit_format: Option<EditFormat>,
    /// Instructions for the agent from the repository (its conventions, where things live),
    /// given to the planner and coder with the goal.
    pub instructions: Option<String>,
    /// A command that prepares the work tree once before the agent starts (installs the test
    /// dependencies into a venv, `node_modules`, `vendor/`). It reaches the public internet (in the
    /// sandbox through kotef's egress proxy) and runs outside the agent's command policy, in the
    /// run's sandbox when there is one, never with
    /// kotef's secrets, with [`Self::setup_timeout_s`] and an output cap; when it fails the
    /// run ends before any model call. Repository-owned.
    pub setup: Option<String>,
    /// Commands the agent may run besides the profile's list and the project's test command,
    /// each alone or with more arguments (`allow = ["make check", "tox -e lint"]`): one command
    /// and its leading arguments, no shell syntax. An entry that is denylisted or reaches
    /// outside the workspace (network, installs, pushes) is refused when the run starts; on a
    /// server that is the operator's ceiling. Repository-owned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    /// Seconds `setup` may take (default 600, never more than the run's time budget).
    pub setup_timeout_s: Option<u64>,
    /// Variables the repository's commands (`setup`, the tests, the agent's) get, with their
    /// values (`[env]`, e.g. `DATABASE_URL = "postgres://localhost/test"`). Repository-owned;
    /// a secret-looking name is refused. Variables of the job's own environment are passed by
    /// the operator instead (`KOTEF_PASS_ENV`, the Action's `pass-env`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub env: std::collections::BTreeMap<String, String>,
    /// How much of each instruction file reached the agent (set by
    /// [`Self::add_instruction_files`]; not a config field).
    #[serde(skip)]
    pub instruction_files: Vec<InstructionUse>,
    /// `[test]`: whether the project's commands reach services on the machine's loopback
    /// (`network = "loopback"`, `ports = [5432]`); never the outside world. Repository-owned,
    /// within the operator's ports on a server.
    #[serde(default, skip_serializing_if = "crate::TestConfig::is_unset")]
    pub test: crate::TestConfig,
    /// Overrides of the profile's limits.
    #[serde(default)]
    pub limits: LimitsOverride,
    /// The model and its prices. Operator-only on a server.
    #[serde(default)]
    pub model: ModelConfig,
    /// What of the run's record goes on the branch (`[report]`).
    #[serde(default, skip_serializing_if = "ReportConfig::is_default")]
    pub report: ReportConfig,
}

/// `[report]`: what of a run's record kotef commits. The report (`.sdd/runs/<id>.md`, `.json`)
/// and `.sdd/issues.md` always are; the transcript goes to the Action's artifact (or the
/// server's data directory) unless the repository opts in here.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportConfig {
    /// Commit the transcript (`.sdd/runs/<id>.transcript.jsonl`, up to 8 MiB) to the branch
    /// too (default: no).
    pub commit_transcript: Option<bool>,
}

impl ReportConfig {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// A config file that could not be used; the message names the file and the field.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("invalid config {path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// Files whose text is given to the planner and coder as the repository's instructions, read
/// from the trusted branch.
pub const INSTRUCTION_FILES: [&str; 7] = [
    "AGENTS.md",
    "CLAUDE.md",
    ".github/copilot-instructions.md",
    "GEMINI.md",
    ".sdd/project.md",
    ".sdd/architect.md",
    ".sdd/best_practices.md",
];

/// Longest text taken from one instruction file, in characters.
pub const MAX_INSTRUCTION_FILE_CHARS: usize = 12_000;
/// Characters all instruction files together may bring; files past it are cut or left out,
/// in [`INSTRUCTION_FILES`] order.
pub const INSTRUCTION_BUDGET_CHARS: usize = 24_000;

/// How much of one instruction file reached the agent (shown in the run report).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstructionUse {
    pub path: String,
    /// Characters the file has (trimmed).
    pub chars: usize,
    /// Characters given to the agent: all of them, fewer (cut), or 0 (left out for the budget).
    pub used: usize,
}

/// The instruction files' texts as one block (`### PATH` then the text, each capped, all
/// within [`INSTRUCTION_BUDGET_CHARS`]) or `None` when there are none, and how much of each
/// was used.
pub fn render_instruction_files(files: &[(&str, String)]) -> (Option<String>, Vec<InstructionUse>) {
    let mut left = INSTRUCTION_BUDGET_CHARS;
    let mut parts = Vec::new();
    let mut uses = Vec::new();
    for (p, t) in files.iter().filter(|(_, t)| !t.trim().is_empty()) {
        let t = t.trim();
        let chars = t.chars().count();
        let used = chars.min(MAX_INSTRUCTION_FILE_CHARS).min(left);
        left -= used;
        uses.push(InstructionUse {
            path: p.to_string(),
            chars,
            used,
        });
        if used == 0 {
            continue;
        }
        let mut text: String = t.chars().take(used).collect();
        if used < chars {
            text.push_str("\n[… cut]");
        }
        parts.push(format!("### {p}\n{text}"));
    }
    ((!parts.is_empty()).then(|| parts.join("\n\n")), uses)
}

impl KotefConfig {
    /// Adds the instruction files' block to `instructions`.
    pub fn add_instruction_files(&mut self, files: &[(&str, String)]) {
        let (block, uses) = render_instruction_files(files);
        self.instruction_files = uses;
        if let Some(block) = block {
            self.instructions = Some(match self.instructions.take() {
                Some(own) if !own.trim().is_empty() => format!("{own}\n\n{block}"),
                _ => block,
            });
        }
    }
}

/// Config file names, in the order they are looked for.
pub const CONFIG_FILES: [&str; 2] = ["kotef.toml", ".github/kotef.toml"];

impl KotefConfig {
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::Invalid {
            path: path.to_path_buf(),
            message: e.message().to_string()
                + &e.span()
                    .map(|s| format!(" (at byte {})", s.start))
                    .unwrap_or_default(),
        })
    }

    /// Loads the first config file found in `repo`, read by `read` (a relative name → its text,
    /// `None` when there is no such file; the caller decides how the tree is read, see
    /// `kotef_tools::Tree`); the default config when there is none.
    pub fn load_from_repo(
        repo: &Path,
        read: impl Fn(&str) -> Result<Option<String>, String>,
    ) -> Result<(Self, Option<PathBuf>), ConfigError> {
        for name in CONFIG_FILES {
            let path = repo.join(name);
            let text = read(name).map_err(|message| ConfigError::Read {
                path: path.clone(),
                message,
            })?;
            if let Some(text) = text {
                return Ok((Self::parse(&text, &path)?, Some(path)));
            }
        }
        Ok((Self::default(), None))
    }

    /// The limits in force: profile defaults, then this file's overrides.
    pub fn limits(&self, profile: Profile) -> Limits {
        let mut l = Limits::for_profile(profile);
        l.apply(&self.limits);
        l
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_allows_more_fix_attempts_than_yolo() {
        let s = Limits::for_profile(Profile::Strict);
        let y = Limits::for_profile(Profile::Yolo);
        assert_eq!(s.fix_attempts, 5);
        assert_eq!(y.fix_attempts, 3);
        assert_eq!(
            (
                s.edge_limit_researcher,
                s.edge_limit_coder,
                s.edge_limit_verifier
            ),
            (5, 5, 3)
        );
        // The global cap sits well above the domain rules so they fire first.
        assert!(s.max_steps > 4 * s.no_progress_steps);
    }

    #[test]
    fn config_file_overrides_profile_defaults() {
        let c = KotefConfig::parse(
            "profile = \"yolo\"\ntest_command = \"make check\"\n[limits]\nmax_steps = 7\n",
            Path::new("kotef.toml"),
        )
        .unwrap();
        assert_eq!(c.profile, Some(Profile::Yolo));
        let l = c.limits(Profile::Yolo);
        assert_eq!(l.max_steps, 7);
        assert_eq!(l.fix_attempts, 3);
    }

    #[test]
    fn overrides_layer_over_each_other() {
        let base = LimitsOverride {
            max_steps: Some(10),
            fix_attempts: Some(2),
            ..Default::default()
        };
        let top = LimitsOverride {
            fix_attempts: Some(4),
            ..Default::default()
        };
        let merged = top.over(&base);
        assert_eq!(merged.max_steps, Some(10));
        assert_eq!(merged.fix_attempts, Some(4));
        assert_eq!(merged.token_budget, None);
    }

    #[test]
    fn unknown_field_is_named() {
        let err = KotefConfig::parse("[limits]\nmax_stpes = 3\n", Path::new("kotef.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("max_stpes"), "{err}");
        assert!(err.contains("kotef.toml"), "{err}");
        let err = KotefConfig::parse("colour = 1\n", Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("colour"), "{err}");
    }

    #[test]
    fn loads_from_dot_github() {
        let dir = std::env::temp_dir().join(format!("kotef-cfg-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".github")).unwrap();
        std::fs::write(dir.join(".github/kotef.toml"), "trigger_label = \"bot\"\n").unwrap();
        let read = |name: &str| Ok(std::fs::read_to_string(dir.join(name)).ok());
        let (c, p) = KotefConfig::load_from_repo(&dir, read).unwrap();
        assert_eq!(c.trigger_label.as_deref(), Some("bot"));
        assert!(p.unwrap().ends_with(".github/kotef.toml"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_other_bots_instruction_files_are_read_too() {
        for name in ["CLAUDE.md", ".github/copilot-instructions.md", "GEMINI.md"] {
            assert!(INSTRUCTION_FILES.contains(&name), "{name}");
        }
    }

    #[test]
    fn one_file_is_cut_at_its_cap() {
        let long = "x".repeat(MAX_INSTRUCTION_FILE_CHARS + 10);
        let (_, uses) = render_instruction_files(&[("CLAUDE.md", long)]);
        assert_eq!(uses[0].used, MAX_INSTRUCTION_FILE_CHARS);
    }

    #[test]
    fn files_past_the_budget_are_cut_then_left_out() {
        let big = "y".repeat(MAX_INSTRUCTION_FILE_CHARS);
        let files = [
            ("AGENTS.md", big.clone()),
            ("CLAUDE.md", "z".repeat(MAX_INSTRUCTION_FILE_CHARS - 100)),
            ("GEMINI.md", big.clone()),
            (".sdd/project.md", "late".to_string()),
        ];
        let (block, uses) = render_instruction_files(&files);
        let used: Vec<usize> = uses.iter().map(|u| u.used).collect();
        assert_eq!(
            used,
            vec![
                MAX_INSTRUCTION_FILE_CHARS,
                MAX_INSTRUCTION_FILE_CHARS - 100,
                100,
                0
            ]
        );
        assert!(block.unwrap().chars().count() <= INSTRUCTION_BUDGET_CHARS + 200);
    }

    #[test]
    fn instruction_files_are_appended_under_their_paths_and_capped() {
        let mut c = KotefConfig {
            instructions: Some("Own words.".into()),
            ..Default::default()
        };
        let long = "x".repeat(MAX_INSTRUCTION_FILE_CHARS + 10);
        c.add_instruction_files(&[("AGENTS.md", "Use tabs.".into()), (".sdd/project.md", long)]);
        let text = c.instructions.unwrap();
        assert!(
            text.starts_with("Own words.\n\n### AGENTS.md\nUse tabs.\n\n### .sdd/project.md\n")
                && text.ends_with("[… cut]"),
            "{text}"
        );
    }
}
