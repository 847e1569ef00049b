//! The whole prompt each node sends the model, for a fixed repository and script, as insta
//! snapshots (`tests/snapshots/prompts__*.snap`): a change to a template in `prompts/` or to
//! the state a node shows shows up in review as a change of these files. Runs through the
//! library API with a scripted model that records every request.

use kotef::run::{self, RunSetup};
use kotef_core::{EditFormat, KotefConfig, Profile, Redactor};
use kotef_model::{Model, ModelError, ModelReply, ModelRequest, ScriptedModel};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// A scripted model that keeps every request it is sent.
struct Recording {
    script: ScriptedModel,
    seen: Mutex<Vec<ModelRequest>>,
}

#[async_trait::async_trait]
impl Model for Recording {
    fn name(&self) -> String {
        "scripted".into()
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        self.seen.lock().unwrap().push(request.clone());
        self.script.complete(request).await
    }
}

const CALC: &str = "def add(a, b):\n    \"\"\"The sum of a and b.\"\"\"\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n";
const TEST_SH: &str = "grep -q 'return a + b' calc.py || { echo 'FAIL: add(2, 3) gave -1, want 5'; echo '  calc.py line 3: return a - b'; exit 1; }\n";
const GOAL: &str = "Fix add in calc.py so that test.sh passes.";

/// Runs the graph on the calc repository with `script` and `format`; every request sent, in
/// order, each rendered as text with the repository's path replaced by `[repo]`.
async fn requests(script: Value, format: EditFormat, verify_first: bool) -> Vec<(String, String)> {
    let repo = kotef_testkit::committed_repo(&[("calc.py", CALC), ("test.sh", TEST_SH)], &[]);
    let model = Arc::new(Recording {
        script: ScriptedModel::from_model_value(&script).unwrap(),
        seen: Mutex::new(Vec::new()),
    });
    let config = KotefConfig {
        edit_format: Some(format),
        ..KotefConfig::default()
    };
    let setup = RunSetup::new(repo.path(), GOAL, config, model.clone())
        .model_name("scripted")
        .profile(Some(Profile::Strict))
        .test_command(Some("sh test.sh".into()))
        .verify_first(Some(verify_first))
        .redactor(Redactor::new());
    run::execute(setup).await.unwrap();
    let root = repo.path().display().to_string();
    let seen = model.seen.lock().unwrap().clone();
    seen.iter()
        .map(|r| {
            (
                r.node.as_str().to_string(),
                render(r).replace(&root, "[repo]"),
            )
        })
        .collect()
}

/// A request as a reader sees it: its settings, then each message under its role.
fn render(r: &ModelRequest) -> String {
    let tools: Vec<&str> = r.tools.iter().map(|t| t.name.as_str()).collect();
    let mut out = format!(
        "node: {}\njson_reply: {}\ncode_reply: {}\ntools: [{}]\n",
        r.node.as_str(),
        r.json_reply,
        r.code_reply,
        tools.join(", ")
    );
    for m in &r.messages {
        let role = serde_json::to_value(m.role).unwrap();
        out.push_str(&format!(
            "\n======== {} ========\n{}\n",
            role.as_str().unwrap_or("?"),
            m.content
        ));
        for c in &m.tool_calls {
            out.push_str(&format!("[tool call {} {}]\n", c.name, c.arguments));
        }
    }
    out
}

/// The n-th request (0-based) of `node`.
fn nth(seen: &[(String, String)], node: &str, n: usize) -> String {
    seen.iter()
        .filter(|(k, _)| k == node)
        .nth(n)
        .map(|(_, t)| t.clone())
        .unwrap_or_else(|| panic!("no request {n} of {node}: {seen:#?}"))
}

