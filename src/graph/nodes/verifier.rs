//! The verifier node: runs the test command with a timeout and an output cap, classifies a
//! failure, summarises it, and keeps the error signature that drives the same-error count and
//! the fix-attempt count.

use crate::graph::guards::after_verify::{Next, VerifyFacts, AFTER_VERIFY};
use crate::graph::guards::commands::{CommandEvent, CommandFacts, ON_COMMAND};
use crate::graph::guards::runner;
use crate::graph::memory::failure::FailureReport;
use crate::graph::memory::handoff::Handoff;
use crate::graph::memory::state::{Decision, FailureEntry, PlannerDecision, RunState, TestResult};
use crate::graph::{GraphContext, StepResult};
use kotef_core::NodeName;
use kotef_tools::{CommandResult, FailureKind, Links};
use std::collections::BTreeMap;

/// Folds a finished command into the run state; pure apart from `state`. `workspace` is the
/// repository's root (for the failure's outside cause). Returns whether it was progress.
pub fn record_result(
    state: &mut RunState,
    r: &CommandResult,
    step: u32,
    workspace: &std::path::Path,
) -> bool {
    let passed = r.success();
    let after_code_change = match &state.hashes_at_last_verification {
        Some(h) => *h != state.file_hashes,
        None => state.file_hashes != state.initial_hashes,
    };
    let failure = (!passed).then(|| kotef_tools::Failure::of(r, workspace));
    let (kind, summary, signature) = match &failure {
        None => (None, "passed".to_string(), None),
        Some(f) => (Some(f.kind), f.summary(), Some(f.signature.clone())),
    };
    let same_error_count = match (&state.test, &signature) {
        (Some(prev), Some(sig)) if prev.error_signature.as_ref() == Some(sig) => {
            prev.same_error_count + 1
        }
        (_, Some(_)) => 1,
        _ => 0,
    };
    let result = TestResult {
        command: r.command.clone(),
        passed,
        exit_code: r.exit_code,
        kind,
        summary: summary.clone(),
        error_signature: signature,
        same_error_count,
        step,
        after_code_change,
        outside_cause: failure.as_ref().and_then(|f| f.outside_cause.clone()),
        timed_out: r.timed_out,
        report: match &failure {
            None => FailureReport::default(),
            Some(f) => FailureReport::read(f, &format!("{}{}", r.stdout, r.stderr)).naming(
                crate::graph::prompt::context::named_files(&summary, state.file_hashes.keys()),
            ),
        },
    };
    if !passed {
        state.failures.entries.push(FailureEntry {
            step,
            command: r.command.clone(),
            exit_code: r.exit_code,
            kind: kind.unwrap_or(FailureKind::Unknown),
            summary,
        });
        if after_code_change {
            state.failures.attempts += 1;
        }
    }
    let files_changed_since =
        state.hashes_at_last_verification.as_ref() != Some(&state.file_hashes);
    let progress = crate::graph::memory::progress::verification_progress(
        state.test.as_ref(),
        &result,
        files_changed_since,
    );
    state.test = Some(result);
    state.hashes_at_last_verification = Some(state.file_hashes.clone());
    progress
}

/// A result for a run that has no test command: a tooling failure, honestly reported.
fn missing_command() -> CommandResult {
    CommandResult {
        command: crate::graph::prompt::context::NO_TEST_COMMAND.into(),
        exit_code: None,
        stdout: String::new(),
        stderr: "no test command configured (test_command) or detected in the repository".into(),
        timed_out: false,
        truncated: false,
        duration_ms: 0,
        spawn_error: Some("no test command configured or detected".into()),
        limit: None,
    }
}

/// Puts back the files the coder's step changed (see `crate::graph::rules::endings::regression`).
/// When that restores exactly the verified files of the verification before, its result is the
/// run's again. Returns the timeline reason, or `None` when the change cannot be undone whole (a
/// file changed by a command, a file that could not be written): it then stands, and the run goes
/// on as usual.
async fn undo_change(
    ctx: &GraphContext,
    state: &mut RunState,
    undo: &BTreeMap<String, Option<String>>,
    test_before: Option<TestResult>,
    verified_before: Option<BTreeMap<String, String>>,
) -> Option<String> {
    // Only a change made wholly through the file tools is undone: one made by a command
    // (`sed -i`, a generator) has no earlier text kept, and half an undo is a new world.
    let verified = verified_before.as_ref()?;
    let changed = verified
        .keys()
        .chain(state.file_hashes.keys())
        .filter(|p| verified.get(*p) != state.file_hashes.get(*p));
    if changed.into_iter().any(|p| !undo.contains_key(p)) {
        return None;
    }
    // Through the tree: a link the command swapped in is replaced, never written through.
    let tree = ctx.tools.workdir().tree();
    for (path, text) in undo {
        let put_back = match text {
            Some(text) => tree.write(path, text.as_bytes(), Links::Replace),
            None => tree.remove_file(path),
        };
        if let Err(e) = put_back {
            tracing::warn!(path, error = %e, "could not undo the coder's change");
            return None;
        }
    }
    state.file_hashes = ctx.hashes_or(&state.file_hashes).await;
    if verified_before.as_ref() == Some(&state.file_hashes) {
        state.test = test_before;
        state.hashes_at_last_verification = verified_before;
    }
    let t = state.test.as_ref()?;
    Some(format!(
        "it is worse than before, so the coder's change was undone (back to: {})",
        crate::graph::prompt::context::clip(&t.report.key_line, 120)
    ))
}

