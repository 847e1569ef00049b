//! A run whose installation has nearly spent its GitHub API budget (as GitHub's
//! `X-RateLimit-Remaining` reports it) waits for the window's reset, saying so in its status
//! comment first, and then runs.

mod common;

use common::{Harness, REPO, WAIT};
use kotef_testkit::{FakeBehavior, FakeExecutor};
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_short_of_api_budget_says_so_and_starts_after_the_reset() {
    let mut h = Harness::new().await;
    let reset = chrono::Utc::now().timestamp() as u64 + 4;
    h.gh.set_rate_limit(5, reset);
    h.start(Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    let (n, r) = h.label_issue("budget", "alice").await;
    assert_eq!(r.status(), 202);
    let waiting = |c: &kotef_testkit::FakeComment| {
        c.body.contains("waiting for GitHub's API budget")
            && c.body.contains("5 GitHub API requests left")
    };
    assert!(
        h.gh.wait_until(WAIT, |g| g.kotef_comments(REPO, n).iter().any(waiting))
            .await,
        "{:?}",
        h.gh.kotef_comments(REPO, n)
    );
    let done =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("the run ends");
    assert!(done.body.contains("`done_success`"), "{}", done.body);
    assert!(chrono::Utc::now().timestamp() as u64 >= reset);
    h.stop().await;
}
