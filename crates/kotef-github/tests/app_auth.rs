//! GitHub App authentication against the fake: JWT → installation → installation token, used
//! for the API and (through the environment only) for git.

mod common;

use common::{Harness, REPO, WAIT};
use kotef_github::{GitHubAuth, Secret};
use kotef_testkit::{FakeBehavior, FakeExecutor};
use std::sync::Arc;

fn rsa_key() -> String {
    let out = std::process::Command::new("openssl")
        .args(["genrsa", "-traditional", "2048"])
        .output()
        .expect("openssl is needed to make a test key");
    assert!(out.status.success(), "openssl genrsa failed");
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_auth_mints_installation_tokens_and_runs() {
    let key = rsa_key();
    let mut h = Harness::new().await;
    let mut cfg = h.config();
    cfg.auth = GitHubAuth::App {
        app_id: 1234,
        private_key: Secret::from(key),
    };
    let exec = Arc::new(FakeExecutor::new(FakeBehavior::Succeed));
    h.start_with(cfg, exec).await;
    let (n, r) = h.label_issue("app1", "alice").await;
    assert_eq!(r.status(), 202);
    let c =
        h.gh.wait_final_comment(REPO, n, WAIT)
            .await
            .expect("final comment");
    assert!(c.body.contains("`done_success`"), "{}", c.body);
    assert_eq!(
        c.login, "kotef-app[bot]",
        "written with the installation token"
    );
    assert!(!h.gh.requests("/access_tokens").is_empty());
    assert!(!h.gh.requests("/installation").is_empty());
    h.stop().await;
}

#[tokio::test]
async fn a_bad_private_key_is_a_clear_error() {
    let err = kotef_github::GitHub::new(
        "http://127.0.0.1:9",
        GitHubAuth::App {
            app_id: 1,
            private_key: Secret::from("not a key"),
        },
        kotef_github::RetryPolicy::fast(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("private key"), "{err}");
    assert!(!err.contains("not a key"));
}
