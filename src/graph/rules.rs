//! Every stop decision of a run that is not yet a guard, as pure functions over data, each
//! with its contract name. Nodes report facts (a reply, a tool result, a test result); the
//! functions here and the guards (`super::guards`, one file each) decide. The stop-rule table
//! — the guards' rows and [`pending_rows`] for the rules still here — is generated into
//! `docs/stop-rules.md`.
//!
//! Inside one coder step, breakers end the step (not the run) and name why in the timeline:
//! the same failing tool call [`REPEATED_FAILURE_LIMIT`] times, the same successful call
//! [`REPEATED_CALL_LIMIT`] times with no file changed in between, [`NO_TOOL_CALL_LIMIT`]
//! replies in a row without a tool call (the second gets one corrective message), the step's hard
//! cap `coder_step_calls`, and the budget review's [`REVIEW_HARD_CAP`]. A coder `done` with
//! nothing changed in its step while the tests fail is refused once per run
//! ([`empty_done_refusal`]): the tool result gives the failure and the step goes on.
//!
//! Progress is what resets the loop counters: research with results not seen before
//! ([`research_progress`]), changed file contents ([`files_progress`]), or a verification on
//! changed contents or with a flipped pass/fail ([`verification_progress`]) — and only when the
//! run's world (files + verified outcome, [`world_fingerprint`]) is not one it has been in
//! before ([`revisit_of`], applied by the graph loop after every step, which also keeps the
//! coder's no-progress and revisit streaks the rules above read).

use super::guards::model_failures::MODEL_FAILURE_LIMIT;
use super::state::{
    CoderEnd, Decision, Ending, Fired, PlannerDecision, ResearchState, RunState, TestResult,
};
use kotef_core::{Limits, NodeName, Profile, StopRule, TerminalStatus};
use kotef_model::ModelError;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

fn fired(rule: StopRule, reason: String) -> Option<Fired> {
    Some(Fired { rule, reason })
}

/// The same failing tool call (tool, arguments, error) this often ends a coder step.
pub const REPEATED_FAILURE_LIMIT: u32 = 3;
/// The same successful tool call, with nothing changed in between, this often ends a coder step.
pub const REPEATED_CALL_LIMIT: u32 = 3;
/// Replies in a row with neither a tool call nor `done` that end a coder step.
pub const NO_TOOL_CALL_LIMIT: u32 = 3;
/// Budget reviews in one coder step after which the prompt carries a warning.
pub const REVIEW_SOFT_CAP: u32 = 3;
/// Budget reviews in one coder step after which the step ends as no progress.
pub const REVIEW_HARD_CAP: u32 = 6;

/// The stop-rule table's rows for the rules not yet moved into a guard (`super::guards`),
/// as cells (rule, where it is checked, threshold, status); the guards' rows come first.
pub fn pending_rows() -> Vec<[String; 4]> {
    let row = |rule: &str, checked: &str, threshold: String, status: &str| {
        [rule, checked, &threshold, status].map(String::from)
    };
    let stuck = "`aborted_stuck`";
    vec![
        row("`budget` (tokens)", "graph loop before every step; `llm::call` before every model call", "`token_budget`".into(), stuck),
        row("`budget` (time)", "the same; at the deadline an in-flight model call or command is cancelled", "`time_budget_s`".into(), stuck),
        row("`budget` (model calls)", "the same", "`max_model_calls`".into(), stuck),
        row("`budget` (dollars)", "the same, from the price table or the configured prices", "`cost_budget_usd`".into(), stuck),
        row("`max_steps`", "graph loop before every step (the last step is kept for the snitch)", "`max_steps`".into(), stuck),
        row("`model_error`", "`llm::call` after a failed call (one call = all its retries)", format!("{MODEL_FAILURE_LIMIT} failed calls in a row, or a rejected request"), stuck),
        row("`constraint`", "coder's `run_command`; the planner's `verify` command", format!("under `strict`: a command reaching outside the workspace or on the denylist (at once), or command number {SOFT_DENIAL_LIMIT} merely off the allow-list (earlier ones are tool errors)"), "`aborted_constraint`"),
        row("none (success)", "planner says `done`", "the last verification passed after the last change".into(), "`done_success`"),
        row("none (fixed and done)", "verifier, after a pass", "a verification failed earlier, the coder's latest step changed files and called `done`, and they pass (`fixed_and_done`)".into(), "`done_success` (no planner call)"),
        row("none (success over a stop)", "planner, wherever a rule above fires", "the same verified success: a loop or no-progress rule firing then ends the run in success, naming the rule".into(), "`done_success`"),
        row("(undo)", "verifier, after a failing verification of a coder change", "more failing tests than before, or code that no longer loads (`regression`)".into(), "— (the change is undone; the coder gets the earlier failure and why)"),
        row("(follow-up)", "planner, before asking the model (after its stop rules)", "the coder's step changed the code and the verification still fails as tests do (`follow_up_task`)".into(), "— (the new failure goes to the coder with no planner call)"),
        row("none (partial)", "planner says `done`", "no passing verification after the last change".into(), "`done_partial`"),
        row("none (gave up)", "planner says `snitch`", "—".into(), stuck),
    ]
}

