//! The coder as a generate-and-validate repair loop, for models that write code badly inside
//! JSON (a small model on a self-hosted server; see `GraphContext::edit_blocks`). While the
//! tests fail, each attempt is one short model call — the task, the files, the failing output,
//! and the attempts that did not work with their diffs — answered with fenced edit blocks
//! ([`kotef_tools::blocks`]), never code inside a JSON string. Every attempt is applied to the
//! same starting text and judged by the test command; a failed one is undone and goes back
//! to the model, in a list after the unchanged opening (so the server's prompt cache reuses
//! all but the newest entry), with what it changed and what still fails, at a higher
//! temperature, so the next one differs; after the same change twice the next attempt is a
//! fresh sample of the opening alone. Python code is shown without its docstrings (each
//! given above it by name) and a function written without one gets it back, so a reply is a
//! third as long. The best candidate (fewest failing tests) is kept and left in the work
//! tree when the step ends; the verifier then judges it as it judges the tool loop's work.
//!
//! The step ends, with the coder's named endings, when an attempt passes (`Done`), at the
//! step's call cap (`CallCap`), after replies with no usable block (`NoToolCalls`) or the
//! same change proposed again and again (`RepeatedCall`); the run's stop rules and budgets
//! apply to every call as everywhere else.

use super::context::{self, clip};
use super::llm::{self, CallFailure};
use super::state::{CoderEnd, Decision, RunState};
use super::{GraphContext, StepResult};
use kotef_core::NodeName;
use kotef_model::{Message, ModelRequest};
use kotef_tools::{
    apply_edit_blocks, parse_edit_blocks_ignoring, Change, CommandResult, CommandRunner, EditBlock,
    Kind, Links, RunnerConfig,
};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The repair loop's system prompt.
pub const REPAIR_PROMPT: &str = include_str!("../../prompts/repair.md");

/// Completion tokens one attempt may use: a fix of a few lines needs far fewer, and a reply
/// that runs away (a small model repeating one line) is cut here rather than at the run's cap.
pub const REPAIR_MAX_TOKENS: u32 = 600;

/// Files shown to the model, and the characters of each.
pub const REPAIR_FILES: usize = 4;
pub const REPAIR_FILE_CHARS: usize = 6000;

/// Characters of the failing output shown.
pub const FAILURE_CHARS: usize = 1800;

/// Characters of the list of failed attempts (the oldest are dropped to bound the prompt).
pub const TRIED_CHARS: usize = 3000;

/// Characters of one failed attempt's failure in that list.
pub const TRIED_FAILURE_CHARS: usize = 300;

/// Replies in a row with no block that could be read before the step ends.
pub const UNREADABLE_LIMIT: u32 = 3;

/// The same change proposed this many times ends the step.
pub const SAME_CHANGE_LIMIT: u32 = 3;

/// Whether the coder works as the repair loop now: the tests ran and fail as tests do, for a
/// cause inside the repository. A command that cannot run, or a failure that needs something
/// outside the repository (a host, a file elsewhere), goes to the tool loop, whose `done` may
/// say so.
pub fn applies(state: &RunState) -> bool {
    state.test_command.is_some()
        && state.test.as_ref().is_some_and(|t| {
            !t.passed
                && t.outside_cause.is_none()
                && t.kind != Some(kotef_tools::FailureKind::ToolingError)
        })
}

/// The sampling temperature of attempt `n` (0-based): the configured one first, then hotter,
/// so a repeated failure is not sampled again.
pub fn temperature(n: u32) -> Option<f64> {
    match n {
        0 => None,
        n => Some(f64::from((5 + 2 * n).min(10)) / 10.0),
    }
}

