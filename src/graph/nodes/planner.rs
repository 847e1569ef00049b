//! The planner node: asks the model where to go next, parses its JSON proposal, and lets the
//! deterministic rules clamp looping or impossible transitions. A malformed reply is re-asked
//! at most twice with a corrective message, then the step counts as one without progress.

use crate::graph::guards::{
    self,
    commands::{CommandEvent, CommandFacts},
    runner::{self, Settled, Stop},
};
use crate::graph::memory::handoff::Handoff;
use crate::graph::memory::state::{
    CommandSource, Decision, Ending, Fired, PlannerDecision, RunState,
};
use crate::graph::nodes::llm::{self, CallFailure};
use crate::graph::prompt::context::{self, PLANNER_PROMPT};
use crate::graph::{GraphContext, StepResult};
use kotef_core::{NodeName, TerminalStatus};
use kotef_model::{Message, ModelRequest};
use serde_json::Value;

/// Re-asks after a malformed reply, per planner step.
pub const PLANNER_REASKS: usize = 2;

/// Why a planner reply could not be used (quoted back to the model when it is re-asked).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecisionError {
    #[error("no JSON object found (or it is not valid JSON)")]
    NoObject,
    #[error("missing string field `next`")]
    MissingNext,
    #[error("`next` must be one of researcher, coder, verifier, snitch, done (got {0:?})")]
    BadNext(String),
}

/// Parses a planner reply. Tolerates a ```json fence and prose around one JSON object.
pub fn parse_decision(text: &str) -> Result<PlannerDecision, DecisionError> {
    let obj = &kotef_model::first_json_object(text).ok_or(DecisionError::NoObject)?;
    let next_raw = obj
        .get("next")
        .and_then(Value::as_str)
        .ok_or(DecisionError::MissingNext)?;
    let next = NodeName::parse(next_raw.trim())
        .filter(|n| *n != NodeName::Planner)
        .ok_or_else(|| DecisionError::BadNext(next_raw.to_string()))?;
    let text_field = |k: &str| {
        obj.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };
    let plan = match obj.get("plan") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.as_str().map(String::from))
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    };
    Ok(PlannerDecision {
        next,
        reason: text_field("reason").unwrap_or_default(),
        plan,
        query: text_field("query"),
        task: text_field("task"),
        verify: text_field("verify"),
    })
}

/// One planner step.
pub async fn step(ctx: &GraphContext, state: &mut RunState, handoff: &mut Handoff) -> StepResult {
    let facts = guards::Facts::before_planner(state, &ctx.limits);
    if let Some(stop) = runner::first_stop(guards::BEFORE_PLANNER, &facts) {
        return match runner::settle(state, stop) {
            Settled::Succeeded(ending) => succeeded(ending),
            Settled::Stopped(f) => stopped(f),
        };
    }
    if let Some(d) = handoff.standing_decision.take() {
        return apply_decision(ctx, state, handoff, d);
    }
    let snapshot = ctx.snapshot().await;
    let note = handoff
        .planner_note
        .take()
        .map(|n| crate::graph::prompt::messages::PlannerRefusedNote { note: &n }.to_string())
        .unwrap_or_default();
    let none = crate::graph::prompt::messages::PlannerNoTestCommand.to_string();
    let user = crate::graph::prompt::messages::PlannerUser {
        goal: &state.goal,
        run_state: &context::run_state_summary(state),
        repo_state: &context::repo_state(&snapshot, state),
        test_command: state.test_command.as_deref().unwrap_or(&none),
        note: &note,
    }
    .to_string();
    let mut messages = vec![Message::system(PLANNER_PROMPT), Message::user(user)];
    let mut decision = None;
    let mut last_problem = String::new();
    for _ in 0..=PLANNER_REASKS {
        let request = ModelRequest {
            node: NodeName::Planner,
            messages: messages.clone(),
            tools: Vec::new(),
            json_reply: true,
            temperature: None,
            max_tokens: None,
            code_reply: false,
            alternatives: None,
        };
        match llm::call(ctx, state, NodeName::Planner, request).await {
            Err(CallFailure::Stopped) => return StepResult::stopped(state, false),
            Err(CallFailure::Failed(e)) => {
                last_problem =
                    format!("model call failed: {}", ctx.redactor.redact(&e.to_string()));
            }
            Ok(reply) => match parse_decision(&reply.content) {
                Ok(d) => {
                    decision = Some(d);
                    break;
                }
                Err(problem) => {
                    last_problem = format!("malformed planner reply: {problem}");
                    messages.push(Message::assistant(context::clip(&reply.content, 2000)));
                    let reask = crate::graph::prompt::messages::PlannerReask {
                        problem: &problem.to_string(),
                        shape: &crate::graph::prompt::messages::PlannerDecisionShape.to_string(),
                    };
                    messages.push(Message::user(reask.to_string()));
                }
            },
        }
    }
    let Some(decision) = decision else {
        return StepResult::to(NodeName::Planner, Decision::Malformed, last_problem, false);
    };
    apply_decision(ctx, state, handoff, decision)
}

