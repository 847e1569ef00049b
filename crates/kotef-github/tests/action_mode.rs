//! The pipeline without the server, as a GitHub Action entry point would use it: an event
//! payload → `Job::from_event` → `process_job` → a `JobResult`, publishing the same way.

mod common;

use common::{Harness, REPO};
use kotef_core::{DeliveryId, LimitsOverride, Profile, TerminalStatus};
use kotef_github::{process_job, AdmissionConfig, Job, JobContext, JobStatus, RunExecutor};
use kotef_testkit::{FakeBehavior, FakeExecutor};

fn context(h: &Harness) -> JobContext {
    h.job_context("ws")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn process_job_runs_one_event_end_to_end() {
    let h = Harness::new().await;
    let n = h.gh.add_issue(REPO, "Add a greeting", "Please");
    let payload =
        kotef_testkit::issues_labeled(REPO, n, "Add a greeting", "Please", "kotef", "alice");
    let mut job = common::first_attempt("issues", &payload, "run-1");
    job.profile = Some(Profile::Yolo);
    job.limits = LimitsOverride {
        max_steps: Some(9),
        ..LimitsOverride::default()
    };
    let exec = FakeExecutor::new(FakeBehavior::AbortLoop);
    let result = process_job(&context(&h), &job, &exec as &dyn RunExecutor).await;
    assert_eq!(result.status, JobStatus::Finished, "{}", result.message);
    assert_eq!(result.terminal_status(), Some(TerminalStatus::AbortedStuck));
    assert_eq!(
        result.branch.as_deref(),
        Some(format!("kotef/issue-{n}").as_str())
    );
    assert_eq!(result.pull, None, "only .sdd/ changed, so no pull request");
    let comment = h.gh.kotef_comments(REPO, n).pop().expect("status comment");
    assert_eq!(Some(comment.id), result.comment_id);
    assert!(comment.body.contains("profile `yolo`"), "{}", comment.body);
    assert!(
        comment.history[0].contains("| `max_steps` | 9 |"),
        "{}",
        comment.history[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_that_ask_for_nothing_are_explained() {
    let payload = kotef_testkit::issues_labeled(REPO, 1, "t", "b", "bug", "alice");
    let r = Job::from_event(
        "issues",
        &payload,
        &AdmissionConfig::default(),
        DeliveryId("x".into()),
    )
    .unwrap();
    assert!(r.into_job().unwrap_err().contains("bug"));
    assert!(Job::from_event(
        "issues",
        b"[",
        &AdmissionConfig::default(),
        DeliveryId("x".into())
    )
    .is_err());
}

struct Panicking;

#[async_trait::async_trait]
impl RunExecutor for Panicking {
    async fn execute(
        &self,
        _req: kotef_core::RunRequest,
        _p: tokio::sync::mpsc::UnboundedSender<kotef_core::StepProgress>,
    ) -> anyhow::Result<kotef_core::RunOutcome> {
        panic!("executor bug")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_executor_panic_still_ends_with_a_comment() {
    let h = Harness::new().await;
    let n = h.gh.add_issue(REPO, "t", "b");
    let payload = kotef_testkit::issues_labeled(REPO, n, "t", "b", "kotef", "alice");
    let job = common::first_attempt("issues", &payload, "p");
    let result = process_job(&context(&h), &job, &Panicking).await;
    assert_eq!(result.status, JobStatus::Failed);
    let comment = h.gh.kotef_comments(REPO, n).pop().expect("final comment");
    assert!(
        comment.body.contains("the agent crashed"),
        "{}",
        comment.body
    );
}
