//! The git work tree of one run and the only way kotef runs git on the host: the `git` binary
//! (tokio::process, killed on drop, a timeout and an output cap per command, no prompts, no
//! credential helper, no user or system config, `HOME` an empty directory kotef owns, hooks,
//! fsmonitor, attribute files and every transport but http(s) (and `file` for `file://` test
//! remotes) off) clones into a temporary directory under the data dir, checks out the kotef
//! branch, commits everything as the bot and pushes, retrying a rejected push once after a
//! fetch and rebase.
//!
//! The work tree is hostile once the agent ran in it: its commands can rewrite every file there,
//! `.git` included. So a clone keeps its git directory outside the work tree
//! (`--separate-git-dir`), every host git call names the git directory and work tree
//! explicitly, and before any git call after the run the git directory is checked: a
//! `commondir`, alternates, linked work trees or symlinked directories refuse the commit; a
//! changed `config` or an added `info/attributes` is put back. An adopted checkout (the
//! Action's `GITHUB_WORKSPACE`) keeps its `.git` directory in place under the same checks.
//!
//! The token reaches git only through the child's environment (`http.<repo url>.extraHeader`,
//! sent to the repository's URL only), never a URL, a config file, an error message or a log
//! line. A cloned directory is removed on drop; an adopted one is left on the kotef branch.

use crate::secret::{ExposeSecret, Secret};
use base64::Engine;
use kotef_core::{Redactor, RepoName};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncReadExt;

mod blob;
mod diff;
mod git;
mod names;
mod sdd_links;
mod tamper;
use git::{auth_env, last_lines, run_git, run_git_capped, token_redactor, GitEnv, Output, Past};
pub use names::*;
use tamper::tampering;

/// A file read from a branch by [`Workspace::file_on_branch`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchFile {
    /// Its text (lossy UTF-8), at most the cap asked for.
    pub text: String,
    /// Its size in bytes.
    pub size: u64,
    /// `text` holds only the start of it.
    pub truncated: bool,
}

/// How git is run.
#[derive(Debug, Clone)]
pub struct GitSettings {
    /// Where repositories live: `{base_url}/{owner}/{repo}.git` (default `https://github.com`;
    /// tests use `file:///...` directories of bare repositories).
    pub base_url: String,
    /// The bot's commit identity.
    pub author_name: String,
    pub author_email: String,
    /// Longest one git command may take.
    pub timeout: Duration,
    /// Bytes of stdout/stderr kept from one git command.
    pub output_cap: usize,
}

impl Default for GitSettings {
    fn default() -> Self {
        Self {
            base_url: "https://github.com".into(),
            author_name: "kotef[bot]".into(),
            author_email: "kotef[bot]@users.noreply.github.com".into(),
            timeout: Duration::from_secs(300),
            output_cap: 64 * 1024,
        }
    }
}

/// A git step that failed; the message is already redacted.
#[derive(Debug, Clone, thiserror::Error)]
#[error("git {step} failed: {message}")]
pub struct GitError {
    pub step: String,
    pub message: String,
}

/// Where the work was pushed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pushed {
    pub branch: String,
    /// Whether the first push was rejected and a retry (after fetch + rebase, or on a new
    /// branch) succeeded.
    pub retried: bool,
}

/// One run's clone.
pub struct Workspace {
    /// The temporary directory of a clone, holding `repo` (the work tree), `git` (its git
    /// directory) and git's `HOME`; `None` for an adopted work tree, which stays.
    _dir: Option<tempfile::TempDir>,
    /// The empty directory git runs with as `HOME` and `XDG_CONFIG_HOME`.
    home: tempfile::TempDir,
    path: PathBuf,
    git_dir: PathBuf,
    settings: GitSettings,
    /// `GIT_CONFIG_*` entries that carry the token (empty without a token); secret, so they
    /// are zeroed when the workspace is dropped at the end of the job.
    auth_env: Vec<(String, Secret)>,
    redactor: Redactor,
    branch: String,
    base_ref: String,
    frozen_config: Option<Vec<u8>>,
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace")
            .field("path", &self.path)
            .field("git_dir", &self.git_dir)
            .field("branch", &self.branch)
            .finish_non_exhaustive()
    }
}

fn temp_dir_in(parent: Option<&Path>, prefix: &str) -> Result<tempfile::TempDir, GitError> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix);
    match parent {
        Some(p) => b.tempdir_in(p),
        None => b.tempdir(),
    }
    .map_err(|e| GitError {
        step: "clone".into(),
        message: format!("cannot create a temporary directory: {e}"),
    })
}

