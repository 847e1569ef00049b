//! The server must not get stuck on a hostile or broken job: a stored job that no longer
//! reads, a panic outside the agent, a job that blocks its thread past every deadline, clones
//! left by a crash, and one installation flooding the queue.

mod common;

use common::{Harness, REPO, WAIT};
use kotef_core::{RunOutcome, RunRequest, StepProgress, TerminalStatus};
use kotef_github::RunExecutor;
use kotef_testkit::{FakeBehavior, FakeExecutor, FAKE_BOT_LOGIN};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// A status comment left at "working" by an earlier server, and a stored job for it that
/// this kotef cannot read (a `work` kind it does not know). Returns the issue and comment.
fn unreadable_job(h: &Harness) -> (u64, u64) {
    let n =
        h.gh.add_issue(REPO, "Add a greeting", "Please add hello.txt");
    let (comment, _) = h.gh.add_comment(
        REPO,
        n,
        FAKE_BOT_LOGIN,
        &format!(
            "<!-- kotef:run {{\"run_id\":\"0a0a0a0a0a0a\",\"number\":{n}}} -->\n### ⏳ kotef is working on this\n"
        ),
    );
    let db = h.data.path().join("jobs.sqlite3");
    drop(kotef_github::JobStore::open(&db).unwrap());
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "INSERT INTO jobs (delivery, repo, number, job, state, tenant, created_at, updated_at)
         VALUES ('old', ?1, ?2, ?3, 'queued', 'acme', 't', 't')",
        rusqlite::params![
            REPO,
            n as i64,
            format!(
                r#"{{"run_id":"0a0a0a0a0a0a","status_comment":{comment},"work":{{"work":"teleport"}}}}"#
            )
        ],
    )
    .unwrap();
    (n, comment)
}

