//! The one door through which nodes reach the model: asks the budget rules before a call,
//! sizes it to the server's measured speed and the time left (`graph::rules::pacing`: a call that
//! cannot finish is not started, a timed-out request is never sent again unchanged), cancels a
//! call the time budget runs out on, charges every call's tokens (failed ones and provider
//! retries included) to `RunState` as one call with its attempts and waits, and asks the rules
//! whether a failure ends the run.

use crate::graph::guards::{
    self,
    budget::RunFacts,
    calls::{Cancelled, FailedCall},
};
use crate::graph::memory::events::{RunEvent, TokenOdds};
use crate::graph::memory::state::{CallRecord, RunState};
use crate::graph::rules::pacing::{CallPlan, Room};
use crate::graph::GraphContext;
use kotef_core::NodeName;
use kotef_model::{ModelError, ModelReply, ModelRequest};

/// Why a model call produced no reply.
#[derive(Debug)]
pub enum CallFailure {
    /// A stop rule fired (budget, model_error); the run has been ended in `state`.
    Stopped,
    /// This call failed but the run may go on (the caller decides whether to re-ask).
    Failed(ModelError),
}

/// The reply in the transcript and, with `KOTEF_LOG=kotef=debug`, in the log (redacted): what
/// the model said, for diagnosing a real model's run.
fn recorded(ctx: &GraphContext, step: u32, node: NodeName, reply: &ModelReply, latency_ms: u64) {
    ctx.record(RunEvent::ModelReply {
        step,
        node,
        content: reply.content.clone(),
        tool_calls: reply.tool_calls.clone(),
        finish_reason: reply.finish_reason.clone(),
        usage: reply.usage,
        latency_ms,
        odds: TokenOdds::of(&reply.tokens),
    });
    tracing::debug!(
        node = node.as_str(),
        content = %ctx.redactor.redact(&crate::graph::prompt::context::clip(&reply.content, 1500)),
        tool_calls = %ctx.redactor.redact(&reply
            .tool_calls
            .iter()
            .map(|c| crate::graph::prompt::context::clip(&format!("{} {}", c.name, c.arguments), 600))
            .collect::<Vec<_>>()
            .join(" | ")),
        "model reply"
    );
}

/// Makes one model call for `node`.
pub async fn call(
    ctx: &GraphContext,
    state: &mut RunState,
    node: NodeName,
    mut request: ModelRequest,
) -> Result<ModelReply, CallFailure> {
    let before = RunFacts {
        limits: &ctx.limits,
        spent: ctx.spent(state),
        total_steps: state.total_steps,
    };
    if guards::runner::ask(state, guards::budget::BEFORE_CALL, &before).is_some() {
        return Err(CallFailure::Stopped);
    }
    let step = state.total_steps + 1;
    if !sized(ctx, state, node, step, &mut request) {
        return Err(CallFailure::Stopped);
    }
    state.pacing.sent(&request);
    ctx.record(RunEvent::ModelRequest {
        step,
        node,
        messages: request.messages.clone(),
        tools: request.tools.iter().map(|t| t.name.clone()).collect(),
    });
    let started = std::time::Instant::now();
    let result = tokio::time::timeout(ctx.time_left(), ctx.model.complete(&request)).await;
    let mut record = CallRecord {
        latency_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        ..CallRecord::new(node)
    };
    for retried in ctx.model.take_failed_attempts() {
        record.prompt_tokens += retried.prompt_tokens;
        record.completion_tokens += retried.completion_tokens;
    }
    for attempt in ctx.model.take_call_records() {
        record.attempts += 1;
        record.retry_wait_ms += attempt.waited_ms;
        if let Some(e) = attempt.error {
            record.last_error = Some(ctx.redactor.redact(&e));
        }
    }
    let Ok(result) = result else {
        record.prompt_tokens += request.estimated_prompt_tokens();
        record.failed = true;
        state.record_call(record);
        let at = Cancelled {
            what: "model call",
            limits: &ctx.limits,
        };
        guards::runner::ask(state, guards::calls::AT_DEADLINE, &at);
        return Err(CallFailure::Stopped);
    };
    match result {
        Ok(reply) => {
            record.prompt_tokens += reply.usage.prompt_tokens;
            record.completion_tokens += reply.usage.completion_tokens;
            record.calls_from_text = reply.calls_from_text;
            if !request.tools.is_empty() {
                if let Some(settled) = ctx.edit_format.observe(&reply) {
                    tracing::info!(
                        ?settled,
                        "the server's reply settles the edit format (edit_format = auto)"
                    );
                }
            }
            record.timings = reply.timings;
            recorded(ctx, step, node, &reply, record.latency_ms);
            state.record_call(record);
            Ok(reply)
        }
        Err(err) => {
            if matches!(err, ModelError::Timeout(_)) {
                let cap = reply_cap(ctx.model.reply_cap(), request.max_tokens);
                state.pacing.timed_out(&request, cap);
            }
            let err_text = ctx.redactor.redact(&err.to_string());
            record.prompt_tokens += request.estimated_prompt_tokens();
            record.failed = true;
            record.last_error = Some(err_text.clone());
            ctx.record(RunEvent::ModelError {
                step,
                node,
                error: err_text.clone(),
            });
            state.record_call(record);
            tracing::warn!(node = node.as_str(), error = %err_text, "model call failed");
            let failed = FailedCall {
                error: &err,
                text: &err_text,
                in_a_row: state.failed_calls_in_a_row(),
            };
            if guards::runner::ask(state, guards::calls::AFTER_FAILED_CALL, &failed).is_some() {
                return Err(CallFailure::Stopped);
            }
            Err(CallFailure::Failed(err))
        }
    }
}