// ---- progress ----------------------------------------------------------------------------

/// Research progress: the researcher reached the model (not a repeated query answered from
/// memory) and came back with results never seen before in this run.
pub fn research_progress(before: &ResearchState, after: &ResearchState) -> bool {
    after.attempts > before.attempts
        && after.results_hash.is_some()
        && after.results_hash != before.results_hash
        && !before
            .seen_hashes
            .contains(after.results_hash.as_deref().unwrap_or_default())
}

/// File progress: the set of (path, content hash) changed — not just the number of files.
pub fn files_progress(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> bool {
    before != after
}

/// Verification progress: a first result, another command, a pass/fail flip, or a result on
/// contents that differ from those of the previous verification. Output that changes while
/// nothing else did (timestamps, pids, temp names, seeds) is noise, not progress.
pub fn verification_progress(
    before: Option<&TestResult>,
    after: &TestResult,
    files_changed_since: bool,
) -> bool {
    match before {
        None => true,
        Some(b) => files_changed_since || b.passed != after.passed || b.command != after.command,
    }
}

/// The run's world: file contents plus the outcome of a verification of exactly these
/// contents (none when files changed since). Error text is left out: it is noisy, and the
/// same files failing the same command is the same world.
pub fn world_fingerprint(state: &RunState) -> String {
    let mut h = Sha256::new();
    for (p, c) in &state.file_hashes {
        h.update(p.as_bytes());
        h.update([0]);
        h.update(c.as_bytes());
        h.update([1]);
    }
    let verified_here = state.hashes_at_last_verification.as_ref() == Some(&state.file_hashes);
    match &state.test {
        Some(t) if verified_here => {
            h.update(t.command.as_bytes());
            h.update([2, t.passed as u8]);
        }
        _ => h.update([3]),
    }
    hex::encode(&h.finalize()[..12])
}

/// The step that first reached the state the run is in now, when it has been there before.
pub fn revisit_of(state: &RunState) -> Option<u32> {
    state.seen_states.get(&world_fingerprint(state)).copied()
}

/// A fingerprint of everything a planner decision should depend on: the world and what
/// research found. Counters and step numbers are left out on purpose, so the same situation
/// gives the same fingerprint however often it comes back.
pub fn state_fingerprint(state: &RunState) -> String {
    let mut h = Sha256::new();
    h.update(world_fingerprint(state).as_bytes());
    h.update([2]);
    h.update(
        state
            .research
            .results_hash
            .as_deref()
            .unwrap_or_default()
            .as_bytes(),
    );
    hex::encode(&h.finalize()[..12])
}

/// The identity of a decision for the exact-repeat rule: where to and with what.
pub fn decision_key(d: &PlannerDecision) -> String {
    match d.next {
        NodeName::Researcher => format!("researcher:{}", d.query.as_deref().unwrap_or("").trim()),
        NodeName::Coder => format!("coder:{}", d.task.as_deref().unwrap_or("").trim()),
        other => other.as_str().to_string(),
    }
}

// ---- the planner's rules -----------------------------------------------------------------

/// The stop reason of a stuck or partial ending with the failure the tests still show
/// appended (a "time budget ran out" or "the planner said done" alone tells a maintainer
/// nothing to do). `None` when it has it already, the run succeeded or hit a constraint, or no
/// test fails.
pub fn reason_with_failure(state: &RunState) -> Option<String> {
    let e = state.ending.as_ref()?;
    let hint = super::context::still_failing(state);
    let unfinished = matches!(
        e.status,
        TerminalStatus::AbortedStuck | TerminalStatus::DonePartial
    );
    let add = unfinished && !hint.is_empty() && !e.reason.contains("still fails with");
    add.then(|| format!("{}{hint}", e.reason))
}

/// The ending when the planner says `done`: success only with a passing verification after
/// the last change.
pub fn done_verdict(state: &RunState, reason: &str) -> Ending {
    if state.verified_after_last_change() {
        let command = state
            .test
            .as_ref()
            .map(|t| t.command.as_str())
            .unwrap_or("");
        return ending(
            TerminalStatus::DoneSuccess,
            None,
            format!(
                "The planner finished and the last verification (`{command}`) passed after the latest change: {reason}"
            ),
        );
    }
    let why = match &state.test {
        None => "no verification ran".to_string(),
        Some(t) if !t.passed => format!("the last verification (`{}`) failed", t.command),
        Some(_) => "files changed after the last passing verification".to_string(),
    };
    ending(
        TerminalStatus::DonePartial,
        None,
        format!("The planner said done but {why}; what remains is written to .sdd/issues.md."),
    )
}

/// A verification that is worse than the one before it, after a coder change: more failing
/// tests, or code that no longer loads (`kotef_tools::failure_severity`). The change is then
/// undone and the coder gets the earlier failure again: a small model's "fix" that breaks a
/// passing test is further from the goal than no change.
pub fn regression(before: Option<&TestResult>, after: &TestResult) -> bool {
    let Some(before) = before.filter(|b| !b.passed && b.command == after.command) else {
        return false;
    };
    let severity = |t: &TestResult| kotef_tools::failure_severity(&t.summary);
    !after.passed
        && after.after_code_change
        && matches!((severity(before), severity(after)), (Some(b), Some(a)) if a > b)
}

/// The fix is in: a verification failed earlier in this run, the coder's latest step changed
/// files and called `done`, and the verification of exactly those files passed. The run ends
/// `done_success` there, without a planner call that could only say `done` (or waste the
/// pass). A coder that stopped without `done`, or a run that never failed, goes back to the
/// planner as usual.
pub fn fixed_and_done(state: &RunState) -> Option<Ending> {
    let coder_done = state
        .timeline
        .iter()
        .rev()
        .find(|r| r.node == NodeName::Coder)
        .is_some_and(|r| r.decision == Decision::Code(CoderEnd::Done));
    let failed_before = !state.failures.entries.is_empty();
    (state.verified_success() && coder_done && failed_before).then(|| {
        let command = state.test.as_ref().map_or("", |t| t.command.as_str());
        ending(
            TerminalStatus::DoneSuccess,
            None,
            format!(
                "`{command}` failed earlier in this run and passes on the coder's changes, which it called done."
            ),
        )
    })
}

/// A stop rule that fires after verified success (the run changed files and the verification
/// of exactly these files passed) does not turn a fix into a failure: the run ends
/// `done_success`, naming the rule that would have stopped it.
pub fn success_over_stop(state: &RunState, fired: &Fired) -> Option<Ending> {
    state.verified_success().then(|| {
        Ending::verified_success(
            last_command(state),
            &format!(
                "{} would have stopped the run ({})",
                fired.rule, fired.reason
            ),
        )
    })
}

/// The last verification's command ("" before any).
fn last_command(state: &RunState) -> &str {
    state.test.as_ref().map_or("", |t| t.command.as_str())
}

/// The ending when the planner gives up (routes to the snitch).
pub fn gave_up(reason: &str) -> Ending {
    ending(
        TerminalStatus::AbortedStuck,
        None,
        format!("The planner gave up: {reason}"),
    )
}

/// The ending of a run that reached `done` without any verdict (never expected).
pub fn no_verdict() -> Ending {
    ending(
        TerminalStatus::DonePartial,
        None,
        "The run ended without a verdict.".into(),
    )
}

/// The ending of a run that reached the snitch without a recorded cause (never expected).
pub fn no_cause() -> Ending {
    ending(
        TerminalStatus::AbortedStuck,
        None,
        "The run reached the snitch without a recorded cause.".into(),
    )
}

fn ending(status: TerminalStatus, rule: Option<StopRule>, reason: String) -> Ending {
    Ending {
        status,
        rule,
        reason,
    }
}

// ---- budgets, the model, commands --------------------------------------------------------

/// What the run has used so far, for the budget rules.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    pub tokens: u64,
    pub elapsed_s: u64,
    pub model_calls: u32,
    /// Dollars, when the model's price is known.
    pub cost_usd: Option<f64>,
}

