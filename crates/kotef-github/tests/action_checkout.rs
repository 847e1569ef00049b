//! Action mode in the runner's checkout (`JobContext::checkout`): a pull request's branch is
//! fetched and worked on in place; a checkout with uncommitted changes (or of another
//! repository) is left alone and the run happens in a fresh clone, with a note saying so;
//! the goal and test command given by the action win.

mod common;

use common::{Harness, REPO};
use kotef_core::DeliveryId;
use kotef_github::testing::{self, FakeBehavior, FakeExecutor, FAKE_TOKEN};
use kotef_github::{
    process_job, DecisionConfig, GitHub, GitHubAuth, GitSettings, Job, JobContext, JobStatus,
    RetryPolicy, Secret,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Dev")
        .env("GIT_AUTHOR_EMAIL", "dev@example.com")
        .env("GIT_COMMITTER_NAME", "Dev")
        .env("GIT_COMMITTER_EMAIL", "dev@example.com")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn checkout(h: &Harness, name: &str, repo: &str) -> PathBuf {
    let dir = h.data.path().join(name);
    let url = format!("{}/{repo}.git", testing::file_base_url(h.git_root.path()));
    git(h.data.path(), &["clone", "-q", &url, dir.to_str().unwrap()]);
    dir
}

fn context(h: &Harness, checkout: Option<PathBuf>) -> JobContext {
    let gh = GitHub::new(
        &h.gh.api_url(),
        GitHubAuth::Token(Secret::new(FAKE_TOKEN)),
        RetryPolicy::fast(),
    )
    .unwrap();
    let git = GitSettings {
        base_url: testing::file_base_url(h.git_root.path()),
        ..GitSettings::default()
    };
    let mut ctx = JobContext::new(gh, git, h.data.path().join("clones"));
    ctx.progress_interval = Duration::from_millis(10);
    ctx.checkout = checkout;
    ctx.web_base_url = "https://github.test".into();
    ctx.actions_run_url = Some("https://github.test/acme/widgets/actions/runs/9".into());
    ctx
}

fn job(event: &str, payload: &[u8]) -> Job {
    let mut job = Job::from_event(
        event,
        payload,
        &DecisionConfig::default(),
        DeliveryId("a".into()),
    )
    .unwrap()
    .expect("a run");
    job.attempts = 1;
    job
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
    let payload = testing::pull_request_labeled(REPO, pr, "feature", REPO, "kotef", "alice");
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
    let payload = testing::issues_labeled(REPO, n, "Greeting", "Add hello.txt", "kotef", "alice");
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
    testing::init_bare_repo(h.git_root.path(), "acme/other", &[("x", "y\n")]);
    let other = checkout(&h, "other", "acme/other");
    let n = h.gh.add_issue(REPO, "Again", "b");
    let payload = testing::issues_labeled(REPO, n, "Again", "b", "kotef", "alice");
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
