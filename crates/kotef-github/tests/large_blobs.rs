//! Red-team row 7 (issue 29): an instruction file or config on the default branch larger than
//! git's pipe to kotef. kotef used to stop reading `git show` at 64 KiB and wait for git, which
//! sat blocked on the full pipe until the git timeout: every such file cost a whole timeout on
//! every job. Now the blob's size is asked first and git is stopped at the cap.

mod common;

use common::{Harness, REPO};
use kotef_core::{RunOutcome, RunRequest, StepProgress};
use kotef_github::{process_job, JobStatus, RunExecutor, Workspace};
use kotef_testkit::{FakeBehavior, FakeExecutor};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The git timeout of these jobs: a blocked `git show` would cost this per file.
const GIT_TIMEOUT: Duration = Duration::from_secs(15);

/// A rule, then 300 KiB of text: far past a pipe's 64 KiB.
fn long_agents_md() -> String {
    let mut s = String::from("# Rules\nLONG-RULE: tests live in tests/\n");
    while s.len() < 300 * 1024 {
        s.push_str("Keep every function short and every module documented.\n");
    }
    s
}

/// Replaces the harness's repository by one with `files` on `main`.
fn reseed(h: &Harness, files: &[(&str, &str)]) {
    std::fs::remove_dir_all(&h.bare).unwrap();
    kotef_testkit::init_bare_repo(h.git_root.path(), REPO, files);
}

/// Records the instructions each run is given, then does what the fake does.
struct Recording {
    inner: FakeExecutor,
    instructions: Mutex<Vec<Option<String>>>,
}

#[async_trait::async_trait]
impl RunExecutor for Recording {
    async fn execute(
        &self,
        req: RunRequest,
        progress: tokio::sync::mpsc::UnboundedSender<StepProgress>,
    ) -> anyhow::Result<RunOutcome> {
        self.instructions
            .lock()
            .unwrap()
            .push(req.config.instructions.clone());
        self.inner.execute(req, progress).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_instruction_file_costs_no_git_timeout() {
    let h = Harness::new().await;
    let long = long_agents_md();
    reseed(
        &h,
        &[
            ("README.md", "# widgets\n"),
            ("AGENTS.md", &long),
            ("CLAUDE.md", &long),
        ],
    );
    let n = h.gh.add_issue(REPO, "Add a greeting", "Please");
    let payload =
        kotef_testkit::issues_labeled(REPO, n, "Add a greeting", "Please", "kotef", "alice");
    let job = common::first_attempt("issues", &payload, "long-1");
    let mut ctx = h.job_context("ws");
    ctx.git.timeout = GIT_TIMEOUT;
    let exec = Recording {
        inner: FakeExecutor::new(FakeBehavior::Succeed),
        instructions: Mutex::new(Vec::new()),
    };
    let started = Instant::now();
    let result = process_job(&ctx, &job, &exec as &dyn RunExecutor).await;
    let took = started.elapsed();
    assert_eq!(result.status, JobStatus::Finished, "{}", result.message);
    assert!(
        took < GIT_TIMEOUT,
        "the job took {took:?}: a git call waited for its timeout"
    );
    let given: Vec<String> = exec
        .instructions
        .lock()
        .unwrap()
        .iter()
        .flatten()
        .cloned()
        .collect();
    let given = given.concat();
    assert!(
        given.contains("LONG-RULE"),
        "the start of AGENTS.md is used"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blob_is_read_up_to_its_cap_and_its_size_is_told() {
    let h = Harness::new().await;
    let long = long_agents_md();
    reseed(&h, &[("README.md", "# widgets\n"), ("AGENTS.md", &long)]);
    let parent = tempfile::tempdir().unwrap();
    let mut git = h.job_context("ws").git;
    git.timeout = GIT_TIMEOUT;
    let repo = kotef_core::RepoName::parse(REPO).unwrap();
    let ws = Workspace::clone(parent.path(), &git, &repo, None, "main")
        .await
        .unwrap();
    let started = Instant::now();
    let f = ws
        .file_on_branch("main", std::path::Path::new("AGENTS.md"), 1000)
        .await
        .unwrap()
        .unwrap();
    assert!(started.elapsed() < GIT_TIMEOUT);
    assert_eq!(
        (f.text.len(), f.size, f.truncated),
        (1000, long.len() as u64, true)
    );
    assert!(long.starts_with(&f.text));
    let small = ws
        .file_on_branch("main", std::path::Path::new("README.md"), 1000)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (small.text.as_str(), small.truncated),
        ("# widgets\n", false)
    );
    let missing = ws.file_on_branch("main", std::path::Path::new("nope.md"), 1000);
    assert_eq!(missing.await.unwrap(), None);
}
