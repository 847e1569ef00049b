//! The whole graph through the library API: pathological model replies (property test),
//! hanging and flooding test commands, the snapshot + delta prompt size, and the run summary
//! and report on every ending.

use kotef::run::{self, RunSetup};
use kotef_core::{
    KotefConfig, LimitsOverride, Profile, Redactor, RunId, RunOutcome, TerminalStatus,
};
use kotef_model::ScriptedModel;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn git_repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (p, text) in files {
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(ok.success());
    dir
}

async fn run_with(
    repo: &Path,
    model: Value,
    test_command: &str,
    limits: LimitsOverride,
    profile: Profile,
) -> RunOutcome {
    let model = ScriptedModel::from_model_value(&model).unwrap();
    run::execute(RunSetup {
        run_id: RunId::generate(),
        workdir: repo.to_path_buf(),
        goal: "Make the tests pass.".into(),
        config: KotefConfig::default(),
        profile: Some(profile),
        limit_overrides: limits,
        test_command: Some(test_command.into()),
        model: Arc::new(model),
        model_name: "scripted".into(),
        progress: None,
        redactor: Redactor::new(),
        cost: None,
        settings_notes: Vec::new(),
    })
    .await
    .unwrap()
}

fn planner(next: &str) -> Value {
    json!({"content": json!({"next": next, "reason": "because", "query": "q", "task": "t"}).to_string()})
}

#[tokio::test]
async fn hanging_test_command_times_out_as_tooling_error() {
    let repo = git_repo(&[("a.txt", "a\n")]);
    let model = json!({"planner": [planner("verifier"), planner("snitch")]});
    let limits = LimitsOverride {
        command_timeout_s: Some(1),
        ..Default::default()
    };
    let started = std::time::Instant::now();
    let out = run_with(repo.path(), model, "sleep 30", limits, Profile::Strict).await;
    assert!(started.elapsed().as_secs() < 20, "the timeout did not fire");
    let twin: Value = serde_json::from_str(
        &std::fs::read_to_string(
            repo.path()
                .join(&out.report_rel_path)
                .with_extension("json"),
        )
        .unwrap(),
    )
    .unwrap();
    let entry = &twin["failure_history"]["entries"][0];
    assert_eq!(entry["kind"], "tooling_error", "{twin:#}");
    assert_eq!(out.summary.terminal_status, TerminalStatus::AbortedStuck);
}

#[tokio::test]
async fn flooding_test_command_is_capped_and_the_run_goes_on() {
    let repo = git_repo(&[("a.txt", "a\n")]);
    let model = json!({"planner": [planner("verifier"), planner("done")]});
    let out = run_with(
        repo.path(),
        model,
        "head -c 50000000 /dev/zero | tr '\\0' a; exit 1",
        LimitsOverride::default(),
        Profile::Strict,
    )
    .await;
    assert_eq!(out.summary.terminal_status, TerminalStatus::DonePartial);
    let report = std::fs::read_to_string(repo.path().join(&out.report_rel_path)).unwrap();
    assert!(report.len() < 200_000, "report has {} bytes", report.len());
    assert_eq!(out.summary.total_steps, 4);
}

#[tokio::test]
async fn prompt_stays_small_over_a_40_turn_coder_session() {
    let repo = git_repo(&[("src/a.txt", "a\n"), ("src/b.txt", "b\n")]);
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
    let model = json!({"planner": [planner("coder"), planner("done")], "coder": coder});
    let limits = LimitsOverride {
        coder_turns: Some(50),
        ..Default::default()
    };
    let out = run_with(repo.path(), model, "true", limits, Profile::Strict).await;
    assert_eq!(
        out.summary.terminal_status,
        TerminalStatus::DoneSuccess,
        "{}",
        out.summary.stop_reason
    );
    let twin: Value = serde_json::from_str(
        &std::fs::read_to_string(
            repo.path()
                .join(&out.report_rel_path)
                .with_extension("json"),
        )
        .unwrap(),
    )
    .unwrap();
    let coder_prompts: Vec<u64> = twin["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["node"] == "coder")
        .map(|c| c["prompt_tokens"].as_u64().unwrap())
        .collect();
    assert!(coder_prompts.len() >= 40, "{coder_prompts:?}");
    let second = coder_prompts[1] as f64;
    let last = *coder_prompts.last().unwrap() as f64;
    assert!(
        last / second <= 1.3,
        "prompt grew from {second} to {last} tokens: {coder_prompts:?}"
    );
}

/// One arbitrary model reply for any node.
fn arb_turn() -> impl Strategy<Value = Value> {
    let next = prop::sample::select(vec![
        "researcher",
        "coder",
        "verifier",
        "done",
        "snitch",
        "planner",
        "nowhere",
    ]);
    prop_oneof![
        next.prop_map(|n| json!({"content": json!({"next": n, "reason": "r", "query": "q", "task": "t"}).to_string()})),
        Just(json!({"content": ""})),
        Just(json!({"content": "{not json"})),
        Just(json!({"content": "{\"findings\": \"x\", \"quality\": 0.5}"})),
        Just(json!({"error": "503 overloaded"})),
        Just(json!({"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "x"}}]})),
        Just(json!({"tool_calls": [{"name": "write_file", "arguments": {"path": "../escape.txt", "content": "x"}}]})),
        Just(json!({"tool_calls": [{"name": "edit_file", "arguments": {"path": "a.txt", "old": "zzz", "new": "y"}}]})),
        Just(json!({"tool_calls": [{"name": "read_file", "arguments": "not an object"}]})),
        Just(json!({"tool_calls": [{"name": "no_such_tool", "arguments": {}}]})),
        Just(json!({"tool_calls": [{"name": "run_command", "arguments": {"command": "sudo rm -rf /"}}]})),
        Just(json!({"tool_calls": [{"name": "done", "arguments": {}}]})),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn any_model_replies_end_bounded_with_a_status_and_a_report(
        planner_turns in prop::collection::vec(arb_turn(), 1..6),
        researcher_turns in prop::collection::vec(arb_turn(), 0..4),
        coder_turns in prop::collection::vec(arb_turn(), 0..6),
        profile in prop::sample::select(vec![Profile::Strict, Profile::Yolo]),
        pass in any::<bool>(),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let repo = git_repo(&[("a.txt", "a\n")]);
        let mut model = serde_json::Map::new();
        model.insert("planner".into(), Value::Array(planner_turns));
        if !researcher_turns.is_empty() { model.insert("researcher".into(), Value::Array(researcher_turns)); }
        if !coder_turns.is_empty() { model.insert("coder".into(), Value::Array(coder_turns)); }
        let limits = LimitsOverride { max_steps: Some(30), coder_turns: Some(3), ..Default::default() };
        let out = rt.block_on(run_with(repo.path(), Value::Object(model), if pass { "true" } else { "false" }, limits, profile));
        prop_assert!(out.summary.total_steps <= 30);
        prop_assert!(TerminalStatus::ALL.contains(&out.summary.terminal_status));
        prop_assert!(!out.summary.stop_reason.is_empty());
        prop_assert!(repo.path().join(&out.report_rel_path).exists());
        prop_assert!(!repo.path().parent().unwrap().join("escape.txt").exists());
        if out.summary.terminal_status != TerminalStatus::DoneSuccess {
            prop_assert!(repo.path().join(".sdd/issues.md").exists());
        }
    }
}
