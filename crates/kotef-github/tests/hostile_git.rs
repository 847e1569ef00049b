//! The work tree is hostile once the agent ran in it (issue 20): whatever its commands write
//! there — `.git` included — must not make kotef's own git on the host run a command, read
//! another repository or config, or push anywhere but the repository. Each test plays one
//! attack through the real [`Workspace`] (or the pipeline) with real git and bare
//! repositories, and checks one fact: no marker file appears on the host, the attacker's
//! repository receives nothing, and the work is either committed safely or refused.

mod common;

use common::{Harness, REPO};
use kotef_core::{RepoName, RunOutcome, RunRequest, SandboxMode, StepProgress, TerminalStatus};
use kotef_github::{process_job, GitSettings, JobStatus, Workspace};
use kotef_testkit::{file_base_url, git, git_output, init_bare_repo};
use kotef_tools::{CommandResult, CommandRunner, RunnerConfig};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const WORK: &str = "kotef/issue-1";

/// Bare repositories (`acme/widgets`, the attacker's `evil/loot`) and somewhere outside
/// every work tree for the marker an executed filter would leave.
struct World {
    root: tempfile::TempDir,
    outside: tempfile::TempDir,
    loot: PathBuf,
}

impl World {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        init_bare_repo(root.path(), REPO, &[("README.md", "# widgets\n")]);
        let loot = init_bare_repo(root.path(), "evil/loot", &[("x", "y\n")]);
        Self {
            root,
            outside: tempfile::tempdir().unwrap(),
            loot,
        }
    }

    fn settings(&self) -> GitSettings {
        GitSettings {
            base_url: file_base_url(self.root.path()),
            ..GitSettings::default()
        }
    }

    fn marker(&self) -> PathBuf {
        self.outside.path().join("marker")
    }

    fn loot_url(&self) -> String {
        format!("file://{}", self.loot.display())
    }

    /// The refs of the attacker's repository (only its own `main` unless it received a push).
    fn loot_refs(&self) -> String {
        git_output(&self.loot, &["for-each-ref", "--format=%(refname)"]).unwrap_or_default()
    }

    fn origin_file(&self, branch: &str, path: &str) -> Option<String> {
        let bare = self.root.path().join(format!("{REPO}.git"));
        git_output(&bare, &["show", &format!("{branch}:{path}")])
    }

    /// A fresh clone on the work branch, config frozen: the state the agent runs in.
    async fn clone(&self, parent: &Path) -> Workspace {
        let repo = RepoName::new("acme", "widgets");
        let mut ws = Workspace::clone(parent, &self.settings(), &repo, None, "main")
            .await
            .unwrap();
        ws.checkout_work_branch(WORK).await.unwrap();
        ws.freeze_git_config().unwrap();
        ws
    }

    /// An adopted checkout (`.git` a directory in the work tree) on the work branch, config
    /// frozen.
    async fn adopt(&self, dir: &Path) -> Workspace {
        let url = format!("{}/{REPO}.git", file_base_url(self.root.path()));
        git(
            self.outside.path(),
            &["clone", "-q", &url, dir.to_str().unwrap()],
        );
        let repo = RepoName::new("acme", "widgets");
        let mut ws = Workspace::adopt(dir, &self.settings(), &repo, None, "main")
            .await
            .unwrap();
        ws.checkout_work_branch(WORK).await.unwrap();
        ws.freeze_git_config().unwrap();
        ws
    }

    /// A filter that leaves the marker when git runs it, and a push URL to the loot.
    fn evil_config(&self, config: &Path) {
        let marker = self.marker();
        let mut text = std::fs::read_to_string(config).unwrap();
        text.push_str(&format!(
            "[filter \"evil\"]\n\tclean = touch {}; cat\n\trequired = false\n[remote \"origin\"]\n\tpushurl = {}\n",
            marker.display(),
            self.loot_url()
        ));
        std::fs::write(config, text).unwrap();
    }
}

/// What the agent's test command does in the work tree (plain shell, as an unsandboxed or
/// pre-fix run could): a change to commit and attributes naming the evil filter.
fn agent_edits(tree: &Path) {
    std::fs::write(tree.join("README.md"), "# widgets, changed\n").unwrap();
    std::fs::write(tree.join(".gitattributes"), "* filter=evil\n").unwrap();
}

/// Row 2 of issue 20 in an adopted checkout: `.git` copied to `.git/x`, the copy's config
/// given a clean filter and a push URL, `.git/commondir` pointing at it.
async fn row_two(w: &World, tree: &Path) -> (Result<bool, String>, Result<(), String>) {
    let ws = w.adopt(tree).await;
    let staged = w.outside.path().join("x");
    let copy = std::process::Command::new("cp")
        .arg("-r")
        .arg(tree.join(".git"))
        .arg(&staged)
        .status()
        .unwrap();
    assert!(copy.success());
    std::fs::rename(&staged, tree.join(".git/x")).unwrap();
    w.evil_config(&tree.join(".git/x/config"));
    std::fs::write(tree.join(".git/commondir"), "x\n").unwrap();
    agent_edits(tree);
    let committed = ws.commit_all("work").await.map_err(|e| e.to_string());
    let pushed = ws
        .push("fallback")
        .await
        .map(|_| ())
        .map_err(|e| e.to_string());
    (committed, pushed)
}

