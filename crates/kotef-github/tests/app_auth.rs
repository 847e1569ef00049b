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

/// The bodies of the installation-token requests of one App-authenticated run on `REPO`.
async fn token_requests_of_a_run() -> Vec<serde_json::Value> {
    let mut h = Harness::new().await;
    let mut cfg = h.config();
    cfg.auth = GitHubAuth::App {
        app_id: 1234,
        private_key: Secret::from(rsa_key()),
    };
    h.start_with(cfg, Arc::new(FakeExecutor::new(FakeBehavior::Succeed)))
        .await;
    let (n, _) = h.label_issue("app-scope", "alice").await;
    h.gh.wait_final_comment(REPO, n, WAIT)
        .await
        .expect("final comment");
    h.stop().await;
    h.gh.token_requests()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_installation_token_names_only_the_jobs_repository() {
    let requests = token_requests_of_a_run().await;
    assert!(
        !requests.is_empty()
            && requests
                .iter()
                .all(|r| r["repositories"] == serde_json::json!(["widgets"])),
        "{requests:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_git_token_may_write_contents_and_nothing_else() {
    let requests = token_requests_of_a_run().await;
    let git = serde_json::json!({ "contents": "write", "metadata": "read" });
    assert!(
        requests.iter().any(|r| r["permissions"] == git),
        "{requests:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_token_may_comment_and_open_pull_requests_but_not_push() {
    let requests = token_requests_of_a_run().await;
    let api = serde_json::json!({
        "contents": "read",
        "issues": "write",
        "pull_requests": "write",
        "metadata": "read",
    });
    assert!(
        requests.iter().any(|r| r["permissions"] == api),
        "{requests:?}"
    );
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_tokens_are_kept_per_repository_not_per_installation() {
    let gh = kotef_testkit::FakeGitHub::start().await;
    gh.add_repo("acme/widgets", "main");
    gh.add_repo("acme/gadgets", "main");
    let client = kotef_github::GitHub::new(
        &gh.api_url(),
        GitHubAuth::App {
            app_id: 1234,
            private_key: Secret::from(rsa_key()),
        },
        kotef_github::RetryPolicy::fast(),
    )
    .unwrap();
    for repo in ["acme/widgets", "acme/widgets", "acme/gadgets"] {
        let (owner, name) = repo.split_once('/').unwrap();
        client
            .repository(&kotef_core::RepoName::new(owner, name))
            .await
            .unwrap();
    }
    let named: Vec<_> = gh
        .token_requests()
        .iter()
        .map(|r| r["repositories"].clone())
        .collect();
    assert_eq!(
        named,
        [
            serde_json::json!(["widgets"]),
            serde_json::json!(["gadgets"])
        ]
    );
}
