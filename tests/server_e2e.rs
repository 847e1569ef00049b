//! The product's main path end to end with the real graph: a signed `issues.labeled` webhook →
//! `kotef serve`'s router → clone of a bare repository → the bounded graph with a scripted
//! model → commit and push → draft PR → one sticky comment with status, rule and counters.
//! The fake GitHub and the real octocrab client talk over loopback HTTP.

use kotef::executor::GraphExecutor;
use kotef_testkit::script::planner_to;
use kotef_testkit::FakeGitHub;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const SECRET: &str = "e2e-webhook-secret";
const REPO: &str = "acme/greeter";
const WAIT: Duration = Duration::from_secs(60);

struct World {
    gh: FakeGitHub,
    git_root: tempfile::TempDir,
    data: tempfile::TempDir,
    bare: std::path::PathBuf,
    server: kotef_github::RunningServer,
}

async fn world(model: serde_json::Value) -> World {
    let gh = FakeGitHub::start().await;
    gh.add_repo(REPO, "main");
    gh.set_permission(REPO, "alice", "admin");
    let git_root = tempfile::tempdir().unwrap();
    let bare = kotef_testkit::init_bare_repo(
        git_root.path(),
        REPO,
        &[
            ("README.md", "# greeter\n"),
            (
                ".github/kotef.toml",
                "test_command = \"grep -q hello hello.txt\"\n[limits]\nmax_steps = 40\n",
            ),
        ],
    );
    let data = tempfile::tempdir().unwrap();
    let model_file = data.path().join("model.json");
    std::fs::write(&model_file, json!({ "model": model }).to_string()).unwrap();
    let mut cfg = gh.serve_config(&[SECRET], git_root.path(), data.path().join("state"));
    cfg.progress_interval = Duration::from_millis(20);
    cfg.poll_interval = Duration::from_millis(100);
    cfg.model = Some(format!("scripted:{}", model_file.display()));
    let server = kotef_github::start(cfg, Arc::new(GraphExecutor::default()))
        .await
        .unwrap();
    World {
        gh,
        git_root,
        data,
        bare,
        server,
    }
}

async fn label(w: &World, delivery: &str) -> u64 {
    let n =
        w.gh.add_issue(REPO, "Add a greeting", "Please add hello.txt saying hello.");
    let body = kotef_testkit::issues_labeled(
        REPO,
        n,
        "Add a greeting",
        "Please add hello.txt saying hello.",
        "kotef",
        "alice",
    );
    let resp = kotef_testkit::send_webhook(
        &reqwest::Client::new(),
        &format!("http://{}/webhook", w.server.addr()),
        SECRET,
        "issues",
        delivery,
        &body,
    )
    .await
    .unwrap();
    assert!(resp.status().is_success(), "{}", resp.status());
    n
}

fn on_branch(bare: &Path, branch: &str, path: &str) -> Option<String> {
    kotef_testkit::git_output(bare, &["show", &format!("{branch}:{path}")])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn labeled_issue_is_fixed_pushed_and_reported() {
    let model = json!({
        "planner": [
            planner_to("coder", json!({"task": "Create hello.txt containing hello", "plan": ["write hello.txt"]})),
            planner_to("done", json!({}))
        ],
        "coder": [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "hello\n"}}]},
            {"tool_calls": [{"name": "done", "arguments": {"summary": "wrote hello.txt"}}]}
        ]
    });
    let w = world(model).await;
    let n = label(&w, "e2e-success").await;
    let comment =
        w.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("a final comment");
    assert_eq!(w.gh.kotef_comments(REPO, n).len(), 1, "one sticky comment");
    let body = &comment.body;
    assert!(body.contains("`done_success`"), "{body}");
    assert!(body.contains("planner_to_coder"), "{body}");
    assert!(body.contains("```mermaid"), "{body}");

    let branch = format!("kotef/issue-{n}");
    assert_eq!(
        on_branch(&w.bare, &branch, "hello.txt").as_deref(),
        Some("hello\n")
    );
    let files =
        kotef_testkit::git_output(&w.bare, &["ls-tree", "-r", "--name-only", &branch]).unwrap();
    assert!(
        files
            .lines()
            .any(|f| f.starts_with(".sdd/runs/") && f.ends_with(".md")),
        "{files}"
    );
    assert!(
        files
            .lines()
            .any(|f| f.starts_with(".sdd/runs/") && f.ends_with(".json")),
        "{files}"
    );
    assert!(
        !files.contains(".sdd/issues.md"),
        "no snitch entry on success: {files}"
    );
    let pulls = w.gh.pulls(REPO);
    assert_eq!(pulls.len(), 1);
    assert!(pulls[0].draft);
    assert!(
        pulls[0].body.contains(&format!("Closes #{n}")),
        "{}",
        pulls[0].body
    );
    drop(w.data);
    drop(w.git_root);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_transcript_stays_in_the_data_directory_and_off_the_branch() {
    let model = json!({
        "planner": [
            planner_to("coder", json!({"task": "Create hello.txt containing hello"})),
            planner_to("done", json!({}))
        ],
        "coder": [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "hello\n"}}]},
            {"tool_calls": [{"name": "done", "arguments": {"summary": "wrote hello.txt"}}]}
        ]
    });
    let w = world(model).await;
    let n = label(&w, "e2e-transcript").await;
    let comment =
        w.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("a final comment");
    let mut kept: Vec<String> = std::fs::read_dir(w.data.path().join("state/transcripts"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    kept.sort();
    let exts: Vec<&str> = kept.iter().filter_map(|k| k.rsplit('.').next()).collect();
    let branch = format!("kotef/issue-{n}");
    let files =
        kotef_testkit::git_output(&w.bare, &["ls-tree", "-r", "--name-only", &branch]).unwrap();
    let named = kept
        .iter()
        .any(|k| k.ends_with(".jsonl") && comment.body.contains(&format!("`transcripts/{k}`")));
    assert_eq!(
        (exts, files.contains("transcript"), named),
        (vec!["html", "jsonl"], false, true),
        "{kept:?}\n{files}\n{}",
        comment.body
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn looping_run_is_stopped_pushed_and_snitched() {
    let model = json!({
        "planner": [planner_to("researcher", json!({"query": "How is the greeting configured?"}))],
        "researcher": [{"content": "{\"findings\": \"README.md only\", \"quality\": 0.9}"}]
    });
    let w = world(model).await;
    let n = label(&w, "e2e-loop").await;
    let comment =
        w.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("a final comment");
    let body = &comment.body;
    assert!(body.contains("`aborted_stuck`"), "{body}");
    assert!(body.contains("planner_to_researcher"), "{body}");
    assert!(body.contains("Loop detected"), "{body}");

    let branch = format!("kotef/issue-{n}");
    let issues = on_branch(&w.bare, &branch, ".sdd/issues.md").expect("issues.md pushed");
    assert!(issues.contains("planner_to_researcher"), "{issues}");
    assert!(issues.contains("Add a greeting"), "{issues}");
    assert_eq!(w.gh.pulls(REPO).len(), 0, "no code changed, so no PR");
}
