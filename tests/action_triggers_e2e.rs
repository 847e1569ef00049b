//! What starts a run in the Action and where it works, through the real `kotef action` binary
//! with a runner's environment, the fake GitHub over loopback and a bare repository as the
//! remote: a labelled pull request (as `pull_request` and as an `issues` event), the
//! repository's own `trigger_label`, the `trigger-phrase`, `branch-prefix` and `base-branch`
//! inputs, and a bad input's message.

mod support;

use kotef_testkit::git;
use serde_json::json;
use support::action_runner::{
    checkout, hello_model, labeled, run_action, world_with_config, Ran, World, REPO,
};

const CONFIG: &str =
    "test_command = \"grep -q hello hello.txt\"\nsandbox = \"none\"\n[limits]\nmax_steps = 40\n";

async fn world() -> World {
    world_with_config(CONFIG).await
}

fn model() -> serde_json::Value {
    hello_model("go on", "wrote hello.txt")
}

fn hello_on(w: &World, branch: &str) -> Option<String> {
    kotef_testkit::git_output(&w.bare, &["show", &format!("{branch}:hello.txt")])
}

fn ending(r: &Ran) -> &str {
    r.outputs
        .get("terminal-status")
        .map(String::as_str)
        .unwrap_or("(no output)")
}

/// A pull request from the branch `changes` into `main`; its number.
fn pull(w: &World) -> u64 {
    git::push_branch(&w.bare, "changes", &[("notes.md", "changes\n")]);
    w.gh.add_pull(REPO, "Update the notes", "changes", REPO, "main")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn labelling_a_pull_request_runs_on_its_own_branch() {
    let w = world().await;
    let n = pull(&w);
    let payload = kotef_testkit::pull_request_labeled(REPO, n, "changes", REPO, "kotef", "alice");
    let ws = checkout(&w, true);
    let r = run_action(&w, "pull_request", &payload, &ws, &model(), &[]).await;
    assert_eq!(
        (ending(&r), hello_on(&w, "changes").as_deref()),
        ("done_success", Some("hello\n")),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_issues_event_labelling_a_pull_request_runs_on_its_own_branch() {
    let w = world().await;
    let n = pull(&w);
    let mut p: serde_json::Value = serde_json::from_slice(&kotef_testkit::issues_labeled(
        REPO,
        n,
        "Update the notes",
        "",
        "kotef",
        "alice",
    ))
    .unwrap();
    p["issue"]["pull_request"] =
        json!({"url": format!("https://api.github.test/repos/{REPO}/pulls/{n}")});
    let ws = checkout(&w, true);
    let r = run_action(
        &w,
        "issues",
        &serde_json::to_vec(&p).unwrap(),
        &ws,
        &model(),
        &[],
    )
    .await;
    assert_eq!(
        (ending(&r), hello_on(&w, "changes").as_deref()),
        ("done_success", Some("hello\n")),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_repositorys_own_trigger_label_starts_a_run() {
    let config = format!("trigger_label = \"ai-fix\"\n{CONFIG}");
    let w = world_with_config(&config).await;
    w.gh.set_file(REPO, "main", ".github/kotef.toml", &config);
    let n =
        w.gh.add_issue(REPO, "Add a greeting", "Please add hello.txt.");
    let payload = kotef_testkit::issues_labeled(
        REPO,
        n,
        "Add a greeting",
        "Please add hello.txt.",
        "ai-fix",
        "alice",
    );
    let ws = checkout(&w, true);
    let r = run_action(&w, "issues", &payload, &ws, &model(), &[]).await;
    assert_eq!(
        (
            ending(&r),
            hello_on(&w, &format!("kotef/issue-{n}")).as_deref()
        ),
        ("done_success", Some("hello\n")),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_label_that_is_neither_the_inputs_nor_the_repositorys_starts_nothing() {
    let w = world().await;
    w.gh.set_file(REPO, "main", ".github/kotef.toml", CONFIG);
    let n = w.gh.add_issue(REPO, "Crash", "It crashes.");
    let payload = kotef_testkit::issues_labeled(REPO, n, "Crash", "It crashes.", "bug", "alice");
    let ws = checkout(&w, true);
    let r = run_action(&w, "issues", &payload, &ws, &model(), &[]).await;
    assert_eq!(
        (r.code, ending(&r), w.gh.comments(REPO, n).len()),
        (0, "", 0),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
}

fn comment(w: &World, body: &str) -> (u64, Vec<u8>) {
    let n =
        w.gh.add_issue(REPO, "Add a greeting", "Please add hello.txt.");
    let payload = kotef_testkit::issue_comment_created(
        REPO,
        n,
        false,
        4242,
        chrono::Utc::now(),
        body,
        "alice",
    );
    (n, payload)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_comment_with_the_configured_trigger_phrase_starts_a_run() {
    let w = world().await;
    let (n, payload) = comment(&w, "@kotef please add hello.txt");
    let ws = checkout(&w, true);
    let env = [("KOTEF_TRIGGER_PHRASE", "@kotef")];
    let r = run_action(&w, "issue_comment", &payload, &ws, &model(), &env).await;
    assert_eq!(
        (
            ending(&r),
            hello_on(&w, &format!("kotef/issue-{n}")).as_deref()
        ),
        ("done_success", Some("hello\n")),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_another_trigger_phrase_kotef_run_starts_nothing() {
    let w = world().await;
    let (n, payload) = comment(&w, "/kotef run");
    let ws = checkout(&w, true);
    let env = [("KOTEF_TRIGGER_PHRASE", "@kotef")];
    let r = run_action(&w, "issue_comment", &payload, &ws, &model(), &env).await;
    assert_eq!(
        (ending(&r), w.gh.kotef_comments(REPO, n).len()),
        ("", 0),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("no `@kotef` command"), "{}", r.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_branch_prefix_names_the_issue_branch_and_the_pull_requests_head() {
    let w = world().await;
    let ws = checkout(&w, true);
    let (n, payload) = labeled(&w, "alice");
    let env = [("KOTEF_BRANCH_PREFIX", "bots/kotef-")];
    let r = run_action(&w, "issues", &payload, &ws, &model(), &env).await;
    let branch = format!("bots/kotef-issue-{n}");
    let heads: Vec<String> = w.gh.pulls(REPO).into_iter().map(|p| p.head).collect();
    assert_eq!(
        (
            r.outputs.get("branch").cloned(),
            hello_on(&w, &branch).as_deref(),
            heads
        ),
        (Some(branch.clone()), Some("hello\n"), vec![branch]),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_base_branch_is_where_an_issue_run_starts_and_what_its_pull_request_targets() {
    let w = world().await;
    git::push_branch(&w.bare, "develop", &[("develop.txt", "only on develop\n")]);
    let ws = checkout(&w, true);
    let (n, payload) = labeled(&w, "alice");
    let env = [("KOTEF_BASE_BRANCH", "develop")];
    let r = run_action(&w, "issues", &payload, &ws, &model(), &env).await;
    let branch = format!("kotef/issue-{n}");
    let bases: Vec<String> = w.gh.pulls(REPO).into_iter().map(|p| p.base).collect();
    let develop_file =
        kotef_testkit::git_output(&w.bare, &["show", &format!("{branch}:develop.txt")]);
    assert_eq!(
        (bases, develop_file.as_deref()),
        (vec!["develop".to_string()], Some("only on develop\n")),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_branch_prefix_git_would_misread_fails_the_step_naming_the_input() {
    let w = world().await;
    let ws = checkout(&w, true);
    let (n, payload) = labeled(&w, "alice");
    let env = [("KOTEF_BRANCH_PREFIX", "--upload-pack=x/")];
    let r = run_action(&w, "issues", &payload, &ws, &model(), &env).await;
    assert_eq!(
        (
            r.code,
            r.stdout.contains("::error title=kotef::branch-prefix"),
            w.gh.comments(REPO, n).len()
        ),
        (1, true, 0),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
}