/// The token, wall-clock, model-call and dollar budgets.
pub fn budget_stop(spent: &Spent, limits: &Limits) -> Option<Fired> {
    let counted = [
        ("token", spent.tokens, limits.token_budget, "tokens used"),
        ("time", spent.elapsed_s, limits.time_budget_s, "s used"),
        (
            "model-call",
            u64::from(spent.model_calls),
            u64::from(limits.max_model_calls),
            "calls made",
        ),
    ];
    for (name, used, cap, unit) in counted {
        if used >= cap {
            return fired(
                StopRule::Budget,
                format!("The {name} budget ran out: {used} of {cap} {unit}."),
            );
        }
    }
    if let (Some(cost), Some(cap)) = (spent.cost_usd, limits.cost_budget_usd) {
        if cost >= cap {
            return fired(
                StopRule::Budget,
                format!("The dollar budget ran out: ${cost:.4} of ${cap:.4} spent."),
            );
        }
    }
    None
}

/// The time budget ran out while a model call or command was in flight; it was cancelled.
pub fn deadline_cancelled(what: &str, limits: &Limits) -> Fired {
    Fired {
        rule: StopRule::Budget,
        reason: format!(
            "The time budget ran out: {} s used, and the {what} in flight was cancelled.",
            limits.time_budget_s
        ),
    }
}

/// Whether a run may start with this dollar budget: a cap needs a known price.
pub fn cost_budget_usable(cap: Option<f64>, price_known: bool) -> Result<(), String> {
    match cap {
        None => Ok(()),
        Some(c) if !c.is_finite() || c <= 0.0 => Err(format!(
            "cost_budget_usd must be a positive number of dollars (got {c})"
        )),
        Some(c) if !price_known => Err(format!(
            "cost_budget_usd is ${c} but the model's price is unknown; set [model] \
             price_prompt_per_mtok and price_completion_per_mtok, or drop the dollar budget"
        )),
        Some(_) => Ok(()),
    }
}

/// Whether the next step would be the last one allowed: that step is kept for the snitch, so a
/// run never exceeds `max_steps`.
pub fn step_cap_reached(total_steps: u32, limits: &Limits) -> Option<Fired> {
    if total_steps + 1 >= limits.max_steps {
        return fired(
            StopRule::MaxSteps,
            format!(
                "The global cap of {} steps was reached before any other rule fired.",
                limits.max_steps
            ),
        );
    }
    None
}

