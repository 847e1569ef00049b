//! The verifier node: runs the test command with a timeout and an output cap, classifies a
//! failure, summarises it, and keeps the error signature that drives the same-error count and
//! the fix-attempt count.

use super::failure::FailureReport;
use super::handoff::Handoff;
use super::state::{Decision, FailureEntry, PlannerDecision, RunState, TestResult};
use super::{GraphContext, StepResult};
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
                super::context::named_files(&summary, state.file_hashes.keys()),
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
    let progress = crate::graph::progress::verification_progress(
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
        command: crate::graph::context::NO_TEST_COMMAND.into(),
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

/// Puts back the files the coder's step changed (see `crate::graph::endings::regression`). When that restores
/// exactly the verified files of the verification before, its result is the run's again.
/// Returns the timeline reason, or `None` when the change cannot be undone whole (a file
/// changed by a command, a file that could not be written): it then stands, and the run goes
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
        super::context::clip(&t.report.key_line, 120)
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
        super::context::clip(worse, 160)
    );
    if let Some(task) = super::tasks::undone_task(state, &files, worse) {
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
                let f = crate::graph::budgets::test_command_denied(&cmd, &reason);
                state.stop(f.rule, f.reason);
                return StepResult::stopped(state, false);
            }
            ctx.test_runner()
                .run(&cmd, ctx.tools.workdir().root())
                .await
        }
    };
    ctx.record(super::events::RunEvent::Verification {
        step: step_no,
        command: result.command.clone(),
        passed: result.success(),
        exit_code: result.exit_code,
        timed_out: result.timed_out,
        output: super::events::clip_output(&format!("{}{}", result.stdout, result.stderr)),
    });
    if let Some(why) = result.limit_message() {
        let f = crate::graph::budgets::resource_limit(&result.command, &why);
        state.stop(f.rule, f.reason);
        return StepResult::stopped(state, false);
    }
    let (test_before, verified_before) = (
        state.test.clone(),
        state.hashes_at_last_verification.clone(),
    );
    let progress = record_result(state, &result, step_no, ctx.tools.workdir().root());
    let undo = std::mem::take(&mut handoff.undo);
    let worse = state
        .test
        .as_ref()
        .filter(|t| !undo.is_empty() && crate::graph::endings::regression(test_before.as_ref(), t))
        .map(|t| t.report.key_line.clone());
    if let Some(worse) = worse {
        if let Some(undone) = undo_change(ctx, state, &undo, test_before, verified_before).await {
            return undone_to_coder(state, handoff, &undo, &worse, undone);
        }
    }
    let t = state
        .test
        .as_ref()
        .expect("record_result always sets the test result");
    let reason = if t.passed {
        format!("`{}` passed", t.command)
    } else {
        format!(
            "`{}` failed [{}]: {}",
            t.command,
            t.kind.map(|k| k.as_str()).unwrap_or("unknown"),
            super::context::clip(&t.report.key_line, 160)
        )
    };
    if t.passed {
        if let Some(ending) = crate::graph::endings::fixed_and_done(state) {
            state.finish(ending);
            return StepResult::to(NodeName::Done, Decision::Pass, reason, progress);
        }
    }
    if let Some(task) = super::tasks::opening_task(state) {
        state.last_decision = Some(PlannerDecision::to_coder(
            "the opening verification failed",
            task,
        ));
        let reason = format!("{reason}; the failure goes to the coder as its task");
        return StepResult::to(NodeName::Coder, Decision::Fail, reason, progress);
    }
    if let Some(task) = super::tasks::follow_up_task(state) {
        handoff.standing_decision = Some(PlannerDecision::to_coder(
            "the coder's change still fails the tests, so the new failure goes back to the coder (no planner call)",
            task,
        ));
    }
    let t = state
        .test
        .as_ref()
        .expect("record_result always sets the test result");
    let decision = if t.passed {
        Decision::Pass
    } else {
        Decision::Fail
    };
    StepResult::to(NodeName::Planner, decision, reason, progress)
}
