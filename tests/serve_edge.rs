//! `kotef serve` under an organisation's ordinary traffic, as a process with real signed
//! deliveries against the fake GitHub: labels that are no trigger are answered 2xx at the
//! edge and queue nothing (the repository's own trigger label comes from one cached read of
//! its `kotef.toml`, read again after a push that changes it), so a real trigger after a burst
//! of them is accepted and runs; and a trigger beyond its installation's queue is answered on
//! the issue, not only with a 429.

mod support;

use kotef_testkit::{FakeGitHub, FaultKind};
use std::path::Path;
use std::time::Duration;

const REPO: &str = "acme/greeter";
const SECRET: &str = "edge-webhook-secret";
const WAIT: Duration = Duration::from_secs(30);

struct Server {
    _child: tokio::process::Child,
    url: String,
    client: reqwest::Client,
}

/// A fake GitHub with the repository, an admin and the kotef workflow.
async fn github() -> FakeGitHub {
    let gh = FakeGitHub::start().await;
    gh.add_repo(REPO, "main");
    gh.set_permission(REPO, "alice", "admin");
    gh.add_workflow(REPO, "kotef.yml", &["issue-number", "goal", "kotef-run"]);
    gh
}

/// Starts `kotef serve --executor actions` on port 0 with `args`; its address from the log.
async fn serve(gh: &FakeGitHub, data: &Path, args: &[&str]) -> Server {
    let mut child = support::serve::actions_executor(&gh.api_url(), data, SECRET)
        .args(args)
        .env("KOTEF_BOT_LOGIN", "kotef-bot")
        .spawn()
        .unwrap();
    let addr = support::serve::listening_addr(&mut child, |_| {}).await;
    Server {
        _child: child,
        url: format!("http://{addr}/webhook"),
        client: reqwest::Client::builder()
            .pool_max_idle_per_host(16)
            .build()
            .unwrap(),
    }
}

impl Server {
    async fn deliver(&self, event: &str, delivery: &str, body: &[u8]) -> (u16, String) {
        let resp =
            kotef_testkit::send_webhook(&self.client, &self.url, SECRET, event, delivery, body)
                .await
                .unwrap();
        let status = resp.status().as_u16();
        (status, resp.text().await.unwrap_or_default())
    }

