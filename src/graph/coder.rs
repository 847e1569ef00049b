//! The coder node: a tool loop with a per-step turn budget and a budget review that cannot
//! become a loop of its own. Each turn sees the repository snapshot, the task and only the
//! results of its previous turn's tool calls. `done` ends the step (once per run, a `done` with
//! nothing changed while the tests fail is refused instead); so do the breakers the
//! rules decide (the same failing call three times, replies without tool calls, the step's
//! call cap), each named in the timeline.

use super::context::{self, BUDGET_REVIEW_PROMPT, CODER_PROMPT};
use super::llm::{self, CallFailure};
use super::rules::{self, NoToolCall, RepeatedCall, Review};
use super::state::{CoderEnd, Decision, RunState};
use super::{GraphContext, StepResult};
use kotef_core::NodeName;
use kotef_model::{Message, ModelRequest, ToolCall};
use kotef_tools::{file_tools, Kind, ToolEffect, ToolOutcome, ToolSet};
use std::collections::{BTreeMap, BTreeSet};

/// The corrective message after a reply with neither a tool call nor `done`: the exact shape
/// of a tool call (a real one, with no placeholder a model could copy back) and every tool's
/// arguments, since a model that writes prose or JSON in its text is not calling tools.
pub fn no_tool_call_correction(tools: &[kotef_model::ToolSchema]) -> String {
    format!(
        "Your last reply made no tool call, so nothing happened. {} Call done when the task is complete.",
        kotef_model::expected_call_shape(tools)
    )
}

/// The sampling temperature of the call after a repeated tool call.
pub const RESAMPLE_TEMPERATURE: f64 = 0.8;

/// What a repeated call's result says before the result itself: it cannot have changed.
pub fn repeated_call_note(name: &str) -> String {
    format!(
        "You already called `{name}` with these arguments in this step and no file has changed since, so this is the same result as before. Do not call it again: change the code with edit_file (copy `old` exactly from the file text above), or call done.\n\n"
    )
}

/// The protected test a write or edit would change, if any.
fn changes_protected<'a>(call: &ToolCall, protected: &'a [String]) -> Option<&'a String> {
    if !matches!(call.name.as_str(), "write_file" | "edit_file") {
        return None;
    }
    let path = call.arguments.get("path")?.as_str()?;
    let path = path.strip_prefix("./").unwrap_or(path);
    protected.iter().find(|p| p.as_str() == path)
}

/// The tool error for a change to a protected test.
pub fn protected_refusal(path: &str, command: &str) -> String {
    format!(
        "Refused: `{path}` is the test that `{command}` runs. It states what the code must do, so it is not changed. Change the code it calls instead (the file the failure points at)."
    )
}

