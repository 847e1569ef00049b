//! Names kotef gives and checks: a repository's clone URL, the branch for an issue, the
//! co-author trailer, whether a remote is the repository, and whether a branch name is safe.

use super::*;

/// The clone URL of `repo` under `base_url`.
pub fn clone_url(base_url: &str, repo: &RepoName) -> String {
    format!(
        "{}/{}/{}.git",
        base_url.trim_end_matches('/'),
        repo.owner,
        repo.name
    )
}

/// The prefix of kotef's issue branches when none is configured.
pub const DEFAULT_BRANCH_PREFIX: &str = "kotef/";

/// The branch kotef works on for an issue.
pub fn issue_branch(number: kotef_core::IssueNumber) -> String {
    prefixed_issue_branch(DEFAULT_BRANCH_PREFIX, number)
}

/// The branch kotef works on for an issue under `prefix` (`ai/` makes `ai/issue-7`).
pub fn prefixed_issue_branch(prefix: &str, number: kotef_core::IssueNumber) -> String {
    format!("{prefix}issue-{number}")
}

/// The `Co-authored-by` trailer crediting the person who asked for the run.
pub fn co_author_trailer(login: &str, id: u64) -> String {
    format!("Co-authored-by: {login} <{id}+{login}@users.noreply.github.com>")
}

/// Whether a remote URL (`https://host/owner/repo(.git)`, `git@host:owner/repo.git`,
/// `file:///dir/owner/repo.git`) names `repo`.
pub fn remote_is_repo(url: &str, repo: &RepoName) -> bool {
    let path = url.trim().trim_end_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    let want = format!("{}/{}", repo.owner, repo.name).to_ascii_lowercase();
    let path = path.to_ascii_lowercase();
    path.strip_suffix(&want)
        .is_some_and(|rest| rest.ends_with('/') || rest.ends_with(':'))
}

/// Whether a branch name is safe to hand to git as a ref (no option look-alikes, no odd
/// characters).
pub fn valid_branch_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 200
        && !name.starts_with('-')
        && !name.starts_with('/')
        && !name.ends_with('/')
        && !name.ends_with(".lock")
        && !name.contains("..")
        && !name.contains("//")
        && !name.contains("@{")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./+".contains(c))
}
