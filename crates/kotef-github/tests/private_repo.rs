//! A private repository (issue 20, row 7): the remote refuses every request without the
//! token, as GitHub does, and kotef's clone is partial (`--filter=blob:none`), so blobs are
//! fetched lazily in the middle of checkout, rebase, show or add. Every such command must
//! carry the token — through the environment only: it never appears in the bare
//! repository's config, the clone's config or an error message.

mod common;

use base64::Engine;
use common::{Harness, REPO, WAIT};
use kotef_core::RepoName;
use kotef_github::outbound::workspace::Pushed;
use kotef_github::{process_job, GitSettings, Job, JobStatus, Secret, Workspace};
use kotef_testkit::{basic_auth, push_branch, FakeBehavior, FakeExecutor, SmartHttp, FAKE_TOKEN};
use std::path::Path;

const WORK: &str = "kotef/issue-1";

fn settings(remote: &SmartHttp) -> GitSettings {
    GitSettings {
        base_url: remote.base_url(),
        ..GitSettings::default()
    }
}

fn repo() -> RepoName {
    RepoName::new("acme", "widgets")
}

fn token() -> Secret {
    Secret::from(FAKE_TOKEN)
}

/// Whether `text` holds the token in any form git could have written it.
fn leaks(text: &str) -> bool {
    let basic = basic_auth(FAKE_TOKEN);
    let encoded = basic.trim_start_matches("Basic ");
    text.contains(FAKE_TOKEN) || text.contains(encoded)
}

/// An issue job on `REPO` labelled by alice.
fn issue_job(n: u64) -> Job {
    let payload =
        kotef_testkit::issues_labeled(REPO, n, "Greeting", "Add hello.txt", "kotef", "alice");
    common::first_attempt("issues", &payload, &format!("d{n}"))
}

