//! Whether a git directory can be trusted after the agent ran: redirects (`commondir`,
//! alternates, linked work trees) and symlinked parts are refused.

use super::*;

/// Files and directories whose presence in a git directory redirects git to objects, config
/// or a repository kotef did not check.
pub(super) const REDIRECTS: [&str; 5] = [
    "commondir",
    "objects/info/alternates",
    "objects/info/http-alternates",
    "worktrees",
    "gitdir",
];

/// Parts of a git directory that must be what they look like, not symlinks.
pub(super) const NO_SYMLINKS: [&str; 7] = [
    "HEAD",
    "index",
    "objects",
    "objects/info",
    "refs",
    "info",
    "packed-refs",
];

/// Why `git_dir` cannot be trusted (a redirect or a symlink), `None` when its structure is as
/// git made it.
pub(super) fn tampering(git_dir: &Path) -> Option<String> {
    match std::fs::symlink_metadata(git_dir) {
        Err(_) => return Some("the git directory is gone".into()),
        Ok(m) if !m.is_dir() => {
            return Some("the git directory was replaced by a file or symlink".into())
        }
        Ok(_) => {}
    }
    if let Some(found) = REDIRECTS
        .iter()
        .find(|p| std::fs::symlink_metadata(git_dir.join(p)).is_ok())
    {
        return Some(format!("`{found}` was added"));
    }
    NO_SYMLINKS
        .iter()
        .find(|p| {
            std::fs::symlink_metadata(git_dir.join(p)).is_ok_and(|m| m.file_type().is_symlink())
        })
        .map(|p| format!("`{p}` was replaced by a symlink"))
}
