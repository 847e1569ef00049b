//! The scripted model of the scenario contract: per-node lists of turns served in order,
//! `repeat` honoured, the last turn served again once a list is used up, and an empty
//! (malformed) reply for a node that has no list.

use crate::types::{Model, ModelError, ModelReply, ModelRequest, ToolCall, Usage};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

/// One scripted turn.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub tool_calls: Option<Vec<ScriptedCall>>,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub repeat: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedCall {
    pub name: String,
    #[serde(default)]
    pub arguments: Value,
}

/// Node name -> turns, as in a scenario's `model` section.
pub type Script = BTreeMap<String, Vec<Turn>>;

#[derive(Debug, Default)]
struct Cursor {
    /// Index of the turn being served.
    index: usize,
    /// How many times that turn has been served.
    served: u32,
    calls: u64,
}

/// Serves a script; thread-safe, one cursor per node.
#[derive(Debug)]
pub struct ScriptedModel {
    script: Script,
    cursors: Mutex<BTreeMap<String, Cursor>>,
}

#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("cannot read {path}: {message}")]
    Read { path: String, message: String },
    #[error("invalid scripted model in {path}: {message}")]
    Invalid { path: String, message: String },
}

impl ScriptedModel {
    pub fn new(script: Script) -> Result<Self, String> {
        for (node, turns) in &script {
            for (i, t) in turns.iter().enumerate() {
                let kinds = [
                    t.content.is_some(),
                    t.tool_calls.is_some(),
                    t.error.is_some(),
                ]
                .iter()
                .filter(|b| **b)
                .count();
                if kinds > 1 || (kinds == 0) {
                    return Err(format!(
                        "model.{node}[{i}]: a turn holds exactly one of content, tool_calls, error"
                    ));
                }
                if t.repeat == Some(0) {
                    return Err(format!("model.{node}[{i}].repeat: must be >= 1"));
                }
            }
        }
        Ok(Self {
            script,
            cursors: Mutex::new(BTreeMap::new()),
        })
    }

    /// Parses the `model` section of a scenario value.
    pub fn from_model_value(model: &Value) -> Result<Self, String> {
        let script: Script =
            serde_json::from_value(model.clone()).map_err(|e| format!("model: {e}"))?;
        Self::new(script)
    }

