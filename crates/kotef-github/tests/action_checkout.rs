//! Action mode in the runner's checkout (`JobContext::checkout`): a pull request's branch is
//! fetched and worked on in place; a checkout with uncommitted changes (or of another
//! repository) is left alone and the run happens in a fresh clone, with a note saying so;
//! the goal and test command given by the action win.

mod common;

use common::{Harness, REPO};
use kotef_github::{process_job, Job, JobContext, JobStatus};
use kotef_testkit::{git, FakeBehavior, FakeExecutor};
use std::path::PathBuf;

fn checkout(h: &Harness, name: &str, repo: &str) -> PathBuf {
    let dir = h.data.path().join(name);
    let url = format!(
        "{}/{repo}.git",
        kotef_testkit::file_base_url(h.git_root.path())
    );
    git(h.data.path(), &["clone", "-q", &url, dir.to_str().unwrap()]);
    dir
}

fn context(h: &Harness, checkout: Option<PathBuf>) -> JobContext {
    let mut ctx = h.job_context("clones");
    ctx.checkout = checkout;
    ctx.web_base_url = "https://github.test".into();
    ctx.actions_run_url = Some("https://github.test/acme/widgets/actions/runs/9".into());
    ctx
}

fn job(event: &str, payload: &[u8]) -> Job {
    common::first_attempt(event, payload, "a")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pull_request_is_worked_on_in_the_checkout() {
    let h = Harness::new().await;
    // A same-repository PR branch with one commit.
    let dev = checkout(&h, "dev", REPO);
    git(&dev, &["checkout", "-q", "-b", "feature"]);
    std::fs::write(dev.join("feature.txt"), "wip\n").unwrap();
    git(&dev, &["add", "-A"]);
    git(&dev, &["commit", "-q", "-m", "wip"]);
    git(&dev, &["push", "-q", "origin", "feature"]);
    let pr = h.gh.add_pull(REPO, "Feature", "feature", REPO, "main");

    let ws = checkout(&h, "ws", REPO);
    let payload = kotef_testkit::pull_request_labeled(REPO, pr, "feature", REPO, "kotef", "alice");
    let mut job = job("pull_request", &payload);
    job.goal = Some("Say hello in hello.txt".into());
    job.test_command = Some("grep -q hello hello.txt".into());
    let exec = FakeExecutor::new(FakeBehavior::Succeed);
    let result = process_job(&context(&h, Some(ws.clone())), &job, &exec).await;
    assert_eq!(result.status, JobStatus::Finished, "{}", result.message);
    assert_eq!(result.branch.as_deref(), Some("feature"));
    assert_eq!(
        result.pull_url.as_deref(),
        Some(format!("https://github.test/{REPO}/pull/{pr}").as_str())
    );
    assert_eq!(
        exec.goals.lock().unwrap().as_slice(),
        ["Say hello in hello.txt"]
    );
    assert_eq!(git(&ws, &["rev-parse", "--abbrev-ref", "HEAD"]), "feature");
    assert!(ws.join("feature.txt").exists() && ws.join("hello.txt").exists());
    assert_eq!(
        h.file_on_branch("feature", "hello.txt").as_deref(),
        Some("hello from kotef\n")
    );
    assert_eq!(
        h.file_on_branch("feature", "feature.txt").as_deref(),
        Some("wip\n")
    );
    let comment = result.comment.expect("final comment");
    assert!(comment.contains("[Actions run](https://github.test/acme/widgets/actions/runs/9)"));
    assert!(!comment.contains("fresh clone"), "{comment}");
    assert!(h.gh.pulls(REPO).len() == 1, "no new PR for a PR run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dirty_or_foreign_checkout_is_left_alone() {
    let h = Harness::new().await;
    let ws = checkout(&h, "ws", REPO);
    std::fs::write(ws.join("local-notes.txt"), "mine\n").unwrap();
    let n = h.gh.add_issue(REPO, "Greeting", "Add hello.txt");
    let payload =
        kotef_testkit::issues_labeled(REPO, n, "Greeting", "Add hello.txt", "kotef", "alice");
    let exec = FakeExecutor::new(FakeBehavior::Succeed);
    let result = process_job(
        &context(&h, Some(ws.clone())),
        &job("issues", &payload),
        &exec,
    )
    .await;
    assert_eq!(result.status, JobStatus::Finished, "{}", result.message);
    let comment = result.comment.expect("final comment");
    assert!(
        comment.contains("uncommitted changes") && comment.contains("fresh clone"),
        "{comment}"
    );
    assert_eq!(git(&ws, &["rev-parse", "--abbrev-ref", "HEAD"]), "main");
    assert!(!ws.join("hello.txt").exists());
    let branch = format!("kotef/issue-{n}");
    assert_eq!(
        h.file_on_branch(&branch, "hello.txt").as_deref(),
        Some("hello from kotef\n")
    );
    assert!(h.file_on_branch(&branch, "local-notes.txt").is_none());

    // A checkout of another repository is not touched either.
    kotef_testkit::init_bare_repo(h.git_root.path(), "acme/other", &[("x", "y\n")]);
    let other = checkout(&h, "other", "acme/other");
    let n = h.gh.add_issue(REPO, "Again", "b");
    let payload = kotef_testkit::issues_labeled(REPO, n, "Again", "b", "kotef", "alice");
    let result = process_job(
        &context(&h, Some(other.clone())),
        &job("issues", &payload),
        &exec,
    )
    .await;
    assert_eq!(result.status, JobStatus::Finished, "{}", result.message);
    assert!(result.comment.unwrap().contains("is not acme/widgets"));
    assert!(!other.join("hello.txt").exists());
}
