//! The one door through which nodes reach the model: checks the budgets before a call,
//! charges every call's tokens (failed ones and provider retries included) to `RunState`,
//! and turns provider failures into stop rules when they are final.

use super::rules::{self, Fired};
use super::state::RunState;
use super::GraphContext;
use kotef_core::{NodeName, StopRule};
use kotef_model::{ModelError, ModelReply, ModelRequest};

/// Why a model call produced no reply.
#[derive(Debug)]
pub enum CallFailure {
    /// A stop rule fired (budget, model_error); the run has been ended in `state`.
    Stopped,
    /// This call failed but the run may go on (the caller decides whether to re-ask).
    Failed(ModelError),
}

/// Makes one model call for `node`.
pub async fn call(
    ctx: &GraphContext,
    state: &mut RunState,
    node: NodeName,
    request: ModelRequest,
) -> Result<ModelReply, CallFailure> {
    if let Some(Fired { rule, reason }) = rules::budget_stop(
        state.tokens_used(),
        ctx.started.elapsed().as_secs(),
        &ctx.limits,
    ) {
        state.stop(rule, reason);
        return Err(CallFailure::Stopped);
    }
    let started = std::time::Instant::now();
    let result = ctx.model.complete(&request).await;
    let latency_ms = started.elapsed().as_millis() as u64;
    for failed in ctx.model.take_failed_attempts() {
        state.record_call(
            node,
            failed.prompt_tokens,
            failed.completion_tokens,
            0,
            true,
        );
    }
    match result {
        Ok(reply) => {
            state.record_call(
                node,
                reply.usage.prompt_tokens,
                reply.usage.completion_tokens,
                latency_ms,
                false,
            );
            Ok(reply)
        }
        Err(err) => {
            let err_text = ctx.redactor.redact(&err.to_string());
            state.record_call(node, request.estimated_prompt_tokens(), 0, latency_ms, true);
            tracing::warn!(node = node.as_str(), error = %err_text, "model call failed");
            let fatal = matches!(err, ModelError::Rejected { .. } | ModelError::Config(_));
            if fatal {
                state.stop(
                    StopRule::ModelError,
                    format!("The model provider rejected the request: {err_text}"),
                );
                return Err(CallFailure::Stopped);
            }
            if state.consecutive_model_failures >= rules::MODEL_FAILURE_LIMIT {
                state.stop(
                    StopRule::ModelError,
                    format!(
                        "The model failed {} calls in a row (last: {err_text}).",
                        state.consecutive_model_failures
                    ),
                );
                return Err(CallFailure::Stopped);
            }
            Err(CallFailure::Failed(err))
        }
    }
}
