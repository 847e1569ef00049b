//! The coder as a generate-and-validate repair loop, for models that write code badly inside
//! JSON (a server that writes tool calls as text; see `GraphContext::edit_format`). While the
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
//! A change that moved the failure on (the code now runs through to the test's own check) is a
//! stepping stone the changes tried after it are tested on as well ([`stones`]): a fix of two
//! statements, each of which fails alone.
//!
//! The failure comes first: the files the failing run's traceback points into are shown (deepest
//! frame first; installed code named as outside), a long file as its outline and the functions the
//! failure points at ([`crate::graph::prompt::code_view`]); a traceback through the tests only
//! starts where the failing test's names are defined and used ([`spec::test_names`]); when
//! attempts keep failing in one file, the loop moves to where the failure's names are defined
//! and used ([`locate`]).
//!
//! The step ends, with the coder's named endings, when an attempt passes (`Done`), at the
//! step's call cap (`CallCap`), after replies with no usable block (`NoToolCalls`) or the
//! same change proposed again and again (`RepeatedCall`); the run's stop rules and budgets
//! apply to every call as everywhere else.

use crate::graph::guards::{
    self,
    commands::{CommandEvent, CommandFacts},
};
use crate::graph::memory::state::{CoderEnd, Decision, RunState};
use crate::graph::nodes::llm::{self, CallFailure};
use crate::graph::prompt::context;
use crate::graph::{GraphContext, StepResult};
use kotef_core::NodeName;
use kotef_model::{Message, ModelRequest};
use kotef_tools::{apply_edit_blocks, Change, CommandResult, EditBlock, Kind, Links};
use std::collections::BTreeMap;

mod attempts;
mod bindings;
mod conditions;
pub mod feedback;
mod fitted;
mod lines;
pub mod locate;
mod names;
mod near;
mod passes;
mod patterns;
mod placed;
mod recall;
mod replies;
pub mod room;
mod shown;
mod spec;
mod spectrum;
mod start;
mod stones;
mod targets;
mod templates;
#[cfg(test)]
mod templates_tests;
mod typed;
use crate::graph::guards::contradicting_tests::IN_REPAIR;
use crate::graph::rules::contradiction::TestSet;
use attempts::{Attempts, Seen};
use feedback::{badness, failure_text, line_diff, Opening, Outcome};
use replies::{attempt_change, next_attempt};
use shown::Shown;
use start::Start;
use stones::Stones;

/// The repair loop's system prompt.
pub const REPAIR_PROMPT: &str = include_str!("../../../../prompts/repair.md");

/// Completion tokens one attempt may use: a fix of a few lines needs far fewer, and a reply
/// that runs away (a small model repeating one line) is cut here rather than at the run's cap.
pub const REPAIR_MAX_TOKENS: u32 = 600;

/// The reply cap of a line attempt ([`lines`]): the new statement, a few lines at most.
pub const LINE_MAX_TOKENS: u32 = 160;

/// Files shown to the model, and the characters of each.
pub const REPAIR_FILES: usize = 4;
pub const REPAIR_FILE_CHARS: usize = 6000;

/// Replies in a row with no block that could be read before the step ends.
pub const UNREADABLE_LIMIT: u32 = 3;

/// The same change proposed this many times ends the step.
pub const SAME_CHANGE_LIMIT: u32 = 3;

