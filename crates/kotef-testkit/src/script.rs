//! Scripted models as builders: the `{"planner": [...], "coder": [...], ...}` value that
//! `ScriptedModel::from_model_value` and the Action's `scripted:` model read, written as
//! `Script::new().planner("coder", "fix it", json!({"task": "…"})).coder_call("done", …)`
//! instead of hand-built JSON in every test file.

use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// A planner reply: the decision `{"next": next, "reason": reason, ..extra}` as the model's
/// text content. `extra` is an object of further fields (`task`, `plan`, `query`, `verify`).
pub fn planner(next: &str, reason: &str, extra: Value) -> Value {
    let mut decision = json!({"next": next, "reason": reason});
    if let (Some(d), Some(e)) = (decision.as_object_mut(), extra.as_object()) {
        d.extend(e.clone());
    }
    json!({"content": decision.to_string()})
}

/// A planner reply whose reason is `go to NEXT`.
pub fn planner_to(next: &str, extra: Value) -> Value {
    planner(next, &format!("go to {next}"), extra)
}

/// A reply holding one tool call.
pub fn tool_call(name: &str, arguments: Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": arguments}]})
}

/// A reply of plain text.
pub fn text(content: &str) -> Value {
    json!({"content": content})
}

/// The replies of each node, in order.
#[derive(Debug, Clone, Default)]
pub struct Script {
    nodes: Map<String, Value>,
}

impl Script {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `reply` to `node`'s replies.
    pub fn reply(mut self, node: &str, reply: Value) -> Self {
        let replies = self
            .nodes
            .entry(node.to_string())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(r) = replies {
            r.push(reply);
        }
        self
    }

    /// A planner decision (see [`planner`]).
    pub fn planner(self, next: &str, reason: &str, extra: Value) -> Self {
        self.reply("planner", planner(next, reason, extra))
    }

    /// A planner decision whose reason is `go to NEXT`.
    pub fn planner_to(self, next: &str, extra: Value) -> Self {
        self.reply("planner", planner_to(next, extra))
    }

    /// A coder turn holding one tool call.
    pub fn coder_call(self, name: &str, arguments: Value) -> Self {
        self.reply("coder", tool_call(name, arguments))
    }

    /// A coder turn that calls `done` with `summary`.
    pub fn coder_done(self, summary: &str) -> Self {
        self.coder_call("done", json!({"summary": summary}))
    }

    /// A researcher answer with its findings and quality.
    pub fn researcher(self, findings: &str, quality: f64) -> Self {
        let answer = json!({"findings": findings, "quality": quality}).to_string();
        self.reply("researcher", text(&answer))
    }

    /// The model value (`{"planner": [...], ...}`).
    pub fn build(self) -> Value {
        Value::Object(self.nodes)
    }

    /// Writes the script as a scenario file (`{"model": {...}}`) in `dir` and returns its
    /// path, for `kotef run --model scripted:PATH`.
    pub fn write_to(self, dir: &Path) -> PathBuf {
        let path = dir.join("script.json");
        let text = json!({"model": self.build()}).to_string();
        std::fs::write(&path, text).expect("the test's scratch directory is writable");
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_lists_each_nodes_replies_in_order() {
        let script = Script::new()
            .planner("coder", "fix it", json!({"task": "t"}))
            .coder_call("run_command", json!({"command": "make"}))
            .coder_done("ran it")
            .planner_to("done", json!({}))
            .build();
        assert_eq!(
            script,
            json!({
                "planner": [
                    {"content": "{\"next\":\"coder\",\"reason\":\"fix it\",\"task\":\"t\"}"},
                    {"content": "{\"next\":\"done\",\"reason\":\"go to done\"}"}
                ],
                "coder": [
                    {"tool_calls": [{"name": "run_command", "arguments": {"command": "make"}}]},
                    {"tool_calls": [{"name": "done", "arguments": {"summary": "ran it"}}]}
                ]
            })
        );
    }

    #[test]
    fn a_researcher_answer_is_its_findings_and_quality_as_text() {
        let script = Script::new().researcher("README.md only", 0.9).build();
        assert_eq!(
            script["researcher"][0]["content"],
            "{\"findings\":\"README.md only\",\"quality\":0.9}"
        );
    }
}
