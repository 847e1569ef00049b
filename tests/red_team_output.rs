//! The red-team suite for what kotef writes for people (SECURITY.md, issue #29): each test is
//! one attack, driven through the real `kotef` binary, and shows it failing.
//!
//! | row | attack | test |
//! |---|---|---|
//! | 4 | the run commits `run.html -> ../.ssh/authorized_keys`; the reviewer runs the documented `kotef report --html … -o run.html` | `report_html_refuses_to_write_through_a_planted_link` |
//! | 4 | the same with the default output `.sdd/runs/<stem>.transcript.html` | `report_html_refuses_a_default_output_that_is_a_planted_link` |
//! | 4 | a parent directory of the output is a planted link | `report_html_refuses_an_output_under_a_planted_directory_link` |
//! | 4 | the run plants a link under `.sdd/` for kotef to commit and push | `a_link_the_run_planted_under_sdd_is_not_pushed` |
//! | 5 | the model's reason and summary carry mentions, a link, an image and URLs | `model_text_mentions_and_links_are_inert_in_the_status_comment`, `model_text_mentions_and_links_are_inert_in_the_pull_request_body` |
//! | 5 | the run tampers with `.git`, so kotef refuses to push | `a_refused_push_is_the_headline`, `a_refused_push_is_in_the_outputs_and_fails_the_step` |

mod support;

use std::path::Path;
use std::process::Output;
use support::action_runner::{
    hello_model, outside_code, run_labeled, world, Launch, Ran, World, REPO,
};

/// The attacker's key, and what the reviewer's `authorized_keys` held before.
const ATTACKER_KEY: &str = "ssh-ed25519 AAAAattacker";
const OWN_KEY: &str = "ssh-ed25519 AAAAreviewer reviewer@laptop\n";

/// A kotef branch as a reviewer checks it out, beside the reviewer's `~/.ssh`: the transcript
/// (whose test output is the attacker's key) and the links the run committed.
struct Reviewer {
    home: tempfile::TempDir,
}

impl Reviewer {
    fn new(links: &[(&str, &str)]) -> Self {
        let home = tempfile::tempdir().unwrap();
        let ssh = home.path().join(".ssh");
        std::fs::create_dir_all(&ssh).unwrap();
        std::fs::write(ssh.join("authorized_keys"), OWN_KEY).unwrap();
        let runs = home.path().join("repo/.sdd/runs");
        std::fs::create_dir_all(&runs).unwrap();
        let line =
            serde_json::json!({"type": "verification", "output": format!("\n{ATTACKER_KEY}\n")});
        std::fs::write(runs.join("r1.transcript.jsonl"), format!("{line}\n")).unwrap();
        for (name, target) in links {
            std::os::unix::fs::symlink(target, home.path().join("repo").join(name)).unwrap();
        }
        Self { home }
    }

    fn repo(&self) -> std::path::PathBuf {
        self.home.path().join("repo")
    }

    /// `kotef report --html` run from the checkout with `args`.
    fn report(&self, args: &[&str]) -> Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_kotef"))
            .args(["report", "--html", ".sdd/runs/r1.transcript.jsonl"])
            .args(args)
            .current_dir(self.repo())
            .output()
            .unwrap()
    }

    fn authorized_keys(&self) -> String {
        std::fs::read_to_string(self.home.path().join(".ssh/authorized_keys")).unwrap_or_default()
    }
}

/// `kotef report --html` with `args`, in a reviewer's checkout with `links`, refuses to write
/// through a link and leaves `authorized_keys` as it was.
fn refused(links: &[(&str, &str)], args: &[&str]) {
    let r = Reviewer::new(links);
    let out = r.report(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        (out.status.code(), r.authorized_keys().as_str()),
        (Some(1), OWN_KEY),
        "stderr: {stderr}"
    );
    assert!(stderr.contains("symbolic link"), "{stderr}");
}

#[test]
fn report_html_refuses_to_write_through_a_planted_link() {
    refused(
        &[("run.html", "../.ssh/authorized_keys")],
        &["-o", "run.html"],
    );
}

#[test]
fn report_html_refuses_a_default_output_that_is_a_planted_link() {
    refused(
        &[(
            ".sdd/runs/r1.transcript.html",
            "../../../.ssh/authorized_keys",
        )],
        &[],
    );
}

#[test]
fn report_html_refuses_an_output_under_a_planted_directory_link() {
    refused(&[("pages", "../.ssh")], &["-o", "pages/authorized_keys"]);
}

