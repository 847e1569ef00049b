//! What this branch changed against the cloned branch, as the status comment and the run's
//! record show it: the code's shortstat and capped diff (`.sdd/` left out), and how many of
//! kotef's own record files changed.

use super::git::{last_lines, Past};
use super::{GitError, Workspace};

impl Workspace {
    /// `git diff --shortstat` of the code this branch changed against the cloned branch,
    /// `.sdd/` left out; empty when no code changed.
    pub async fn code_diff_stat(&self) -> Result<String, GitError> {
        let out = self
            .git_ok(&[
                "diff",
                "--shortstat",
                &self.base_ref,
                "HEAD",
                "--",
                ".",
                ":(exclude).sdd",
            ])
            .await?;
        Ok(out.stdout.trim().to_string())
    }

    /// `git diff` of the code this branch changed against the cloned branch, `.sdd/` left out,
    /// at most `cap` bytes (no external diff driver, no text conversion).
    pub async fn code_diff(&self, cap: u64) -> Result<String, GitError> {
        let args = [
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            &self.base_ref,
            "HEAD",
            "--",
            ".",
            ":(exclude).sdd",
        ];
        let out = self.git_capped(&args, (cap, Past::Drop)).await?;
        if !out.ok {
            return Err(GitError {
                step: "diff".into(),
                message: last_lines(&out.stderr, 3),
            });
        }
        Ok(out.stdout)
    }

    /// Files under `.sdd/` (kotef's record) this branch changed against the cloned branch.
    pub async fn sdd_files_changed(&self) -> Result<u64, GitError> {
        let out = self
            .git_ok(&[
                "diff",
                "--name-only",
                "-z",
                &self.base_ref,
                "HEAD",
                "--",
                ".sdd",
            ])
            .await?;
        Ok(out.stdout.split('\0').filter(|p| !p.is_empty()).count() as u64)
    }
}