/// The step of a run a rule ended in success (verified success wins).
fn succeeded(ending: Ending) -> StepResult {
    StepResult::to(NodeName::Done, Decision::Done, ending.reason, false)
}

/// The step of a run a stop rule ended.
fn stopped(f: Fired) -> StepResult {
    StepResult::to(
        NodeName::Snitch,
        Decision::Stop(Some(f.rule)),
        f.reason,
        false,
    )
}

/// The step of a run the planner ended (`done` or `snitch`), with its reason.
fn ended(state: &mut RunState, d: PlannerDecision, ending: Ending, reason: String) -> StepResult {
    let (next, decision) = match (d.next, ending.status) {
        (NodeName::Snitch, _) => (NodeName::Snitch, Decision::GaveUp),
        (_, TerminalStatus::DoneSuccess) => (NodeName::Done, Decision::Done),
        _ => (NodeName::Snitch, Decision::DonePartial),
    };
    state.last_decision = Some(d);
    runner::finish(state, ending);
    StepResult::to(next, decision, reason, false)
}

/// Applies a parsed proposal: counts the hop, then lets the rules clamp it.
fn apply_decision(
    ctx: &GraphContext,
    state: &mut RunState,
    handoff: &mut Handoff,
    d: PlannerDecision,
) -> StepResult {
    if !d.plan.is_empty() {
        state.plan = d.plan.clone();
    }
    state.last_planner_reason = d.reason.clone();
    let reason = if d.reason.is_empty() {
        "(no reason given)".to_string()
    } else {
        d.reason.clone()
    };
    if let Some(stopped) = adopt_verify_command(state, ctx.tools.policy(), d.verify.as_deref()) {
        return stopped;
    }
    // The proposal guards may end the run in success, refuse a `done`, or send the coder the
    // failure instead (a give-up before a fair try, a re-verification of the same failure).
    let proposal = guards::Hop {
        decision: &d,
        repeats: 0,
    };
    let facts = guards::Facts::on_hop(state, &ctx.limits, proposal);
    let verdict = guards::first_verdict(guards::ON_PROPOSAL, &facts);
    let (d, reason, redirect) = match verdict {
        guards::Verdict::Continue => (d, reason, None),
        guards::Verdict::Redirect { task, why } => (
            PlannerDecision {
                next: NodeName::Coder,
                task: Some(task),
                ..d
            },
            format!("{reason} [{}]", why.note()),
            Some(why),
        ),
        guards::Verdict::Succeed(ending) => {
            state.last_decision = Some(d);
            runner::finish(state, ending.clone());
            return succeeded(ending);
        }
        guards::Verdict::Refuse(note) => return refuse_done(state, handoff, d, note),
        guards::Verdict::End(ending) => return ended(state, d, ending, reason),
        guards::Verdict::Stop(f) => {
            state.last_decision = Some(d);
            return match runner::settle(state, Stop::at::<guards::OnProposal>(f)) {
                Settled::Succeeded(ending) => succeeded(ending),
                Settled::Stopped(f) => stopped(f),
            };
        }
    };
    route(ctx, state, d, reason).with_redirect(redirect)
}

