//! The researcher node: answers the planner's query with read-only tools and a final
//! `{findings, quality}` JSON. The same query on an unchanged state is answered from memory
//! with a "No new information" note and no model call.

use crate::graph::memory::state::{Decision, RunState};
use crate::graph::nodes::llm::{self, CallFailure};
use crate::graph::prompt::context::{self, RESEARCHER_PROMPT};
use crate::graph::{GraphContext, StepResult};
use kotef_core::NodeName;
use kotef_model::{Message, ModelRequest};
use kotef_tools::ToolSet;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Model calls one research step may make.
pub const RESEARCH_TURNS: usize = 8;

/// Parses `{findings, quality}`; quality is clamped to 0..=1.
pub fn parse_findings(text: &str) -> Option<(String, f64)> {
    let v = kotef_model::first_json_object(text)?;
    let findings = v.get("findings")?;
    let findings = match findings {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let quality = v.get("quality").and_then(Value::as_f64).unwrap_or(0.0);
    let quality = if quality.is_finite() {
        quality.clamp(0.0, 1.0)
    } else {
        0.0
    };
    Some((findings, quality))
}

pub async fn step(ctx: &GraphContext, state: &mut RunState) -> StepResult {
    let query = state
        .last_decision
        .as_ref()
        .and_then(|d| d.query.clone())
        .unwrap_or_else(|| state.goal.clone());
    let fingerprint = crate::graph::memory::progress::state_fingerprint(state);
    let r = &state.research;
    if r.attempts > 0
        && r.last_query.as_deref() == Some(query.as_str())
        && r.fingerprint_at_last_query.as_deref() == Some(fingerprint.as_str())
    {
        let note =
            crate::graph::prompt::messages::ResearchRepeatedQuery { query: &query }.to_string();
        state.research.reasons.push(note.clone());
        return StepResult::to(NodeName::Planner, Decision::RepeatedQuery, note, false);
    }

    let before = state.research.clone();
    let tools = ctx.tools.schemas(ToolSet::ReadOnly);
    let mut notes: Vec<String> = Vec::new();
    let mut current: Vec<Message> = Vec::new();
    let mut reasks = 0;
    let mut answer: Option<(String, f64)> = None;
    for _turn in 0..RESEARCH_TURNS {
        let snapshot = ctx.snapshot().await;
        let mut user = crate::graph::prompt::messages::ResearcherUser {
            goal: &state.goal,
            query: &query,
            repo_state: &context::repo_state(&snapshot, state),
        }
        .to_string();
        if !notes.is_empty() {
            user.push_str(&crate::graph::prompt::messages::ResearcherNotesSection.to_string());
            for n in &notes {
                user.push_str(&crate::graph::prompt::messages::ListItem { item: n }.to_string());
            }
        }
        let mut messages = vec![Message::system(RESEARCHER_PROMPT), Message::user(user)];
        // Kept until a reply arrives, so a failed call does not lose the last tool results.
        messages.extend(current.iter().cloned());
        let request = ModelRequest::plain(NodeName::Researcher, messages, tools.clone());
        let reply = match llm::call(ctx, state, NodeName::Researcher, request).await {
            Err(CallFailure::Stopped) => return StepResult::stopped(state, false),
            Err(CallFailure::Failed(_)) => continue,
            Ok(reply) => {
                current.clear();
                reply
            }
        };
        if reply.tool_calls.is_empty() {
            if let Some(found) = parse_findings(&reply.content) {
                answer = Some(found);
                break;
            }
            reasks += 1;
            if reasks > 2 {
                break;
            }
            current.push(Message::assistant(context::clip(&reply.content, 1000)));
            current.push(Message::user(
                crate::graph::prompt::messages::ResearcherReask.to_string(),
            ));
            continue;
        }
        let mut assistant = Message::assistant(reply.content.clone());
        assistant.tool_calls = reply.tool_calls.clone();
        current.push(assistant);
        for call in &reply.tool_calls {
            let out = ctx.tools.call(call, ToolSet::ReadOnly).await;
            ctx.record_tool(state.total_steps + 1, NodeName::Researcher, call, &out);
            state.count_tool(&call.name);
            notes.push(format!(
                "{} {} → {}",
                call.name,
                context::clip(&call.arguments.to_string(), 120),
                if out.is_error { "error" } else { "ok" }
            ));
            current.push(Message::tool_result(
                call.id.clone(),
                context::clip(&out.content, context::TOOL_RESULT_CHARS),
            ));
        }
        if notes.len() > context::STEP_NOTES {
            notes.drain(..notes.len() - context::STEP_NOTES);
        }
    }

    let (findings, quality) = answer.unwrap_or_else(|| (String::new(), 0.0));
    let r = &mut state.research;
    if let Some(old) = r.results_hash.take() {
        r.seen_hashes.insert(old);
    }
    r.attempts += 1;
    r.last_query = Some(query.clone());
    r.quality = quality;
    r.results_hash =
        (!findings.is_empty()).then(|| hex::encode(Sha256::digest(findings.as_bytes())));
    r.findings = findings;
    let progress = crate::graph::memory::progress::research_progress(&before, &state.research);
    state.research.fingerprint_at_last_query =
        Some(crate::graph::memory::progress::state_fingerprint(state));
    let reason = if progress {
        format!(
            "new findings for \"{}\" (quality {quality:.2})",
            context::clip(&query, 80)
        )
    } else {
        format!("nothing new for \"{}\"", context::clip(&query, 80))
    };
    StepResult::to(NodeName::Planner, Decision::Findings, reason, progress)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_parse_and_clamp() {
        assert_eq!(
            parse_findings(r#"{"findings": "a.rs:3", "quality": 1.5}"#),
            Some(("a.rs:3".into(), 1.0))
        );
        assert_eq!(
            parse_findings(r#"{"findings": ["x"]}"#),
            Some(("[\"x\"]".into(), 0.0))
        );
        assert_eq!(parse_findings("nothing"), None);
        assert_eq!(parse_findings(r#"{"quality": 1}"#), None);
    }
}
