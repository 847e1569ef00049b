//! Every way to ask for a run, through the server: a `/kotef run` review comment on a line of
//! a pull request, a submitted review holding `/kotef run`, assigning the issue to kotef, and
//! the repository's own trigger label. Each starts exactly one run for a writer and none for
//! a reader.

mod common;

use common::{Harness, REPO};
use kotef_testkit::{FakeBehavior, FakeExecutor};
use std::sync::Arc;

/// A started server with a `feature` branch and an open PR from it; returns the PR number.
async fn with_pull(h: &mut Harness, exec: Arc<FakeExecutor>) -> u64 {
    h.start(exec).await;
    kotef_testkit::push_branch(&h.bare, "feature", &[("feature.txt", "f\n")]);
    h.gh.add_pull(REPO, "Feature", "feature", REPO, "main")
}

/// Runs started for `number`: final comments kotef wrote there.
async fn runs_after(h: &Harness, number: u64) -> usize {
    assert!(h.wait_jobs_done().await, "jobs finished");
    h.gh.kotef_comments(REPO, number)
        .iter()
        .filter(|c| c.body.contains("kotef run ended"))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_comment_by_a_writer_runs_once_on_the_pull_request() {
    let mut h = Harness::new().await;
    let exec = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    let pr = with_pull(&mut h, exec).await;
    let body = kotef_testkit::review_comment_created(
        REPO,
        pr,
        "feature",
        901,
        ("src/lib.rs", 1),
        "/kotef run",
        "mo",
    );
    assert_eq!(
        h.send("pull_request_review_comment", "rc-1", &body)
            .await
            .status(),
        202
    );
    assert_eq!(runs_after(&h, pr).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_comment_by_a_reader_runs_nothing() {
    let mut h = Harness::new().await;
    let exec = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    let pr = with_pull(&mut h, exec.clone()).await;
    let body = kotef_testkit::review_comment_created(
        REPO,
        pr,
        "feature",
        902,
        ("src/lib.rs", 1),
        "/kotef run",
        "rita",
    );
    h.send("pull_request_review_comment", "rc-2", &body).await;
    assert!(h.wait_jobs_done().await);
    assert_eq!(exec.calls(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_gets_the_file_lines_and_text_of_the_review_comment() {
    let mut h = Harness::new().await;
    let exec = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    let pr = with_pull(&mut h, exec.clone()).await;
    let body = kotef_testkit::review_comment_created(
        REPO,
        pr,
        "feature",
        903,
        ("src/lib.rs", 7),
        "Return an error here.\n\n/kotef run",
        "mo",
    );
    h.send("pull_request_review_comment", "rc-3", &body).await;
    runs_after(&h, pr).await;
    let goal = exec
        .goals
        .lock()
        .unwrap()
        .first()
        .cloned()
        .unwrap_or_default();
    assert!(
        goal.contains("review comment by @mo (MEMBER) on `src/lib.rs` line 7")
            && goal.contains("+new line")
            && goal.contains("Return an error here."),
        "{goal}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submitted_review_with_the_command_runs_once() {
    let mut h = Harness::new().await;
    let exec = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    let pr = with_pull(&mut h, exec).await;
    let body =
        kotef_testkit::review_submitted(REPO, pr, "feature", "Looks off.\n/kotef run", "alice");
    assert_eq!(
        h.send("pull_request_review", "rv-1", &body).await.status(),
        202
    );
    assert_eq!(runs_after(&h, pr).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assigning_the_issue_to_kotef_runs_once() {
    let mut h = Harness::new().await;
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    let n =
        h.gh.add_issue(REPO, "Add a greeting", "Please add hello.txt");
    let body = kotef_testkit::issues_assigned(
        REPO,
        n,
        "Add a greeting",
        "Please add hello.txt",
        kotef_testkit::FAKE_BOT_LOGIN,
        "alice",
    );
    assert_eq!(h.send("issues", "as-1", &body).await.status(), 202);
    assert_eq!(runs_after(&h, n).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assigning_the_issue_to_someone_else_runs_nothing() {
    let mut h = Harness::new().await;
    let exec = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    h.start(exec.clone()).await;
    let n =
        h.gh.add_issue(REPO, "Add a greeting", "Please add hello.txt");
    let body = kotef_testkit::issues_assigned(REPO, n, "Add a greeting", "b", "mo", "alice");
    h.send("issues", "as-2", &body).await;
    assert!(h.wait_jobs_done().await);
    assert_eq!(exec.calls(), 0);
}

/// Labels a new issue `label` (as alice) in a repository whose config on `main` says
/// `config`; returns the number of runs the executor started.
async fn label_with_repository_config(label: &str, config: &str) -> u32 {
    let mut h = Harness::new().await;
    let exec = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    h.start(exec.clone()).await;
    h.gh.set_file(REPO, "main", ".github/kotef.toml", config);
    let n =
        h.gh.add_issue(REPO, "Add a greeting", "Please add hello.txt");
    let body = kotef_testkit::issues_labeled(REPO, n, "Add a greeting", "b", label, "alice");
    h.send("issues", "lb-1", &body).await;
    assert!(h.wait_jobs_done().await);
    exec.calls()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_repository_trigger_label_starts_a_run() {
    let runs = label_with_repository_config("agent", "trigger_label = \"agent\"\n").await;
    assert_eq!(runs, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_label_that_is_nobodys_trigger_label_runs_nothing() {
    let runs = label_with_repository_config("bug", "trigger_label = \"agent\"\n").await;
    assert_eq!(runs, 0);
}
