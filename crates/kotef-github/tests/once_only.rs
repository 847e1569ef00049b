//! Once-only delivery and one run at a time per issue.

mod common;

use common::{Harness, REPO, WAIT};
use kotef_testkit::{FakeBehavior, FakeExecutor};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_delivery_five_times_concurrently_runs_once() {
    let mut h = Harness::new().await;
    let exec = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    h.start(exec.clone()).await;
    let n = h.gh.add_issue(REPO, "Once", "only once");
    let body = kotef_testkit::issues_labeled(REPO, n, "Once", "only once", "kotef", "alice");
    let sends = (0..5).map(|_| h.send("issues", "same-delivery", &body));
    let statuses: Vec<u16> = futures::future::join_all(sends)
        .await
        .into_iter()
        .map(|r| r.status().as_u16())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 202).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        4,
        "{statuses:?}"
    );
    h.gh.wait_final_comment(REPO, n, WAIT)
        .await
        .expect("final comment");
    assert!(h.wait_jobs_done().await);
    assert_eq!(exec.calls(), 1);
    assert_eq!(h.gh.kotef_comments(REPO, n).len(), 1);
    // A redelivery long after is still recognised.
    assert_eq!(h.send("issues", "same-delivery", &body).await.status(), 200);
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_triggers_on_one_issue_run_one_at_a_time() {
    let mut h = Harness::new().await;
    let exec =
        Arc::new(FakeExecutor::new(FakeBehavior::Succeed).with_delay(Duration::from_millis(300)));
    let mut cfg = h.config();
    cfg.workers = 3;
    h.start_with(cfg, exec.clone()).await;
    let n = h.gh.add_issue(REPO, "Busy", "two triggers");
    let other = h.gh.add_issue(REPO, "Other", "in parallel");
    let a = kotef_testkit::issues_labeled(REPO, n, "Busy", "two triggers", "kotef", "alice");
    let (cid, at) = h.gh.add_comment(REPO, n, "mo", "/kotef run again");
    let b = kotef_testkit::issue_comment_created(REPO, n, false, cid, at, "/kotef run again", "mo");
    let c = kotef_testkit::issues_labeled(REPO, other, "Other", "in parallel", "kotef", "alice");
    let (ra, rb, rc) = tokio::join!(
        h.send("issues", "t1", &a),
        h.send("issue_comment", "t2", &b),
        h.send("issues", "t3", &c)
    );
    assert_eq!(
        (
            ra.status().as_u16(),
            rb.status().as_u16(),
            rc.status().as_u16()
        ),
        (202, 202, 202)
    );
    assert!(
        h.gh.wait_until(WAIT, |g| {
            g.kotef_comments(REPO, n)
                .iter()
                .filter(|c| c.body.contains("kotef run ended"))
                .count()
                == 2
        })
        .await
    );
    assert!(h.wait_jobs_done().await);
    assert_eq!(exec.calls(), 3);
    assert_eq!(
        exec.max_concurrent_same_issue.load(Ordering::SeqCst),
        1,
        "never two runs on one issue"
    );
    // Both runs' work sits on the one branch.
    let count = kotef_testkit::git_output(
        &h.bare,
        &["rev-list", "--count", &format!("kotef/issue-{n}")],
    )
    .unwrap();
    assert_eq!(count.trim(), "3");
    h.stop().await;
}