/// After a failed model call (all its retries included): `model_error` for a request the
/// provider rejects, or after [`MODEL_FAILURE_LIMIT`] failed calls in a row.
pub fn model_failure(err: &ModelError, err_text: &str, consecutive: u32) -> Option<Fired> {
    if matches!(err, ModelError::Rejected { .. } | ModelError::Config(_)) {
        return fired(
            StopRule::ModelError,
            format!("The model provider rejected the request: {err_text}"),
        );
    }
    if consecutive >= MODEL_FAILURE_LIMIT {
        return fired(
            StopRule::ModelError,
            format!("The model failed {consecutive} calls in a row (last: {err_text})."),
        );
    }
    None
}

/// Commands off the strict profile's allow-list a run may try before that ends it.
pub const SOFT_DENIAL_LIMIT: u32 = 3;

/// How a denied command weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denial {
    /// On the denylist or reaching outside the workspace: a policy violation in itself.
    Hard,
    /// Only off the strict allow-list; `count` such denials so far in the run, this one included.
    OffList { count: u32 },
}

/// A command the profile's policy denied. Under `strict` a hard denial ends the run at once;
/// a command merely off the allow-list is a tool error the agent can correct, until
/// [`SOFT_DENIAL_LIMIT`] of them end the run. Under `yolo` a denial never ends the run.
pub fn command_denied(
    profile: Profile,
    command: &str,
    reason: &str,
    denial: Denial,
) -> Option<Fired> {
    if profile != Profile::Strict {
        return None;
    }
    let reason = match denial {
        Denial::Hard => {
            format!("The command `{command}` is not allowed under the strict profile: {reason}")
        }
        Denial::OffList { count } if count >= SOFT_DENIAL_LIMIT => format!(
            "{count} commands outside the strict profile's allow-list were tried; the last, `{command}`: {reason}"
        ),
        Denial::OffList { .. } => return None,
    };
    Some(Fired {
        rule: StopRule::Constraint,
        reason,
    })
}

/// A command (the tests, or one the agent ran) that ran into a resource limit for one command
/// (processes, memory, file size, disk) ends the run: no fix should need a fork bomb or
/// gigabytes of output, and the next command would do the same.
pub fn resource_limit(command: &str, why: &str) -> Fired {
    Fired {
        rule: StopRule::Constraint,
        reason: format!("The command `{command}` hit a resource limit: {why}."),
    }
}

// ---- inside one coder step ---------------------------------------------------------------

/// What the budget review decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Review {
    /// Work looks complete: one turn asking the coder to call `done`.
    AskForDone,
    /// Keep going (with a warning in the prompt once the soft cap is passed).
    Continue { warn: bool },
    /// The hard cap: end the step as no progress.
    EndStep,
}

/// The budget review: `streak` is the number of reviews in this step including this one;
/// `changed_files` whether the step changed anything; `last_turn_changed` whether the latest
/// turn still changed files.
pub fn budget_review(streak: u32, changed_files: bool, last_turn_changed: bool) -> Review {
    if streak >= REVIEW_HARD_CAP {
        Review::EndStep
    } else if changed_files && !last_turn_changed {
        Review::AskForDone
    } else {
        Review::Continue {
            warn: streak >= REVIEW_SOFT_CAP,
        }
    }
}

/// What to do after a reply with neither a tool call nor `done`, the `streak`-th in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoToolCall {
    /// Ask again (the step's notes record the empty turn).
    Continue,
    /// The second in a row: one corrective message showing what a tool call looks like.
    Correct,
    /// The third in a row: end the step.
    EndStep,
}

pub fn no_tool_call(streak: u32) -> NoToolCall {
    if streak >= NO_TOOL_CALL_LIMIT {
        NoToolCall::EndStep
    } else if streak + 1 == NO_TOOL_CALL_LIMIT {
        NoToolCall::Correct
    } else {
        NoToolCall::Continue
    }
}

/// Whether the same failing tool call, seen `times` times in this step, ends the step.
pub fn repeated_failure_ends_step(times: u32) -> bool {
    times >= REPEATED_FAILURE_LIMIT
}

/// What to do with a successful tool call seen `times` times in this step with no file
/// changed since its first time: run it, run it and say the result cannot have changed, or
/// end the step (small models re-read one file until the budget runs out).
pub fn repeated_call(times: u32) -> RepeatedCall {
    match times {
        0 | 1 => RepeatedCall::Fresh,
        t if t < REPEATED_CALL_LIMIT => RepeatedCall::Nudge,
        _ => RepeatedCall::EndStep,
    }
}

/// See [`repeated_call`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepeatedCall {
    Fresh,
    Nudge,
    EndStep,
}