impl Workspace {
    /// Clones `repo` at `branch` into a fresh temporary directory under `parent`: the work
    /// tree is `<dir>/repo`, its git directory `<dir>/git` (outside the work tree).
    pub async fn clone(
        parent: &Path,
        settings: &GitSettings,
        repo: &RepoName,
        token: Option<&Secret>,
        branch: &str,
    ) -> Result<Self, GitError> {
        if !valid_branch_name(branch) {
            return Err(GitError {
                step: "clone".into(),
                message: format!("refusing the unusual branch name `{branch}`"),
            });
        }
        std::fs::create_dir_all(parent).map_err(|e| GitError {
            step: "clone".into(),
            message: format!("cannot create {}: {e}", parent.display()),
        })?;
        let dir = temp_dir_in(Some(parent), "kotef-ws-")?;
        let home = temp_dir_in(Some(dir.path()), "home-")?;
        let url = clone_url(&settings.base_url, repo);
        let auth = auth_env(&url, token);
        let redactor = token_redactor(token);
        let path = dir.path().join("repo");
        let git_dir = dir.path().join("git");
        let path_str = path.to_string_lossy().to_string();
        let separate = format!("--separate-git-dir={}", git_dir.to_string_lossy());
        let mut args = vec![
            "clone",
            "--no-tags",
            "--single-branch",
            "--no-recurse-submodules",
            separate.as_str(),
            "--branch",
            branch,
        ];
        if url.starts_with("http") {
            args.push("--filter=blob:none");
        }
        args.extend(["--", url.as_str(), path_str.as_str()]);
        let env = GitEnv {
            settings,
            home: home.path(),
            auth: &auth,
            redactor: &redactor,
        };
        let out = run_git(dir.path(), None, &args, &env).await?;
        if !out.ok {
            return Err(GitError {
                step: "clone".into(),
                message: format!(
                    "cloning {repo} (branch `{branch}`): {}",
                    last_lines(&out.stderr, 3)
                ),
            });
        }
        Ok(Self {
            _dir: Some(dir),
            home,
            path,
            git_dir,
            settings: settings.clone(),
            auth_env: auth,
            redactor,
            branch: branch.to_string(),
            base_ref: format!("refs/remotes/origin/{branch}"),
            frozen_config: None,
        })
    }

    /// Works in an existing checkout of `repo` (the Action's `GITHUB_WORKSPACE`) instead of a
    /// fresh clone. The checkout must have a `.git` directory (not a file or symlink) without
    /// redirects, `origin` pointing at `repo` and no uncommitted changes. Credentials a
    /// previous step left in `.git/config` (`http.*.extraheader`, `include.path`, a token in
    /// the remote URL) are removed first, so neither the agent's commands nor kotef's own git
    /// calls see them; then `branch` is fetched and checked out.
    pub async fn adopt(
        path: &Path,
        settings: &GitSettings,
        repo: &RepoName,
        token: Option<&Secret>,
        branch: &str,
    ) -> Result<Self, GitError> {
        let fail = |step: &str, message: String| GitError {
            step: step.into(),
            message,
        };
        if !valid_branch_name(branch) {
            return Err(fail(
                "checkout",
                format!("refusing the unusual branch name `{branch}`"),
            ));
        }
        let git_dir = path.join(".git");
        if !std::fs::symlink_metadata(&git_dir).is_ok_and(|m| m.is_dir()) {
            return Err(fail(
                "checkout",
                format!(
                    "{} is not a git checkout with a .git directory",
                    path.display()
                ),
            ));
        }
        if let Some(why) = tampering(&git_dir) {
            return Err(fail(
                "checkout",
                format!("the checkout's .git cannot be trusted: {why}"),
            ));
        }
        let url = clone_url(&settings.base_url, repo);
        let redactor = token_redactor(token);
        let ws = Self {
            _dir: None,
            home: temp_dir_in(None, "kotef-git-home-")?,
            path: path.to_path_buf(),
            git_dir,
            settings: settings.clone(),
            auth_env: auth_env(&url, token),
            redactor,
            branch: branch.to_string(),
            base_ref: format!("refs/remotes/origin/{branch}"),
            frozen_config: None,
        };
        let origin = ws.git(&["remote", "get-url", "origin"]).await?;
        if !origin.ok || !remote_is_repo(origin.stdout.trim(), repo) {
            return Err(fail(
                "checkout",
                format!("the checkout's `origin` is not {repo}"),
            ));
        }
        let status = ws
            .git(&["status", "--porcelain", "--untracked-files=normal"])
            .await?;
        if !status.ok {
            return Err(fail("status", last_lines(&status.stderr, 3)));
        }
        if !status.stdout.trim().is_empty() {
            return Err(fail(
                "checkout",
                "the checkout has uncommitted changes".into(),
            ));
        }
        // Credentials persisted by earlier steps (actions/checkout's extraheader, or an
        // include of a credentials file) go before anything else runs here, and so do push
        // URLs and URL rewrites that would send the work elsewhere.
        let found = ws
            .git(&[
                "config",
                "--local",
                "--name-only",
                "--get-regexp",
                r"^(http\..*\.extraheader|include\.path|includeif\..*\.path|remote\..*\.pushurl|url\..*\.(push)?insteadof)$",
            ])
            .await?;
        let mut keys: Vec<String> = found.stdout.lines().map(|l| l.trim().to_string()).collect();
        keys.sort();
        keys.dedup();
        for key in keys.iter().filter(|k| !k.is_empty()) {
            ws.git(&["config", "--local", "--unset-all", key]).await?;
        }
        let set = ws.git(&["remote", "set-url", "origin", &url]).await?;
        if !set.ok {
            return Err(fail("remote", last_lines(&set.stderr, 3)));
        }
        if !ws.fetch_branch(branch).await? {
            return Err(fail(
                "fetch",
                format!("cannot fetch `{branch}` from {repo}"),
            ));
        }
        let start = format!("refs/remotes/origin/{branch}");
        ws.git_ok(&["checkout", "-q", "--force", "-B", branch, &start])
            .await?;
        Ok(ws)
    }

