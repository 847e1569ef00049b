//! The tool calls of one coder turn, in order: a write or edit of a protected test is
//! refused, a file is remembered before its first change (for the undo), the tool runs within
//! the run's time, its effect becomes a note (and may refuse an empty `done`, count a denial or
//! stop the run at a resource limit), and a repeated or repeatedly failing call ends the step.

use super::turns::Turns;
use super::{protected_refusal, repeated_call_note};
use crate::graph::guards::{
    self,
    commands::{CommandEvent, CommandFacts},
};
use crate::graph::memory::state::{CoderEnd, RunState};
use crate::graph::prompt::context;
use crate::graph::prompt::messages::AllowedCommandHint;
use crate::graph::rules::breakers::RepeatedCall;
use crate::graph::GraphContext;
use kotef_core::NodeName;
use kotef_model::{Message, ToolCall};
use kotef_tools::{file_tools, Kind, Tool, ToolEffect, ToolOutcome, ToolSet};
use std::collections::BTreeMap;

/// Runs a turn's calls until one ends the turn.
pub(super) async fn run_calls(
    ctx: &GraphContext,
    state: &mut RunState,
    calls: &[ToolCall],
    t: &mut Turns,
    before: &BTreeMap<String, String>,
) {
    let protected = context::protected_tests(
        state.test_command.as_deref(),
        &state.goal,
        state.file_hashes.keys(),
    );
    for call in calls {
        if run_call(ctx, state, call, &protected, t, before).await {
            break;
        }
    }
}

/// Runs one call and records its result; whether the turn's remaining calls are skipped.
async fn run_call(
    ctx: &GraphContext,
    state: &mut RunState,
    call: &ToolCall,
    protected: &[String],
    t: &mut Turns,
    before: &BTreeMap<String, String>,
) -> bool {
    let refused = changes_protected(call, protected).map(|path| {
        t.test_edits += 1;
        ToolOutcome {
            content: protected_refusal(path, state.test_command.as_deref().unwrap_or("")),
            is_error: true,
            effect: ToolEffect::None,
        }
    });
    if refused.is_none() {
        remember_for_undo(ctx, &mut t.undo, call);
    }
    let run = async {
        match refused {
            Some(out) => out,
            None => ctx.tools.call(call, ToolSet::Coder).await,
        }
    };
    let Ok(out) = tokio::time::timeout(ctx.time_left(), run).await else {
        let at = guards::calls::Cancelled {
            what: "tool call",
            limits: &ctx.limits,
        };
        guards::runner::ask(state, guards::calls::AT_DEADLINE, &at);
        return true;
    };
    ctx.record_tool(state.total_steps + 1, NodeName::Coder, call, &out);
    state.count_tool(&call.name);
    let brief = context::clip(&call.arguments.to_string(), 100);
    let (note, done_refused) = effect_note(ctx, state, call, &out, t, before, &brief).await;
    t.notes.push(note);
    let mut content = match done_refused {
        Some(why) => why,
        None => context::clip(&out.content, context::TOOL_RESULT_CHARS),
    };
    let mut repeated = RepeatedCall::Fresh;
    if matches!(out.effect, ToolEffect::FileWritten { .. }) {
        t.unchanged_calls.clear();
    } else if !out.is_error && !matches!(out.effect, ToolEffect::Done { .. }) {
        let times = t.unchanged_calls.entry(call_key(call)).or_insert(0);
        *times += 1;
        repeated = crate::graph::rules::breakers::repeated_call(*times);
        if repeated != RepeatedCall::Fresh {
            content = format!("{}{content}", repeated_call_note(&call.name));
            t.resample = true;
        }
    }
    if let (ToolEffect::PolicyDenied { hard: false, .. }, Some(test)) =
        (&out.effect, state.test_command.as_deref())
    {
        let hint = AllowedCommandHint { test };
        content.push_str(&format!("\n{hint}"));
    }
    t.current
        .push(Message::tool_result(call.id.clone(), content));
    if repeated == RepeatedCall::EndStep {
        t.end = CoderEnd::RepeatedCall;
        t.notes.push(format!(
            "{} {brief} called {} times with nothing changed: step ended",
            call.name,
            crate::graph::rules::breakers::REPEATED_CALL_LIMIT
        ));
        return true;
    }
    if out.is_error {
        let times = t.failing_calls.entry(failure_key(call, &out)).or_insert(0);
        *times += 1;
        t.resample |= *times >= 2;
        if crate::graph::rules::breakers::repeated_failure_ends_step(*times) {
            t.end = CoderEnd::RepeatedFailingCall;
            t.notes.push(format!(
                "{} failed the same way {times} times: step ended",
                call.name
            ));
            return true;
        }
    }
    t.end == CoderEnd::Done || state.ending.is_some()
}

