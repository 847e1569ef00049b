//! Context size: prompt tokens per coder turn over a 40-turn scripted session (reading and
//! writing files), beside a transcript-accumulating baseline computed from the same requests.
//! `cargo bench --bench context` prints the table and the last/second-turn ratios.

use async_trait::async_trait;
use kotef::run::{self, RunSetup};
use kotef_core::{KotefConfig, LimitsOverride, Profile, Redactor};
use kotef_model::{Model, ModelError, ModelReply, ModelRequest, ScriptedModel};
use serde_json::json;
use std::process::Command;
use std::sync::{Arc, Mutex};

/// Records every coder request on its way to the scripted model.
struct Recording {
    inner: ScriptedModel,
    coder_requests: Mutex<Vec<ModelRequest>>,
}

#[async_trait]
impl Model for Recording {
    fn name(&self) -> String {
        "scripted".into()
    }
    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        if request.node == kotef_core::NodeName::Coder {
            self.coder_requests.lock().unwrap().push(request.clone());
        }
        self.inner.complete(request).await
    }
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.txt"), "a\n").unwrap();
    Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    let mut coder = Vec::new();
    for i in 0..40 {
        let call = if i % 2 == 0 {
            json!({"name": "write_file", "arguments": {"path": format!("src/f{}.txt", i % 4), "content": format!("version {i}\n").repeat(20)}})
        } else {
            json!({"name": "read_file", "arguments": {"path": format!("src/f{}.txt", (i - 1) % 4)}})
        };
        coder.push(json!({"tool_calls": [call]}));
    }
    coder.push(json!({"tool_calls": [{"name": "done", "arguments": {"summary": "ok"}}]}));
    let planner = json!([
        {"content": "{\"next\": \"coder\", \"reason\": \"go\", \"task\": \"write the files\"}"},
        {"content": "{\"next\": \"done\", \"reason\": \"ok\"}"}
    ]);
    let model = Arc::new(Recording {
        inner: ScriptedModel::from_model_value(&json!({"planner": planner, "coder": coder}))
            .unwrap(),
        coder_requests: Mutex::new(Vec::new()),
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let setup = RunSetup::new(
        dir.path(),
        "Write four files and read them back.",
        KotefConfig::default(),
        model.clone(),
    )
    .model_name("scripted")
    .profile(Some(Profile::Strict))
    .limits(LimitsOverride {
        coder_turns: Some(50),
        ..Default::default()
    })
    .test_command(Some("true".into()))
    .redactor(Redactor::new());
    rt.block_on(run::execute(setup)).unwrap();

    let requests = model.coder_requests.lock().unwrap().clone();
    let tokens = |msgs: &[kotef_model::Message], with_tools: bool, r: &ModelRequest| {
        ModelRequest {
            node: r.node,
            messages: msgs.to_vec(),
            tools: if with_tools { r.tools.clone() } else { vec![] },
            json_reply: false,
            temperature: None,
            max_tokens: None,
            code_reply: false,
            alternatives: None,
        }
        .estimated_prompt_tokens()
    };
    println!("context: prompt tokens per coder turn, snapshot+delta vs transcript baseline");
    println!("{:>5} {:>16} {:>10}", "turn", "snapshot+delta", "baseline");
    let mut baseline_history = 0u64;
    let mut ours = Vec::new();
    let mut base = Vec::new();
    for (i, r) in requests.iter().enumerate() {
        let actual = r.estimated_prompt_tokens();
        // Baseline: the first turn's full prompt plus every tool exchange so far, replayed.
        baseline_history += tokens(&r.messages[2.min(r.messages.len())..], false, r);
        let first = &requests[0];
        let baseline = tokens(&first.messages, true, first) + baseline_history;
        ours.push(actual);
        base.push(baseline);
        println!("{:>5} {:>16} {:>10}", i + 1, actual, baseline);
    }
    if ours.len() >= 2 {
        let n = ours.len() - 1;
        println!(
            "ratio last/second: snapshot+delta {:.2}, baseline {:.2} ({} turns)",
            ours[n] as f64 / ours[1] as f64,
            base[n] as f64 / base[1] as f64,
            ours.len()
        );
    }
}