    /// The work tree.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The git directory kotef's own git calls use: outside the work tree for a clone,
    /// `<checkout>/.git` for an adopted checkout. The agent's commands may read it but must
    /// not write it (the sandbox binds it read-only).
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// The branch work is committed to.
    pub fn branch(&self) -> &str {
        &self.branch
    }

    /// Runs git on this workspace's git directory and work tree. Every call gets the token's
    /// environment: any command may contact the remote (a partial clone fetches missing blobs
    /// lazily during checkout, rebase, show, diff or add), and the header is scoped to the
    /// repository's URL. After [`Self::freeze_git_config`] the git directory is checked first.
    async fn git(&self, args: &[&str]) -> Result<Output, GitError> {
        let cap = self.settings.output_cap as u64;
        self.git_capped(args, (cap, Past::Drop)).await
    }

    /// As [`Self::git`], with stdout kept up to `stdout.0` bytes (see [`Past`]).
    async fn git_capped(&self, args: &[&str], stdout: (u64, Past)) -> Result<Output, GitError> {
        self.check_git_dir()?;
        let env = GitEnv {
            settings: &self.settings,
            home: self.home.path(),
            auth: &self.auth_env,
            redactor: &self.redactor,
        };
        let dirs = Some((self.git_dir.as_path(), self.path.as_path()));
        run_git_capped(&self.path, dirs, args, &env, stdout).await
    }

    /// Remembers the git directory's `config` as it is now (before the agent runs in the work
    /// tree), so that every later git call can check it and put it back: a run must not be
    /// able to make kotef's own git calls execute commands (`core.fsmonitor`, filters,
    /// `include.path`, ...) or talk to another remote.
    pub fn freeze_git_config(&mut self) -> Result<(), GitError> {
        if let Some(why) = tampering(&self.git_dir) {
            return Err(GitError {
                step: "config".into(),
                message: format!("the git directory cannot be trusted: {why}"),
            });
        }
        let text = std::fs::read(self.git_dir.join("config")).map_err(|e| GitError {
            step: "config".into(),
            message: format!("cannot read the git config: {e}"),
        })?;
        self.frozen_config = Some(text);
        Ok(())
    }