    /// Labels a new issue with `label`; the answer's status and text, and the issue.
    async fn label(&self, gh: &FakeGitHub, label: &str, delivery: &str) -> (u16, String, u64) {
        let n = gh.add_issue(REPO, "Add a greeting", "Please add hello.txt.");
        let body = kotef_testkit::issues_labeled(
            REPO,
            n,
            "Add a greeting",
            "Please add hello.txt.",
            label,
            "alice",
        );
        let (status, text) = self.deliver("issues", delivery, &body).await;
        (status, text, n)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_ordinary_labels_queues_nothing_and_the_trigger_after_it_runs() {
    let gh = github().await;
    let data = tempfile::tempdir().unwrap();
    let server = serve(&gh, data.path(), &[]).await;
    let issues: Vec<u64> = (0..300)
        .map(|_| gh.add_issue(REPO, "Crash on start", "It crashes."))
        .collect();
    // 16 at a time, as a triage script sends them.
    let mut answers = Vec::new();
    for (c, chunk) in issues.chunks(16).enumerate() {
        let mut set = tokio::task::JoinSet::new();
        for (i, &n) in chunk.iter().enumerate() {
            let (client, url) = (server.client.clone(), server.url.clone());
            let body = kotef_testkit::issues_labeled(
                REPO,
                n,
                "Crash on start",
                "It crashes.",
                "bug",
                "alice",
            );
            let delivery = format!("bug-{c}-{i}");
            set.spawn(async move {
                let r =
                    kotef_testkit::send_webhook(&client, &url, SECRET, "issues", &delivery, &body)
                        .await
                        .unwrap();
                (r.status().as_u16(), r.text().await.unwrap_or_default())
            });
        }
        answers.extend(set.join_all().await);
    }
    let not_ignored: Vec<_> = answers
        .iter()
        .filter(|(s, t)| *s != 200 || !t.starts_with("ignored: label `bug`"))
        .collect();
    assert!(not_ignored.is_empty(), "{not_ignored:?}");
    // One read of each config file for the repository, not one per delivery.
    assert!(
        gh.requests("/contents/").len() <= 2,
        "{:?}",
        gh.requests("/contents/")
    );

    let (status, text, n) = server.label(&gh, "kotef", "trigger").await;
    assert_eq!(status, 202, "{text}");
    assert!(gh.wait_until(WAIT, |g| g.dispatches().len() == 1).await);
    assert_eq!(gh.dispatches()[0].inputs["issue-number"], n.to_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_repositorys_own_label_is_decided_at_the_edge_and_a_push_changes_it() {
    let gh = github().await;
    gh.set_file(
        REPO,
        "main",
        ".github/kotef.toml",
        "trigger_label = \"ai\"\n",
    );
    let data = tempfile::tempdir().unwrap();
    let server = serve(&gh, data.path(), &[]).await;
    let (status, text, _) = server.label(&gh, "AI", "ai-1").await;
    assert_eq!(status, 202, "{text}");

    gh.set_file(
        REPO,
        "main",
        ".github/kotef.toml",
        "trigger_label = \"robot\"\n",
    );
    let push = kotef_testkit::push(REPO, "main", &[".github/kotef.toml"]);
    let (status, text) = server.deliver("push", "push-1", &push).await;
    assert_eq!(status, 200, "{text}");
    let (status, text, _) = server.label(&gh, "ai", "ai-2").await;
    assert_eq!((status, text.contains("`robot`")), (200, true), "{text}");
    let (status, text, _) = server.label(&gh, "robot", "robot-1").await;
    assert_eq!(status, 202, "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_config_is_confirmed_with_its_etag() {
    let gh = github().await;
    gh.set_file(REPO, "main", "kotef.toml", "trigger_label = \"ai\"\n");
    let data = tempfile::tempdir().unwrap();
    let server = serve(&gh, data.path(), &[]).await;
    server.label(&gh, "bug", "bug-1").await;
    // A push that names the config makes the next label confirm it: 304, nothing re-read.
    let push = kotef_testkit::push(REPO, "main", &["kotef.toml"]);
    server.deliver("push", "push-1", &push).await;
    let (status, text, _) = server.label(&gh, "ai", "ai-1").await;
    assert_eq!(status, 202, "{text}");
    let statuses: Vec<u16> = gh
        .requests("/contents/kotef.toml")
        .iter()
        .map(|r| r.status)
        .collect();
    assert_eq!(statuses, [200, 304]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trigger_beyond_the_installations_queue_is_answered_on_the_issue() {
    let gh = github().await;
    // The first run's permission check waits a minute on a secondary rate limit, holding
    // the only worker.
    gh.inject(
        None,
        Some("/collaborators/"),
        FaultKind::SecondaryRateLimit { retry_after_s: 60 },
        1,
    );
    let data = tempfile::tempdir().unwrap();
    let args = ["--workers", "1", "--max-queued-per-installation", "1"];
    let server = serve(&gh, data.path(), &args).await;
    let (status, text, _) = server.label(&gh, "kotef", "first").await;
    assert_eq!(status, 202, "{text}");
    assert!(
        gh.wait_until(WAIT, |g| !g.requests("/collaborators/").is_empty())
            .await
    );
    let (status, text, _) = server.label(&gh, "kotef", "second").await;
    assert_eq!(status, 202, "{text}");
    assert!(text.ends_with("behind 1 runs"), "{text}");

    let (status, text, n) = server.label(&gh, "kotef", "third").await;
    assert_eq!(status, 429, "{text}");
    assert!(text.contains("answered on the issue"), "{text}");
    assert!(
        gh.wait_until(WAIT, |g| g
            .comments(REPO, n)
            .iter()
            .any(
                |c| c.body.contains("refused") && c.body.contains("more than 1 pending")
            ))
        .await,
        "{:?}",
        gh.comments(REPO, n)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dispatch_short_of_api_budget_says_so_and_waits_for_the_reset() {
    let gh = github().await;
    let reset = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 4;
    gh.set_rate_limit(3, reset);
    let data = tempfile::tempdir().unwrap();
    let server = serve(&gh, data.path(), &[]).await;
    let (status, text, n) = server.label(&gh, "kotef", "budget").await;
    assert_eq!(status, 202, "{text}");
    assert!(
        gh.wait_until(WAIT, |g| g
            .kotef_comments(REPO, n)
            .iter()
            .any(|c| c.body.contains("waiting for GitHub's API budget")))
            .await
    );
    assert!(
        gh.dispatches().is_empty(),
        "nothing dispatched while waiting"
    );
    assert!(gh.wait_until(WAIT, |g| g.dispatches().len() == 1).await);
    let after = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(after >= reset);
}