/// How bad a test run is, to keep the best candidate: 0 passed, else the failing tests its
/// output reports, `u32::MAX` for code that does not load or output that says neither.
pub fn badness(r: &CommandResult) -> u32 {
    if r.success() {
        return 0;
    }
    let out = format!("{}\n{}", r.stdout, r.stderr);
    let tail: Vec<&str> = out.lines().rev().take(6).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    let head: String = out.chars().take(4000).collect();
    if kotef_tools::failure_severity(&head) == Some(u32::MAX) {
        return u32::MAX;
    }
    kotef_tools::failure_severity(&tail.join("\n"))
        .filter(|n| *n > 0)
        .unwrap_or(u32::MAX - 1)
}

/// The part of a failing run the model reads: the start of the output (where unittest,
/// pytest and cargo print the first failure) and its last lines (the counts), compacted
/// by [`compact_output`].
pub fn failure_text(r: &CommandResult, root: &Path) -> String {
    let out = compact_output(&format!("{}{}", r.stdout, r.stderr), root);
    let out = out.trim();
    if r.timed_out {
        return format!(
            "(timed out)\n{}",
            clip(out, FAILURE_CHARS.saturating_sub(20))
        );
    }
    clip(out, FAILURE_CHARS)
}

/// Test output with what costs prompt tokens and tells the model nothing left out: the work
/// tree's own path before file names (`File "/tmp/x/run/test_a.py"` reads `File "test_a.py"`),
/// rule lines (`=====`, `-----`) and the `Traceback (most recent call last):` headers.
pub fn compact_output(out: &str, root: &Path) -> String {
    let prefix = format!("{}/", root.display().to_string().trim_end_matches('/'));
    out.lines()
        .filter(|l| {
            let t = l.trim();
            let rule = t.len() >= 8 && t.chars().all(|c| matches!(c, '=' | '-' | '_' | '*' | '~'));
            !rule && t != "Traceback (most recent call last):"
        })
        .map(|l| l.replace(&prefix, ""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A short line diff of one file (`-` old, `+` new), the unchanged lines around the change
/// left out; empty when the texts are equal.
pub fn line_diff(path: &str, before: &str, after: &str) -> String {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    if head == a.len() && head == b.len() {
        return String::new();
    }
    let mut out = format!("--- {path}\n");
    for l in &a[head..a.len() - tail] {
        out.push_str(&format!("-{l}\n"));
    }
    for l in &b[head..b.len() - tail] {
        out.push_str(&format!("+{l}\n"));
    }
    out
}

/// The first user message: the stable part of every attempt's prompt (task, files, test
/// command and the starting failure), so a server's prompt cache reuses it.
pub fn opening_message(
    goal: &str,
    task: &str,
    files: &[(String, String)],
    protected: &[String],
    command: &str,
    failure: &str,
) -> String {
    let mut out = format!("# Goal\n{goal}\n");
    if task.trim() != goal.trim() {
        out.push_str(&format!("\n# Task\n{task}\n"));
    }
    out.push_str("\n# Files\n");
    for (path, text) in files {
        let role = if protected.contains(path) {
            " (a test: do not change it)"
        } else {
            ""
        };
        // Python code is shown without its docstrings, each given above it by name: the
        // model copies less when it writes the corrected function, and the docstring is
        // put back when the function is replaced.
        let (code, docs) = if path.ends_with(".py") && !protected.contains(path) {
            kotef_tools::split_docstrings(text)
        } else {
            (text.clone(), Vec::new())
        };
        for (name, doc) in &docs {
            out.push_str(&format!(
                "\nWhat `{name}` must do (its docstring, left out of the code below):\n{}\n",
                clip(doc.trim_end(), REPAIR_FILE_CHARS / 2)
            ));
        }
        out.push_str(&format!(
            "\n{path}{role}\n```\n{}\n```\n",
            clip(code.trim_end(), REPAIR_FILE_CHARS)
        ));
    }
    out.push_str(&format!(
        "\n# How the tests fail now: `{command}`\n```\n{failure}\n```\n\nSay which line is wrong, then write the corrected function."
    ));
    out
}

/// What one attempt came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// No block could be read from the reply.
    Unreadable,
    /// Blocks were read but none could be placed; the errors say why.
    NotApplied(Vec<String>),
    /// Applied and tested.
    Tested {
        diff: String,
        badness: u32,
        failure: String,
        errors: Vec<String>,
    },
}

/// The entry that tells the model how its attempt `n` (1-based) went.
pub fn feedback(n: u32, outcome: &Outcome, baseline: u32) -> String {
    match outcome {
        Outcome::Unreadable => format!(
            "Attempt {n}: the reply held no code, so nothing changed (write the file's path on its own line, then the whole corrected function in a fenced code block)."
        ),
        Outcome::NotApplied(errors) => format!(
            "Attempt {n}: the change could not be applied, so nothing changed:\n{}",
            errors.iter().map(|e| format!("- {e}")).collect::<Vec<_>>().join("\n")
        ),
        Outcome::Tested {
            diff,
            badness,
            failure,
            errors,
        } => {
            let verdict = match (*badness, baseline) {
                (b, base) if b < base && b != u32::MAX - 1 => {
                    "It fixed some of the failures but not all".to_string()
                }
                (b, base) if b > base => "It made the tests worse".to_string(),
                _ => "This change did not fix it".to_string(),
            };
            let skipped = if errors.is_empty() {
                String::new()
            } else {
                format!(
                    " (and some blocks could not be applied: {})",
                    clip(&errors.join("; "), 300)
                )
            };
            format!(
                "Attempt {n}: {verdict}: {}{skipped}. It was undone. The tests then: {}",
                change_summary(diff),
                first_failure(failure)
            )
        }
    }
}

/// A file tool's error in the words of edit blocks.
pub fn block_error(message: &str) -> String {
    message
        .replace("bad arguments for `edit_file`: ", "")
        .replace("`old` and `new`", "SEARCH and REPLACE")
        .replace(
            "put the corrected text in `new`",
            "put the corrected lines in REPLACE",
        )
        .replace("`old`", "the SEARCH text")
        .replace(
            "read the file and copy the exact text",
            "copy the exact lines from the file",
        )
}

/// The change a reply's blocks make, as a key: the same blocks twice are the same attempt.
fn change_key(blocks: &[EditBlock]) -> String {
    blocks
        .iter()
        .map(|b| match &b.change {
            Change::Replace { search, replace } => {
                format!("{:?}\u{0}{}\u{0}{}", b.path, search.trim(), replace.trim())
            }
            Change::Code { text } => format!("{:?}\u{0}{}", b.path, text.trim()),
        })
        .collect::<Vec<_>>()
        .join("\u{1}")
}

/// A diff in one line: `` `old` to `new` `` (lines joined by ` / `), so the list of tried
/// changes holds no code block a small model would copy back as its answer.
pub fn change_summary(diff: &str) -> String {
    let side = |mark: char| {
        let lines: Vec<&str> = diff
            .lines()
            .filter(|l| l.starts_with(mark) && !l.starts_with("---") && !l.starts_with("+++"))
            .map(|l| l[1..].trim())
            .filter(|l| !l.is_empty())
            .collect();
        clip(&lines.join(" / "), 240)
    };
    let (old, new) = (side('-'), side('+'));
    match (old.is_empty(), new.is_empty()) {
        (true, _) => format!("it added `{new}`"),
        (_, true) => format!("it removed `{old}`"),
        _ => format!("it changed `{old}` to `{new}`"),
    }
}

/// The first failure of a test run in one line: the failing assertion or call, and the
/// error it raised (`self.assertEqual(f(1), 2) → AssertionError: 1 != 2`); else the output's
/// first lines.
pub fn first_failure(failure: &str) -> String {
    let lines: Vec<&str> = failure.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let error = lines.iter().position(|l| {
        let head = l.split(':').next().unwrap_or_default();
        l.contains(':')
            && !head.contains(' ')
            && (head.ends_with("Error") || head.ends_with("Exception") || head == "error")
    });
    let text = match error {
        Some(i) if i > 0 && !lines[i - 1].starts_with("File ") => {
            format!("{} → {}", lines[i - 1], lines[i])
        }
        Some(i) => lines[i].to_string(),
        None => lines.iter().take(3).copied().collect::<Vec<_>>().join(" / "),
    };
    clip(&text, TRIED_FAILURE_CHARS)
}

/// The message after the opening that lists the attempts that did not work (the latest
/// last), newest kept within [`TRIED_CHARS`]. Entries are only ever added at its end, so the
/// server's prompt cache reuses all of the previous attempt's prompt but its last line.
pub fn tried_message(entries: &[String]) -> String {
    let mut kept: Vec<&String> = Vec::new();
    let mut size = 0;
    for e in entries.iter().rev() {
        if !kept.is_empty() && size + e.len() > TRIED_CHARS {
            break;
        }
        size += e.len();
        kept.push(e);
    }
    kept.reverse();
    let list: Vec<&str> = kept.iter().map(|e| e.as_str()).collect();
    format!(
        "These changes were tried and did not fix it; each was undone, so the files are as shown above.\n\n{}\n\nWrite a different fix: say which line is wrong, then write the corrected function.",
        list.join("\n\n")
    )
}

/// The edit blocks of a reply; a model that still wrote `edit_file`/`write_file` calls (as
/// JSON text, or as native tool calls although none were offered) gets them read as blocks.
fn reply_blocks(reply: &kotef_model::ModelReply) -> Vec<EditBlock> {
    let blocks = blocks_of(&reply.content);
    if !blocks.is_empty() {
        return blocks;
    }
    reply.tool_calls.iter().filter_map(call_block).collect()
}

fn call_block(c: &kotef_model::ToolCall) -> Option<EditBlock> {
    let arg = |k: &str| {
        c.arguments
            .get(k)
            .and_then(|v| v.as_str())
            .map(String::from)
    };
    let change = match c.name.as_str() {
        "edit_file" => Change::Replace {
            search: arg("old")?,
            replace: arg("new")?,
        },
        "write_file" => Change::Code {
            text: arg("content")?,
        },
        _ => return None,
    };
    Some(EditBlock {
        path: arg("path"),
        change,
    })
}

/// The edit blocks of a reply's text; `edit_file`/`write_file` calls written as JSON text are
/// read as blocks.
fn blocks_of(content: &str) -> Vec<EditBlock> {
    // The prompt's own words, which a small model copies into its blocks.
    let template: Vec<&str> = REPAIR_PROMPT
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('-') && !l.contains("====="))
        .filter(|l| !l.contains("<<<<<<<") && !l.contains(">>>>>>>"))
        .collect();
    let blocks = parse_edit_blocks_ignoring(content, &template);
    if !blocks.is_empty() {
        return blocks;
    }
    kotef_model::parse_text_tool_calls(content, &["edit_file", "write_file"])
        .iter()
        .filter_map(call_block)
        .collect()
}

/// Files as they were before an attempt, to undo it: text, or `None` for a file it created.
type Snapshot = BTreeMap<String, Option<Vec<u8>>>;

fn read_now(ctx: &GraphContext, path: &str) -> Option<Option<Vec<u8>>> {
    let tree = ctx.tools.workdir().tree();
    match tree.kind(path) {
        Ok(Kind::Missing) => Some(None),
        Ok(Kind::File { .. }) => tree
            .read(path, kotef_tools::file_tools::WRITE_LIMIT_BYTES as u64)
            .ok()
            .filter(|c| !c.truncated)
            .map(|c| Some(c.bytes)),
        _ => None,
    }
}

/// Puts the files of `snap` back as they were (through the tree: a link the test run planted
/// is replaced, not followed).
fn restore(ctx: &GraphContext, snap: &Snapshot) {
    let tree = ctx.tools.workdir().tree();
    for (path, before) in snap {
        let done = match before {
            Some(bytes) => tree.write(path, bytes, Links::Replace),
            None => tree.remove_file(path),
        };
        if let Err(e) = done {
            tracing::warn!(path = %path, error = %e, "could not undo a repair attempt");
        }
    }
}

async fn run_tests(ctx: &GraphContext, state: &RunState, command: &str) -> CommandResult {
    let runner = CommandRunner::new(RunnerConfig {
        timeout: Duration::from_secs(ctx.limits.command_timeout_s)
            .min(ctx.time_left().max(Duration::from_secs(1))),
        sandbox: ctx.sandbox,
        hidden_paths: ctx.hidden_paths.clone(),
        read_only_paths: ctx.read_only_paths.clone(),
        ..RunnerConfig::default()
    });
    let r = runner.run(command, ctx.tools.workdir().root()).await;
    ctx.record(super::events::RunEvent::Verification {
        step: state.total_steps + 1,
        command: r.command.clone(),
        passed: r.success(),
        exit_code: r.exit_code,
        timed_out: r.timed_out,
        output: super::events::clip_output(&format!("{}{}", r.stdout, r.stderr)),
    });
    r
}

/// The best candidate so far: the files it wrote (their text after it) and how bad it was.
struct Best {
    badness: u32,
    files: BTreeMap<String, Vec<u8>>,
    diff: String,
}

pub async fn step(ctx: &GraphContext, state: &mut RunState, task: &str) -> StepResult {
    let root = ctx.tools.workdir().root().to_path_buf();
    let before = state.file_hashes.clone();
    state.undo.clear();
    let Some(command) = state.test_command.clone() else {
        return StepResult::to(
            NodeName::Verifier,
            Decision::Code(CoderEnd::RunStopped),
            "no test command to repair against".into(),
            false,
        );
    };
    let protected = context::protected_tests(Some(&command), &state.goal, state.file_hashes.keys());
    // The code only: the failing output quotes the assertions, and a small model shown a
    // test copies it back as its "fix".
    let files: Vec<(String, String)> =
        super::coder::task_files(ctx, state, task, REPAIR_FILES + protected.len())
            .into_iter()
            .filter(|(p, _)| !protected.contains(p))
            .take(REPAIR_FILES)
            .collect();
    for (p, _) in &files {
        ctx.tools.mark_read(p);
    }
    // The starting failure, measured here so every attempt is compared with the same run.
    let start = run_tests(ctx, state, &command).await;
    if let Some(why) = start.limit_message() {
        let f = super::rules::resource_limit(&start.command, &why);
        state.stop(f.rule, f.reason);
        return StepResult::stopped(state, false);
    }
    if start.success() {
        return StepResult::to(
            NodeName::Verifier,
            Decision::Code(CoderEnd::Done),
            "the tests pass already; nothing to repair".into(),
            false,
        );
    }
    let baseline = badness(&start);
    let opening = opening_message(
        &state.goal,
        task,
        &files,
        &protected,
        &command,
        &failure_text(&start, &root),
    );
    let mut history: Vec<String> = Vec::new();
    let mut best: Option<Best> = None;
    let mut seen: BTreeMap<String, u32> = BTreeMap::new();
    let mut unreadable = 0u32;
    let mut attempts = 0u32;
    // How hot the next attempt samples: it rises with every attempt, and jumps after a reply
    // that repeats an earlier change or changes nothing (a peaked small model at a low
    // temperature sends the same reply again).
    let mut heat = 0u32;
    let mut fresh = false;
    let mut notes: Vec<String> = Vec::new();

    let end = loop {
        if super::rules::coder_step_cap_reached(attempts, &ctx.limits) {
            break CoderEnd::CallCap;
        }
        let mut messages = vec![Message::system(REPAIR_PROMPT), Message::user(&opening)];
        // After a repeated change the next attempt is a fresh, hot sample of the opening
        // alone: a small model shown what it tried tends to write it again.
        if !std::mem::take(&mut fresh) && !history.is_empty() {
            messages.push(Message::user(tried_message(&history)));
        }
        let request = ModelRequest {
            node: NodeName::Coder.as_str().into(),
            messages,
            tools: Vec::new(),
            json_reply: false,
            temperature: temperature(heat),
            max_tokens: Some(REPAIR_MAX_TOKENS),
        };
        attempts += 1;
        heat += 1;
        let reply = match llm::call(ctx, state, NodeName::Coder, request).await {
            Err(CallFailure::Stopped) => {
                break CoderEnd::RunStopped;
            }
            Err(CallFailure::Failed(_)) => continue,
            Ok(reply) => reply,
        };
        let blocks = reply_blocks(&reply);
        if blocks.is_empty() {
            unreadable += 1;
            notes.push(format!("attempt {attempts}: no edit block"));
            history.push(feedback(attempts, &Outcome::Unreadable, baseline));
            if unreadable >= UNREADABLE_LIMIT {
                break CoderEnd::NoToolCalls;
            }
            continue;
        }
        unreadable = 0;
        let key = change_key(&blocks);
        let times = seen.entry(key).or_insert(0);
        *times += 1;
        if *times >= SAME_CHANGE_LIMIT {
            notes.push(format!(
                "attempt {attempts}: the same change {SAME_CHANGE_LIMIT} times"
            ));
            break CoderEnd::RepeatedCall;
        }
        if *times > 1 {
            // The earlier attempt's feedback is in the conversation already; a copy of the
            // same reply would only make the next one likelier to copy it again. The next
            // attempt samples the opening alone, hotter (a prefix the server has cached).
            notes.push(format!("attempt {attempts}: a repeated change"));
            heat = heat.max(4);
            fresh = true;
            continue;
        }
        // Remember each file before the attempt touches it, to undo it.
        let mut snap: Snapshot = BTreeMap::new();
        let known: Vec<(String, String)> = files.clone();
        for b in &blocks {
            for (p, _) in &known {
                if let Some(prev) = read_now(ctx, p) {
                    snap.entry(p.clone()).or_insert(prev);
                }
            }
            if let Some(p) = &b.path {
                if let Some(prev) = read_now(ctx, p) {
                    snap.entry(p.clone()).or_insert(prev);
                }
            }
        }
        let applied = apply_edit_blocks(ctx.tools.workdir(), &blocks, &known, &protected);
        let mut errors = Vec::new();
        let mut written = Vec::new();
        for a in &applied {
            match &a.result {
                Ok(w) => written.push(w.path.clone()),
                Err(e) => errors.push(block_error(&e.to_string())),
            }
        }
        for w in &written {
            if !snap.contains_key(w) {
                snap.insert(w.clone(), None);
            }
        }
        ctx.record(super::events::RunEvent::ToolCall {
            step: state.total_steps + 1,
            node: NodeName::Coder.as_str().to_string(),
            name: "edit_blocks".into(),
            arguments: serde_json::json!({ "blocks": blocks.len(), "applied": written }),
            output: errors.join("\n"),
            is_error: written.is_empty(),
        });
        state.count_tool("edit_blocks");
        let diff: String = snap
            .iter()
            .filter_map(|(p, prev)| {
                let now = read_now(ctx, p).flatten().unwrap_or_default();
                let prev = prev.clone().unwrap_or_default();
                let d = line_diff(
                    p,
                    &String::from_utf8_lossy(&prev),
                    &String::from_utf8_lossy(&now),
                );
                (!d.is_empty()).then_some(d)
            })
            .collect();
        if diff.is_empty() {
            notes.push(format!("attempt {attempts}: not applied"));
            heat = heat.max(3);
            let outcome = if errors.is_empty() {
                Outcome::NotApplied(vec![
                    "the code you wrote is the same as the file's: it changes nothing, so the bug is still there"
                        .into(),
                ])
            } else {
                Outcome::NotApplied(errors)
            };
            history.push(feedback(attempts, &outcome, baseline));
            restore(ctx, &snap);
            continue;
        }
        let result = run_tests(ctx, state, &command).await;
        if let Some(why) = result.limit_message() {
            restore(ctx, &snap);
            let f = super::rules::resource_limit(&result.command, &why);
            state.stop(f.rule, f.reason);
            break CoderEnd::RunStopped;
        }
        let bad = badness(&result);
        notes.push(format!(
            "attempt {attempts}: {}",
            if bad == 0 {
                "the tests pass".to_string()
            } else {
                format!(
                    "still failing ({})",
                    context::key_line(&failure_text(&result, &root))
                )
            }
        ));
        if bad == 0 {
            state.coder_summary = Some(context::clip(reply.content.trim(), 400));
            best = None;
            break CoderEnd::Done;
        }
        if bad < baseline && best.as_ref().is_none_or(|b| bad < b.badness) {
            let files_after = snap
                .keys()
                .filter_map(|p| Some((p.clone(), read_now(ctx, p)??)))
                .collect();
            best = Some(Best {
                badness: bad,
                files: files_after,
                diff: diff.clone(),
            });
        }
        restore(ctx, &snap);
        let outcome = Outcome::Tested {
            diff,
            badness: bad,
            failure: failure_text(&result, &root),
            errors,
        };
        history.push(feedback(attempts, &outcome, baseline));
        if state.ending.is_some() {
            break CoderEnd::RunStopped;
        }
    };
    // The best candidate stands when no attempt passed (a passing one is in the tree).
    if let Some(b) = &best {
        let tree = ctx.tools.workdir().tree();
        for (p, bytes) in &b.files {
            if let Err(e) = tree.write(p, bytes, Links::Replace) {
                tracing::warn!(path = %p, error = %e, "could not keep the best repair attempt");
            }
        }
        notes.push(format!(
            "kept the best attempt ({} failing, from {baseline})",
            b.badness
        ));
        tracing::debug!(diff = %b.diff, "kept the best repair attempt");
    }
    let after = super::workspace_hashes(&root);
    let changed = super::rules::files_progress(&before, &after);
    state.file_hashes = after;
    if state.ending.is_some() {
        return StepResult::stopped(state, changed);
    }
    let what = if changed {
        "changed the code"
    } else {
        "no net change"
    };
    let reason = format!(
        "repair loop: {attempts} attempt(s), {what}; {}",
        notes
            .iter()
            .rev()
            .take(4)
            .rev()
            .cloned()
            .collect::<Vec<_>>()
            .join("; ")
    );
    StepResult::to(NodeName::Verifier, Decision::Code(end), reason, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(code: i32, stdout: &str, stderr: &str) -> CommandResult {
        CommandResult {
            command: "python3 -m unittest".into(),
            exit_code: Some(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
            timed_out: false,
            truncated: false,
            duration_ms: 1,
            spawn_error: None,
            limit: None,
        }
    }

    #[test]
    fn a_passing_run_is_best_and_counts_order_the_rest() {
        let two = result(
            1,
            "",
            "FAIL: test_a\n...\nRan 5 tests\n\nFAILED (failures=2)\n",
        );
        let one = result(1, "", "Ran 5 tests\n\nFAILED (failures=1)\n");
        let broken = result(1, "", "SyntaxError: invalid syntax\n");
        assert_eq!(
            [badness(&result(0, "ok", "")), badness(&one), badness(&two)],
            [0, 1, 2]
        );
        assert_eq!(badness(&broken), u32::MAX);
    }

    #[test]
    fn test_output_is_shown_without_rules_traceback_headers_or_the_work_trees_path() {
        let out = "======================================================================\nFAIL: test_2 (test_a.T.test_2)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"/tmp/w/run/test_a.py\", line 12, in test_2\n    self.assertEqual(f(1), 2)\nAssertionError: 1 != 2\n";
        assert_eq!(
            compact_output(out, Path::new("/tmp/w/run")),
            "FAIL: test_2 (test_a.T.test_2)\n  File \"test_a.py\", line 12, in test_2\n    self.assertEqual(f(1), 2)\nAssertionError: 1 != 2"
        );
    }

    #[test]
    fn attempts_after_the_first_sample_hotter() {
        assert_eq!(
            (0..5).map(temperature).collect::<Vec<_>>(),
            [None, Some(0.7), Some(0.9), Some(1.0), Some(1.0)]
        );
    }

    #[test]
    fn a_diff_shows_only_the_changed_lines() {
        assert_eq!(
            line_diff(
                "gcd.py",
                "def gcd(a, b):\n    return b\n\nx = 1\n",
                "def gcd(a, b):\n    return a\n\nx = 1\n"
            ),
            "--- gcd.py\n-    return b\n+    return a\n"
        );
        assert_eq!(line_diff("a", "same\n", "same\n"), "");
    }

    #[test]
    fn the_feedback_on_a_failed_attempt_quotes_its_diff_and_the_failure() {
        let outcome = Outcome::Tested {
            diff: "--- gcd.py\n-    return b\n+    return a\n".into(),
            badness: 2,
            failure: "FAILED (failures=2)".into(),
            errors: vec![],
        };
        assert_eq!(
            feedback(1, &outcome, 2),
            "Attempt 1: This change did not fix it: it changed `return b` to `return a`. It was undone. The tests then: FAILED (failures=2)"
        );
    }

    #[test]
    fn the_first_failure_is_the_assertion_and_its_error() {
        let out = "FAIL: test_2 (t.T.test_2)\n  File \"t.py\", line 12, in test_2\n    self.assertEqual(f(1), 2)\nAssertionError: 1 != 2\nFAIL: test_3 (t.T.test_3)\n";
        assert_eq!(
            first_failure(out),
            "self.assertEqual(f(1), 2) → AssertionError: 1 != 2"
        );
        assert_eq!(
            first_failure("error[E0308]: mismatched types\n --> src/lib.rs:3:5\n"),
            "error[E0308]: mismatched types / --> src/lib.rs:3:5"
        );
    }

    #[test]
    fn json_edit_calls_written_as_text_are_read_as_blocks() {
        let blocks = blocks_of(
            r#"{"name": "edit_file", "arguments": {"path": "a.py", "old": "x = 1", "new": "x = 2"}}"#,
        );
        assert_eq!(
            blocks,
            vec![EditBlock {
                path: Some("a.py".into()),
                change: Change::Replace {
                    search: "x = 1".into(),
                    replace: "x = 2".into()
                }
            }]
        );
    }

    #[test]
    fn python_code_is_shown_with_its_docstrings_above_it_by_name() {
        let text = opening_message(
            "Fix f",
            "Fix f",
            &[(
                "f.py".into(),
                "def f(a):\n    \"\"\"Add one.\"\"\"\n    return a\n".into(),
            )],
            &[],
            "python3 -m unittest",
            "FAILED (failures=1)",
        );
        assert!(
            text.contains(
                "What `f` must do (its docstring, left out of the code below):\n\"\"\"Add one.\"\"\"\n\nf.py\n```\ndef f(a):\n    return a\n```"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_opening_message_marks_the_tests_and_ends_with_the_failure() {
        let text = opening_message(
            "Fix gcd",
            "Fix gcd",
            &[
                ("gcd.py".into(), "def gcd(a, b):\n    return b\n".into()),
                ("test_gcd.py".into(), "import unittest\n".into()),
            ],
            &["test_gcd.py".into()],
            "python3 -m unittest",
            "FAILED (failures=1)",
        );
        assert!(
            text.contains("test_gcd.py (a test: do not change it)")
                && !text.contains("# Task")
                && text.ends_with("Say which line is wrong, then write the corrected function."),
            "{text}"
        );
    }
}