/// The step after an undo: the coder gets the earlier failure again, told why (no planner
/// call; the planner's stop rules still judge the hop).
fn undone_to_coder(
    state: &mut RunState,
    handoff: &mut Handoff,
    undo: &BTreeMap<String, Option<String>>,
    worse: &str,
    undone: String,
) -> StepResult {
    let files: Vec<String> = undo.keys().cloned().collect();
    let reason = format!(
        "`{}` failed: {}; {undone}",
        state.test.as_ref().map_or("", |t| t.command.as_str()),
        crate::graph::prompt::context::clip(worse, 160)
    );
    if let Some(task) = crate::graph::rules::tasks::undone_task(state, &files, worse) {
        handoff.standing_decision = Some(PlannerDecision::to_coder(
            "the coder's change made the tests worse and was undone, so the coder gets the earlier failure again (no planner call)",
            task,
        ));
    }
    StepResult::to(NodeName::Planner, Decision::Fail, reason, false)
}

pub async fn step(ctx: &GraphContext, state: &mut RunState, handoff: &mut Handoff) -> StepResult {
    let step_no = state.total_steps + 1;
    let result = match state.test_command.clone() {
        None => missing_command(),
        Some(cmd) => {
            // The coder's policy: the project's command passes it unless it is denylisted.
            if let kotef_tools::PolicyDecision::Deny { reason, .. } =
                ctx.tools.policy().decide(&cmd)
            {
                let event = CommandEvent::TestCommandDenied { reason: &reason };
                command_stop(state, &cmd, event);
                return StepResult::stopped(state, false);
            }
            ctx.test_runner()
                .run(&cmd, ctx.tools.workdir().root())
                .await
        }
    };
    ctx.record(crate::graph::memory::events::RunEvent::Verification {
        step: step_no,
        command: result.command.clone(),
        passed: result.success(),
        exit_code: result.exit_code,
        timed_out: result.timed_out,
        output: crate::graph::memory::events::clip_output(&format!(
            "{}{}",
            result.stdout, result.stderr
        )),
    });
    if let Some(why) = result.limit_message() {
        command_stop(state, &result.command, CommandEvent::Limit { why: &why });
        return StepResult::stopped(state, false);
    }
    let (test_before, verified_before) = (
        state.test.clone(),
        state.hashes_at_last_verification.clone(),
    );
    let progress = record_result(state, &result, step_no, ctx.tools.workdir().root());
    let undo = std::mem::take(&mut handoff.undo);
    for guard in AFTER_VERIFY {
        let facts = VerifyFacts {
            state,
            before: test_before.as_ref(),
            undoable: !undo.is_empty(),
        };
        match guard.check(&facts) {
            Next::Continue => {}
            Next::Undo { worse } => {
                let (before, verified) = (test_before.clone(), verified_before.clone());
                if let Some(undone) = undo_change(ctx, state, &undo, before, verified).await {
                    return undone_to_coder(state, handoff, &undo, &worse, undone);
                }
                // Not undone whole: the change stands, and the next guard is asked.
            }
            Next::Succeed(ending) => {
                runner::finish(state, ending);
                let reason = result_reason(state);
                return StepResult::to(NodeName::Done, Decision::Pass, reason, progress);
            }
            Next::Coder { task } => {
                state.last_decision = Some(PlannerDecision::to_coder(
                    "the opening verification failed",
                    task,
                ));
                let reason = format!(
                    "{}; the failure goes to the coder as its task",
                    result_reason(state)
                );
                return StepResult::to(NodeName::Coder, Decision::Fail, reason, progress);
            }
            Next::FollowUp { task } => {
                let why = if crate::graph::rules::tasks::coder_changed_code(state) {
                    "the coder's change still fails the tests, so the new failure goes back to the coder (no planner call)"
                } else {
                    "the repair loop stopped at its call cap with statements still to offer, so the failure goes back to the coder (no planner call)"
                };
                handoff.standing_decision = Some(PlannerDecision::to_coder(why, task));
                break;
            }
        }
    }
    let passed = state.test.as_ref().is_some_and(|t| t.passed);
    let decision = if passed {
        Decision::Pass
    } else {
        Decision::Fail
    };
    StepResult::to(NodeName::Planner, decision, result_reason(state), progress)
}

/// The step's reason: the verification's command and whether it passed, or how it failed.
fn result_reason(state: &RunState) -> String {
    let Some(t) = state.test.as_ref() else {
        return String::new();
    };
    if t.passed {
        format!("`{}` passed", t.command)
    } else {
        format!(
            "`{}` failed [{}]: {}",
            t.command,
            t.kind.map(|k| k.as_str()).unwrap_or("unknown"),
            crate::graph::prompt::context::clip(&t.report.key_line, 160)
        )
    }
}

/// A stop a command brings (`guards::commands`).
fn command_stop(state: &mut RunState, command: &str, event: CommandEvent<'_>) {
    let facts = CommandFacts {
        profile: state.profile,
        command,
        event,
    };
    runner::ask(state, ON_COMMAND, &facts);
}
