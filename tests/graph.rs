//! The whole graph through the library API: pathological model replies (property test),
//! hanging and flooding test commands, the snapshot + delta prompt size, and the run summary
//! and report on every ending.

mod support;

use kotef::graph::memory::state::{CoderEnd, Decision};
use kotef::run::{self, RunSetup};
use kotef::sdd::report::ReportJson;
use kotef_core::{
    KotefConfig, LimitsOverride, NodeName, Profile, Redactor, RunOutcome, StopRule, TerminalStatus,
};
use kotef_model::{Model, ModelError, ModelReply, ModelRequest, ScriptedModel};
use kotef_testkit::git::uncommitted_repo as git_repo;
use kotef_tools::FailureKind;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;

fn setup(
    repo: &Path,
    model: Arc<dyn Model>,
    test_command: &str,
    limits: LimitsOverride,
    profile: Profile,
) -> RunSetup {
    RunSetup::new(repo, "Make the tests pass.", KotefConfig::default(), model)
        .model_name("scripted")
        .profile(Some(profile))
        .limits(limits)
        .test_command(Some(test_command.into()))
        .redactor(Redactor::new())
}

fn scripted(model: &Value) -> Arc<dyn Model> {
    Arc::new(ScriptedModel::from_model_value(model).unwrap())
}

async fn run_with(
    repo: &Path,
    model: Value,
    test_command: &str,
    limits: LimitsOverride,
    profile: Profile,
) -> RunOutcome {
    run::execute(setup(repo, scripted(&model), test_command, limits, profile))
        .await
        .unwrap()
}

/// The run's report twin, typed.
fn twin(repo: &Path, out: &RunOutcome) -> ReportJson<'static> {
    support::report::twin(&repo.join(&out.report_rel_path))
}

/// A provider that never answers.
struct Hanging;

#[async_trait::async_trait]
impl Model for Hanging {
    fn name(&self) -> String {
        "hanging".into()
    }

    async fn complete(&self, _: &ModelRequest) -> Result<ModelReply, ModelError> {
        std::future::pending().await
    }
}

#[tokio::test]
async fn the_time_budget_cancels_a_model_call_in_flight() {
    let repo = git_repo(&[("a.txt", "a\n")]);
    let limits = LimitsOverride {
        time_budget_s: Some(1),
        ..Default::default()
    };
    let started = std::time::Instant::now();
    let out = run::execute(setup(
        repo.path(),
        Arc::new(Hanging),
        "true",
        limits,
        Profile::Strict,
    ))
    .await
    .unwrap();
    assert_cancelled_at_the_deadline(&out, started, "model call");
}

/// The run ended by the time budget, which cancelled `what` well before it would have ended.
fn assert_cancelled_at_the_deadline(out: &RunOutcome, started: std::time::Instant, what: &str) {
    assert!(
        started.elapsed().as_secs() < 20,
        "the {what} was not cancelled"
    );
    assert_eq!(out.summary.stop_rule, Some(StopRule::Budget));
    assert!(
        out.summary
            .stop_reason
            .contains(&format!("{what} in flight was cancelled")),
        "{}",
        out.summary.stop_reason
    );
}

#[tokio::test]
async fn the_time_budget_cancels_a_command_in_flight() {
    let repo = git_repo(&[("a.txt", "a\n")]);
    let model = json!({
        "planner": [planner("coder")],
        "coder": [{"tool_calls": [{"name": "run_command", "arguments": {"command": "sleep 60"}}]}]
    });
    let limits = LimitsOverride {
        time_budget_s: Some(2),
        ..Default::default()
    };
    let started = std::time::Instant::now();
    let out = run_with(repo.path(), model, "true", limits, Profile::Yolo).await;
    assert_cancelled_at_the_deadline(&out, started, "tool call");
}

#[tokio::test]
async fn max_model_calls_ends_the_run_with_budget() {
    let repo = git_repo(&[("a.txt", "a\n")]);
    let researcher: Vec<Value> = (0..20)
        .map(|i| json!({"content": json!({"findings": format!("fact {i}"), "quality": 0.5}).to_string()}))
        .collect();
    let planner_turns: Vec<Value> = (0..20)
        .map(|i| json!({"content": json!({"next": "researcher", "reason": "more", "query": format!("q{i}")}).to_string()}))
        .collect();
    let model = json!({"planner": planner_turns, "researcher": researcher});
    let limits = LimitsOverride {
        max_model_calls: Some(5),
        ..Default::default()
    };
    let out = run_with(repo.path(), model, "true", limits, Profile::Strict).await;
    assert_eq!(out.summary.stop_rule, Some(StopRule::Budget));
    assert_eq!(out.summary.model_calls, 5);
    assert!(out.summary.stop_reason.contains("model-call budget"));
}

