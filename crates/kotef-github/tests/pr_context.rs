//! A run on a pull request sees the pull request: its diff stat and capped diff, and the
//! review comments on the current diff as a reader sees them (outdated ones left out).

mod common;

use common::{Harness, REPO, WAIT};
use kotef_testkit::{FakeBehavior, FakeExecutor};
use std::sync::Arc;

/// Labels a same-repository PR after `setup` and returns the goal the executor got.
async fn goal_of_pull_run(setup: impl FnOnce(&Harness, u64)) -> String {
    let mut h = Harness::new().await;
    let exec = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    h.start(exec.clone()).await;
    kotef_testkit::push_branch(&h.bare, "feature", &[("feature.txt", "f\n")]);
    let pr = h.gh.add_pull(REPO, "Feature", "feature", REPO, "main");
    setup(&h, pr);
    let body = kotef_testkit::pull_request_labeled(REPO, pr, "feature", REPO, "kotef", "alice");
    h.send("pull_request", "pr-ctx", &body).await;
    h.gh.wait_final_comment(REPO, pr, WAIT)
        .await
        .expect("final comment");
    let goal = exec.goals.lock().unwrap().first().cloned();
    goal.unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_goal_holds_the_diff_stat_and_the_diff() {
    let goal = goal_of_pull_run(|h, pr| {
        h.gh.set_pull_files(
            REPO,
            pr,
            &[(
                "src/lib.rs",
                3,
                1,
                "@@ -1 +1,3 @@\n-pub fn x() {}\n+pub fn x() -> u8 { 1 }",
            )],
        )
    })
    .await;
    assert!(
        goal.contains("changes 1 files (+3 −1)")
            && goal.contains("- src/lib.rs (modified, +3 −1)")
            && goal.contains("+pub fn x() -> u8 { 1 }"),
        "{goal}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_goal_holds_review_comments_on_the_current_diff_with_their_authors() {
    let goal = goal_of_pull_run(|h, pr| {
        h.gh.add_review_comment(
            REPO,
            pr,
            ("src/lib.rs", Some(2)),
            "Handle the error <!-- HIDDEN-NOTE -->here.",
            "mo",
        );
        h.gh.add_review_comment(REPO, pr, ("old.rs", None), "OUTDATED-NOTE", "mo");
    })
    .await;
    assert_eq!(
        (
            goal.contains("@mo (MEMBER) on `src/lib.rs` line 2:\nHandle the error here."),
            goal.contains("HIDDEN-NOTE"),
            goal.contains("OUTDATED-NOTE")
        ),
        (true, false, false),
        "{goal}"
    );
}