async fn label_again(h: &Harness, n: u64, delivery: &str) {
    let body = kotef_testkit::issues_labeled(
        REPO,
        n,
        "Add a greeting",
        "Please add hello.txt",
        "kotef",
        "alice",
    );
    assert_eq!(h.send("issues", delivery, &body).await.status(), 202);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_stored_job_finishes_its_status_comment() {
    let mut h = Harness::new().await;
    let (n, comment) = unreadable_job(&h);
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("the comment is finished");
    assert!(
        c.id == comment && c.body.contains("could not read this run's stored job"),
        "{}",
        c.body
    );
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_stored_job_ends_failed() {
    let mut h = Harness::new().await;
    unreadable_job(&h);
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    assert!(h.wait_jobs_done().await, "the job ended");
    let rows = h.server.as_ref().unwrap().store().all_rows().await.unwrap();
    assert!(
        rows[0]
            .result
            .as_deref()
            .unwrap_or_default()
            .starts_with("failed: "),
        "{rows:?}"
    );
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_stored_job_frees_its_issue() {
    let mut h = Harness::new().await;
    let (n, _) = unreadable_job(&h);
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    label_again(&h, n, "again").await;
    assert!(
        h.gh.wait_until(WAIT, |g| g
            .kotef_comments(REPO, n)
            .iter()
            .any(|c| c.body.contains("`done_success`")))
            .await,
        "the later job ran"
    );
    h.stop().await;
}

/// Returns an outcome whose token counts overflow their sum: rendering the final comment
/// panics (in debug builds) after `execute` has returned, outside the executor's guard.
struct Overcounting;

#[async_trait::async_trait]
impl RunExecutor for Overcounting {
    async fn execute(
        &self,
        req: RunRequest,
        _p: tokio::sync::mpsc::UnboundedSender<StepProgress>,
    ) -> anyhow::Result<RunOutcome> {
        let mut o =
            kotef_testkit::sample_outcome(&req.run_id, TerminalStatus::DoneSuccess, None, "");
        o.summary.prompt_tokens = u64::MAX;
        o.summary.completion_tokens = 1;
        Ok(o)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_after_the_run_finishes_the_status_comment() {
    let mut h = Harness::new().await;
    h.start(Arc::new(Overcounting)).await;
    let (n, _) = h.label_issue("panic", "alice").await;
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("the comment is finished");
    assert!(c.body.contains("kotef hit an internal error"), "{}", c.body);
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_after_the_run_ends_the_job_failed() {
    let mut h = Harness::new().await;
    h.start(Arc::new(Overcounting)).await;
    h.label_issue("panic", "alice").await;
    assert!(h.wait_jobs_done().await, "the job ended");
    let rows = h.server.as_ref().unwrap().store().all_rows().await.unwrap();
    assert!(
        rows[0]
            .result
            .as_deref()
            .unwrap_or_default()
            .starts_with("failed: "),
        "{rows:?}"
    );
    h.stop().await;
}

/// Blocks inside its own poll (no await, so no timeout around it can fire and cancelling it
/// does nothing) until the test releases it. `block_in_place` hands the thread's other tasks
/// to another thread, as a blocking call made properly does, so only this job is stuck.
struct Wedged {
    release: Mutex<mpsc::Receiver<()>>,
}

#[async_trait::async_trait]
impl RunExecutor for Wedged {
    async fn execute(
        &self,
        _req: RunRequest,
        _p: tokio::sync::mpsc::UnboundedSender<StepProgress>,
    ) -> anyhow::Result<RunOutcome> {
        tokio::task::block_in_place(|| {
            if let Ok(rx) = self.release.lock() {
                let _ = rx.recv_timeout(Duration::from_secs(120));
            }
        });
        anyhow::bail!("released")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_blocking_its_thread_ends_on_the_job_deadline() {
    let mut h = Harness::new().await;
    let mut cfg = h.config();
    cfg.ceilings.time_budget_s = Some(1);
    cfg.run_grace = Duration::from_secs(1);
    cfg.job_margin = Duration::from_secs(3);
    let (release, rx) = mpsc::channel();
    h.start_with(
        cfg,
        Arc::new(Wedged {
            release: Mutex::new(rx),
        }),
    )
    .await;
    let (n, _) = h.label_issue("wedged", "alice").await;
    let c = h.gh.wait_final_comment(REPO, n, WAIT).await;
    let _ = release.send(());
    let c = c.expect("the comment is finished");
    assert!(c.body.contains("did not end within 5s"), "{}", c.body);
    h.stop().await;
}

fn leftover(h: &Harness, name: &str) -> std::path::PathBuf {
    let dir = h.data.path().join("workspaces").join(name);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(dir.join(".git/config"), "[core]\n").unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clones_left_by_a_crash_are_removed_at_start() {
    let mut h = Harness::new().await;
    let stale = [leftover(&h, "kotef-ws-a1"), leftover(&h, "kotef-ws-b2")];
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    assert!(stale.iter().all(|d| !d.exists()), "{stale:?}");
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_named_like_a_clone_is_not_followed_at_start() {
    let mut h = Harness::new().await;
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("precious"), "keep me").unwrap();
    let work = h.data.path().join("workspaces");
    std::fs::create_dir_all(&work).unwrap();
    std::os::unix::fs::symlink(outside.path(), work.join("kotef-ws-evil")).unwrap();
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    assert!(outside.path().join("precious").is_file());
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_beyond_the_installation_queue_is_answered_429() {
    let mut h = Harness::new().await;
    let mut cfg = h.config();
    cfg.workers = 1;
    cfg.max_queued_per_installation = 1;
    let hang = Arc::new(FakeExecutor::new(FakeBehavior::Hang));
    h.start_with(cfg, hang.clone()).await;
    let started = hang.started.notified();
    tokio::pin!(started);
    started.as_mut().enable();
    h.label_issue("q1", "alice").await;
    tokio::time::timeout(WAIT, started)
        .await
        .expect("the first job runs");
    h.label_issue("q2", "alice").await;
    let (_, third) = h.label_issue("q3", "alice").await;
    assert_eq!(third.status(), 429);
    h.stop().await;
}

/// Succeeds, but keeps a copy of the progress sender (as a background task it forgot might).
#[derive(Default)]
struct LeakingProgress {
    kept: Mutex<Vec<tokio::sync::mpsc::UnboundedSender<StepProgress>>>,
}

#[async_trait::async_trait]
impl RunExecutor for LeakingProgress {
    async fn execute(
        &self,
        req: RunRequest,
        progress: tokio::sync::mpsc::UnboundedSender<StepProgress>,
    ) -> anyhow::Result<RunOutcome> {
        if let Ok(mut kept) = self.kept.lock() {
            kept.push(progress);
        }
        Ok(kotef_testkit::sample_outcome(
            &req.run_id,
            TerminalStatus::DoneSuccess,
            None,
            "",
        ))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leaked_progress_sender_does_not_hold_the_job() {
    let mut h = Harness::new().await;
    h.start(Arc::new(LeakingProgress::default())).await;
    let (n, _) = h.label_issue("leak", "alice").await;
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("the comment is finished");
    assert!(c.body.contains("`done_success`"), "{}", c.body);
    h.stop().await;
}