/// Takes the hop the planner (or a redirect) chose: ends the run on `done` or `snitch`, or
/// counts the hop and lets the hop guards judge it.
fn route(
    ctx: &GraphContext,
    state: &mut RunState,
    d: PlannerDecision,
    reason: String,
) -> StepResult {
    let next = d.next;
    let Some(edge) = next.edge() else {
        return StepResult::to(
            NodeName::Planner,
            Decision::Malformed,
            "impossible next node".into(),
            false,
        );
    };
    let mut d = d;
    // Fill what an edge needs so the node never runs blind.
    if next == NodeName::Researcher && d.query.is_none() {
        d.query = Some(state.goal.clone());
    }
    if next == NodeName::Coder && d.task.is_none() {
        d.task = Some(
            crate::graph::rules::tasks::task_from_failure(state)
                .or_else(|| state.plan.first().cloned())
                .unwrap_or_else(|| state.goal.clone()),
        );
    }
    *state.loop_counters.get_mut(edge) += 1;
    state.routing.push(edge, &reason);
    let key = format!(
        "{}|{}",
        crate::graph::memory::progress::state_fingerprint(state),
        crate::graph::memory::progress::decision_key(&d)
    );
    let repeats = {
        let n = state.decision_repeats.entry(key).or_insert(0);
        *n += 1;
        *n
    };
    let hop = guards::Hop {
        decision: &d,
        repeats,
    };
    let facts = guards::Facts::on_hop(state, &ctx.limits, hop);
    let stop = runner::first_stop(guards::ON_HOP, &facts);
    state.last_decision = Some(d);
    match stop.map(|stop| runner::settle(state, stop)) {
        Some(Settled::Succeeded(ending)) => succeeded(ending),
        Some(Settled::Stopped(f)) => StepResult::to(
            NodeName::Snitch,
            Decision::Refused {
                to: next,
                rule: f.rule,
            },
            f.reason,
            false,
        ),
        None => StepResult::to(next, Decision::Route(next), reason, false),
    }
}

/// A refused `done`: the note goes to the planner's next prompt. With a test command the
/// refusal costs no model call: the verifier checks the current state, and the planner
/// decides again with its result in front of it.
fn refuse_done(
    state: &mut RunState,
    handoff: &mut Handoff,
    d: PlannerDecision,
    note: String,
) -> StepResult {
    state.last_decision = Some(d);
    handoff.planner_note = Some(note.clone());
    let next = if state.test_command.is_some() {
        NodeName::Verifier
    } else {
        NodeName::Planner
    };
    StepResult::to(next, Decision::DoneRefused, note, false)
}

