//! Reading one file of a branch from git without the work tree (the trusted config, the
//! agent's instructions): sized first, read up to a cap, git stopped past it.

use super::*;

impl Workspace {
    /// The text of `path` as it is on the remote's `branch` (fetched when this clone lacks
    /// it), at most `cap` bytes of it; `None` when the file is not there. Reads the trusted
    /// branch's config without touching the work tree. The blob's size is asked first, and git
    /// is stopped at the cap: a large file costs neither memory nor the git timeout.
    pub async fn file_on_branch(
        &self,
        branch: &str,
        path: &Path,
        cap: u64,
    ) -> Result<Option<BranchFile>, GitError> {
        if !valid_branch_name(branch) {
            return Err(GitError {
                step: "show".into(),
                message: format!("refusing the unusual branch name `{branch}`"),
            });
        }
        let remote = format!("refs/remotes/origin/{branch}");
        let known = self
            .git(&["rev-parse", "--verify", "-q", &remote])
            .await?
            .ok;
        if !known && !self.fetch_branch(branch).await? {
            return Err(GitError {
                step: "fetch".into(),
                message: format!("cannot fetch the branch `{branch}`"),
            });
        }
        let spec = format!("{remote}:{}", path.to_string_lossy());
        let sized = self.git(&["cat-file", "-s", &spec]).await?;
        let Some(size) = sized
            .ok
            .then(|| sized.stdout.trim().parse::<u64>().ok())
            .flatten()
        else {
            return Ok(None);
        };
        let out = self
            .git_capped(&["cat-file", "blob", &spec], (cap, Past::Kill))
            .await?;
        if !out.ok && !out.truncated {
            return Ok(None);
        }
        Ok(Some(BranchFile {
            truncated: out.truncated || size > cap,
            text: out.stdout,
            size,
        }))
    }
}
