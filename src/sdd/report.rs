//! Run reports: `.sdd/runs/<UTC timestamp>-<run id>.md` and its `.json` twin, written on every
//! ending. Rendering is pure; `write` only puts the rendered text on disk.

use crate::graph::memory::state::{CallRecord, FailureHistory, RunState, StepRecord};
use chrono::{DateTime, Utc};
use kotef_core::markdown::{code, inert, INERT_CAP};
use kotef_core::{Limits, RunId, RunSummary, StopRule, TerminalStatus};
use kotef_tools::{Links, Tree};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Facts about a run that are not in `RunState`.
#[derive(Debug, Clone)]
pub struct ReportMeta {
    pub run_id: RunId,
    pub started_at: DateTime<Utc>,
    pub duration_ms: u64,
    pub model: String,
    pub limits: Limits,
    pub cost_usd: Option<f64>,
    pub sandbox: String,
    /// What the operator's rules changed in the repository's config (ignored fields, lowered
    /// limits), one sentence each.
    pub settings_notes: Vec<String>,
    /// How much of each repository instruction file reached the agent.
    pub instruction_files: Vec<kotef_core::config::InstructionUse>,
}

/// The JSON twin: the contract summary's fields plus timeline and calls. Rendering borrows the
/// run's state; reading a written twin back (`serde_json::from_str::<ReportJson>`) owns it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReportJson<'a> {
    #[serde(flatten)]
    pub summary: RunSummary,
    pub run_id: Cow<'a, str>,
    pub goal: Cow<'a, str>,
    pub profile: Cow<'a, str>,
    pub model: Cow<'a, str>,
    pub started_at: String,
    pub duration_ms: u64,
    pub cost_usd: Option<f64>,
    pub limits: Limits,
    pub timeline: Cow<'a, [StepRecord]>,
    pub calls: Cow<'a, [CallRecord]>,
    /// Tool calls executed, by tool name (added to the contract's fields).
    pub tools_run: Cow<'a, BTreeMap<String, u32>>,
    pub failure_history: Cow<'a, FailureHistory>,
    pub files_changed: Vec<String>,
    pub mermaid: String,
    /// What the operator's rules changed in the repository's config.
    pub settings_notes: Cow<'a, [String]>,
    /// How much of each repository instruction file reached the agent (added in 1.0).
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    pub instruction_files: Cow<'a, [kotef_core::config::InstructionUse]>,
}

/// File stem `<UTC timestamp>-<run id>`.
pub fn report_stem(meta: &ReportMeta) -> String {
    stem(meta.started_at, &meta.run_id)
}

/// File stem `<UTC timestamp>-<run id>` of a run started at `started_at`.
pub fn stem(started_at: DateTime<Utc>, run_id: &RunId) -> String {
    format!("{}-{}", started_at.format("%Y%m%dT%H%M%SZ"), run_id)
}

/// The contract summary of a finished state.
pub fn summary(state: &RunState, report_path: &Path, issues_md_path: &Path) -> RunSummary {
    let (status, rule, reason) = ending_parts(state);
    RunSummary {
        terminal_status: status,
        stop_rule: rule,
        stop_reason: reason,
        loop_counters: state.loop_counters,
        total_steps: state.total_steps,
        model_calls: state.model_calls,
        prompt_tokens: state.prompt_tokens,
        completion_tokens: state.completion_tokens,
        fix_attempts: state.failures.attempts,
        report_path: report_path.display().to_string(),
        issues_md_path: issues_md_path.display().to_string(),
        transcript_path: None,
    }
}

fn ending_parts(state: &RunState) -> (TerminalStatus, Option<StopRule>, String) {
    match &state.ending {
        Some(e) => (e.status, e.rule, e.reason.clone()),
        None => (
            TerminalStatus::AbortedStuck,
            None,
            "The run ended without a recorded cause.".into(),
        ),
    }
}

/// Characters of the goal the report shows at most.
const GOAL_CAP: usize = 2000;

