//! The server's own trigger settings end to end: `kotef serve` with an assignee (a machine
//! user), a trigger phrase and a branch prefix, signed webhooks over loopback, the real graph
//! with a scripted model, and the branch pushed to a bare repository.

use kotef::executor::GraphExecutor;
use kotef_testkit::script::planner_to;
use kotef_testkit::FakeGitHub;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

const SECRET: &str = "triggers-webhook-secret";
const REPO: &str = "acme/greeter";
const WAIT: Duration = Duration::from_secs(60);

struct World {
    gh: FakeGitHub,
    _git_root: tempfile::TempDir,
    _data: tempfile::TempDir,
    bare: std::path::PathBuf,
    server: kotef_github::RunningServer,
}

/// A server whose assignee is `kotef-machine`, whose phrase is `@kotef` and whose branches
/// start with `bots/`.
async fn world() -> World {
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
    let model_file = data.path().join("model.json");
    std::fs::write(&model_file, json!({ "model": model }).to_string()).unwrap();
    let mut cfg = gh.serve_config(&[SECRET], git_root.path(), data.path().join("state"));
    cfg.progress_interval = Duration::from_millis(20);
    cfg.poll_interval = Duration::from_millis(100);
    cfg.model = Some(format!("scripted:{}", model_file.display()));
    cfg.assignee_trigger = Some("kotef-machine".into());
    cfg.trigger_phrase = "@kotef".into();
    cfg.branch_prefix = "bots/".into();
    let server = kotef_github::start(cfg, Arc::new(GraphExecutor::default()))
        .await
        .unwrap();
    World {
        gh,
        _git_root: git_root,
        _data: data,
        bare,
        server,
    }
}

async fn send(w: &World, event: &str, delivery: &str, body: &[u8]) -> String {
    let resp = kotef_testkit::send_webhook(
        &reqwest::Client::new(),
        &format!("http://{}/webhook", w.server.addr()),
        SECRET,
        event,
        delivery,
        body,
    )
    .await
    .unwrap();
    assert!(resp.status().is_success(), "{}", resp.status());
    resp.text().await.unwrap()
}

fn hello_on(w: &World, branch: &str) -> Option<String> {
    kotef_testkit::git_output(&w.bare, &["show", &format!("{branch}:hello.txt")])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_assignment_to_the_servers_assignee_runs_on_a_prefixed_branch() {
    let w = world().await;
    let n =
        w.gh.add_issue(REPO, "Add a greeting", "Please add hello.txt.");
    let body = kotef_testkit::issues_assigned(
        REPO,
        n,
        "Add a greeting",
        "Please add hello.txt.",
        "kotef-machine",
        "alice",
    );
    send(&w, "issues", "assigned-1", &body).await;
    let comment = w.gh.wait_final_comment(REPO, n, WAIT).await;
    assert_eq!(
        hello_on(&w, &format!("bots/issue-{n}")).as_deref(),
        Some("hello\n"),
        "{comment:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_trigger_phrase_starts_a_run_and_kotef_run_is_ignored() {
    let w = world().await;
    let n =
        w.gh.add_issue(REPO, "Add a greeting", "Please add hello.txt.");
    let comment = |body: &str| {
        kotef_testkit::issue_comment_created(REPO, n, false, 77, chrono::Utc::now(), body, "alice")
    };
    let ignored = send(&w, "issue_comment", "phrase-1", &comment("/kotef run")).await;
    assert_eq!(ignored, "ignored: no `@kotef` command");
    send(
        &w,
        "issue_comment",
        "phrase-2",
        &comment("@kotef add hello.txt"),
    )
    .await;
    let ended = w.gh.wait_final_comment(REPO, n, WAIT).await;
    assert_eq!(
        hello_on(&w, &format!("bots/issue-{n}")).as_deref(),
        Some("hello\n"),
        "{ended:?}"
    );
}