/// The note for a call's effect, and the refusal that replaces its result when it was a
/// `done` with nothing changed while the tests fail. A denial is counted (and may stop the
/// run), a resource limit stops it, `done` ends the step.
async fn effect_note(
    ctx: &GraphContext,
    state: &mut RunState,
    call: &ToolCall,
    out: &ToolOutcome,
    t: &mut Turns,
    before: &BTreeMap<String, String>,
    brief: &str,
) -> (String, Option<String>) {
    let note = match &out.effect {
        ToolEffect::FileWritten { path, hash } => {
            t.written.insert(path.clone());
            t.last_turn_changed = true;
            format!(
                "{} {path} → written ({})",
                call.name,
                &hash[..hash.len().min(8)]
            )
        }
        ToolEffect::Noop { path } => {
            format!("{} {path} → no-op (identical content)", call.name)
        }
        ToolEffect::Done { summary } => {
            let now = ctx.hashes_or(before).await;
            let unchanged = !crate::graph::memory::progress::files_progress(before, &now);
            match unchanged
                .then(|| {
                    crate::graph::rules::tasks::empty_done_refusal(state, t.refused_empty_done)
                })
                .flatten()
            {
                Some(why) => {
                    t.refused_empty_done = true;
                    return (
                        "done refused: nothing changed and the tests fail".into(),
                        Some(why),
                    );
                }
                None => {
                    t.end = CoderEnd::Done;
                    state.coder_summary = summary.clone();
                    "done".into()
                }
            }
        }
        ToolEffect::PolicyDenied {
            command,
            reason,
            hard,
        } => {
            let denial = if *hard {
                crate::graph::rules::budgets::Denial::Hard
            } else {
                t.off_list_denials += 1;
                crate::graph::rules::budgets::Denial::OffList {
                    count: state.off_list_denials() + t.off_list_denials,
                }
            };
            let facts = CommandFacts {
                profile: state.profile,
                command,
                event: CommandEvent::Denied { reason, denial },
            };
            guards::runner::ask(state, guards::commands::ON_COMMAND, &facts);
            format!("run_command `{command}` → denied: {reason}")
        }
        ToolEffect::CommandRan(r) if r.limit.is_some() => {
            let why = r.limit_message().unwrap_or_default();
            let facts = CommandFacts {
                profile: state.profile,
                command: &r.command,
                event: CommandEvent::Limit { why: &why },
            };
            guards::runner::ask(state, guards::commands::ON_COMMAND, &facts);
            format!(
                "run_command `{}` → stopped: {why}",
                context::clip(&r.command, 80)
            )
        }
        ToolEffect::CommandRan(r) => format!(
            "run_command `{}` → exit {:?}{}",
            context::clip(&r.command, 80),
            r.exit_code,
            if r.timed_out { " (timed out)" } else { "" }
        ),
        ToolEffect::None => format!(
            "{} {brief} → {}",
            call.name,
            if out.is_error { "error" } else { "ok" }
        ),
    };
    (note, None)
}

/// The protected test a write or edit would change, if any.
fn changes_protected<'a>(call: &ToolCall, protected: &'a [String]) -> Option<&'a String> {
    if !Tool::name_writes_file(&call.name) {
        return None;
    }
    let path = call.arguments.get("path")?.as_str()?;
    let path = path.strip_prefix("./").unwrap_or(path);
    protected.iter().find(|p| p.as_str() == path)
}

/// Keeps a file's text from before this step's first write or edit of it, for
/// `crate::graph::rules::endings::regression`'s undo (`None` when it does not exist yet).
fn remember_for_undo(
    ctx: &GraphContext,
    undo: &mut BTreeMap<String, Option<String>>,
    call: &ToolCall,
) {
    if !Tool::name_writes_file(&call.name) {
        return;
    }
    let Some(rel) = call.arguments.get("path").and_then(|p| p.as_str()) else {
        return;
    };
    let workdir = ctx.tools.workdir();
    let Ok(abs) = workdir.resolve(rel, true) else {
        return;
    };
    let Some(key) = workdir.relative(&abs) else {
        return;
    };
    if undo.contains_key(&key) {
        return;
    }
    // Through the tree: a link or special file is not remembered, so the change cannot be
    // undone over it.
    let tree = workdir.tree();
    let before = match tree.kind(&key) {
        Ok(Kind::Missing) => None,
        Ok(Kind::File { .. }) => match tree.read(&key, file_tools::WRITE_LIMIT_BYTES as u64) {
            Ok(c) if !c.truncated => match String::from_utf8(c.bytes) {
                Ok(text) => Some(text),
                Err(_) => return,
            },
            _ => return,
        },
        _ => return,
    };
    undo.insert(key, before);
}

/// The identity of a tool call: tool and arguments.
fn call_key(call: &ToolCall) -> String {
    format!("{}\u{0}{}", call.name, call.arguments)
}

/// The identity of a failing tool call: tool, arguments and the error it got.
fn failure_key(call: &ToolCall, out: &ToolOutcome) -> String {
    format!("{}\u{0}{}\u{0}{}", call.name, call.arguments, out.content)
}
