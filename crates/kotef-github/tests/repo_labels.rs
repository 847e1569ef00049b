//! The edge's copy of the repositories' trigger labels against the fake GitHub: concurrent
//! labels share one read of the config, and a config that cannot be read is not asked for
//! again at every label.

use kotef_core::RepoName;
use kotef_github::entry::labels::{LabelError, RepoLabels};
use kotef_testkit::{FakeGitHub, FaultKind};
use std::sync::Arc;
use std::time::Duration;

const REPO: &str = "acme/widgets";

async fn labels() -> (FakeGitHub, Arc<RepoLabels>) {
    let gh = FakeGitHub::start().await;
    gh.add_repo(REPO, "main");
    let labels = Arc::new(RepoLabels::new(gh.client(), Duration::from_secs(300)));
    (gh, labels)
}

fn repo() -> RepoName {
    RepoName::parse(REPO).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_labels_share_one_read_of_the_config() {
    let (gh, labels) = labels().await;
    gh.set_file(
        REPO,
        "main",
        ".github/kotef.toml",
        "trigger_label = \"ai\"\n",
    );
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..50 {
        let labels = labels.clone();
        set.spawn(async move { labels.label(&repo(), Some("main")).await });
    }
    for answer in set.join_all().await {
        assert_eq!(answer, Ok(Some("ai".to_string())));
    }
    // kotef.toml (missing) and .github/kotef.toml, once each.
    assert_eq!(gh.requests("/contents/").len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_config_that_cannot_be_read_is_not_asked_for_at_every_label() {
    let (gh, labels) = labels().await;
    gh.inject(None, Some("/contents/"), FaultKind::Status(500), 1);
    assert!(matches!(
        labels.label(&repo(), Some("main")).await,
        Err(LabelError::Read(_))
    ));
    assert_eq!(
        labels.label(&repo(), Some("main")).await,
        Err(LabelError::RecentFailure)
    );
    assert_eq!(gh.requests("/contents/").len(), 1);
}