    /// Once the config is frozen: refuses a git directory whose structure the run changed
    /// (see [`tampering`]), and puts back a changed `config` and removes an added
    /// `info/attributes`.
    fn check_git_dir(&self) -> Result<(), GitError> {
        let Some(text) = &self.frozen_config else {
            return Ok(());
        };
        if let Some(why) = tampering(&self.git_dir) {
            return Err(GitError {
                step: "verify".into(),
                message: format!(
                    "the run tampered with .git ({why}); nothing was committed or pushed"
                ),
            });
        }
        let fail = |e: std::io::Error| GitError {
            step: "config".into(),
            message: format!("cannot restore the git config: {e}"),
        };
        let config = self.git_dir.join("config");
        let same = std::fs::symlink_metadata(&config).is_ok_and(|m| m.is_file())
            && std::fs::read(&config).is_ok_and(|now| now == *text);
        if !same {
            if std::fs::symlink_metadata(&config).is_ok_and(|m| m.is_dir()) {
                std::fs::remove_dir_all(&config).map_err(fail)?;
            } else if std::fs::symlink_metadata(&config).is_ok() {
                std::fs::remove_file(&config).map_err(fail)?;
            }
            std::fs::write(&config, text).map_err(fail)?;
        }
        let attributes = self.git_dir.join("info/attributes");
        if std::fs::symlink_metadata(&attributes).is_ok() {
            std::fs::remove_file(&attributes).map_err(fail)?;
        }
        Ok(())
    }

    async fn git_ok(&self, args: &[&str]) -> Result<Output, GitError> {
        let out = self.git(args).await?;
        if out.ok {
            Ok(out)
        } else {
            Err(GitError {
                step: args.first().copied().unwrap_or("git").to_string(),
                message: last_lines(&out.stderr, 3),
            })
        }
    }

    async fn fetch_branch(&self, branch: &str) -> Result<bool, GitError> {
        let refspec = format!("+refs/heads/{branch}:refs/remotes/origin/{branch}");
        Ok(self
            .git(&["fetch", "--no-tags", "origin", &refspec])
            .await?
            .ok)
    }

    /// Switches to `branch` for the run: the remote's branch when it exists (a re-run), else a
    /// new branch from the cloned one.
    pub async fn checkout_work_branch(&mut self, branch: &str) -> Result<(), GitError> {
        if !valid_branch_name(branch) {
            return Err(GitError {
                step: "checkout".into(),
                message: format!("refusing the unusual branch name `{branch}`"),
            });
        }
        if branch == self.branch {
            return Ok(());
        }
        let remote_ref = format!("refs/heads/{branch}");
        let exists = self
            .git(&["ls-remote", "--exit-code", "--heads", "origin", &remote_ref])
            .await?;
        if exists.ok {
            if !self.fetch_branch(branch).await? {
                return Err(GitError {
                    step: "fetch".into(),
                    message: format!("cannot fetch the existing branch `{branch}`"),
                });
            }
            let start = format!("refs/remotes/origin/{branch}");
            self.git_ok(&["checkout", "-q", "-B", branch, &start])
                .await?;
        } else if exists.code == Some(2) {
            self.git_ok(&["checkout", "-q", "-b", branch]).await?;
        } else {
            return Err(GitError {
                step: "ls-remote".into(),
                message: last_lines(&exists.stderr, 3),
            });
        }
        self.branch = branch.to_string();
        Ok(())
    }

    /// Stages everything (code and `.sdd/`) and commits it; `false` when nothing changed.
    /// Refuses a tampered git directory and restores a frozen config first.
    pub async fn commit_all(&self, message: &str) -> Result<bool, GitError> {
        Ok(self.commit_work(message, &[]).await?.0)
    }

    /// [`Self::commit_all`], leaving out `leave_out` (work-tree paths, a folder ending in `/`:
    /// what the repository's `setup` created) and every symbolic link under `.sdd/` (see
    /// `sdd_links`); also returns the links left out.
    pub async fn commit_work(
        &self,
        message: &str,
        leave_out: &[String],
    ) -> Result<(bool, Vec<String>), GitError> {
        let excluded: Vec<String> = leave_out
            .iter()
            .map(|p| p.trim_end_matches('/'))
            .filter(|p| !p.is_empty())
            .map(|p| format!(":(top,exclude,literal){p}"))
            .collect();
        let mut add = vec!["add", "-A", "--", "."];
        add.extend(excluded.iter().map(String::as_str));
        self.git_ok(&add).await?;
        let left_out = self.unstage_sdd_links().await?;
        let diff = self.git(&["diff", "--cached", "--quiet"]).await?;
        if diff.ok {
            return Ok((false, left_out));
        }
        self.git_ok(&[
            "commit",
            "-q",
            "--no-verify",
            "--no-gpg-sign",
            "-m",
            message,
        ])
        .await?;
        Ok((true, left_out))
    }