/// Renders the Markdown report (pure). Everything a model, an issue or a command wrote is
/// inert Markdown ([`kotef_core::markdown`]): GitHub renders the file on the branch.
pub fn render_markdown(state: &RunState, meta: &ReportMeta, mermaid: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# kotef run {}\n", meta.run_id);
    let _ = writeln!(s, "**Goal:** {}\n", inert(&state.goal, GOAL_CAP));
    status_section(&mut s, state, meta);
    settings_sections(&mut s, meta);
    counters_section(&mut s, state, meta);
    budgets_section(&mut s, state, meta);
    timeline_and_failures(&mut s, state);
    files_section(&mut s, state);
    calls_section(&mut s, state);
    let _ = writeln!(s, "\n## Path\n\n```mermaid\n{}```", mermaid);
    s
}

/// How the run ended and under which settings.
fn status_section(s: &mut String, state: &RunState, meta: &ReportMeta) {
    let (status, rule, reason) = ending_parts(state);
    let _ = writeln!(s, "## Status\n");
    let _ = writeln!(s, "- Terminal status: {} `{status}`", status.emoji());
    let _ = writeln!(
        s,
        "- Stop rule: `{}`",
        rule.map(|r| r.as_str()).unwrap_or("none")
    );
    let _ = writeln!(s, "- Stop reason: {}", inert(&reason, INERT_CAP));
    let _ = writeln!(s, "- Verified by: {}", verified_by(state));
    for check in &state.checks {
        let _ = writeln!(s, "- ⚠️ Check before merging: {}", inert(check, INERT_CAP));
    }
    let _ = writeln!(
        s,
        "- Profile: `{}`; model: `{}`; sandbox: `{}`",
        state.profile.as_str(),
        meta.model,
        meta.sandbox
    );
    let _ = writeln!(
        s,
        "- Started: {}; duration: {:.1} s\n",
        meta.started_at.format("%Y-%m-%d %H:%M:%S UTC"),
        meta.duration_ms as f64 / 1000.0
    );
}

/// The instruction files read and the settings the operator decided.
fn settings_sections(s: &mut String, meta: &ReportMeta) {
    if !meta.instruction_files.is_empty() {
        let _ = writeln!(
            s,
            "## Instruction files\n\n{} characters per file at most, {} in all.\n",
            kotef_core::config::MAX_INSTRUCTION_FILE_CHARS,
            kotef_core::config::INSTRUCTION_BUDGET_CHARS
        );
        for u in &meta.instruction_files {
            let how = match u.used {
                0 => "left out: the budget was used up".to_string(),
                n if n < u.chars => format!("cut to {n} of {} characters", u.chars),
                n => format!("{n} characters"),
            };
            let _ = writeln!(s, "- {}: {how}", code(&u.path));
        }
        s.push('\n');
    }
    if !meta.settings_notes.is_empty() {
        let _ = writeln!(s, "## Settings the operator decided\n");
        for n in &meta.settings_notes {
            let _ = writeln!(s, "- {}", inert(n, INERT_CAP));
        }
        s.push('\n');
    }
}

/// The loop counters against their limits.
fn counters_section(s: &mut String, state: &RunState, meta: &ReportMeta) {
    let _ = writeln!(
        s,
        "## Loop counters\n\n| edge | hops since progress | limit |\n|---|---|---|"
    );
    let c = &state.loop_counters;
    let l = &meta.limits;
    let _ = writeln!(
        s,
        "| planner_to_researcher | {} | {} |",
        c.planner_to_researcher, l.edge_limit_researcher
    );
    let _ = writeln!(
        s,
        "| planner_to_coder | {} | {} |",
        c.planner_to_coder, l.edge_limit_coder
    );
    let _ = writeln!(
        s,
        "| planner_to_verifier | {} | {} |\n",
        c.planner_to_verifier, l.edge_limit_verifier
    );
}

