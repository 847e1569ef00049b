//! Faults: GitHub 5xx and secondary rate limits, a rejected push, a server stopped mid-run,
//! an executor that fails, an invalid repository config, a missing repository.

mod common;

use common::{Harness, REPO, WAIT};
use kotef_core::{RunOutcome, RunRequest, StepProgress, TerminalStatus};
use kotef_github::RunExecutor;
use kotef_testkit::{FakeBehavior, FakeExecutor, FaultKind};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_502s_are_retried() {
    let mut h = Harness::new().await;
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    h.gh.inject(
        Some(axum::http::Method::POST),
        Some("/comments"),
        FaultKind::Status(502),
        2,
    );
    h.gh.inject(None, Some("/pulls"), FaultKind::Status(503), 1);
    let (n, r) = h.label_issue("f502", "alice").await;
    assert_eq!(r.status(), 202);
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("final comment despite 502s");
    assert!(c.body.contains("`done_success`"));
    let posts: Vec<u16> =
        h.gh.requests(&format!("/issues/{n}/comments"))
            .iter()
            .filter(|r| r.method == "POST")
            .map(|r| r.status)
            .collect();
    assert_eq!(&posts[..3], &[502, 502, 201], "{posts:?}");
    assert_eq!(h.gh.pulls(REPO).len(), 1, "the PR too");
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_response_never_duplicates_the_comment_or_the_pull_request() {
    let mut h = Harness::new().await;
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    let post = Some(axum::http::Method::POST);
    h.gh.inject(
        post.clone(),
        Some("/comments"),
        FaultKind::AppliedThenStatus(502),
        1,
    );
    h.gh.inject(post, Some("/pulls"), FaultKind::AppliedThenStatus(502), 1);
    let (n, _) = h.label_issue("flost", "alice").await;
    h.gh.wait_final_comment(REPO, n, WAIT)
        .await
        .expect("final comment");
    assert_eq!(
        (h.gh.kotef_comments(REPO, n).len(), h.gh.pulls(REPO).len()),
        (1, 1)
    );
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_reaction_response_leaves_one_reaction() {
    let mut h = Harness::new().await;
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    h.gh.inject(
        Some(axum::http::Method::POST),
        Some("/reactions"),
        FaultKind::AppliedThenStatus(502),
        1,
    );
    let (n, _) = h.label_issue("freact", "alice").await;
    h.gh.wait_final_comment(REPO, n, WAIT)
        .await
        .expect("final comment");
    assert_eq!(h.gh.reactions().len(), 1);
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secondary_rate_limit_honours_retry_after() {
    let mut h = Harness::new().await;
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    h.gh.inject(
        None,
        Some("/permission"),
        FaultKind::SecondaryRateLimit { retry_after_s: 1 },
        1,
    );
    let t0 = Instant::now();
    let (n, _) = h.label_issue("frl", "alice").await;
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("final comment");
    assert!(c.body.contains("`done_success`"));
    assert!(
        t0.elapsed() >= Duration::from_secs(1),
        "waited for Retry-After"
    );
    let perms: Vec<u16> =
        h.gh.requests("/permission")
            .iter()
            .map(|r| r.status)
            .collect();
    assert_eq!(perms, vec![403, 200]);
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_down_for_good_is_bounded() {
    let mut h = Harness::new().await;
    let mut cfg = h.config();
    cfg.retry.max_retries = 2;
    h.start_with(cfg, Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    h.gh.inject(None, Some("/comments"), FaultKind::Status(500), 1000);
    let (n, _) = h.label_issue("fdown", "alice").await;
    assert!(
        h.wait_jobs_done().await,
        "the job ends even though no comment can be written"
    );
    let rows = h.server.as_ref().unwrap().store().all_rows().await.unwrap();
    assert!(
        rows[0]
            .result
            .as_deref()
            .unwrap()
            .contains("the final comment failed"),
        "{rows:?}"
    );
    // The work itself still reached git.
    assert!(h
        .file_on_branch(&format!("kotef/issue-{n}"), "hello.txt")
        .is_some());
    h.stop().await;
}

/// Pushes a competing commit to the kotef branch while the run is going, so kotef's own push
/// is rejected as non-fast-forward.
struct RacingExecutor {
    bare: std::path::PathBuf,
    conflict: bool,
}

#[async_trait::async_trait]
impl RunExecutor for RacingExecutor {
    async fn execute(
        &self,
        req: RunRequest,
        _p: tokio::sync::mpsc::UnboundedSender<StepProgress>,
    ) -> anyhow::Result<RunOutcome> {
        let branch = String::from_utf8(
            std::process::Command::new("git")
                .args(["rev-parse", "--abbrev-ref", "HEAD"])
                .current_dir(&req.workdir)
                .output()?
                .stdout,
        )?;
        let branch = branch.trim().to_string();
        let other = tempfile::tempdir()?;
        let run = |args: &[&str], dir: &std::path::Path| {
            let ok = std::process::Command::new("git")
                .args(args)
                .current_dir(dir)
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_AUTHOR_NAME", "h")
                .env("GIT_AUTHOR_EMAIL", "h@x")
                .env("GIT_COMMITTER_NAME", "h")
                .env("GIT_COMMITTER_EMAIL", "h@x")
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            assert!(ok, "git {args:?}");
        };
        run(
            &["clone", "-q", self.bare.to_str().unwrap(), "c"],
            other.path(),
        );
        let c = other.path().join("c");
        run(&["checkout", "-q", "-b", &branch], &c);
        let file = if self.conflict {
            "hello.txt"
        } else {
            "human.txt"
        };
        std::fs::write(c.join(file), "a human was here\n")?;
        run(&["add", "-A"], &c);
        run(&["commit", "-q", "-m", "human"], &c);
        run(&["push", "-q", "origin", &branch], &c);
        std::fs::write(req.workdir.join("hello.txt"), "hello from kotef\n")?;
        let report = format!(".sdd/runs/{}.md", req.run_id);
        std::fs::create_dir_all(req.workdir.join(".sdd/runs"))?;
        std::fs::write(req.workdir.join(&report), "# report\n")?;
        Ok(kotef_testkit::sample_outcome(
            &req.run_id,
            TerminalStatus::DoneSuccess,
            None,
            &report,
        ))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rejected_push_is_rebased_and_retried_once() {
    let mut h = Harness::new().await;
    let exec = Arc::new(RacingExecutor {
        bare: h.bare.clone(),
        conflict: false,
    });
    h.start(exec).await;
    let (n, _) = h.label_issue("frace", "alice").await;
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("final comment");
    assert!(c.body.contains("rebased and pushed again"), "{}", c.body);
    let branch = format!("kotef/issue-{n}");
    assert!(
        h.file_on_branch(&branch, "human.txt").is_some(),
        "the other commit is kept"
    );
    assert!(
        h.file_on_branch(&branch, "hello.txt").is_some(),
        "kotef's commit is on top"
    );
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rejected_push_that_conflicts_goes_to_a_new_branch() {
    let mut h = Harness::new().await;
    let exec = Arc::new(RacingExecutor {
        bare: h.bare.clone(),
        conflict: true,
    });
    h.start(exec).await;
    let (n, _) = h.label_issue("fconflict", "alice").await;
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("final comment");
    assert!(c.body.contains("could not be rebased"), "{}", c.body);
    let branches = kotef_testkit::git_output(&h.bare, &["branch", "--list", "kotef/*"]).unwrap();
    assert_eq!(branches.lines().count(), 2, "{branches}");
    let pr = &h.gh.pulls(REPO)[0];
    assert!(
        pr.head.starts_with(&format!("kotef/issue-{n}-")),
        "{}",
        pr.head
    );
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pre_receive_hook_rejecting_once_is_retried() {
    let mut h = Harness::new().await;
    let hook = h.bare.join("hooks/pre-receive");
    let flag = h.bare.join("rejected-once");
    std::fs::write(&hook, format!(
        "#!/bin/sh\nif [ ! -e '{0}' ]; then touch '{0}'; echo 'busy, try again' >&2; exit 1; fi\nexit 0\n",
        flag.display()
    )).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    let (n, _) = h.label_issue("fhook", "alice").await;
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("final comment");
    assert!(flag.exists(), "the hook ran");
    assert!(c.body.contains("pushed again"), "{}", c.body);
    assert!(h
        .file_on_branch(&format!("kotef/issue-{n}"), "hello.txt")
        .is_some());
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_rejected_twice_is_reported() {
    let mut h = Harness::new().await;
    let hook = h.bare.join("hooks/pre-receive");
    std::fs::write(&hook, "#!/bin/sh\necho 'pushes are frozen' >&2\nexit 1\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    let (n, _) = h.label_issue("ffrozen", "alice").await;
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("final comment");
    assert!(c.body.contains("`done_success`"));
    assert!(
        c.body
            .contains("### ⚠️ kotef run ended, but the changes were not pushed")
            && !c.body.contains("✅ kotef run ended"),
        "{}",
        c.body
    );
    assert!(c.body.contains("pushes are frozen"), "{}", c.body);
    assert!(h.gh.pulls(REPO).is_empty());
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn executor_failure_still_pushes_and_says_so() {
    let mut h = Harness::new().await;
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Fail(
        "model provider unreachable: connection refused".into(),
    ))))
    .await;
    let (n, _) = h.label_issue("ffail", "alice").await;
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("final comment");
    assert!(c.body.contains("kotef run failed"), "{}", c.body);
    assert!(c.body.contains("model provider unreachable"), "{}", c.body);
    assert_eq!(
        h.file_on_branch(&format!("kotef/issue-{n}"), "partial.txt")
            .as_deref(),
        Some("half done\n")
    );
    assert!(h.gh.pulls(REPO).is_empty(), "no PR without an outcome");
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_repository_config_names_the_field_and_runs_nothing() {
    let mut h = Harness::new().await;
    let root = h.git_root.path().to_path_buf();
    let bare = kotef_testkit::init_bare_repo(
        &root,
        "acme/configured",
        &[(".github/kotef.toml", "[limits]\nmax_stpes = 3\n")],
    );
    assert!(bare.exists());
    h.gh.add_repo("acme/configured", "main");
    h.gh.set_permission("acme/configured", "alice", "admin");
    let exec = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    h.start(exec.clone()).await;
    let n = h.gh.add_issue("acme/configured", "t", "b");
    let body = kotef_testkit::issues_labeled("acme/configured", n, "t", "b", "kotef", "alice");
    assert_eq!(h.send("issues", "fcfg", &body).await.status(), 202);
    let c =
        h.gh.wait_final_comment("acme/configured", n, WAIT)
            .await
            .expect("final comment");
    assert!(c.body.contains("max_stpes"), "{}", c.body);
    assert!(c.body.contains("kotef.toml"), "{}", c.body);
    assert_eq!(exec.calls(), 0);
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_repository_ends_with_a_comment() {
    let mut h = Harness::new().await;
    h.gh.add_repo("acme/ghost", "main");
    h.gh.set_permission("acme/ghost", "alice", "admin");
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    let n = h.gh.add_issue("acme/ghost", "t", "b");
    let body = kotef_testkit::issues_labeled("acme/ghost", n, "t", "b", "kotef", "alice");
    h.send("issues", "fghost", &body).await;
    let c =
        h.gh.wait_final_comment("acme/ghost", n, WAIT)
            .await
            .expect("final comment");
    assert!(c.body.contains("cloning the repository"), "{}", c.body);
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_stopped_mid_run_resumes_after_restart() {
    let mut h = Harness::new().await;
    let hang = Arc::new(FakeExecutor::new(FakeBehavior::Hang));
    h.start(hang.clone()).await;
    let started = hang.started.notified();
    tokio::pin!(started);
    started.as_mut().enable();
    let (n, _) = h.label_issue("fcrash", "alice").await;
    tokio::time::timeout(WAIT, started)
        .await
        .expect("the run started");
    assert!(
        h.gh.wait_until(WAIT, |g| !g.kotef_comments(REPO, n).is_empty())
            .await
    );
    h.stop().await; // the "crash": the run is cancelled mid-way
    assert_eq!(
        std::fs::read_dir(h.data.path().join("workspaces"))
            .unwrap()
            .count(),
        0,
        "clone removed"
    );

    let ok = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    h.start(ok.clone()).await;
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("final comment after restart");
    assert!(c.body.contains("`done_success`"), "{}", c.body);
    assert_eq!(ok.calls(), 1);
    assert_eq!(
        h.gh.kotef_comments(REPO, n).len(),
        1,
        "the same sticky comment was reused"
    );
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_interrupted_too_often_ends_with_a_comment() {
    let mut h = Harness::new().await;
    let mut cfg = h.config();
    cfg.max_attempts = 1;
    let hang = Arc::new(FakeExecutor::new(FakeBehavior::Hang));
    h.start_with(cfg.clone(), hang.clone()).await;
    let started = hang.started.notified();
    tokio::pin!(started);
    started.as_mut().enable();
    let (n, _) = h.label_issue("fcrash2", "alice").await;
    tokio::time::timeout(WAIT, started)
        .await
        .expect("the run started");
    h.stop().await;
    let again = Arc::new(FakeExecutor::new(FakeBehavior::Hang));
    h.start_with(cfg, again.clone()).await;
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("final comment");
    assert!(
        c.body.contains("gave up") || c.body.contains("stopped during this run"),
        "{}",
        c.body
    );
    assert_eq!(again.calls(), 0);
    assert!(h.wait_jobs_done().await);
    h.stop().await;
}

/// Tampers with the git directory's config the way a hostile (unsandboxed) run could: the
/// clone's `.git` is a `gitdir:` file naming it.
struct TamperingExecutor {
    marker: std::path::PathBuf,
}

#[async_trait::async_trait]
impl RunExecutor for TamperingExecutor {
    async fn execute(
        &self,
        req: RunRequest,
        _p: tokio::sync::mpsc::UnboundedSender<StepProgress>,
    ) -> anyhow::Result<RunOutcome> {
        let gitfile = std::fs::read_to_string(req.workdir.join(".git"))?;
        let git_dir = std::path::PathBuf::from(gitfile.trim().trim_start_matches("gitdir: "));
        let config = git_dir.join("config");
        let mut text = std::fs::read_to_string(&config)?;
        assert!(
            !text.contains(kotef_testkit::FAKE_TOKEN),
            "no token in .git/config"
        );
        text.push_str(&format!(
            "[core]\n\tfsmonitor = \"touch {}\"\n[filter \"x\"]\n\tclean = \"touch {}\"\n",
            self.marker.display(),
            self.marker.display()
        ));
        std::fs::write(&config, text)?;
        std::fs::write(req.workdir.join(".gitattributes"), "* filter=x\n")?;
        std::fs::write(
            git_dir.join("hooks/pre-commit"),
            format!("#!/bin/sh\ntouch {}\n", self.marker.display()),
        )?;
        std::fs::write(req.workdir.join("hello.txt"), "hi\n")?;
        Ok(kotef_testkit::sample_outcome(
            &req.run_id,
            TerminalStatus::DoneSuccess,
            None,
            "",
        ))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_cannot_make_kotefs_git_run_commands() {
    let mut h = Harness::new().await;
    let marker = h.data.path().join("pwned");
    h.start(Arc::new(TamperingExecutor {
        marker: marker.clone(),
    }))
    .await;
    let (n, _) = h.label_issue("ftamper", "alice").await;
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("final comment");
    assert!(c.body.contains("`done_success`"), "{}", c.body);
    assert!(
        !marker.exists(),
        "kotef's git executed a command planted by the run"
    );
    assert_eq!(
        h.file_on_branch(&format!("kotef/issue-{n}"), "hello.txt")
            .as_deref(),
        Some("hi\n")
    );
    h.stop().await;
}