/// Takes the planner's `"verify"` command when the run has none configured or detected. It
/// must pass the run's command policy (the profile and the repository's `allow` entries): a
/// denied one ends a strict run (`constraint`) and is ignored under yolo.
fn adopt_verify_command(
    state: &mut RunState,
    policy: &kotef_tools::RunPolicy,
    verify: Option<&str>,
) -> Option<StepResult> {
    let command = verify?;
    let replaceable =
        state.test_command.is_none() || state.test_command_source == Some(CommandSource::Planner);
    if !replaceable || state.test_command.as_deref() == Some(command) {
        return None;
    }
    if let kotef_tools::PolicyDecision::Deny { reason, .. } = policy.decide(command) {
        // The run's own test command is not a slip to correct: any denial of it ends the run.
        let facts = CommandFacts {
            profile: state.profile,
            command,
            event: CommandEvent::Denied {
                reason: &reason,
                denial: crate::graph::rules::budgets::Denial::Hard,
            },
        };
        return match runner::ask(state, guards::commands::ON_COMMAND, &facts)? {
            Settled::Stopped(f) => Some(stopped(f)),
            Settled::Succeeded(ending) => Some(succeeded(ending)),
        };
    }
    state.test_command = Some(command.to_string());
    state.test_command_source = Some(CommandSource::Planner);
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_fenced_and_wrapped_json() {
        let d = parse_decision(r#"{"next":"coder","reason":"fix","plan":["a"],"task":"do it"}"#)
            .unwrap();
        assert_eq!(d.next, NodeName::Coder);
        assert_eq!(d.task.as_deref(), Some("do it"));
        let d =
            parse_decision("```json\n{\"next\": \"done\", \"reason\": \"ok {x}\"}\n```").unwrap();
        assert_eq!(d.next, NodeName::Done);
        assert_eq!(d.reason, "ok {x}");
        let d = parse_decision("Sure! {\"next\":\"researcher\",\"query\":\"  \"} thanks").unwrap();
        assert_eq!(d.query, None);
        let d = parse_decision(r#"{"next":"verifier","verify":" sh test.sh "}"#).unwrap();
        assert_eq!(d.verify.as_deref(), Some("sh test.sh"));
    }

    #[test]
    fn braces_in_prose_before_the_object_are_skipped() {
        let d = parse_decision(r#"I think {this} matters. {"next":"coder","task":"fix {a}"}"#);
        assert_eq!(d.map(|d| d.task), Ok(Some("fix {a}".to_string())));
    }

    fn state(profile: kotef_core::Profile) -> RunState {
        crate::graph::memory::testing::run()
            .profile(profile)
            .build()
    }

    fn policy(s: &RunState) -> kotef_tools::RunPolicy {
        kotef_tools::RunPolicy::new(s.profile)
    }

    #[test]
    fn a_named_verify_command_the_repository_allows_is_adopted_under_strict() {
        let mut s = state(kotef_core::Profile::Strict);
        let p = policy(&s).with_allow(&["sh test.sh".into()]).unwrap();
        assert_eq!(adopt_verify_command(&mut s, &p, Some("sh test.sh")), None);
        assert_eq!(s.test_command.as_deref(), Some("sh test.sh"));
    }

    #[test]
    fn a_named_verify_command_is_adopted_when_none_was_found() {
        let mut s = state(kotef_core::Profile::Yolo);
        let p = policy(&s);
        assert_eq!(adopt_verify_command(&mut s, &p, Some("sh test.sh")), None);
        assert_eq!(s.test_command.as_deref(), Some("sh test.sh"));
        assert_eq!(s.test_command_source, Some(CommandSource::Planner));
    }

    #[test]
    fn a_named_verify_command_never_replaces_a_configured_one() {
        let mut s = state(kotef_core::Profile::Yolo);
        s.test_command = Some("cargo test".into());
        s.test_command_source = Some(CommandSource::Configured);
        let p = policy(&s);
        assert_eq!(adopt_verify_command(&mut s, &p, Some("sh test.sh")), None);
        assert_eq!(s.test_command.as_deref(), Some("cargo test"));
    }

    #[test]
    fn a_named_verify_command_the_strict_policy_denies_ends_the_run() {
        let mut s = state(kotef_core::Profile::Strict);
        let p = policy(&s);
        let r = adopt_verify_command(&mut s, &p, Some("sh test.sh")).unwrap();
        assert_eq!(
            r.decision,
            Decision::Stop(Some(kotef_core::StopRule::Constraint))
        );
        assert_eq!(s.test_command, None);
    }

    #[test]
    fn rejects_malformed_replies_without_panicking() {
        for bad in [
            "",
            "no json",
            "{",
            "{\"next\": 3}",
            "{\"next\": \"planner\"}",
            "{\"next\": \"elsewhere\"}",
            "[1,2]",
            "{\"reason\": \"x\"}",
            "}{",
        ] {
            assert!(parse_decision(bad).is_err(), "{bad:?}");
        }
    }
}