/// Each budget, used against allowed.
fn budgets_section(s: &mut String, state: &RunState, meta: &ReportMeta) {
    let l = &meta.limits;
    let _ = writeln!(
        s,
        "## Budgets\n\n| budget | used | allowed |\n|---|---|---|"
    );
    let _ = writeln!(s, "| steps | {} | {} |", state.total_steps, l.max_steps);
    let _ = writeln!(
        s,
        "| tokens (prompt + completion) | {} ({} + {}) | {} |",
        state.tokens_used(),
        state.prompt_tokens,
        state.completion_tokens,
        l.token_budget
    );
    let _ = writeln!(
        s,
        "| time (s) | {:.1} | {} |",
        meta.duration_ms as f64 / 1000.0,
        l.time_budget_s
    );
    let _ = writeln!(
        s,
        "| fix attempts | {} | {} |",
        state.failures.attempts, l.fix_attempts
    );
    let _ = writeln!(
        s,
        "| steps without progress | {} | {} |",
        state.total_steps.saturating_sub(state.last_progress_step),
        l.no_progress_steps
    );
    let _ = writeln!(
        s,
        "| model calls | {} | {} |\n| estimated cost (USD) | {} | {} |\n",
        state.model_calls,
        l.max_model_calls,
        meta.cost_usd
            .map(|c| format!("{c:.4}"))
            .unwrap_or_else(|| "—".into()),
        l.cost_budget_usd
            .map(|c| format!("{c:.4}"))
            .unwrap_or_else(|| "—".into()),
    );
}

/// The steps, then the failing commands.
fn timeline_and_failures(s: &mut String, state: &RunState) {
    let _ = writeln!(
        s,
        "## Timeline\n\n| step | node | decision | reason | progress |\n|---|---|---|---|---|"
    );
    for t in &state.timeline {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            t.step,
            t.node,
            cell(&t.decision.to_string()),
            cell(&t.reason),
            if t.progress { "yes" } else { "no" }
        );
    }

    let _ = writeln!(s, "\n## Failure history\n");
    if state.failures.entries.is_empty() {
        s.push_str("No failing commands.\n");
    } else {
        let _ = writeln!(
            s,
            "Fix attempts: {}\n\n| step | command | exit | kind | summary |\n|---|---|---|---|---|",
            state.failures.attempts
        );
        for f in &state.failures.entries {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                f.step,
                code(&f.command).replace('|', "\\|"),
                f.exit_code
                    .map(|c| c.to_string())
                    .unwrap_or_else(|| "—".into()),
                f.kind.as_str(),
                cell(&f.summary)
            );
        }
    }
}

/// The files the run changed.
fn files_section(s: &mut String, state: &RunState) {
    let _ = writeln!(s, "\n## Files changed\n");
    let changed = state.files_changed();
    if changed.is_empty() {
        s.push_str("None.\n");
    }
    for p in &changed {
        let _ = writeln!(s, "- {}", code(p));
    }
}

/// Each model call, the totals, the tools run and any provider trouble.
fn calls_section(s: &mut String, state: &RunState) {
    let _ = writeln!(
        s,
        "\n## Model calls\n\n| # | step | node | prompt tokens | completion tokens | latency (ms) | attempts | retry wait (ms) |\n|---|---|---|---|---|---|---|---|"
    );
    for (i, c) in state.calls.iter().enumerate() {
        let _ = writeln!(
            s,
            "| {} | {} | {}{} | {} | {} | {} | {} | {} |",
            i + 1,
            c.step,
            c.node,
            if c.failed { " (failed)" } else { "" },
            c.prompt_tokens,
            c.completion_tokens,
            c.latency_ms,
            if c.attempts == 0 {
                "—".to_string()
            } else {
                c.attempts.to_string()
            },
            c.retry_wait_ms
        );
    }
    let _ = writeln!(
        s,
        "\nTotal: {} calls, {} prompt + {} completion tokens.",
        state.model_calls, state.prompt_tokens, state.completion_tokens
    );
    let tools: Vec<String> = state
        .tools_run
        .iter()
        .map(|(name, n)| format!("{} {n}", code(name)))
        .collect();
    let _ = writeln!(
        s,
        "Tools run: {}.",
        if tools.is_empty() {
            "none".to_string()
        } else {
            tools.join(", ")
        }
    );
    if let Some(p) = provider_trouble(&state.calls) {
        let _ = writeln!(s, "\n{p}");
    }
}

