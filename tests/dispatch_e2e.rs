//! `kotef serve --executor actions` as a process: a signed webhook becomes exactly one
//! `workflow_dispatch` of the repository's kotef workflow (checked by the fake GitHub against
//! the workflow's declared inputs), a redelivery none; nothing is cloned on the server. Then
//! the dispatched inputs are fed to `kotef action` as the runner would, which continues the
//! server's sticky comment and does the run.

mod support;

use kotef_testkit::script::planner_to;
use kotef_testkit::{FakeGitHub, FAKE_TOKEN};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;

const REPO: &str = "acme/greeter";
const SECRET: &str = "dispatch-webhook-secret";
const SERVER: &str = "https://github.test";
const WAIT: Duration = Duration::from_secs(30);

struct Server {
    child: tokio::process::Child,
    addr: String,
}

/// Starts `kotef serve --executor actions` on port 0 and reads its address from the log.
async fn serve(gh: &FakeGitHub, data: &Path) -> Server {
    let mut child = support::serve::actions_executor(&gh.api_url(), data, SECRET)
        .spawn()
        .unwrap();
    let addr = support::serve::listening_addr(&mut child, |line| {
        assert!(
            line.contains("executor=\"actions\"") || line.contains("executor=actions"),
            "{line}"
        );
    })
    .await;
    Server { child, addr }
}

async fn webhook(s: &Server, delivery: &str, body: &[u8]) -> (u16, String) {
    let resp = kotef_testkit::send_webhook(
        &reqwest::Client::new(),
        &format!("http://{}/webhook", s.addr),
        SECRET,
        "issues",
        delivery,
        body,
    )
    .await
    .unwrap();
    let status = resp.status().as_u16();
    (status, resp.text().await.unwrap_or_default())
}

fn labeled(gh: &FakeGitHub, title: &str) -> (u64, Vec<u8>) {
    let n = gh.add_issue(REPO, title, "Please add hello.txt saying hello.");
    let body = kotef_testkit::issues_labeled(
        REPO,
        n,
        title,
        "Please add hello.txt saying hello.",
        "kotef",
        "alice",
    );
    (n, body)
}