/// Keeps a file's text from before this step's first write or edit of it, for
/// `rules::regression`'s undo (`None` when it does not exist yet).
fn remember_for_undo(ctx: &GraphContext, state: &mut RunState, call: &ToolCall) {
    if !matches!(call.name.as_str(), "write_file" | "edit_file") {
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
    if state.undo.contains_key(&key) {
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
    state.undo.insert(key, before);
}

/// The identity of a tool call: tool and arguments.
fn call_key(call: &ToolCall) -> String {
    format!("{}\u{0}{}", call.name, call.arguments)
}

/// The identity of a failing tool call: tool, arguments and the error it got.
fn failure_key(call: &ToolCall, out: &ToolOutcome) -> String {
    format!("{}\u{0}{}\u{0}{}", call.name, call.arguments, out.content)
}

pub async fn step(ctx: &GraphContext, state: &mut RunState) -> StepResult {
    let task = state
        .last_decision
        .as_ref()
        .and_then(|d| d.task.clone())
        .unwrap_or_else(|| state.goal.clone());
    if ctx.edit_blocks && super::repair::applies(state) {
        return super::repair::step(ctx, state, &task).await;
    }
    let root = ctx.tools.workdir().root().to_path_buf();
    let before = state.file_hashes.clone();
    state.undo.clear();
    let tools = ctx.tools.schemas(ToolSet::Coder);
    let turn_budget = ctx.limits.coder_turns.max(1);

    let mut notes: Vec<String> = Vec::new();
    let mut current: Vec<Message> = Vec::new();
    let mut written: BTreeSet<String> = BTreeSet::new();
    let mut turns_since_review = 0u32;
    let mut review_streak = 0u32;
    let mut pending_review: Option<&'static str> = None;
    let mut warn = false;
    let mut asked_for_done = false;
    let mut empty_turns = 0u32;
    let mut failing_calls: BTreeMap<String, u32> = BTreeMap::new();
    // Set after a repeated call: the next call samples hotter, so a low-temperature model
    // does not send the same reply a third time.
    let mut resample = false;
    // Successful calls since the last file change: the same one again cannot tell anything new.
    let mut unchanged_calls: BTreeMap<String, u32> = BTreeMap::new();
    let mut forced_no_progress = false;
    let mut last_turn_changed = false;
    let mut calls = 0u32;
    // Refused changes to the protected tests in this step.
    let mut test_edits = 0u32;
    let mut correction: Option<String> = None;
    let mut end = CoderEnd::TurnsUsed;

    loop {
        if rules::coder_step_cap_reached(calls, &ctx.limits) {
            end = CoderEnd::CallCap;
            forced_no_progress = written.is_empty();
            notes.push(format!(
                "{calls} model calls, the step's cap (coder_step_calls): step ended"
            ));
            break;
        }
        if turns_since_review >= turn_budget {
            turns_since_review = 0;
            review_streak += 1;
            match rules::budget_review(review_streak, !written.is_empty(), last_turn_changed) {
                Review::EndStep => {
                    end = CoderEnd::ReviewCap;
                    forced_no_progress = true;
                    notes.push(format!(
                        "budget review {review_streak}: hard cap, step ended"
                    ));
                    break;
                }
                Review::AskForDone => {
                    if asked_for_done {
                        // Asked once already and it kept going: end the step, keep its work.
                        end = CoderEnd::TurnsUsed;
                        break;
                    }
                    asked_for_done = true;
                    pending_review = Some(BUDGET_REVIEW_PROMPT);
                }
                Review::Continue { warn: w } => {
                    warn = w;
                    pending_review = Some(BUDGET_REVIEW_PROMPT);
                }
            }
        }
        let snapshot = kotef_tools::snapshot(&root, context::SNAPSHOT_FILES);
        // Refreshed so "files changed in this run" includes this step's writes.
        state.file_hashes = super::workspace_hashes(&root);
        let mut user = format!(
            "# Goal\n{}\n\n# Your task\n{task}\n\n{}{}",
            state.goal,
            context::repo_state(&snapshot, state),
            context::test_summary(state)
        );
        // The files the task names, as they are now: the coder edits real text, and they
        // count as read for the read-before-write rule.
        let named = context::task_files(ctx, state, &task, context::NAMED_FILES + 1);
        for (p, _) in &named {
            ctx.tools.mark_read(p);
        }
        user.push_str(&context::named_files_section(&named));
        if !state.plan.is_empty() {
            user.push_str("\n## Plan (open items)\n");
            for p in state.plan.iter().take(8) {
                user.push_str(&format!("- {p}\n"));
            }
        }
        if !notes.is_empty() {
            user.push_str("\n## Done so far in this step\n");
            for n in &notes {
                user.push_str(&format!("- {n}\n"));
            }
        }
        if let Some(c) = correction.take() {
            user.push_str(&format!(
                "\n## Your last reply\n{c}\n\n{}\n",
                no_tool_call_correction(&tools)
            ));
        }
        if let Some(review) = pending_review.take() {
            user.push_str(&format!("\n## Budget review\n{review}\n"));
        }
        if warn {
            user.push_str(&format!(
                "\nWARNING: {review_streak} budget reviews in this step. Finish now or the step ends without progress.\n"
            ));
        }
        let mut messages = vec![Message::system(CODER_PROMPT), Message::user(user)];
        // Kept until a reply arrives, so a failed call does not lose the last tool results.
        messages.extend(current.iter().cloned());
        let request = ModelRequest {
            node: NodeName::Coder,
            messages,
            tools: tools.clone(),
            json_reply: false,
            temperature: std::mem::take(&mut resample).then_some(RESAMPLE_TEMPERATURE),
            max_tokens: None,
            code_reply: false,
        };
        turns_since_review += 1;
        calls += 1;
        let reply = match llm::call(ctx, state, NodeName::Coder, request).await {
            Err(CallFailure::Stopped) => break,
            Err(CallFailure::Failed(_)) => continue,
            Ok(reply) => {
                current.clear();
                reply
            }
        };
        // A reply cut off at max_tokens is usually a small model repeating one line until the
        // cap (75 s of a 2-core CPU): the next call samples hotter so it is not sent again.
        resample |= reply.cut_off();
        if reply.tool_calls.is_empty() {
            empty_turns += 1;
            notes.push("a reply without tool calls".into());
            match rules::no_tool_call(empty_turns) {
                NoToolCall::EndStep => {
                    end = CoderEnd::NoToolCalls;
                    break;
                }
                NoToolCall::Continue => continue,
                NoToolCall::Correct => {
                    correction = Some(context::clip(
                        if reply.content.trim().is_empty() {
                            "(empty)"
                        } else {
                            &reply.content
                        },
                        600,
                    ));
                    continue;
                }
            }
        }
        empty_turns = 0;
        last_turn_changed = false;
        let mut assistant = Message::assistant(reply.content.clone());
        assistant.tool_calls = reply.tool_calls.clone();
        current.push(assistant);
        let protected = context::protected_tests(
            state.test_command.as_deref(),
            &state.goal,
            state.file_hashes.keys(),
        );
        for call in &reply.tool_calls {
            let refused = changes_protected(call, &protected).map(|path| {
                test_edits += 1;
                ToolOutcome {
                    content: protected_refusal(path, state.test_command.as_deref().unwrap_or("")),
                    is_error: true,
                    effect: ToolEffect::None,
                }
            });
            if refused.is_none() {
                remember_for_undo(ctx, state, call);
            }
            let run = async {
                match refused {
                    Some(out) => out,
                    None => ctx.tools.call(call, ToolSet::Coder).await,
                }
            };
            let Ok(out) = tokio::time::timeout(ctx.time_left(), run).await else {
                let f = rules::deadline_cancelled("tool call", &ctx.limits);
                state.stop(f.rule, f.reason);
                break;
            };
            ctx.record_tool(state.total_steps + 1, NodeName::Coder, call, &out);
            state.count_tool(&call.name);
            let brief = context::clip(&call.arguments.to_string(), 100);
            let mut done_refused: Option<String> = None;
            let note = match &out.effect {
                ToolEffect::FileWritten { path, hash } => {
                    written.insert(path.clone());
                    last_turn_changed = true;
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
                    let unchanged =
                        !rules::files_progress(&before, &super::workspace_hashes(&root));
                    match unchanged
                        .then(|| super::tasks::empty_done_refusal(state))
                        .flatten()
                    {
                        Some(why) => {
                            state.empty_done_refusals += 1;
                            done_refused = Some(why);
                            "done refused: nothing changed and the tests fail".into()
                        }
                        None => {
                            end = CoderEnd::Done;
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
                        rules::Denial::Hard
                    } else {
                        state.off_list_denials += 1;
                        rules::Denial::OffList {
                            count: state.off_list_denials,
                        }
                    };
                    if let Some(f) = rules::command_denied(state.profile, command, reason, denial) {
                        state.stop(f.rule, f.reason);
                    }
                    format!("run_command `{command}` → denied: {reason}")
                }
                ToolEffect::CommandRan(r) if r.limit.is_some() => {
                    let why = r.limit_message().unwrap_or_default();
                    let f = rules::resource_limit(&r.command, &why);
                    state.stop(f.rule, f.reason);
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
            notes.push(note);
            let mut content = match done_refused.take() {
                Some(why) => why,
                None => context::clip(&out.content, context::TOOL_RESULT_CHARS),
            };
            let mut repeated = RepeatedCall::Fresh;
            if matches!(out.effect, ToolEffect::FileWritten { .. }) {
                unchanged_calls.clear();
            } else if !out.is_error && !matches!(out.effect, ToolEffect::Done { .. }) {
                let times = unchanged_calls.entry(call_key(call)).or_insert(0);
                *times += 1;
                repeated = rules::repeated_call(*times);
                if repeated != RepeatedCall::Fresh {
                    content = format!("{}{content}", repeated_call_note(&call.name));
                    resample = true;
                }
            }
            if let (ToolEffect::PolicyDenied { hard: false, .. }, Some(test)) =
                (&out.effect, state.test_command.as_deref())
            {
                content.push_str(&format!(
                    "\nUse an allowed command instead; the project's tests run with `{test}`."
                ));
            }
            current.push(Message::tool_result(call.id.clone(), content));
            if repeated == RepeatedCall::EndStep {
                end = CoderEnd::RepeatedCall;
                notes.push(format!(
                    "{} {brief} called {} times with nothing changed: step ended",
                    call.name,
                    rules::REPEATED_CALL_LIMIT
                ));
                break;
            }
            if out.is_error {
                let times = failing_calls.entry(failure_key(call, &out)).or_insert(0);
                *times += 1;
                resample |= *times >= 2;
                if rules::repeated_failure_ends_step(*times) {
                    end = CoderEnd::RepeatedFailingCall;
                    notes.push(format!(
                        "{} failed the same way {times} times: step ended",
                        call.name
                    ));
                    break;
                }
            }
            if end == CoderEnd::Done || state.ending.is_some() {
                break;
            }
        }
        if notes.len() > context::STEP_NOTES {
            notes.drain(..notes.len() - context::STEP_NOTES);
        }
        if matches!(
            end,
            CoderEnd::Done | CoderEnd::RepeatedFailingCall | CoderEnd::RepeatedCall
        ) || state.ending.is_some()
        {
            break;
        }
    }

    let after = super::workspace_hashes(&root);
    let changed = rules::files_progress(&before, &after);
    state.file_hashes = after;
    let progress = changed && !forced_no_progress;
    let only_test_edits = test_edits > 0 && !changed;
    if state.ending.is_some() {
        return StepResult::stopped(state, progress).with_only_test_edits(only_test_edits);
    }
    let what = if changed {
        format!("changed {} file(s)", written.len().max(1))
    } else {
        "no net change".to_string()
    };
    let reason = match end {
        CoderEnd::Done => format!("{what} and called done"),
        CoderEnd::TurnsUsed => format!("{what} without calling done"),
        CoderEnd::ReviewCap => format!("{what}; the budget review's hard cap ended the step"),
        CoderEnd::RepeatedFailingCall => format!(
            "{what}; the same failing tool call {} times ended the step",
            rules::REPEATED_FAILURE_LIMIT
        ),
        CoderEnd::RepeatedCall => format!(
            "{what}; the same tool call {} times with nothing changed ended the step",
            rules::REPEATED_CALL_LIMIT
        ),
        CoderEnd::NoToolCalls => format!(
            "{what}; {} replies in a row without a tool call ended the step",
            rules::NO_TOOL_CALL_LIMIT
        ),
        CoderEnd::CallCap => format!(
            "{what}; the step's cap of {} model calls ended it",
            ctx.limits.coder_step_calls
        ),
        CoderEnd::RunStopped => what,
    };
    StepResult::to(NodeName::Verifier, Decision::Code(end), reason, progress)
        .with_only_test_edits(only_test_edits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coder_tools() -> Vec<kotef_model::ToolSchema> {
        let dir = tempfile::tempdir().unwrap();
        let tools = kotef_tools::ToolBox::new(
            kotef_tools::WorkDir::new(dir.path()).unwrap(),
            kotef_tools::CommandRunner::new(kotef_tools::RunnerConfig::default()),
            kotef_core::Profile::Strict,
        );
        tools.schemas(ToolSet::Coder)
    }

    #[test]
    fn the_correction_shows_a_real_tool_call_in_its_exact_shape() {
        let text = no_tool_call_correction(&coder_tools());
        let call = serde_json::Value::Object(kotef_model::first_json_object(&text).unwrap());
        assert_eq!(
            call,
            serde_json::json!({"name": "list_files", "arguments": {}})
        );
    }

    #[test]
    fn the_correction_names_every_tool_and_holds_no_placeholder() {
        let text = no_tool_call_correction(&coder_tools());
        let missing: Vec<&str> = [
            "read_file",
            "write_file",
            "edit_file",
            "run_command",
            "done",
        ]
        .into_iter()
        .filter(|t| !text.contains(t))
        .collect();
        assert_eq!((missing, text.contains("...")), (vec![], false), "{text}");
    }
}