/// Prompt tokens (beyond what the server has cached) the next call may have and still finish
/// in the time left, at the server's measured speed; `None` while it is unknown. A prompt
/// builder that can leave context out uses it rather than have its call not started.
pub fn prompt_allowance(ctx: &GraphContext) -> Option<u64> {
    crate::graph::memory::sent_calls::CallPacing::prompt_allowance(room(ctx))
}

fn room(ctx: &GraphContext) -> Room {
    Room {
        speed: ctx.model.server_speed(),
        time_left: ctx.time_left(),
        configured_cap: ctx.model.reply_cap(),
    }
}

/// Sizes `request` to the server's measured speed and the time left (`graph::rules::pacing`):
/// lowers its reply cap when it must, or ends the run when it cannot finish or is a timed-out
/// request that may not be sent again (false; the reason is in the transcript and the report).
fn sized(
    ctx: &GraphContext,
    state: &mut RunState,
    node: NodeName,
    step: u32,
    request: &mut ModelRequest,
) -> bool {
    let plan = state.pacing.plan(request, node.as_str(), room(ctx));
    if let CallPlan::NotStarted { reason, .. } = &plan {
        tracing::warn!(node = node.as_str(), "{reason}");
        ctx.record(RunEvent::CallPaced {
            step,
            node,
            sent: false,
            note: format!("call not started: {reason}"),
        });
    }
    if guards::runner::ask(state, guards::calls::CALL_PACED, &&plan).is_some() {
        return false;
    }
    match plan {
        CallPlan::Send { reply_cap, note } => {
            if let Some(cap) = reply_cap {
                request.max_tokens = Some(cap);
            }
            if let Some(note) = note {
                tracing::info!(node = node.as_str(), "{note}");
                ctx.record(RunEvent::CallPaced {
                    step,
                    node,
                    sent: true,
                    note: format!("call resized: {note}"),
                });
            }
            true
        }
        // Every plan not to send a call is a stop above.
        CallPlan::NotStarted { .. } => false,
    }
}

/// The reply cap a request goes with: the smaller of the configured one and its own.
fn reply_cap(configured: Option<u32>, requested: Option<u32>) -> Option<u32> {
    kotef_model::openai::reply_cap(configured, requested)
}