/// Whether the coder works as the repair loop now: the tests ran and fail as tests do, or
/// never finish (code that loops forever), for a cause inside the repository. A command that
/// cannot run, or a failure that needs something outside the repository (a host, a file
/// elsewhere), goes to the tool loop, whose `done` may say so.
pub fn applies(state: &RunState) -> bool {
    state.test_command.is_some()
        && state.test.as_ref().is_some_and(|t| {
            !t.passed
                && t.outside_cause.is_none()
                && (t.kind != Some(kotef_tools::FailureKind::ToolingError) || t.timed_out)
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

/// The request of one attempt: a short reply of fenced code at the attempt's temperature.
fn attempt_request(messages: Vec<Message>, heat: u32) -> ModelRequest {
    ModelRequest {
        node: NodeName::Coder,
        messages,
        tools: Vec::new(),
        json_reply: false,
        temperature: temperature(heat),
        max_tokens: Some(REPAIR_MAX_TOKENS),
        code_reply: true,
        alternatives: None,
    }
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

/// What applying one attempt's blocks did: the files as they were (to undo it), the line diff
/// it made, and why blocks that could not be placed were refused.
struct Applied {
    snap: Snapshot,
    diff: String,
    errors: Vec<String>,
}

/// Applies `blocks` to the work tree (each file remembered first, to undo it) and records the
/// `edit_blocks` tool call.
fn apply_attempt(
    ctx: &GraphContext,
    state: &mut RunState,
    blocks: &[EditBlock],
    known: &[(String, String)],
    protected: &[String],
) -> Applied {
    let mut snap: Snapshot = BTreeMap::new();
    let paths = known
        .iter()
        .map(|(p, _)| p)
        .chain(blocks.iter().filter_map(|b| b.path.as_ref()));
    for p in paths {
        if let Some(prev) = read_now(ctx, p) {
            snap.entry(p.clone()).or_insert(prev);
        }
    }
    let applied = apply_edit_blocks(ctx.tools.workdir(), blocks, known, protected);
    let mut errors = Vec::new();
    let mut written = Vec::new();
    for a in &applied {
        match &a.result {
            Ok(w) => written.push(w.path.clone()),
            Err(e) => errors.push(feedback::BlockError(e).to_string()),
        }
    }
    for w in &written {
        snap.entry(w.clone()).or_insert(None);
    }
    ctx.record(crate::graph::memory::events::RunEvent::ToolCall {
        step: state.total_steps + 1,
        node: NodeName::Coder,
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
    Applied { snap, diff, errors }
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
    let r = ctx
        .test_runner()
        .run(command, ctx.tools.workdir().root())
        .await;
    record_run(ctx, state, r)
}

/// [`run_tests`] within `time` (or the runner's own limit, the shorter).
async fn run_tests_within(
    ctx: &GraphContext,
    state: &RunState,
    command: &str,
    time: std::time::Duration,
) -> CommandResult {
    let mut cfg = ctx.test_runner().config().clone();
    cfg.timeout = cfg.timeout.min(time);
    let r = kotef_tools::CommandRunner::new(cfg)
        .run(command, ctx.tools.workdir().root())
        .await;
    record_run(ctx, state, r)
}

/// Records a test run in the transcript, and returns it.
fn record_run(ctx: &GraphContext, state: &RunState, r: CommandResult) -> CommandResult {
    ctx.record(crate::graph::memory::events::RunEvent::Verification {
        step: state.total_steps + 1,
        command: r.command.clone(),
        passed: r.success(),
        exit_code: r.exit_code,
        timed_out: r.timed_out,
        output: crate::graph::memory::events::clip_output(&format!("{}{}", r.stdout, r.stderr)),
    });
    r
}

/// The starting failure every attempt is compared with, measured again; but a test run that
/// timed out on these very files is taken as it was (a test that never ends would spend
/// another share of the budget to say so again).
async fn starting_run(ctx: &GraphContext, state: &RunState, command: &str) -> CommandResult {
    let hung = state
        .test
        .as_ref()
        .is_some_and(|t| t.timed_out && t.command == command)
        && state.hashes_at_last_verification.as_ref() == Some(&state.file_hashes);
    if !hung {
        return run_tests(ctx, state, command).await;
    }
    CommandResult {
        command: command.to_string(),
        exit_code: None,
        stdout: String::new(),
        stderr: String::new(),
        timed_out: true,
        truncated: false,
        duration_ms: 0,
        spawn_error: None,
        limit: None,
    }
}

/// The best candidate so far: the files it wrote (their text after it) and how bad it was.
pub(super) struct Best {
    badness: u32,
    files: BTreeMap<String, Vec<u8>>,
    diff: String,
}

/// The attempt in the tree now as a candidate: the files it wrote, as they are.
fn candidate(ctx: &GraphContext, snap: &Snapshot, badness: u32, diff: &str) -> Best {
    let files = snap
        .keys()
        .filter_map(|p| Some((p.clone(), read_now(ctx, p)??)))
        .collect();
    Best {
        badness,
        files,
        diff: diff.to_string(),
    }
}

/// Undoes a failed, tested attempt (in the tree, its files as they were in `snap`), kept
/// first as the best candidate when fewer tests fail with it than with any before.
fn undo_failed(ctx: &GraphContext, a: &mut Attempts, snap: &Snapshot, bad: u32, diff: &str) {
    if a.improves(bad) {
        a.best = Some(candidate(ctx, snap, bad, diff));
    }
    restore(ctx, snap);
}

/// Writes the best candidate's files back (the tree holds the starting text after an undo).
fn keep_best(ctx: &GraphContext, b: &Best) {
    let tree = ctx.tools.workdir().tree();
    for (p, bytes) in &b.files {
        if let Err(e) = tree.write(p, bytes, Links::Replace) {
            tracing::warn!(path = %p, error = %e, "could not keep the best repair attempt");
        }
    }
    tracing::debug!(diff = %b.diff, "kept the best repair attempt");
}

pub async fn step(ctx: &GraphContext, state: &mut RunState, task: &str) -> StepResult {
    let root = ctx.tools.workdir().root().to_path_buf();
    let (before, Some(command)) = (state.file_hashes.clone(), state.test_command.clone()) else {
        return no_test_command();
    };
    let protected = context::protected_tests(Some(&command), &state.goal, state.file_hashes.keys());
    // Read before the starting run below replaces the failure the task was written from.
    let task_news = crate::graph::rules::tasks::news_in_task(state, task);
    // The starting failure, measured here so every attempt is compared with the same run.
    let start = match failing_start(ctx, state, &command).await {
        Ok(start) => start,
        Err(ended) => return ended,
    };
    // The failure comes first: the traceback's frames in the repository bring their files.
    let listed: Vec<String> = state.file_hashes.keys().cloned().collect();
    let failure = failure_text(&start, &root, &listed);
    let Start {
        names,
        test_view,
        mut shown,
    } = start::start_from(ctx, state, task, &protected, &start, &failure);
    let mut a = attempts_for(ctx, &start, &command, listed.clone());
    let mut stones = Stones::new(&start, &root.display().to_string(), &listed);
    let (widened, targets) =
        spectrum::localise(ctx, state, shown, &protected, (&command, &start), &names).await;
    shown = widened;
    let test = test_view.as_deref().unwrap_or(&failure);
    let cmd = (command.as_str(), protected.as_slice());
    let setting = templates::Setting::new(cmd, &shown, &start, &targets, test);
    if let Some(end) = templates::attempt(ctx, state, (&mut a, &mut stones), &setting).await {
        return finish(ctx, state, a, end, &before).await;
    }
    let goal = state.goal.clone();
    let opening_of = |shown: &Shown| {
        feedback::opening(&Opening {
            goal: &goal,
            task: task_news.as_deref(),
            files: &shown.files,
            protected: &protected,
            command: &command,
            failure: &failure,
            test: test_view.as_deref(),
            trace: &shown.trace,
            names: &names,
            note: shown.note.as_deref(),
            allowance: Some(room::files_allowance(llm::prompt_allowance(ctx))),
        })
    };
    let mut opening = opening_of(&shown);
    let (mut offers, memory) = recall::line_queue(state, &command, targets, &mut a);
    let lines_first = replies::begins_with_lines(ctx, &shown.files, &protected).await;
    let mut locator = locate::Locator::new(locate::called_names(&failure, &names));
    let end = loop {
        if let Some(end) = a.end_before_call(&ctx.limits) {
            break end;
        }
        let (offer, request) = next_attempt(ctx, &mut a, &mut offers, (&opening, lines_first));
        let line = offer.is_some();
        let reply = match llm::call(ctx, state, NodeName::Coder, request).await {
            Err(CallFailure::Stopped) => break CoderEnd::RunStopped,
            Err(CallFailure::Failed(_)) => continue,
            Ok(reply) => reply,
        };
        let Some(blocks) = attempt_change(&reply, offer, &shown.files, &mut a, &mut offers) else {
            continue;
        };
        if blocks.is_empty() {
            match a.unreadable(reply.cut_off()) {
                Some(end) => break end,
                None => continue,
            }
        }
        match a.seen_as(line, &blocks) {
            Seen::New => {}
            Seen::Again => continue,
            Seen::TooOften => break CoderEnd::RepeatedCall,
        }
        let Applied { snap, diff, errors } =
            apply_attempt(ctx, state, &blocks, &shown.files, &protected);
        if diff.is_empty() {
            a.not_applied(errors);
            restore(ctx, &snap);
            continue;
        }
        let Some(result) = tested(ctx, state, &command, &snap).await else {
            break CoderEnd::RunStopped;
        };
        let (bad, failure) = (badness(&result), failure_text(&result, &root, &listed));
        a.note_tested(bad, &failure);
        if bad == 0 {
            let pass = (&snap, diff.as_str(), reply.content.as_str());
            let took = std::time::Duration::from_millis(result.duration_ms);
            match passes::settle(ctx, state, &mut a, (&command, took), pass).await {
                Some(end) => break end,
                None => continue,
            }
        }
        undo_failed(ctx, &mut a, &snap, bad, &diff);
        let setting = (command.as_str(), &shown.files[..], &protected[..]);
        let combined = stones.after_failure(ctx, state, &mut a, (&blocks, &result), setting);
        if let Some(end) = combined.await {
            break end;
        }
        locator.failed(&diff, !line && bad <= a.baseline);
        if let Some(moved) = locator.next_place(ctx, state, &names, &protected, &shown) {
            a.notes
                .push(format!("attempt {}: looked elsewhere", a.made));
            shown = moved;
            opening = opening_of(&shown);
        }
        let tested = Outcome::tested(diff, bad, failure, errors);
        a.failed(tested, TestSet::of(&result));
        guards::runner::ask(state, IN_REPAIR, &a.facts(&command));
        if state.ending.is_some() {
            break CoderEnd::RunStopped;
        }
    };
    let new = recall::keep_lines(state, &offers, memory, &a);
    finish(ctx, state, a, end, &before).await.with_explored(new)
}

/// The loop's memory at its start: the failing run it compares attempts with, and what
/// passes are judged by ([`fitted`]).
fn attempts_for(
    ctx: &GraphContext,
    start: &CommandResult,
    command: &str,
    listed: Vec<String>,
) -> Attempts {
    let mut a = Attempts::new(badness(start), TestSet::of(start));
    a.fits = fitted::Fits::new(ctx, command, listed);
    a
}

/// The test command's run of an applied attempt; `None` when it hit a resource limit (the
/// attempt is undone and the run stops, `guards::commands`).
async fn tested(
    ctx: &GraphContext,
    state: &mut RunState,
    command: &str,
    snap: &Snapshot,
) -> Option<CommandResult> {
    let result = run_tests(ctx, state, command).await;
    if let Some(why) = result.limit_message() {
        restore(ctx, snap);
        resource_limit(state, &result.command, &why);
        return None;
    }
    Some(result)
}

/// The step's end when there is no test command to judge attempts by.
fn no_test_command() -> StepResult {
    StepResult::to(
        NodeName::Verifier,
        Decision::Code(CoderEnd::RunStopped),
        "no test command to repair against".into(),
        false,
    )
}

/// A test run that hit a resource limit ends the run (`guards::commands`).
fn resource_limit(state: &mut RunState, command: &str, why: &str) {
    let facts = CommandFacts {
        profile: state.profile,
        command,
        event: CommandEvent::Limit { why },
    };
    guards::runner::ask(state, guards::commands::ON_COMMAND, &facts);
}

/// The starting run when it fails as a repair needs; else the step's end (a resource limit
/// stops the run, tests that pass already end the step).
async fn failing_start(
    ctx: &GraphContext,
    state: &mut RunState,
    command: &str,
) -> Result<CommandResult, StepResult> {
    let start = starting_run(ctx, state, command).await;
    if let Some(why) = start.limit_message() {
        resource_limit(state, &start.command, &why);
        return Err(StepResult::stopped(state, false));
    }
    if start.success() {
        return Err(StepResult::to(
            NodeName::Verifier,
            Decision::Code(CoderEnd::Done),
            "the tests pass already; nothing to repair".into(),
            false,
        ));
    }
    Ok(start)
}

/// Ends the step: the best candidate stands when no attempt passed (a passing one is in the
/// tree; a kept pass that stands leads the step's reason with what to check of it),
/// and the step reports whether the code changed.
async fn finish(
    ctx: &GraphContext,
    state: &mut RunState,
    mut a: Attempts,
    end: CoderEnd,
    before: &BTreeMap<String, String>,
) -> StepResult {
    if a.best.as_ref().is_some_and(|b| b.badness == 0) {
        if let Some(found) = a.fits.finding() {
            a.warning = Some(format!("CHECK: {found}"));
            state.checks = vec![found];
        }
    }
    if let Some(b) = &a.best {
        keep_best(ctx, b);
        let kept = format!(
            "kept the best attempt ({} failing, from {})",
            b.badness, a.baseline
        );
        a.notes.push(kept);
    }
    let after = ctx.hashes_or(before).await;
    let changed = crate::graph::memory::progress::files_progress(before, &after);
    state.file_hashes = after;
    if state.ending.is_some() {
        return StepResult::stopped(state, changed);
    }
    StepResult::to(
        NodeName::Verifier,
        Decision::Code(end),
        a.reason(changed),
        changed,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_that_never_end_are_repaired_but_a_command_that_cannot_run_is_not() {
        let mut s = crate::graph::memory::testing::run().build();
        s.test_command = Some("python3 -m unittest".into());
        let hung = crate::graph::memory::state::TestResult {
            command: "python3 -m unittest".into(),
            passed: false,
            exit_code: None,
            kind: Some(kotef_tools::FailureKind::ToolingError),
            summary: "timed out after 60000 ms".into(),
            error_signature: None,
            same_error_count: 1,
            step: 1,
            after_code_change: false,
            outside_cause: None,
            timed_out: true,
            report: crate::graph::memory::failure::FailureReport::default(),
        };
        s.test = Some(hung.clone());
        assert!(applies(&s));
        s.test = Some(crate::graph::memory::state::TestResult {
            timed_out: false,
            ..hung
        });
        assert!(!applies(&s));
    }

    #[test]
    fn attempts_after_the_first_sample_hotter() {
        assert_eq!(
            (0..5).map(temperature).collect::<Vec<_>>(),
            [None, Some(0.7), Some(0.9), Some(1.0), Some(1.0)]
        );
    }
}