    /// `--model scripted:FILE`: a scenario file whose `model` section alone is used.
    pub fn from_scenario_file(path: &Path) -> Result<Self, ScriptError> {
        let text = std::fs::read_to_string(path).map_err(|e| ScriptError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let v: Value = serde_json::from_str(&text).map_err(|e| ScriptError::Invalid {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let model = v
            .get("model")
            .cloned()
            .unwrap_or(Value::Object(Default::default()));
        Self::from_model_value(&model).map_err(|message| ScriptError::Invalid {
            path: path.display().to_string(),
            message,
        })
    }

    /// Calls served so far to `node`.
    pub fn calls(&self, node: &str) -> u64 {
        self.cursors
            .lock()
            .map(|c| c.get(node).map(|c| c.calls).unwrap_or(0))
            .unwrap_or(0)
    }

    fn next_turn(&self, node: &str) -> Option<Turn> {
        let turns = self.script.get(node)?;
        if turns.is_empty() {
            return None;
        }
        let mut cursors = self.cursors.lock().unwrap_or_else(|p| p.into_inner());
        let cur = cursors.entry(node.to_string()).or_default();
        cur.calls += 1;
        // Advance past turns whose repeats are used up, but never past the last one.
        loop {
            let turn = &turns[cur.index];
            let times = turn.repeat.unwrap_or(1);
            if cur.served < times || cur.index + 1 >= turns.len() {
                cur.served += 1;
                return Some(turn.clone());
            }
            cur.index += 1;
            cur.served = 0;
        }
    }
}

#[async_trait::async_trait]
impl Model for ScriptedModel {
    fn name(&self) -> String {
        "scripted".into()
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        let turn = self.next_turn(request.node.as_str());
        let prompt_tokens = request.estimated_prompt_tokens();
        let Some(turn) = turn else {
            return Ok(ModelReply {
                content: String::new(),
                tool_calls: Vec::new(),
                usage: Usage {
                    prompt_tokens,
                    completion_tokens: 0,
                },
                finish_reason: Some("stop".into()),
                calls_from_text: false,
                timings: None,
                tokens: Vec::new(),
            });
        };
        if let Some(e) = turn.error {
            return Err(ModelError::Scripted(e));
        }
        let content = turn.content.unwrap_or_default();
        let calls = self
            .cursors
            .lock()
            .map(|c| c.get(request.node.as_str()).map(|c| c.calls).unwrap_or(0))
            .unwrap_or(0);
        let tool_calls: Vec<ToolCall> = turn
            .tool_calls
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, c)| ToolCall {
                id: format!("call_{}_{calls}_{i}", request.node),
                name: c.name,
                arguments: if c.arguments.is_null() {
                    Value::Object(Default::default())
                } else {
                    c.arguments
                },
            })
            .collect();
        let completion_tokens = ModelReply::estimated_completion_tokens(&content, &tool_calls);
        Ok(ModelReply {
            finish_reason: Some(
                if tool_calls.is_empty() {
                    "stop"
                } else {
                    "tool_calls"
                }
                .into(),
            ),
            content,
            tool_calls,
            usage: Usage {
                prompt_tokens,
                completion_tokens,
            },
            calls_from_text: false,
            timings: None,
            tokens: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Message;
    use serde_json::json;

    fn req(node: &str) -> ModelRequest {
        ModelRequest {
            node: kotef_core::NodeName::parse(node).expect("a node name"),
            messages: vec![Message::user("hi")],
            tools: vec![],
            json_reply: false,
            temperature: None,
            max_tokens: None,
            code_reply: false,
            alternatives: None,
        }
    }

    #[tokio::test]
    async fn serves_in_order_with_repeat_then_sticks_on_last() {
        let m = ScriptedModel::from_model_value(&json!({
            "planner": [
                {"content": "a", "repeat": 2},
                {"content": "b"},
                {"content": "c"}
            ]
        }))
        .unwrap();
        let mut got = vec![];
        for _ in 0..6 {
            got.push(m.complete(&req("planner")).await.unwrap().content);
        }
        assert_eq!(got, ["a", "a", "b", "c", "c", "c"]);
        assert_eq!(m.calls("planner"), 6);
    }

    #[tokio::test]
    async fn last_turn_repeat_is_still_served_forever() {
        let m = ScriptedModel::from_model_value(&json!({"coder": [{"content": "x", "repeat": 1}]}))
            .unwrap();
        for _ in 0..3 {
            assert_eq!(m.complete(&req("coder")).await.unwrap().content, "x");
        }
    }

    #[tokio::test]
    async fn errors_tool_calls_and_missing_nodes() {
        let m = ScriptedModel::from_model_value(&json!({
            "coder": [
                {"error": "boom"},
                {"tool_calls": [{"name": "done", "arguments": {"summary": "ok"}}]}
            ]
        }))
        .unwrap();
        assert_eq!(
            m.complete(&req("coder")).await.unwrap_err(),
            ModelError::Scripted("boom".into())
        );
        let r = m.complete(&req("coder")).await.unwrap();
        assert_eq!(r.tool_calls[0].name, "done");
        assert_eq!(r.tool_calls[0].arguments["summary"], "ok");
        assert!(r.usage.completion_tokens > 0);
        let empty = m.complete(&req("researcher")).await.unwrap();
        assert!(empty.content.is_empty() && empty.tool_calls.is_empty());
    }

    #[test]
    fn rejects_ambiguous_turns() {
        assert!(
            ScriptedModel::from_model_value(&json!({"x": [{"content": "a", "error": "b"}]}))
                .is_err()
        );
        assert!(ScriptedModel::from_model_value(&json!({"x": [{}]})).is_err());
        assert!(
            ScriptedModel::from_model_value(&json!({"x": [{"content": "a", "repeat": 0}]}))
                .is_err()
        );
        assert!(ScriptedModel::from_model_value(&json!({"x": [{"contnet": "a"}]})).is_err());
    }
}