/// planner (done, refused) → verifier → planner → researcher (two turns) → planner → coder
/// (two turns, then done) → verifier → planner (snitch).
async fn tool_run() -> Vec<(String, String)> {
    let script = json!({
        "planner": [
            {"content": json!({"next": "done", "reason": "looks fine"}).to_string()},
            {"content": json!({"next": "researcher", "reason": "find add", "query": "Where is add defined?"}).to_string()},
            {"content": json!({"next": "coder", "reason": "fix it", "task": "Fix add in calc.py to return a + b", "plan": ["fix add", "verify"]}).to_string()},
            {"content": json!({"next": "snitch", "reason": "stop here"}).to_string()}
        ],
        "researcher": [
            {"tool_calls": [{"name": "list_files", "arguments": {}}]},
            {"content": json!({"findings": "add is in calc.py line 1", "quality": 0.9}).to_string()}
        ],
        "coder": [
            {"tool_calls": [{"name": "list_files", "arguments": {}}]},
            {"tool_calls": [{"name": "done", "arguments": {"summary": "fixed"}}]}
        ]
    });
    requests(script, EditFormat::Tools, false).await
}

#[tokio::test]
async fn the_planner_prompt_after_its_done_was_refused() {
    let seen = tool_run().await;
    insta::assert_snapshot!(nth(&seen, "planner", 1));
}

#[tokio::test]
async fn the_planner_prompt_after_research_a_coder_step_and_a_failed_verification() {
    let seen = tool_run().await;
    insta::assert_snapshot!(nth(&seen, "planner", 3));
}

#[tokio::test]
async fn the_researcher_prompt_of_its_first_turn() {
    let seen = tool_run().await;
    insta::assert_snapshot!(nth(&seen, "researcher", 0));
}

#[tokio::test]
async fn the_researcher_prompt_after_a_tool_call() {
    let seen = tool_run().await;
    insta::assert_snapshot!(nth(&seen, "researcher", 1));
}

#[tokio::test]
async fn the_coder_prompt_of_its_first_turn() {
    let seen = tool_run().await;
    insta::assert_snapshot!(nth(&seen, "coder", 0));
}

#[tokio::test]
async fn the_coder_prompt_after_a_tool_call() {
    let seen = tool_run().await;
    insta::assert_snapshot!(nth(&seen, "coder", 1));
}

/// verifier (fails) → coder's repair loop with replies that hold no code.
async fn repair_run() -> Vec<(String, String)> {
    let script = json!({
        "planner": [{"content": json!({"next": "snitch", "reason": "stop here"}).to_string()}],
        "coder": [{"content": "I am not sure."}]
    });
    requests(script, EditFormat::Blocks, true).await
}

#[tokio::test]
async fn the_repair_loop_opening_prompt() {
    let seen = repair_run().await;
    insta::assert_snapshot!(nth(&seen, "coder", 0));
}

#[tokio::test]
async fn the_repair_loop_prompt_after_a_failed_attempt() {
    let seen = repair_run().await;
    insta::assert_snapshot!(nth(&seen, "coder", 1));
}

/// planner → coder (a reply without a tool call, then done) → verifier → planner (snitch).
#[tokio::test]
async fn the_coder_prompt_after_a_reply_without_a_tool_call() {
    let script = json!({
        "planner": [
            {"content": json!({"next": "coder", "reason": "fix it", "task": "Fix add in calc.py to return a + b"}).to_string()},
            {"content": json!({"next": "snitch", "reason": "stop here"}).to_string()}
        ],
        "coder": [
            {"content": "I will change calc.py.", "repeat": 3},
            {"tool_calls": [{"name": "done", "arguments": {"summary": "fixed"}}]}
        ]
    });
    let seen = requests(script, EditFormat::Tools, false).await;
    let corrected = seen
        .iter()
        .find(|(node, text)| node == "coder" && text.contains("## Your last reply"))
        .map(|(_, text)| text.clone());
    insta::assert_snapshot!(corrected.unwrap_or_else(|| panic!("no correction: {seen:#?}")));
}

/// planner → verifier → planner → coder's repair loop on the planner's task (not the goal).
#[tokio::test]
async fn the_repair_loop_opening_prompt_for_a_task_of_the_planner() {
    let script = json!({
        "planner": [
            {"content": json!({"next": "verifier", "reason": "see the failure"}).to_string()},
            {"content": json!({"next": "coder", "reason": "fix it", "task": "Make add return a + b"}).to_string()},
            {"content": json!({"next": "snitch", "reason": "stop here"}).to_string()}
        ],
        "coder": [{"content": "I am not sure."}]
    });
    let seen = requests(script, EditFormat::Blocks, false).await;
    insta::assert_snapshot!(nth(&seen, "coder", 0));
}