/// `kotef action` for a `workflow_dispatch` event, as the kotef workflow's runner runs it.
async fn run_action(
    gh: &FakeGitHub,
    git_root: &Path,
    dir: &Path,
    payload: &[u8],
) -> (i32, String, String) {
    let event = dir.join("event.json");
    std::fs::write(&event, payload).unwrap();
    let model = dir.join("model.json");
    let script = json!({"model": {
        "planner": [
            planner_to("coder", json!({"task": "Create hello.txt containing hello"})),
            planner_to("done", json!({}))
        ],
        "coder": [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "hello\n"}}]},
            {"tool_calls": [{"name": "done", "arguments": {"summary": "wrote hello.txt"}}]}
        ]
    }});
    std::fs::write(&model, script.to_string()).unwrap();
    let temp: PathBuf = dir.join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_kotef"))
        .arg("action")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("GITHUB_EVENT_NAME", "workflow_dispatch")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", REPO)
        .env("GITHUB_TOKEN", FAKE_TOKEN)
        .env("GITHUB_WORKSPACE", dir.join("no-checkout"))
        .env("GITHUB_SERVER_URL", SERVER)
        .env("GITHUB_API_URL", gh.api_url())
        .env("GITHUB_RUN_ID", "4242")
        .env("GITHUB_OUTPUT", dir.join("out"))
        .env("GITHUB_STEP_SUMMARY", dir.join("summary"))
        .env("RUNNER_TEMP", &temp)
        .env("KOTEF_GIT_BASE_URL", kotef_testkit::file_base_url(git_root))
        .env("KOTEF_MODEL", format!("scripted:{}", model.display()))
        .env("KOTEF_ISSUE_NUMBER", "")
        .env("KOTEF_GOAL", "")
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(120), out)
        .await
        .unwrap()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_becomes_one_dispatch_and_the_runner_continues_the_comment() {
    let gh = FakeGitHub::start().await;
    gh.add_repo(REPO, "main");
    gh.set_permission(REPO, "alice", "admin");
    gh.add_workflow(REPO, "kotef.yml", &["issue-number", "goal", "kotef-run"]);
    let git_root = tempfile::tempdir().unwrap();
    let bare = kotef_testkit::init_bare_repo(
        git_root.path(),
        REPO,
        &[
            ("README.md", "# greeter\n"),
            (
                ".github/kotef.toml",
                "test_command = \"grep -q hello hello.txt\"\nsandbox = \"none\"\n",
            ),
        ],
    );
    let data = tempfile::tempdir().unwrap();
    let mut server = serve(&gh, data.path()).await;

    let (n, body) = labeled(&gh, "Add a greeting");
    let (status, text) = webhook(&server, "delivery-1", &body).await;
    assert_eq!(status, 202, "{text}");
    assert!(
        gh.wait_until(WAIT, |g| g.dispatches().len() == 1).await,
        "one dispatch"
    );
    let d = gh.dispatches().remove(0);
    assert_eq!(d.workflow, "kotef.yml");
    assert_eq!(d.git_ref, "main");
    assert_eq!(d.inputs["issue-number"], n.to_string());
    let goal = d.inputs["goal"].as_str().unwrap();
    assert!(
        goal.starts_with(&format!(
            "Issue #{n}: Add a greeting\nOpened by @alice.\n\nPlease add hello.txt"
        )),
        "{goal}"
    );
    let run: kotef_github::entry::dispatch::DispatchedRun =
        serde_json::from_str(d.inputs["kotef-run"].as_str().unwrap()).unwrap();
    assert_eq!(run.requested_by, "alice");
    assert_eq!(run.delivery, "delivery-1");
    let first = gh.kotef_comments(REPO, n);
    assert_eq!(first.len(), 1);
    assert_eq!(run.comment_id, Some(first[0].id));
    assert!(
        first[0].body.contains("starting on GitHub Actions")
            && first[0]
                .body
                .contains(&format!("({SERVER}/{REPO}/actions/workflows/kotef.yml)")),
        "{}",
        first[0].body
    );
    assert!(gh
        .reactions()
        .iter()
        .any(|r| !r.on_comment && r.target == n && r.content == "eyes"));

    // A redelivery is answered as a duplicate and dispatches nothing: a later delivery for
    // another issue is the only other dispatch.
    let (status, text) = webhook(&server, "delivery-1", &body).await;
    assert_eq!((status, text.as_str()), (200, "duplicate delivery"));
    let (m, other) = labeled(&gh, "Another");
    assert_eq!(webhook(&server, "delivery-2", &other).await.0, 202);
    assert!(gh.wait_until(WAIT, |g| g.dispatches().len() == 2).await);
    let numbers: Vec<String> = gh
        .dispatches()
        .iter()
        .map(|d| d.inputs["issue-number"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(numbers, vec![n.to_string(), m.to_string()]);
    let workspaces = data.path().join("state/workspaces");
    assert_eq!(
        std::fs::read_dir(&workspaces)
            .map(|d| d.count())
            .unwrap_or(0),
        0,
        "the dispatcher clones nothing"
    );
    server.child.kill().await.unwrap();

    // The runner: `kotef action` with the dispatch's inputs, sent by the dispatching identity.
    let runner = tempfile::tempdir().unwrap();
    let inputs: Vec<(&str, &str)> = d
        .inputs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str().unwrap()))
        .collect();
    let payload = kotef_testkit::workflow_dispatch(REPO, &inputs, kotef_testkit::FAKE_BOT_LOGIN);
    let (code, stdout, stderr) = run_action(&gh, git_root.path(), runner.path(), &payload).await;
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    let comments = gh.kotef_comments(REPO, n);
    assert_eq!(comments.len(), 1, "the runner edits the server's comment");
    let c = &comments[0];
    assert!(c.body.contains("`done_success`"), "{}", c.body);
    assert!(c.body.contains(&run.run_id), "{}", c.body);
    assert!(
        c.body
            .contains(&format!("[Actions run]({SERVER}/{REPO}/actions/runs/4242)")),
        "{}",
        c.body
    );
    assert!(c.body.contains("requested by @alice"), "{}", c.body);
    assert_eq!(
        kotef_testkit::git_output(&bare, &["show", &format!("kotef/issue-{n}:hello.txt")])
            .as_deref(),
        Some("hello\n")
    );
    let pulls = gh.pulls(REPO);
    assert_eq!(pulls.len(), 1);
    assert!(pulls[0].body.contains(&format!("Closes #{n}")));
}
