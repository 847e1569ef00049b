//! The repository's instruction files through the real `kotef run`: the other bots' files
//! (`CLAUDE.md`, `.github/copilot-instructions.md`, `GEMINI.md`) reach the model beside
//! `AGENTS.md`, each capped, and the run report says how much of each was used.

mod support;

use serde_json::{json, Value};
use support::recording_model::RecordingModel;

struct Ran {
    model: RecordingModel,
    report: String,
}

async fn run() -> Ran {
    let long = format!("CLAUDE-RULE {}", "c".repeat(15_000));
    let files = [
        ("AGENTS.md", "AGENTS-RULE: tests live in tests/".to_string()),
        ("CLAUDE.md", long),
        (
            ".github/copilot-instructions.md",
            "COPILOT-RULE: no new deps".to_string(),
        ),
        ("GEMINI.md", "GEMINI-RULE: keep it short".to_string()),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let dir = kotef_testkit::committed_repo(&files, &[]);
    let model = RecordingModel::start(json!({"next": "done", "reason": "nothing to do"})).await;
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_kotef"))
        .args([
            "run",
            "--json",
            "--model",
            "openai:fake-model",
            "--test-command",
            "true",
        ])
        .arg("--repo")
        .arg(dir.path())
        .args(["--goal", "Check the rules"])
        .env("OPENAI_BASE_URL", model.base_url())
        .env("OPENAI_API_KEY", "sk-instructions-0123456789")
        .env_remove("KOTEF_MODEL")
        .output()
        .await
        .unwrap();
    let summary: Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap_or(Value::Null);
    let report = summary["report_path"]
        .as_str()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default();
    Ran { model, report }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_other_bots_files_reach_the_model() {
    let ran = run().await;
    let prompt = ran
        .model
        .first_planner_request()
        .expect("a planner call")
        .text();
    for rule in ["AGENTS-RULE", "CLAUDE-RULE", "COPILOT-RULE", "GEMINI-RULE"] {
        assert!(prompt.contains(rule), "{rule} missing");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_says_how_much_of_each_file_was_used() {
    let ran = run().await;
    assert!(
        ran.report.contains("## Instruction files"),
        "{}",
        ran.report
    );
    assert!(
        ran.report
            .contains("- `CLAUDE.md`: cut to 12000 of 15012 characters"),
        "{}",
        ran.report
    );
    assert!(
        ran.report.contains("- `GEMINI.md`: 26 characters"),
        "{}",
        ran.report
    );
}