#[tokio::test]
async fn the_dollar_budget_is_checked_before_every_call() {
    let repo = git_repo(&[("a.txt", "a\n")]);
    let model = json!({"planner": [planner("researcher")], "researcher": [{"content": "{\"findings\": \"x\", \"quality\": 0.5}"}]});
    let mut s = setup(
        repo.path(),
        scripted(&model),
        "true",
        LimitsOverride {
            cost_budget_usd: Some(0.001),
            ..Default::default()
        },
        Profile::Strict,
    );
    // $10 per million tokens of either kind: 100 tokens cost $0.001.
    s.cost = Some(Arc::new(|p, c| Some((p + c) as f64 * 10.0 / 1e6)));
    let out = run::execute(s).await.unwrap();
    assert_eq!(out.summary.stop_rule, Some(StopRule::Budget));
    assert!(
        out.summary.stop_reason.contains("dollar budget"),
        "{}",
        out.summary.stop_reason
    );
    let spent = (out.summary.prompt_tokens + out.summary.completion_tokens) as f64 * 10.0 / 1e6;
    assert!(
        spent >= 0.001,
        "stopped only once the budget was spent: {spent}"
    );
}

#[tokio::test]
async fn a_dollar_budget_without_a_price_counts_tokens_and_the_report_says_so() {
    let repo = git_repo(&[("a.txt", "a\n")]);
    let out = run::execute(setup(
        repo.path(),
        scripted(&json!({})),
        "true",
        LimitsOverride {
            cost_budget_usd: Some(1.0),
            ..Default::default()
        },
        Profile::Strict,
    ))
    .await
    .expect("the run starts");
    let report = std::fs::read_to_string(repo.path().join(&out.report_rel_path)).unwrap();
    assert!(
        report.contains("the $1 budget counts tokens instead: at most 250000 tokens"),
        "{report}"
    );
}

#[tokio::test]
async fn a_coder_step_stops_at_its_call_cap() {
    let repo = git_repo(&[("a.txt", "a\nb\nc\n")]);
    let reads: Vec<Value> = (0..30)
        .map(|i| json!({"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt", "start_line": 1 + i}}]}))
        .collect();
    let model = json!({"planner": [planner("coder"), planner("snitch")], "coder": reads});
    let limits = LimitsOverride {
        coder_step_calls: Some(7),
        ..Default::default()
    };
    let out = run_with(repo.path(), model, "true", limits, Profile::Strict).await;
    let twin = twin(repo.path(), &out);
    let coder_calls = twin
        .calls
        .iter()
        .filter(|c| c.node == NodeName::Coder)
        .count();
    assert_eq!(coder_calls, 7);
    let step = &twin.timeline[1];
    assert_eq!(step.decision, Decision::Code(CoderEnd::CallCap), "{step:?}");
}