#[test]
fn report_html_still_writes_a_page_where_no_link_is() {
    let r = Reviewer::new(&[]);
    let out = r.report(&["-o", "run.html"]);
    let page = std::fs::read_to_string(r.repo().join("run.html")).unwrap_or_default();
    assert!(
        out.status.success() && page.contains("AAAAattacker"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The files on the pushed branch `kotef/issue-<n>`.
fn files_on_branch(bare: &Path, n: u64) -> Vec<String> {
    kotef_testkit::git_output(
        bare,
        &["ls-tree", "-r", "--name-only", &format!("kotef/issue-{n}")],
    )
    .unwrap_or_default()
    .lines()
    .map(str::to_string)
    .collect()
}

/// An issue labeled by alice, run in a checkout (no credentials persisted) of a repository
/// whose tests are `test_command`, by [`hello_model`] with `reason` and `summary`: the world,
/// the issue's number and the run.
async fn labeled_run(test_command: &str, reason: &str, summary: &str) -> (World, u64, Ran) {
    let w = world(test_command).await;
    let (n, _, ran) = run_labeled(
        &w,
        false,
        &hello_model(reason, summary),
        &[],
        Launch::Direct,
    )
    .await;
    (w, n, ran)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_the_run_planted_under_sdd_is_not_pushed() {
    let (w, n, ran) = labeled_run(
        "mkdir -p .sdd/runs && ln -sfn ../../../.ssh/authorized_keys .sdd/runs/planted.transcript.html; grep -q hello hello.txt",
        "ok",
        "wrote hello.txt",
    )
    .await;
    let files = files_on_branch(&w.bare, n);
    assert!(
        files.iter().any(|f| f == "hello.txt") && !files.iter().any(|f| f.contains("planted")),
        "{files:?}\nstdout: {}\nstderr: {}",
        ran.stdout,
        ran.stderr
    );
}

/// What a model writes to ping people and phish under kotef's name.
const HOSTILE: &str = "Done, thanks @mallory and @acme/everyone! Log in at [GitHub](https://evil.example/login) ![badge](https://evil.example/b.png) or www.evil.example, see #1";

/// What of `body` GitHub would render live: a mention, a team mention, a link, an image or an
/// autolink outside code.
fn live(body: &str) -> Vec<&'static str> {
    let shown = outside_code(body);
    [
        "@mallory",
        "@acme/",
        "[GitHub](",
        "![",
        "https://evil",
        "www.evil",
        "see #1",
    ]
    .into_iter()
    .filter(|needle| shown.contains(needle))
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_text_mentions_and_links_are_inert_in_the_status_comment() {
    let (w, n, ran) = labeled_run("grep -q hello hello.txt", HOSTILE, HOSTILE).await;
    let comments = w.gh.kotef_comments(REPO, n);
    assert!(!comments.is_empty(), "stderr: {}", ran.stderr);
    for body in comments.iter().flat_map(|c| c.history.iter()) {
        assert_eq!(live(body), Vec::<&str>::new(), "{body}");
    }
    assert!(
        comments[0].body.contains("mallory"),
        "the text is shown, only inert"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_text_mentions_and_links_are_inert_in_the_pull_request_body() {
    let (w, _, ran) = labeled_run("grep -q hello hello.txt", HOSTILE, HOSTILE).await;
    let pulls = w.gh.pulls(REPO);
    assert_eq!(pulls.len(), 1, "stderr: {}", ran.stderr);
    assert_eq!(
        live(&pulls[0].body),
        Vec::<&str>::new(),
        "{}",
        pulls[0].body
    );
}

/// A run whose tests add `.git/commondir` in the runner's checkout: kotef refuses to commit.
/// (Through a variable: the command policy refuses a literal write into `.git/` before the
/// tests run; what it cannot see, the commit stage catches.)
async fn tampered() -> (Ran, Vec<String>) {
    let (w, n, ran) = labeled_run(
        "g=.git; echo /tmp > \"$g/commondir\"; grep -q hello hello.txt",
        "ok",
        "wrote hello.txt",
    )
    .await;
    let comments = w.gh.kotef_comments(REPO, n);
    (ran, comments.into_iter().map(|c| c.body).collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_push_is_the_headline() {
    let (ran, comments) = tampered().await;
    let body = comments.first().cloned().unwrap_or_default();
    let headline = body.lines().nth(1).unwrap_or_default();
    assert!(
        headline.starts_with("### ⚠️")
            && headline.contains("not pushed")
            && !body.contains("✅ kotef run ended"),
        "{body}\nstderr: {}",
        ran.stderr
    );
    assert!(body.contains("tampered with .git"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_push_is_in_the_outputs_and_fails_the_step() {
    let (ran, _) = tampered().await;
    let why = ran.outputs.get("not-pushed").cloned().unwrap_or_default();
    assert_eq!(
        (ran.code, why.contains("tampered with .git")),
        (1, true),
        "outputs: {:?}\nstdout: {}",
        ran.outputs,
        ran.stdout
    );
    assert!(
        ran.stdout.contains("::error title=kotef%3A not pushed::"),
        "{}",
        ran.stdout
    );
}
