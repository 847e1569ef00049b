//! The repository's instruction files through the real `kotef run`: the other bots' files
//! (`CLAUDE.md`, `.github/copilot-instructions.md`, `GEMINI.md`) reach the model beside
//! `AGENTS.md`, each capped, and the run report says how much of each was used.

mod support;

use serde_json::json;
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
    let ran = model
        .kotef_run(dir.path(), "sk-instructions-0123456789")
        .test_command("true")
        .goal("Check the rules")
        .run()
        .await;
    let report = ran
        .try_summary()
        .and_then(|s| std::fs::read_to_string(s.report_path).ok())
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