/// Whether a coder step that has made `calls` model calls may make another.
pub fn coder_step_cap_reached(calls: u32, limits: &Limits) -> bool {
    calls >= limits.coder_step_calls.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::facts::testing::changed_and_verified;
    use crate::graph::state::{FailureEntry, StepRecord};
    use crate::graph::tasks::{
        empty_done_refusal, follow_up_task, opening_task, task_from_failure,
    };
    use kotef_core::Profile;
    use kotef_tools::FailureKind;

    fn limits() -> Limits {
        Limits::for_profile(Profile::Strict)
    }

    fn decision(next: NodeName) -> PlannerDecision {
        PlannerDecision {
            next,
            reason: "r".into(),
            plan: vec![],
            query: Some("q".into()),
            task: Some("t".into()),
            verify: None,
        }
    }

    fn test(passed: bool, sig: &str) -> TestResult {
        TestResult {
            command: "cargo test".into(),
            passed,
            exit_code: Some(if passed { 0 } else { 101 }),
            kind: None,
            summary: String::new(),
            error_signature: (!passed).then(|| sig.to_string()),
            same_error_count: 0,
            step: 1,
            after_code_change: false,
            outside_cause: None,
            timed_out: false,
        }
    }

    fn opened_with(t: TestResult) -> RunState {
        let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
        s.test = Some(TestResult {
            kind: Some(FailureKind::TestFailure),
            summary: "AssertionError: 1 != 2".into(),
            ..t
        });
        s
    }

    #[test]
    fn a_failing_opening_verification_becomes_the_coders_task() {
        let task = opening_task(&opened_with(test(false, "e"))).unwrap_or_default();
        assert!(task.contains("AssertionError: 1 != 2"), "{task}");
    }

    #[test]
    fn a_missing_function_becomes_an_add_task() {
        let mut s = opened_with(test(false, "e"));
        s.test.as_mut().unwrap().summary =
            "ImportError: cannot import name 'median' from 'stats' (/w/stats.py)".into();
        let task = opening_task(&s).unwrap_or_default();
        assert!(
            task.starts_with("Add the missing function `median` to `stats.py`"),
            "{task}"
        );
    }

    #[test]
    fn a_partial_ending_names_the_failure_the_tests_still_show() {
        let mut s = opened_with(test(false, "e"));
        s.finish(done_verdict(&s, "nothing to change"));
        assert_eq!(
            reason_with_failure(&s).unwrap_or_default(),
            "The planner said done but the last verification (`cargo test`) failed; what remains is written to .sdd/issues.md. `cargo test` still fails with: AssertionError: 1 != 2 (see whether it can be fixed inside the repository at all)."
        );
    }

    #[test]
    fn a_budget_stop_names_the_failure_the_tests_still_show() {
        let mut s = opened_with(test(false, "e"));
        s.stop(StopRule::Budget, "The time budget ran out.");
        assert_eq!(
            reason_with_failure(&s).unwrap_or_default(),
            "The time budget ran out. `cargo test` still fails with: AssertionError: 1 != 2 (see whether it can be fixed inside the repository at all)."
        );
    }

    #[test]
    fn a_passing_opening_verification_leaves_the_choice_to_the_planner() {
        assert_eq!(opening_task(&opened_with(test(true, ""))), None);
    }

    #[test]
    fn a_test_command_that_cannot_run_goes_to_the_planner() {
        let mut s = opened_with(test(false, "e"));
        s.test.as_mut().unwrap().kind = Some(FailureKind::ToolingError);
        assert_eq!(opening_task(&s), None);
    }

    #[test]
    fn only_the_runs_first_step_opens_with_the_coder() {
        let mut s = opened_with(test(false, "e"));
        s.timeline.push(StepRecord {
            step: 1,
            node: NodeName::Planner,
            decision: Decision::Route(NodeName::Verifier),
            reason: String::new(),
            progress: false,
            revisit_of: None,
            only_test_edits: false,
            redirect: None,
        });
        assert_eq!(opening_task(&s), None);
    }

    fn add_coder_step(s: &mut RunState) {
        s.timeline.push(StepRecord {
            step: s.timeline.len() as u32 + 1,
            node: NodeName::Coder,
            decision: Decision::Code(CoderEnd::Done),
            reason: String::new(),
            progress: false,
            revisit_of: None,
            only_test_edits: false,
            redirect: None,
        });
    }

    fn outside_after(coder_steps: usize) -> RunState {
        let mut s = opened_with(test(false, "e"));
        s.test.as_mut().unwrap().outside_cause =
            Some("a network host name that does not resolve here".into());
        for _ in 0..coder_steps {
            add_coder_step(&mut s);
        }
        s
    }

    fn after_coder_change(progress: bool) -> RunState {
        let mut s = opened_with(test(false, "e"));
        s.test.as_mut().unwrap().after_code_change = true;
        add_coder_step(&mut s);
        s.timeline.last_mut().unwrap().progress = progress;
        s
    }

    #[test]
    fn a_coder_change_that_still_fails_sends_the_new_failure_back_to_the_coder() {
        let task = follow_up_task(&after_coder_change(true)).unwrap_or_default();
        assert!(task.contains("AssertionError: 1 != 2"), "{task}");
    }

    #[test]
    fn a_coder_step_without_progress_goes_to_the_planner() {
        assert_eq!(follow_up_task(&after_coder_change(false)), None);
    }

    #[test]
    fn a_coder_change_the_command_cannot_run_goes_to_the_planner() {
        let mut s = after_coder_change(true);
        s.test.as_mut().unwrap().kind = Some(FailureKind::ToolingError);
        assert_eq!(follow_up_task(&s), None);
    }

    #[test]
    fn a_coder_done_with_nothing_changed_on_failing_tests_is_refused_with_the_failure() {
        let why = empty_done_refusal(&opened_with(test(false, "e"))).unwrap_or_default();
        assert!(
            why.starts_with("Refused: you called done but changed nothing, and `cargo test` still fails with: AssertionError: 1 != 2."),
            "{why}"
        );
    }

    #[test]
    fn a_coder_done_with_nothing_changed_is_refused_once_per_run() {
        let mut s = opened_with(test(false, "e"));
        s.empty_done_refusals = 1;
        assert_eq!(empty_done_refusal(&s), None);
    }

    #[test]
    fn a_task_from_a_failure_outside_the_repository_says_the_coder_may_stop() {
        let task = task_from_failure(&outside_after(0)).unwrap_or_default();
        assert!(
            task.ends_with("That needs a network host name that does not resolve here, outside the repository: if the code cannot pass without it, call done and say so."),
            "{task}"
        );
    }

    #[test]
    fn a_coder_done_on_a_failure_outside_the_repository_is_taken() {
        assert_eq!(empty_done_refusal(&outside_after(0)), None);
    }

    #[test]
    fn a_coder_done_on_passing_tests_is_taken() {
        assert_eq!(empty_done_refusal(&opened_with(test(true, ""))), None);
    }

    fn failing(summary: &str, after_change: bool) -> TestResult {
        TestResult {
            summary: summary.into(),
            after_code_change: after_change,
            ..test(false, summary)
        }
    }

    #[test]
    fn a_change_that_fails_more_tests_is_a_regression() {
        let before = failing("FAILED (failures=1); AssertionError: None != -1", false);
        let after = failing("FAILED (failures=2); AssertionError: None != 1", true);
        assert!(regression(Some(&before), &after));
    }

    #[test]
    fn a_change_that_breaks_the_syntax_is_a_regression() {
        let before = failing("FAILED (failures=1); AssertionError: 1 != 2", false);
        let after = failing("IndentationError: unexpected indent", true);
        assert!(regression(Some(&before), &after));
    }

    #[test]
    fn adding_a_missing_function_that_then_fails_tests_is_not_a_regression() {
        let before = failing(
            "FAILED (errors=1); ImportError: cannot import name 'median'",
            false,
        );
        let after = failing("FAILED (failures=2); AssertionError: 2.0 != 2.5", true);
        assert!(!regression(Some(&before), &after));
    }

    #[test]
    fn the_same_number_of_failures_is_not_a_regression() {
        let before = failing("FAILED (failures=1); AssertionError: 1 != 2", false);
        let after = failing("FAILED (failures=1); AssertionError: 3 != 2", true);
        assert!(!regression(Some(&before), &after));
    }

    #[test]
    fn research_progress_needs_a_real_call_with_new_results() {
        let before = ResearchState::default();
        let mut after = before.clone();
        after.attempts = 1;
        after.results_hash = Some("h1".into());
        assert!(research_progress(&before, &after));
        // A repeated query answered from memory: no new attempt.
        assert!(!research_progress(&after, &after));
        // A new query that found the same thing again.
        let mut seen = after.clone();
        seen.seen_hashes.insert("h1".into());
        let mut again = seen.clone();
        again.attempts = 2;
        assert!(!research_progress(&seen, &again));
    }

    #[test]
    fn file_progress_compares_content_not_count() {
        let a: BTreeMap<_, _> = [("a".to_string(), "1".to_string())].into();
        let b: BTreeMap<_, _> = [("a".to_string(), "2".to_string())].into();
        assert!(files_progress(&a, &b));
        assert!(!files_progress(&a, &a.clone()));
        let renamed: BTreeMap<_, _> = [("b".to_string(), "1".to_string())].into();
        assert!(files_progress(&a, &renamed));
    }

    #[test]
    fn a_first_verification_is_progress() {
        assert!(verification_progress(None, &test(false, "x"), false));
    }

    #[test]
    fn new_error_text_on_the_same_files_is_noise() {
        assert!(!same_files(
            test(false, "at 10:01:02 pid 4242"),
            test(false, "at 10:01:09 pid 4250")
        ));
    }

    /// Whether a verification after `before` on the same files is progress.
    fn same_files(before: TestResult, after: TestResult) -> bool {
        verification_progress(Some(&before), &after, false)
    }

    #[test]
    fn a_pass_fail_flip_is_progress() {
        assert!(same_files(test(false, "x"), test(true, "")));
        assert!(!same_files(test(true, ""), test(true, "")));
    }

    #[test]
    fn a_verification_of_changed_files_is_progress() {
        assert!(verification_progress(
            Some(&test(false, "x")),
            &test(false, "x"),
            true
        ));
    }

    #[test]
    fn budgets_and_step_cap() {
        let l = Limits {
            token_budget: 100,
            time_budget_s: 10,
            max_steps: 5,
            ..limits()
        };
        let spent = |tokens, elapsed_s| Spent {
            tokens,
            elapsed_s,
            ..Spent::default()
        };
        assert_eq!(budget_stop(&spent(99, 9), &l), None);
        assert_eq!(
            budget_stop(&spent(100, 0), &l).unwrap().rule,
            StopRule::Budget
        );
        assert_eq!(
            budget_stop(&spent(0, 10), &l).unwrap().rule,
            StopRule::Budget
        );
        assert_eq!(step_cap_reached(3, &l), None);
        assert_eq!(step_cap_reached(4, &l).unwrap().rule, StopRule::MaxSteps);
    }

    #[test]
    fn the_model_call_budget_fires_at_its_limit() {
        let l = Limits {
            max_model_calls: 4,
            ..limits()
        };
        let spent = |model_calls| Spent {
            model_calls,
            ..Spent::default()
        };
        assert_eq!(budget_stop(&spent(3), &l), None);
        let f = budget_stop(&spent(4), &l).unwrap();
        assert_eq!(f.rule, StopRule::Budget);
        assert!(f.reason.contains("model-call budget"), "{}", f.reason);
    }

    #[test]
    fn the_dollar_budget_fires_when_spent() {
        let l = Limits {
            cost_budget_usd: Some(0.5),
            ..limits()
        };
        let spent = |cost_usd| Spent {
            cost_usd,
            ..Spent::default()
        };
        assert_eq!(budget_stop(&spent(Some(0.49)), &l), None);
        assert_eq!(budget_stop(&spent(None), &l), None);
        let f = budget_stop(&spent(Some(0.5)), &l).unwrap();
        assert!(f.reason.contains("dollar budget"), "{}", f.reason);
    }

    #[test]
    fn a_dollar_budget_needs_a_known_price() {
        assert_eq!(cost_budget_usable(None, false), Ok(()));
        assert_eq!(cost_budget_usable(Some(1.0), true), Ok(()));
        let e = cost_budget_usable(Some(1.0), false).unwrap_err();
        assert!(e.contains("price_prompt_per_mtok"), "{e}");
        assert!(cost_budget_usable(Some(-1.0), true).is_err());
    }

    #[test]
    fn the_deadline_names_what_it_cancelled() {
        let f = deadline_cancelled("model call", &limits());
        assert_eq!(f.rule, StopRule::Budget);
        assert!(f.reason.contains("model call in flight was cancelled"));
    }

    #[test]
    fn three_failed_calls_in_a_row_fire_model_error() {
        let e = ModelError::Server {
            status: 500,
            message: "down".into(),
        };
        assert_eq!(model_failure(&e, "down", 2), None);
        assert_eq!(
            model_failure(&e, "down", 3).unwrap().rule,
            StopRule::ModelError
        );
    }

    #[test]
    fn a_rejected_request_fires_model_error_at_once() {
        let e = ModelError::Rejected {
            status: 401,
            message: "bad key".into(),
        };
        let f = model_failure(&e, "bad key", 1).unwrap();
        assert!(f.reason.contains("rejected"));
    }

    #[test]
    fn a_hard_denial_ends_only_strict_runs() {
        let f = command_denied(Profile::Strict, "sudo x", "no", Denial::Hard).unwrap();
        assert_eq!(f.rule, StopRule::Constraint);
        assert_eq!(
            command_denied(Profile::Yolo, "sudo x", "no", Denial::Hard),
            None
        );
    }

    #[test]
    fn a_command_off_the_allow_list_is_forgiven_until_the_limit() {
        let at = |count| {
            command_denied(Profile::Strict, "awk x", "no", Denial::OffList { count })
                .map(|f| f.rule)
        };
        assert_eq!(
            (at(1), at(SOFT_DENIAL_LIMIT - 1), at(SOFT_DENIAL_LIMIT)),
            (None, None, Some(StopRule::Constraint))
        );
    }

    #[test]
    fn done_is_success_only_after_a_passing_verification_of_the_last_change() {
        let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
        assert_eq!(done_verdict(&s, "r").status, TerminalStatus::DonePartial);
        s.test = Some(test(true, ""));
        s.hashes_at_last_verification = Some(s.file_hashes.clone());
        let e = done_verdict(&s, "r");
        assert_eq!(e.status, TerminalStatus::DoneSuccess);
        assert!(e.reason.contains("`cargo test`"), "{}", e.reason);
        s.file_hashes.insert("a".into(), "2".into());
        assert_eq!(done_verdict(&s, "r").status, TerminalStatus::DonePartial);
    }

    #[test]
    fn giving_up_is_aborted_stuck_without_a_rule() {
        let e = gave_up("cannot");
        assert_eq!((e.status, e.rule), (TerminalStatus::AbortedStuck, None));
    }

    #[test]
    fn a_world_seen_before_is_a_revisit() {
        let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
        s.file_hashes.insert("a".into(), "A".into());
        s.seen_states.insert(world_fingerprint(&s), 2);
        s.file_hashes.insert("a".into(), "B".into());
        assert_eq!(revisit_of(&s), None);
        s.file_hashes.insert("a".into(), "A".into());
        assert_eq!(revisit_of(&s), Some(2));
    }

    #[test]
    fn the_world_ignores_error_text_but_sees_a_verified_outcome() {
        let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
        let unverified = world_fingerprint(&s);
        s.test = Some(test(false, "x"));
        s.hashes_at_last_verification = Some(s.file_hashes.clone());
        let failed = world_fingerprint(&s);
        assert_ne!(failed, unverified);
        s.test = Some(test(false, "y"));
        assert_eq!(world_fingerprint(&s), failed);
        s.file_hashes.insert("a".into(), "1".into());
        let changed = world_fingerprint(&s);
        s.test = Some(test(true, ""));
        assert_eq!(
            world_fingerprint(&s),
            changed,
            "the outcome was not of these files"
        );
    }

    #[test]
    fn the_third_reply_without_tool_calls_ends_the_step() {
        assert_eq!(no_tool_call(1), NoToolCall::Continue);
        assert_eq!(no_tool_call(2), NoToolCall::Correct);
        assert_eq!(no_tool_call(3), NoToolCall::EndStep);
    }

    #[test]
    fn a_repeated_unchanged_call_is_run_then_nudged_then_ends_the_step() {
        assert_eq!(
            [1, 2, 3].map(repeated_call),
            [
                RepeatedCall::Fresh,
                RepeatedCall::Nudge,
                RepeatedCall::EndStep
            ]
        );
    }

    #[test]
    fn the_third_identical_failing_call_ends_the_step() {
        assert!(!repeated_failure_ends_step(2));
        assert!(repeated_failure_ends_step(3));
    }

    #[test]
    fn the_coder_step_call_cap() {
        let l = Limits {
            coder_step_calls: 5,
            ..limits()
        };
        assert!(!coder_step_cap_reached(4, &l));
        assert!(coder_step_cap_reached(5, &l));
    }

    #[test]
    fn review_asks_for_done_only_when_work_settled() {
        assert_eq!(budget_review(1, true, false), Review::AskForDone);
        assert_eq!(
            budget_review(1, true, true),
            Review::Continue { warn: false }
        );
        assert_eq!(
            budget_review(1, false, false),
            Review::Continue { warn: false }
        );
        assert_eq!(
            budget_review(3, false, false),
            Review::Continue { warn: true }
        );
        assert_eq!(budget_review(6, true, false), Review::EndStep);
    }

    #[test]
    fn fingerprint_ignores_counters_but_sees_files_and_tests() {
        let mut s = RunState::new("g", Profile::Strict, BTreeMap::new());
        let f0 = state_fingerprint(&s);
        s.total_steps = 9;
        s.loop_counters.planner_to_coder = 3;
        assert_eq!(state_fingerprint(&s), f0);
        s.file_hashes.insert("a".into(), "1".into());
        let f1 = state_fingerprint(&s);
        assert_ne!(f1, f0);
        s.test = Some(test(false, "x"));
        s.hashes_at_last_verification = Some(s.file_hashes.clone());
        assert_ne!(state_fingerprint(&s), f1);
    }

    #[test]
    fn decision_keys_include_query_and_task() {
        let mut d = decision(NodeName::Researcher);
        assert_eq!(decision_key(&d), "researcher:q");
        d.next = NodeName::Coder;
        assert_eq!(decision_key(&d), "coder:t");
        d.next = NodeName::Verifier;
        assert_eq!(decision_key(&d), "verifier");
    }

    fn coder_step(end: CoderEnd) -> StepRecord {
        StepRecord {
            step: 1,
            node: NodeName::Coder,
            decision: Decision::Code(end),
            reason: String::new(),
            progress: true,
            revisit_of: None,
            only_test_edits: false,
            redirect: None,
        }
    }

    fn fixed(end: CoderEnd, failed_before: bool) -> RunState {
        let mut s = changed_and_verified(true);
        s.timeline.push(coder_step(end));
        if failed_before {
            s.failures.entries.push(FailureEntry {
                step: 0,
                command: "t".into(),
                exit_code: Some(1),
                kind: FailureKind::TestFailure,
                summary: "e".into(),
            });
        }
        s
    }

    #[test]
    fn a_fix_the_coder_called_done_on_ends_the_run_without_a_planner_call() {
        assert_eq!(
            fixed_and_done(&fixed(CoderEnd::Done, true)).map(|e| e.status),
            Some(TerminalStatus::DoneSuccess)
        );
    }

    #[test]
    fn a_coder_that_did_not_call_done_leaves_the_end_to_the_planner() {
        assert_eq!(fixed_and_done(&fixed(CoderEnd::TurnsUsed, true)), None);
    }

    #[test]
    fn a_pass_in_a_run_that_never_failed_leaves_the_end_to_the_planner() {
        assert_eq!(fixed_and_done(&fixed(CoderEnd::Done, false)), None);
    }

    #[test]
    fn a_loop_rule_after_verified_success_ends_in_success() {
        let f = Fired {
            rule: StopRule::PlannerToCoder,
            reason: "loop".into(),
        };
        assert_eq!(
            success_over_stop(&changed_and_verified(true), &f).map(|e| e.status),
            Some(TerminalStatus::DoneSuccess)
        );
        assert_eq!(success_over_stop(&changed_and_verified(false), &f), None);
    }
}