/// Which command verified the result, and where it came from.
fn verified_by(state: &RunState) -> String {
    let source = state
        .test_command_source
        .map(|s| format!(" ({})", s.as_str()))
        .unwrap_or_default();
    match &state.test {
        Some(t) => format!(
            "{}{source}, {}",
            code(&t.command),
            if t.passed { "passed" } else { "failed" }
        ),
        None => match &state.test_command {
            Some(c) => format!("nothing ran ({}{source} was never run)", code(c)),
            None => "nothing (no test command configured, detected or named)".into(),
        },
    }
}

/// The provider's retries over the run: attempts, waits and the last error, when any call
/// needed more than one attempt or failed.
fn provider_trouble(calls: &[CallRecord]) -> Option<String> {
    let retried: Vec<&CallRecord> = calls
        .iter()
        .filter(|c| c.attempts > 1 || c.last_error.is_some())
        .collect();
    if retried.is_empty() {
        return None;
    }
    let attempts: u32 = retried.iter().map(|c| c.attempts).sum();
    let wait_ms: u64 = retried.iter().map(|c| c.retry_wait_ms).sum();
    let last = retried
        .iter()
        .rev()
        .find_map(|c| c.last_error.as_deref())
        .unwrap_or("—");
    Some(format!(
        "Provider retries: {} call(s) needed retries or failed ({attempts} attempts, {:.1} s waited); last provider error: {}",
        retried.len(),
        wait_ms as f64 / 1000.0,
        cell(last)
    ))
}

/// Untrusted text (a model's reason, a command's output) as an inert table cell.
fn cell(text: &str) -> String {
    inert(text, 200)
}

/// Renders the JSON twin (pure).
pub fn render_json(
    state: &RunState,
    meta: &ReportMeta,
    mermaid: &str,
    report_path: &Path,
    issues_md_path: &Path,
) -> serde_json::Value {
    let json = ReportJson {
        summary: summary(state, report_path, issues_md_path),
        run_id: Cow::Borrowed(&meta.run_id.0),
        goal: Cow::Borrowed(&state.goal),
        profile: Cow::Borrowed(state.profile.as_str()),
        model: Cow::Borrowed(&meta.model),
        started_at: meta.started_at.to_rfc3339(),
        duration_ms: meta.duration_ms,
        cost_usd: meta.cost_usd,
        limits: meta.limits,
        timeline: Cow::Borrowed(&state.timeline),
        calls: Cow::Borrowed(&state.calls),
        tools_run: Cow::Borrowed(&state.tools_run),
        failure_history: Cow::Borrowed(&state.failures),
        files_changed: state.files_changed(),
        mermaid: mermaid.to_string(),
        settings_notes: Cow::Borrowed(&meta.settings_notes),
        instruction_files: Cow::Borrowed(&meta.instruction_files),
    };
    serde_json::to_value(json).unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }))
}

/// Paths of a written report.
#[derive(Debug, Clone)]
pub struct WrittenReport {
    pub markdown: PathBuf,
    pub json: PathBuf,
    pub issues_md: PathBuf,
}

/// Writes both report files under `<root>/.sdd/runs/`, through the tree: a link or special
/// file the run left at `.sdd`, `.sdd/runs` or the report's name is replaced, never followed.
pub fn write(
    tree: &Tree,
    state: &RunState,
    meta: &ReportMeta,
    redact: &dyn Fn(&str) -> String,
) -> std::io::Result<WrittenReport> {
    let root = tree.root();
    let stem = report_stem(meta);
    let md_rel = format!("{}/{stem}.md", super::RUNS_DIR);
    let json_rel = format!("{}/{stem}.json", super::RUNS_DIR);
    let markdown = root.join(&md_rel);
    let json = root.join(&json_rel);
    let issues_md = root.join(super::ISSUES_MD);
    let mermaid = super::mermaid::render(&state.path_edges);
    let text = redact(&render_markdown(state, meta, &mermaid));
    tree.write(&md_rel, text.as_bytes(), Links::Replace)
        .map_err(std::io::Error::other)?;
    let value = render_json(state, meta, &mermaid, &markdown, &issues_md);
    let text = serde_json::to_string_pretty(&value).map_err(std::io::Error::other)?;
    tree.write(&json_rel, redact(&text).as_bytes(), Links::Replace)
        .map_err(std::io::Error::other)?;
    Ok(WrittenReport {
        markdown,
        json,
        issues_md,
    })
}