/// Runs issue `n` through the pipeline against the private remote.
async fn run_issue(h: &Harness, remote: &SmartHttp, n: u64) -> kotef_github::JobResult {
    let mut ctx = h.job_context("clones");
    ctx.git = settings(remote);
    let exec = FakeExecutor::new(FakeBehavior::Succeed);
    tokio::time::timeout(WAIT * 3, process_job(&ctx, &issue_job(n), &exec))
        .await
        .expect("the job ends")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anonymous_requests_to_the_private_remote_are_refused() {
    let h = Harness::new().await;
    let remote = SmartHttp::start(h.git_root.path(), FAKE_TOKEN).await;
    let parent = tempfile::tempdir().unwrap();
    let cloned = Workspace::clone(parent.path(), &settings(&remote), &repo(), None, "main").await;
    assert!(cloned.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clone_of_a_private_repository_is_partial() {
    let h = Harness::new().await;
    let remote = SmartHttp::start(h.git_root.path(), FAKE_TOKEN).await;
    let parent = tempfile::tempdir().unwrap();
    let ws = Workspace::clone(
        parent.path(),
        &settings(&remote),
        &repo(),
        Some(&token()),
        "main",
    )
    .await
    .unwrap();
    let config = std::fs::read_to_string(ws.git_dir().join("config")).unwrap();
    assert!(
        config.contains("partialclonefilter = blob:none"),
        "{config}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_run_on_a_private_repository_pushes_its_branch() {
    let h = Harness::new().await;
    let remote = SmartHttp::start(h.git_root.path(), FAKE_TOKEN).await;
    let n = h.gh.add_issue(REPO, "Greeting", "Add hello.txt");
    let result = run_issue(&h, &remote, n).await;
    assert_eq!(
        (
            result.status,
            h.file_on_branch(&format!("kotef/issue-{n}"), "hello.txt")
        ),
        (JobStatus::Finished, Some("hello from kotef\n".to_string())),
        "{}",
        result.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rerun_on_a_private_repository_continues_the_existing_branch() {
    let h = Harness::new().await;
    let remote = SmartHttp::start(h.git_root.path(), FAKE_TOKEN).await;
    let n = h.gh.add_issue(REPO, "Greeting", "Add hello.txt");
    let branch = format!("kotef/issue-{n}");
    push_branch(&h.bare, &branch, &[("earlier.txt", "from the first run\n")]);
    let result = run_issue(&h, &remote, n).await;
    assert_eq!(
        (
            h.file_on_branch(&branch, "earlier.txt"),
            h.file_on_branch(&branch, "hello.txt")
        ),
        (
            Some("from the first run\n".to_string()),
            Some("hello from kotef\n".to_string())
        ),
        "{:?}",
        result.comment
    );
}

/// A clone on the work branch with one committed change, ready to push.
async fn committed(remote: &SmartHttp, parent: &Path) -> Workspace {
    let mut ws = Workspace::clone(parent, &settings(remote), &repo(), Some(&token()), "main")
        .await
        .unwrap();
    ws.checkout_work_branch(WORK).await.unwrap();
    ws.freeze_git_config().unwrap();
    std::fs::write(ws.path().join("mine.txt"), "kotef's work\n").unwrap();
    assert!(ws.commit_all("work").await.unwrap());
    ws
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_behind_the_private_remote_is_rebased_and_pushed_again() {
    let h = Harness::new().await;
    let remote = SmartHttp::start(h.git_root.path(), FAKE_TOKEN).await;
    let parent = tempfile::tempdir().unwrap();
    let ws = committed(&remote, parent.path()).await;
    // Someone else pushed to the branch meanwhile: the first push is not a fast-forward, and
    // the rebase needs their blobs.
    push_branch(&h.bare, WORK, &[("theirs.txt", "someone else\n")]);
    assert_eq!(
        ws.push("fallback").await.unwrap(),
        Pushed {
            branch: WORK.into(),
            retried: true
        }
    );
}

/// The error of a push the private remote's pre-receive hook rejects.
async fn rejected_push(h: &Harness, remote: &SmartHttp) -> String {
    let hook = h.bare.join("hooks/pre-receive");
    std::fs::write(&hook, "#!/bin/sh\necho 'pushes are frozen' >&2\nexit 1\n").unwrap();
    let executable = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(&hook, executable).unwrap();
    let parent = tempfile::tempdir().unwrap();
    let ws = committed(remote, parent.path()).await;
    ws.push("fallback").await.unwrap_err().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_the_private_remote_rejects_is_a_git_error_saying_so() {
    let h = Harness::new().await;
    let remote = SmartHttp::start(h.git_root.path(), FAKE_TOKEN).await;
    let e = rejected_push(&h, &remote).await;
    assert!(
        e.contains("git push failed") && e.contains("rejected"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_push_does_not_show_the_token() {
    let h = Harness::new().await;
    let remote = SmartHttp::start(h.git_root.path(), FAKE_TOKEN).await;
    let e = rejected_push(&h, &remote).await;
    assert!(!leaks(&e), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_is_in_no_git_config_after_a_push() {
    let h = Harness::new().await;
    let remote = SmartHttp::start(h.git_root.path(), FAKE_TOKEN).await;
    let parent = tempfile::tempdir().unwrap();
    let ws = committed(&remote, parent.path()).await;
    ws.push("fallback").await.unwrap();
    let configs = [
        std::fs::read_to_string(h.bare.join("config")).unwrap(),
        std::fs::read_to_string(ws.git_dir().join("config")).unwrap(),
    ];
    assert!(!configs.iter().any(|c| leaks(c)), "{configs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_kotef_makes_to_the_private_remote_carries_the_token() {
    let h = Harness::new().await;
    let remote = SmartHttp::start(h.git_root.path(), FAKE_TOKEN).await;
    let parent = tempfile::tempdir().unwrap();
    let ws = committed(&remote, parent.path()).await;
    ws.push("fallback").await.unwrap();
    let refused: Vec<_> = remote
        .requests()
        .into_iter()
        .filter(|r| r.status == 401)
        .collect();
    assert!(refused.is_empty(), "{refused:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_netrc_in_the_work_tree_is_never_sent_to_the_remote() {
    let h = Harness::new().await;
    let remote = SmartHttp::start(h.git_root.path(), FAKE_TOKEN).await;
    // A checkout whose repository ships a `.netrc` (HOME used to be the work tree).
    let dir = h.data.path().join("checkout");
    let header = format!("http.extraHeader=Authorization: {}", basic_auth(FAKE_TOKEN));
    let url = format!("{}/{REPO}.git", remote.base_url());
    kotef_testkit::git(
        h.data.path(),
        &["-c", &header, "clone", "-q", &url, dir.to_str().unwrap()],
    );
    let host = remote.base_url().trim_start_matches("http://").to_string();
    let host = host.split(':').next().unwrap_or_default().to_string();
    std::fs::write(
        dir.join(".netrc"),
        format!("machine {host} login netrc-user password netrc-pass\n"),
    )
    .unwrap();
    kotef_testkit::git(&dir, &["add", ".netrc"]);
    kotef_testkit::git(&dir, &["commit", "-q", "-m", "netrc"]);
    let _ = Workspace::adopt(&dir, &settings(&remote), &repo(), None, "main").await;
    let netrc = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode("netrc-user:netrc-pass")
    );
    let sent: Vec<_> = remote
        .requests()
        .into_iter()
        .filter(|r| r.authorization.as_deref() == Some(netrc.as_str()))
        .collect();
    assert!(sent.is_empty(), "{sent:?}");
}

/// An adopted checkout whose config already names another remote (`loot`) as the push URL;
/// kotef commits and pushes there. Returns the harness and the other remote.
async fn push_with_a_foreign_push_url() -> (Harness, SmartHttp, SmartHttp) {
    let h = Harness::new().await;
    let remote = SmartHttp::start(h.git_root.path(), FAKE_TOKEN).await;
    let loot_root = tempfile::tempdir().unwrap();
    kotef_testkit::init_bare_repo(loot_root.path(), REPO, &[("x", "y\n")]);
    let loot = SmartHttp::start(loot_root.path(), "the attacker's own token").await;
    let dir = h.data.path().join("checkout");
    let header = format!("http.extraHeader=Authorization: {}", basic_auth(FAKE_TOKEN));
    let url = format!("{}/{REPO}.git", remote.base_url());
    kotef_testkit::git(
        h.data.path(),
        &["-c", &header, "clone", "-q", &url, dir.to_str().unwrap()],
    );
    let pushurl = format!("{}/{REPO}.git", loot.base_url());
    kotef_testkit::git(&dir, &["config", "remote.origin.pushurl", &pushurl]);
    let mut ws = Workspace::adopt(&dir, &settings(&remote), &repo(), Some(&token()), "main")
        .await
        .unwrap();
    ws.checkout_work_branch(WORK).await.unwrap();
    ws.freeze_git_config().unwrap();
    std::fs::write(dir.join("mine.txt"), "kotef's work\n").unwrap();
    ws.commit_all("work").await.unwrap();
    let _ = ws.push("fallback").await;
    (h, remote, loot)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_url_left_in_an_adopted_checkout_never_receives_the_token() {
    let (_h, _remote, loot) = push_with_a_foreign_push_url().await;
    let leaked: Vec<_> = loot
        .requests()
        .into_iter()
        .filter(|r| r.authorization.as_deref().is_some_and(leaks))
        .collect();
    assert!(leaked.is_empty(), "{leaked:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_url_left_in_an_adopted_checkout_is_dropped_and_the_work_goes_to_origin() {
    let (h, _remote, _loot) = push_with_a_foreign_push_url().await;
    assert_eq!(
        h.file_on_branch(WORK, "mine.txt").as_deref(),
        Some("kotef's work\n")
    );
}