    /// Commits on this branch that the cloned branch does not have.
    pub async fn commits_ahead_of_base(&self) -> Result<u64, GitError> {
        let range = format!("{}..HEAD", self.base_ref);
        let out = self.git_ok(&["rev-list", "--count", &range]).await?;
        Ok(out.stdout.trim().parse().unwrap_or(0))
    }

    async fn push_to(&self, branch: &str) -> Result<Output, GitError> {
        let refspec = format!("HEAD:refs/heads/{branch}");
        self.git(&["push", "--porcelain", "origin", &refspec]).await
    }

    /// Pushes HEAD to the work branch. A rejection is followed by one retry: fetch the remote
    /// branch and rebase onto it (or, when the rebase conflicts, push to `fallback_branch`).
    pub async fn push(&self, fallback_branch: &str) -> Result<Pushed, GitError> {
        let first = self.push_to(&self.branch).await?;
        if first.ok {
            return Ok(Pushed {
                branch: self.branch.clone(),
                retried: false,
            });
        }
        tracing::warn!(branch = %self.branch, reason = %last_lines(&first.stderr, 2), "push rejected; retrying once");
        let mut target = self.branch.clone();
        if self.fetch_branch(&self.branch).await? {
            let onto = format!("refs/remotes/origin/{}", self.branch);
            let rebase = self.git(&["rebase", "-q", &onto]).await?;
            if !rebase.ok {
                let _ = self.git(&["rebase", "--abort"]).await;
                target = fallback_branch.to_string();
            }
        }
        let second = self.push_to(&target).await?;
        if second.ok {
            Ok(Pushed {
                branch: target,
                retried: true,
            })
        } else {
            Err(GitError {
                step: "push".into(),
                message: format!(
                    "pushing to `{target}` was rejected twice: {}",
                    last_lines(&second.stderr, 3)
                ),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clone_urls_and_names() {
        let r = RepoName::new("acme", "widgets");
        assert_eq!(
            clone_url("https://github.com/", &r),
            "https://github.com/acme/widgets.git"
        );
        assert_eq!(
            clone_url("file:///tmp/x", &r),
            "file:///tmp/x/acme/widgets.git"
        );
        assert_eq!(issue_branch(kotef_core::IssueNumber(7)), "kotef/issue-7");
        assert_eq!(
            co_author_trailer("octo", 42),
            "Co-authored-by: octo <42+octo@users.noreply.github.com>"
        );
    }

    #[test]
    fn remotes_are_matched_to_the_repository() {
        let r = RepoName::new("Acme", "widgets");
        for ok in [
            "https://github.com/acme/widgets",
            "https://github.com/acme/widgets.git",
            "https://github.com/acme/widgets/",
            "git@github.com:acme/widgets.git",
            "file:///tmp/x/acme/widgets.git",
        ] {
            assert!(remote_is_repo(ok, &r), "{ok}");
        }
        for bad in [
            "https://github.com/acme/widgets2",
            "https://github.com/notacme/widgets",
            "https://github.com/xacme/widgets",
            "",
        ] {
            assert!(!remote_is_repo(bad, &r), "{bad}");
        }
    }

    #[test]
    fn branch_names_are_checked() {
        assert!(valid_branch_name("kotef/issue-1"));
        assert!(valid_branch_name("feature/x_y.z"));
        for bad in [
            "", "-x", "a..b", "a b", "a~1", "x.lock", "a//b", "/a", "a@{1}",
        ] {
            assert!(!valid_branch_name(bad), "{bad}");
        }
    }

    #[test]
    fn token_only_travels_in_the_environment_for_http() {
        let t = Secret::from("ghs_token_value");
        let env = auth_env("https://github.com/o/r.git", Some(&t));
        assert_eq!(
            env[1].1.expose_secret(),
            "http.https://github.com/o/r.git.extraHeader"
        );
        assert!(env[2]
            .1
            .expose_secret()
            .starts_with("Authorization: Basic "));
        assert!(!env[2].1.expose_secret().contains("ghs_token_value"));
        assert_eq!(
            auth_env("file:///tmp/o/r.git", Some(&t))[0]
                .1
                .expose_secret(),
            "0"
        );
        assert_eq!(auth_env("https://x", None)[0].1.expose_secret(), "0");
    }
}
