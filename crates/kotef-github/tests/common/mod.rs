//! Shared set-up for the integration tests: a fake GitHub, a directory of bare repositories
//! served as `file://`, and a kotef server on 127.0.0.1:0.
#![allow(dead_code)]

use kotef_github::{
    AdmissionConfig, GitSettings, Job, JobContext, RunExecutor, RunningServer, ServeConfig,
};
use kotef_testkit::FakeGitHub;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub const SECRET: &str = "webhook-secret-for-tests";
pub const REPO: &str = "acme/widgets";
pub const WAIT: Duration = Duration::from_secs(20);

/// The job `event` with `payload` asks for (admitted with the default config), on its first
/// attempt.
pub fn first_attempt(event: &str, payload: &[u8], delivery: &str) -> Job {
    let mut job = Job::from_event(
        event,
        payload,
        &AdmissionConfig::default(),
        kotef_core::DeliveryId(delivery.into()),
    )
    .unwrap()
    .into_job()
    .expect("a run");
    job.attempts = 1;
    job
}

pub struct Harness {
    pub gh: FakeGitHub,
    pub git_root: tempfile::TempDir,
    pub data: tempfile::TempDir,
    pub bare: PathBuf,
    pub server: Option<RunningServer>,
    pub client: reqwest::Client,
}

impl Harness {
    /// Fake GitHub with `acme/widgets` (alice: admin, rita: read) and its bare repository.
    pub async fn new() -> Self {
        let gh = FakeGitHub::start().await;
        gh.add_repo(REPO, "main");
        gh.set_permission(REPO, "alice", "admin");
        gh.set_permission(REPO, "mo", "maintain");
        gh.set_permission(REPO, "rita", "read");
        let git_root = tempfile::tempdir().unwrap();
        let bare = kotef_testkit::init_bare_repo(
            git_root.path(),
            REPO,
            &[
                ("README.md", "# widgets\n"),
                ("src/lib.rs", "pub fn x() {}\n"),
            ],
        );
        Self {
            gh,
            git_root,
            data: tempfile::tempdir().unwrap(),
            bare,
            server: None,
            client: reqwest::Client::new(),
        }
    }

    /// A pipeline context against the fake (no server), cloning into `data/<clones>`.
    pub fn job_context(&self, clones: &str) -> JobContext {
        let git = GitSettings {
            base_url: kotef_testkit::file_base_url(self.git_root.path()),
            ..GitSettings::default()
        };
        let mut ctx = JobContext::new(self.gh.client(), git, self.data.path().join(clones));
        ctx.progress_interval = Duration::from_millis(10);
        ctx
    }

    pub fn config(&self) -> ServeConfig {
        let mut cfg = self.gh.serve_config(
            &["an-old-secret", SECRET],
            self.git_root.path(),
            self.data.path(),
        );
        cfg.progress_interval = Duration::from_millis(20);
        cfg.poll_interval = Duration::from_millis(200);
        cfg.model = Some("scripted:/fake.json".into());
        cfg
    }

    pub async fn start(&mut self, exec: Arc<dyn RunExecutor>) {
        let cfg = self.config();
        self.start_with(cfg, exec).await;
    }

    pub async fn start_with(&mut self, cfg: ServeConfig, exec: Arc<dyn RunExecutor>) {
        self.server = Some(kotef_github::start(cfg, exec).await.unwrap());
    }

    pub async fn stop(&mut self) {
        if let Some(s) = self.server.take() {
            s.shutdown().await;
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.server.as_ref().unwrap().addr(), path)
    }

    pub async fn send(&self, event: &str, delivery: &str, body: &[u8]) -> reqwest::Response {
        kotef_testkit::send_webhook(
            &self.client,
            &self.url("/webhook"),
            SECRET,
            event,
            delivery,
            body,
        )
        .await
        .unwrap()
    }

    /// Opens an issue and labels it (as alice unless `sender` says otherwise).
    pub async fn label_issue(&self, delivery: &str, sender: &str) -> (u64, reqwest::Response) {
        let n = self
            .gh
            .add_issue(REPO, "Add a greeting", "Please add hello.txt");
        let body = kotef_testkit::issues_labeled(
            REPO,
            n,
            "Add a greeting",
            "Please add hello.txt",
            "kotef",
            sender,
        );
        (n, self.send("issues", delivery, &body).await)
    }

    /// A file of a branch in the bare repository.
    pub fn file_on_branch(&self, branch: &str, path: &str) -> Option<String> {
        kotef_testkit::git_output(&self.bare, &["show", &format!("{branch}:{path}")])
    }

    pub fn branch_files(&self, branch: &str) -> Vec<String> {
        kotef_testkit::git_output(&self.bare, &["ls-tree", "-r", "--name-only", branch])
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Jobs in the store that are not finished.
    pub async fn unfinished_jobs(&self) -> usize {
        let s = self.server.as_ref().unwrap().store();
        s.all_rows()
            .await
            .unwrap()
            .iter()
            .filter(|r| r.state != kotef_github::queue::store::JobState::Done)
            .count()
    }

    /// Waits until every stored job is done.
    pub async fn wait_jobs_done(&self) -> bool {
        let deadline = tokio::time::Instant::now() + WAIT;
        while tokio::time::Instant::now() < deadline {
            if self.unfinished_jobs().await == 0 {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        false
    }

    /// The final comment with volatile parts (run id, temp paths) replaced.
    pub fn redact(&self, text: &str) -> String {
        let run_id = text
            .split("\"run_id\":\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap_or("none")
            .to_string();
        let base = kotef_testkit::file_base_url(self.git_root.path());
        kotef_testkit::redact_volatile(text, &run_id, &[(base.as_str(), "[GIT_BASE]")])
    }
}