#[tokio::test]
async fn a_coder_rereading_an_unchanged_file_ends_its_step_on_the_third_read() {
    let repo = git_repo(&[("a.txt", "a\nb\nc\n")]);
    let read = json!({"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]});
    let model = json!({"planner": [planner("coder"), planner("snitch")], "coder": [read]});
    let out = run_with(
        repo.path(),
        model,
        "true",
        LimitsOverride::default(),
        Profile::Strict,
    )
    .await;
    let twin = twin(repo.path(), &out);
    assert_eq!(
        (twin.tools_run.get("read_file"), twin.timeline[1].decision),
        (Some(&3), Decision::Code(CoderEnd::RepeatedCall))
    );
}

/// A planner decision with a query and a task, whatever the node.
fn planner(next: &str) -> Value {
    kotef_testkit::script::planner(next, "because", json!({"query": "q", "task": "t"}))
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
    let twin = twin(repo.path(), &out);
    let entry = &twin.failure_history.entries[0];
    assert_eq!(entry.kind, FailureKind::ToolingError, "{twin:#?}");
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
        coder_step_calls: Some(50),
        ..Default::default()
    };
    let out = run_with(repo.path(), model, "true", limits, Profile::Strict).await;
    assert_eq!(
        out.summary.terminal_status,
        TerminalStatus::DoneSuccess,
        "{}",
        out.summary.stop_reason
    );
    let coder_prompts: Vec<u64> = twin(repo.path(), &out)
        .calls
        .iter()
        .filter(|c| c.node == NodeName::Coder)
        .map(|c| c.prompt_tokens)
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
        Just(json!({"tool_calls": [{"name": "apply_patch", "arguments": {"patch": "-a\n+b\n"}}]})),
        // A text tool call: the JSON of a call written as prose, not made.
        Just(json!({"content": "Calling it now: {\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"b\"}}"})),
        Just(json!({"content": "```json\n{\"name\": \"edit_file\", \"arguments\": {\"path\": \"a.txt\", \"old\": \"a\", \"new\": \"b\"}}\n```"})),
        // Oscillating writes: two versions of one file.
        prop::sample::select(vec!["A\n", "B\n"]).prop_map(|v| json!({"tool_calls": [{"name": "write_file", "arguments": {"path": "osc.txt", "content": v}}]})),
        Just(json!({"tool_calls": [{"name": "run_command", "arguments": {"command": "sudo rm -rf /"}}]})),
        Just(json!({"tool_calls": [{"name": "done", "arguments": {}}]})),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn any_model_replies_end_bounded_with_a_status_and_a_report(
        planner_turns in prop::collection::vec(arb_turn(), 1..6),
        researcher_turns in prop::collection::vec(arb_turn(), 0..4),
        coder_turns in prop::collection::vec(arb_turn(), 0..8),
        profile in prop::sample::select(vec![Profile::Strict, Profile::Yolo]),
        pass in any::<bool>(),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let repo = git_repo(&[("a.txt", "a\n")]);
        let mut model = serde_json::Map::new();
        model.insert("planner".into(), Value::Array(planner_turns));
        if !researcher_turns.is_empty() { model.insert("researcher".into(), Value::Array(researcher_turns)); }
        if !coder_turns.is_empty() { model.insert("coder".into(), Value::Array(coder_turns)); }
        let limits = LimitsOverride { max_steps: Some(30), coder_turns: Some(3), coder_step_calls: Some(9), max_model_calls: Some(60), ..Default::default() };
        let out = rt.block_on(run_with(repo.path(), Value::Object(model), if pass { "true" } else { "false" }, limits, profile));
        prop_assert!(out.summary.total_steps <= 30);
        prop_assert!(out.summary.model_calls <= 60);
        let twin = twin(repo.path(), &out);
        let mut per_step: std::collections::BTreeMap<u32, u32> = Default::default();
        for c in twin.calls.iter().filter(|c| c.node == NodeName::Coder) {
            *per_step.entry(c.step).or_default() += 1;
        }
        prop_assert!(per_step.values().all(|&n| n <= 9), "{per_step:?}");
        prop_assert!(TerminalStatus::ALL.contains(&out.summary.terminal_status));
        prop_assert!(!out.summary.stop_reason.is_empty());
        prop_assert!(repo.path().join(&out.report_rel_path).exists());
        prop_assert!(!repo.path().parent().unwrap().join("escape.txt").exists());
        if out.summary.terminal_status != TerminalStatus::DoneSuccess {
            prop_assert!(repo.path().join(".sdd/issues.md").exists());
        }
    }
}

/// The scripted model, keeping every coder prompt it was sent.
struct Recording {
    inner: ScriptedModel,
    coder_prompts: std::sync::Mutex<Vec<String>>,
}

#[async_trait::async_trait]
impl Model for Recording {
    fn name(&self) -> String {
        "recording".into()
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        if request.node == kotef_core::NodeName::Coder {
            let text: Vec<&str> = request
                .messages
                .iter()
                .map(|m| m.content.as_str())
                .collect();
            self.coder_prompts.lock().unwrap().push(text.join("\n"));
        }
        self.inner.complete(request).await
    }
}

#[tokio::test]
async fn prose_without_tool_calls_gets_one_correction_showing_a_call() {
    let repo = git_repo(&[("a.txt", "a\n")]);
    let model = Arc::new(Recording {
        inner: ScriptedModel::from_model_value(&json!({
            "planner": [planner("coder"), planner("snitch")],
            "coder": [{"content": "I would edit a.txt to say b."}]
        }))
        .unwrap(),
        coder_prompts: Default::default(),
    });
    let out = run::execute(setup(
        repo.path(),
        model.clone(),
        "true",
        LimitsOverride::default(),
        Profile::Strict,
    ))
    .await
    .unwrap();
    assert_eq!(out.summary.terminal_status, TerminalStatus::AbortedStuck);
    let prompts = model.coder_prompts.lock().unwrap();
    let shape = r#"<tool_call>
{"name": "list_files", "arguments": {}}
</tool_call>"#;
    let corrected: Vec<bool> = prompts.iter().map(|p| p.contains(shape)).collect();
    assert_eq!(
        corrected,
        [false, false, true],
        "three calls, the last one corrected"
    );
}

#[tokio::test]
async fn the_verifiers_command_cannot_write_a_read_only_git_dir() {
    if let Err(why) = kotef_tools::bwrap_status() {
        println!("skipped: bubblewrap is not usable here ({why})");
        return;
    }
    let repo = git_repo(&[("a.txt", "a\n")]);
    let model = json!({"planner": [planner("verifier"), planner("done")]});
    let config = KotefConfig {
        sandbox: Some(kotef_core::SandboxMode::Bwrap),
        ..KotefConfig::default()
    };
    let git_dir = repo.path().join(".git");
    let setup = RunSetup::new(
        repo.path(),
        "Make the tests pass.",
        config,
        scripted(&model),
    )
    .model_name("scripted")
    .profile(Some(Profile::Strict))
    .test_command(Some("touch .git/probe".into()))
    .redactor(Redactor::new())
    .read_only_paths(vec![git_dir.clone()]);
    run::execute(setup).await.unwrap();
    assert!(!git_dir.join("probe").exists());
}
