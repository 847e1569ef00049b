//! The server in `ExecutorMode::Actions`: accepted triggers become `workflow_dispatch` calls
//! (the fake checks the workflow and its declared inputs, as GitHub does); permission checks,
//! rejections and the first sticky comment stay on the server; a refused dispatch ends the
//! comment with what to fix. The executor is never called.

mod common;

use common::{Harness, REPO, WAIT};
use kotef_github::entry::dispatch::{DispatchedRun, INPUT_GOAL, INPUT_ISSUE, INPUT_RUN};
use kotef_github::ExecutorMode;
use kotef_testkit::{FakeBehavior, FakeExecutor};
use std::sync::Arc;

const INPUTS: [&str; 3] = [INPUT_ISSUE, INPUT_GOAL, INPUT_RUN];

async fn dispatcher(h: &mut Harness) -> Arc<FakeExecutor> {
    let exec = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    let mut cfg = h.config();
    cfg.executor = ExecutorMode::Actions;
    h.start_with(cfg, exec.clone()).await;
    exec
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_comment_command_is_dispatched_with_the_discussion_in_its_goal() {
    let mut h = Harness::new().await;
    h.gh.add_workflow(REPO, "kotef.yml", &INPUTS);
    let exec = dispatcher(&mut h).await;
    let n = h.gh.add_issue(REPO, "Fix the widget", "It breaks.");
    h.gh.add_comment(REPO, n, "mo", "It breaks only on Sundays.");
    let (cid, at) =
        h.gh.add_comment(REPO, n, "alice", "/kotef run keep it small");
    let body = kotef_testkit::issue_comment_created(
        REPO,
        n,
        false,
        cid,
        at,
        "/kotef run keep it small",
        "alice",
    );
    assert_eq!(h.send("issue_comment", "c-1", &body).await.status(), 202);
    assert!(h.gh.wait_until(WAIT, |g| g.dispatches().len() == 1).await);
    assert!(h.wait_jobs_done().await);
    let d = h.gh.dispatches().remove(0);
    let goal = d.inputs[INPUT_GOAL].as_str().unwrap();
    assert!(
        goal.contains("@mo (MEMBER) wrote:\nIt breaks only on Sundays."),
        "{goal}"
    );
    assert!(
        goal.contains("Additional instruction from @alice: keep it small"),
        "{goal}"
    );
    let run = DispatchedRun::parse(d.inputs[INPUT_RUN].as_str().unwrap()).unwrap();
    assert_eq!(run.requested_by, "alice");
    assert!(h
        .gh
        .reactions()
        .iter()
        .any(|r| r.on_comment && r.target == cid));
    assert_eq!(exec.calls(), 0, "nothing runs on the server");
    let rows = h.server.as_ref().unwrap().store().all_rows().await.unwrap();
    assert!(rows
        .iter()
        .all(|r| r.state == kotef_github::queue::store::JobState::Done));
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_senders_and_forks_are_handled_on_the_server() {
    let mut h = Harness::new().await;
    h.gh.add_workflow(REPO, "kotef.yml", &INPUTS);
    dispatcher(&mut h).await;
    let (n, resp) = h.label_issue("ro-1", "rita").await;
    assert_eq!(resp.status(), 202);
    let pr =
        h.gh.add_pull(REPO, "PR", "feature", "mallory/widgets", "main");
    let fork = kotef_testkit::pull_request_labeled(
        REPO,
        pr,
        "feature",
        "mallory/widgets",
        "kotef",
        "alice",
    );
    assert_eq!(h.send("pull_request", "fork-1", &fork).await.status(), 202);
    assert!(h.wait_jobs_done().await);
    assert!(h.gh.dispatches().is_empty());
    let replies = h.gh.comments(REPO, n);
    assert!(
        replies.len() == 1
            && replies[0]
                .body
                .starts_with(kotef_github::outbound::render::REFUSED_MARKER),
        "one refusal reply for a read-only sender: {replies:?}"
    );
    let rejected = h.gh.with_state(|s| {
        s.comments
            .iter()
            .any(|c| c.body.contains("will not run here") && c.body.contains("mallory/widgets"))
    });
    assert!(rejected);
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_dispatch_ends_the_comment_with_what_to_fix() {
    let mut h = Harness::new().await;
    // The workflow exists but lacks the `kotef-run` input: GitHub answers 422.
    h.gh.add_workflow(REPO, "kotef.yml", &[INPUT_ISSUE, INPUT_GOAL]);
    dispatcher(&mut h).await;
    let (n, resp) = h.label_issue("bad-1", "alice").await;
    assert_eq!(resp.status(), 202);
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("a final comment");
    assert!(c.body.contains("kotef run failed"), "{}", c.body);
    assert!(
        c.body.contains("handing the run to GitHub Actions"),
        "{}",
        c.body
    );
    assert!(c.body.contains("Unexpected inputs"), "{}", c.body);
    assert!(c.body.contains("kotef-run"), "{}", c.body);
    assert_eq!(c.edits, 1, "the dispatched state, then the failure");
    assert_eq!(h.gh.kotef_comments(REPO, n).len(), 1);
    assert!(h.gh.dispatches().is_empty());

    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_workflow_is_named_in_the_comment() {
    let mut h = Harness::new().await;
    dispatcher(&mut h).await;
    let (n, _) = h.label_issue("missing-1", "alice").await;
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("a final comment");
    assert!(c.body.contains("404"), "{}", c.body);
    assert!(c.body.contains(".github/workflows/kotef.yml"), "{}", c.body);
    h.stop().await;
}