#[tokio::test]
async fn row_two_runs_no_filter_on_the_host() {
    let w = World::new();
    let tree = w.outside.path().join("tree");
    let _ = row_two(&w, &tree).await;
    assert!(!w.marker().exists());
}

#[tokio::test]
async fn row_two_pushes_nothing_to_the_attacker() {
    let w = World::new();
    let tree = w.outside.path().join("tree");
    let _ = row_two(&w, &tree).await;
    assert_eq!(w.loot_refs().trim(), "refs/heads/main");
}

#[tokio::test]
async fn row_two_is_refused_as_tampering() {
    let w = World::new();
    let tree = w.outside.path().join("tree");
    let (committed, pushed) = row_two(&w, &tree).await;
    let (Err(c), Err(p)) = (committed, pushed) else {
        panic!("a redirected .git must not be committed or pushed");
    };
    assert!(
        c.contains("tampered with .git") && c.contains("commondir") && p.contains("tampered"),
        "{c} / {p}"
    );
}

#[tokio::test]
async fn a_filter_appended_to_the_adopted_config_runs_nothing() {
    let w = World::new();
    let tree = w.outside.path().join("tree");
    let ws = w.adopt(&tree).await;
    w.evil_config(&tree.join(".git/config"));
    agent_edits(&tree);
    ws.commit_all("work").await.unwrap();
    ws.push("fallback").await.unwrap();
    assert!(!w.marker().exists());
}

#[tokio::test]
async fn attributes_under_the_work_trees_config_dir_are_not_read() {
    let w = World::new();
    let parent = tempfile::tempdir().unwrap();
    let ws = w.clone(parent.path()).await;
    // With HOME in the work tree, `ident` from here would commit `$Id$` instead.
    std::fs::create_dir_all(ws.path().join(".config/git")).unwrap();
    std::fs::write(ws.path().join(".config/git/attributes"), "* ident\n").unwrap();
    std::fs::write(ws.path().join("id.txt"), "$Id: the agent's $\n").unwrap();
    ws.commit_all("work").await.unwrap();
    ws.push("fallback").await.unwrap();
    assert_eq!(
        w.origin_file(WORK, "id.txt").as_deref(),
        Some("$Id: the agent's $\n")
    );
}

/// What the agent leaves at `<work tree>/.git` of a clone.
enum Redirect {
    /// A `gitdir:` file naming a copy of the git directory with the evil config.
    GitFile,
    /// A symlink to that copy.
    Symlink,
    /// The copy itself, as a directory.
    Directory,
    /// A directory whose `commondir` names the copy (row 2 of issue 20 in a clone).
    CommonDir,
}

/// Removes whatever is at `path`.
fn remove(path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path).unwrap(),
        Ok(_) => std::fs::remove_file(path).unwrap(),
        Err(_) => {}
    }
}

/// Replaces the clone's `.git` by a redirect to an evil copy of its git directory, makes the
/// agent's edits, then commits and pushes.
async fn redirect(w: &World, how: Redirect) -> Result<(), String> {
    let parent = tempfile::tempdir().unwrap();
    let ws = w.clone(parent.path()).await;
    let tree = ws.path().to_path_buf();
    let evil = tree.join("evil-git");
    let copy = std::process::Command::new("cp")
        .arg("-r")
        .arg(ws.git_dir())
        .arg(&evil)
        .status()
        .unwrap();
    assert!(copy.success());
    w.evil_config(&evil.join("config"));
    remove(&tree.join(".git"));
    match how {
        Redirect::GitFile => std::fs::write(tree.join(".git"), "gitdir: evil-git\n").unwrap(),
        Redirect::Symlink => std::os::unix::fs::symlink(&evil, tree.join(".git")).unwrap(),
        Redirect::Directory => std::fs::rename(&evil, tree.join(".git")).unwrap(),
        Redirect::CommonDir => {
            let copy = std::process::Command::new("cp")
                .arg("-r")
                .arg(ws.git_dir())
                .arg(tree.join(".git"))
                .status()
                .unwrap();
            assert!(copy.success());
            std::fs::write(tree.join(".git/commondir"), "../evil-git\n").unwrap();
        }
    }
    agent_edits(&tree);
    ws.commit_all("work").await.map_err(|e| e.to_string())?;
    ws.push("fallback").await.map_err(|e| e.to_string())?;
    Ok(())
}

#[tokio::test]
async fn a_gitfile_in_the_clone_runs_no_filter() {
    let w = World::new();
    let _ = redirect(&w, Redirect::GitFile).await;
    assert!(!w.marker().exists());
}

#[tokio::test]
async fn a_symlinked_git_in_the_clone_runs_no_filter() {
    let w = World::new();
    let _ = redirect(&w, Redirect::Symlink).await;
    assert!(!w.marker().exists());
}

#[tokio::test]
async fn a_git_directory_in_the_clone_runs_no_filter() {
    let w = World::new();
    let _ = redirect(&w, Redirect::Directory).await;
    assert!(!w.marker().exists());
}

#[tokio::test]
async fn a_commondir_in_the_clone_runs_no_filter() {
    let w = World::new();
    let _ = redirect(&w, Redirect::CommonDir).await;
    assert!(!w.marker().exists());
}

#[tokio::test]
async fn a_commondir_in_the_clone_pushes_nothing_to_the_attacker() {
    let w = World::new();
    let _ = redirect(&w, Redirect::CommonDir).await;
    assert_eq!(w.loot_refs().trim(), "refs/heads/main");
}

#[tokio::test]
async fn a_commondir_in_the_clone_is_ignored_and_the_work_committed() {
    let w = World::new();
    redirect(&w, Redirect::CommonDir).await.unwrap();
    assert_eq!(
        w.origin_file(WORK, "README.md").as_deref(),
        Some("# widgets, changed\n")
    );
}

#[tokio::test]
async fn a_gitfile_in_the_clone_pushes_nothing_to_the_attacker() {
    let w = World::new();
    let _ = redirect(&w, Redirect::GitFile).await;
    assert_eq!(w.loot_refs().trim(), "refs/heads/main");
}

#[tokio::test]
async fn a_redirected_git_in_the_clone_still_commits_the_work_to_origin() {
    let w = World::new();
    redirect(&w, Redirect::Directory).await.unwrap();
    assert_eq!(
        w.origin_file(WORK, "README.md").as_deref(),
        Some("# widgets, changed\n")
    );
}

#[tokio::test]
async fn a_clone_keeps_its_git_directory_outside_the_work_tree() {
    let w = World::new();
    let parent = tempfile::tempdir().unwrap();
    let ws = w.clone(parent.path()).await;
    assert!(ws.git_dir().join("HEAD").is_file() && !ws.git_dir().starts_with(ws.path()));
}

// --- the sandbox: the git directory is readable, never writable ------------------------------

/// An executor whose "agent" runs one command in the sandbox the real runner builds from the
/// request, and keeps its result.
struct SandboxedCommand {
    command: String,
    result: Mutex<Option<CommandResult>>,
}

#[async_trait::async_trait]
impl kotef_github::RunExecutor for SandboxedCommand {
    async fn execute(
        &self,
        req: RunRequest,
        _progress: tokio::sync::mpsc::UnboundedSender<StepProgress>,
    ) -> anyhow::Result<RunOutcome> {
        let runner = CommandRunner::new(RunnerConfig {
            sandbox: SandboxMode::Bwrap,
            hidden_paths: req.hidden_paths.clone(),
            read_only_paths: req.protected_paths.clone(),
            ..RunnerConfig::default()
        });
        let r = runner.run(&self.command, &req.workdir).await;
        *self.result.lock().unwrap() = Some(r);
        Ok(kotef_testkit::sample_outcome(
            &req.run_id,
            TerminalStatus::DoneSuccess,
            None,
            "",
        ))
    }
}

/// Runs `command` as the agent of one issue job (in an adopted checkout when `adopted`, else
/// in a clone under the hidden data directory); its result, `None` without bwrap.
async fn sandboxed(command: &str, adopted: bool) -> Option<CommandResult> {
    if let Err(why) = kotef_tools::bwrap_status() {
        println!("skipped: bubblewrap is not usable here ({why})");
        return None;
    }
    let h = Harness::new().await;
    let mut ctx = h.job_context("clones");
    ctx.operator.hidden_paths = vec![h.data.path().to_path_buf()];
    if adopted {
        let dir = h.data.path().join("checkout");
        let url = format!("{}/{REPO}.git", file_base_url(h.git_root.path()));
        git(h.data.path(), &["clone", "-q", &url, dir.to_str().unwrap()]);
        ctx.checkout = Some(dir);
    }
    let n = h.gh.add_issue(REPO, "Greeting", "Add hello.txt");
    let payload = kotef_testkit::issues_labeled(REPO, n, "Greeting", "b", "kotef", "alice");
    let job = common::first_attempt("issues", &payload, "d");
    let exec = SandboxedCommand {
        command: command.into(),
        result: Mutex::new(None),
    };
    let result = process_job(&ctx, &job, &exec).await;
    assert_eq!(result.status, JobStatus::Finished, "{}", result.message);
    let r = exec.result.lock().unwrap().take();
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandboxed_command_cannot_write_the_adopted_git_directory() {
    if let Some(r) = sandboxed("touch .git/x", true).await {
        assert_ne!(r.exit_code, Some(0), "{r:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandboxed_command_cannot_write_the_clones_git_directory() {
    let command = r#"d="$(git rev-parse --absolute-git-dir)" && echo > "$d/config""#;
    if let Some(r) = sandboxed(command, false).await {
        assert_ne!(r.exit_code, Some(0), "{r:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandboxed_git_status_reads_the_clones_git_directory() {
    if let Some(r) = sandboxed("git status --porcelain", false).await {
        assert_eq!(r.exit_code, Some(0), "{r:?}");
    }
}
