//! What a `push` delivery means to the edge: whether it moved a repository's default branch
//! and may have changed its `kotef.toml` (so the cached trigger label must be read again).
//! Pure: the payload in, a [`ConfigPush`] out.

use super::payload::{parse, repo_name, RepoPayload};
use super::trigger::PayloadError;
use kotef_core::config::CONFIG_FILES;
use kotef_core::RepoName;
use serde::Deserialize;

/// GitHub lists at most this many commits in a push payload; a push with as many may have
/// more, so its file lists are not the whole story.
const LISTED_COMMITS: usize = 20;

#[derive(Debug, Deserialize)]
struct PushEvent {
    #[serde(rename = "ref")]
    git_ref: String,
    #[serde(default)]
    after: String,
    #[serde(default)]
    forced: bool,
    #[serde(default)]
    commits: Vec<PushCommit>,
    repository: RepoPayload,
}

#[derive(Debug, Default, Deserialize)]
struct PushCommit {
    #[serde(default)]
    added: Vec<String>,
    #[serde(default)]
    modified: Vec<String>,
    #[serde(default)]
    removed: Vec<String>,
}

/// A push to a repository's default branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigPush {
    pub repo: RepoName,
    /// The branch pushed (the default branch).
    pub branch: String,
    /// The branch's new head.
    pub head: String,
    /// Whether the push may have changed the repository's config file: it names one, was
    /// forced, or lists as many commits as GitHub shows (there may be more).
    pub touches_config: bool,
}

/// The push's effect on the config cache: `None` for a push to any other branch or a tag.
pub fn config_push(body: &[u8]) -> Result<Option<ConfigPush>, PayloadError> {
    let e: PushEvent = parse("push", body)?;
    let repo = repo_name("push", &e.repository)?;
    let Some(branch) = e.git_ref.strip_prefix("refs/heads/") else {
        return Ok(None);
    };
    if e.repository.default_branch.as_deref() != Some(branch) {
        return Ok(None);
    }
    let names_config = e.commits.iter().any(|c| {
        c.added
            .iter()
            .chain(&c.modified)
            .chain(&c.removed)
            .any(|p| CONFIG_FILES.contains(&p.as_str()))
    });
    Ok(Some(ConfigPush {
        repo,
        branch: branch.to_string(),
        head: e.after,
        touches_config: names_config || e.forced || e.commits.len() >= LISTED_COMMITS,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn push(git_ref: &str, files: &[&str], forced: bool) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "ref": git_ref, "after": "abc123", "forced": forced,
            "commits": [{"added": [], "modified": files, "removed": []}],
            "repository": {"full_name": "acme/widgets", "default_branch": "main"},
        }))
        .unwrap()
    }

    #[test]
    fn a_push_naming_kotef_toml_on_the_default_branch_touches_the_config() {
        let p = config_push(&push(
            "refs/heads/main",
            &["src/a.rs", ".github/kotef.toml"],
            false,
        ))
        .unwrap()
        .unwrap();
        assert!(p.touches_config);
        assert_eq!(p.head, "abc123");
    }

    #[test]
    fn a_push_of_other_files_leaves_the_config() {
        let p = config_push(&push("refs/heads/main", &["src/a.rs"], false))
            .unwrap()
            .unwrap();
        assert!(!p.touches_config);
    }

    #[test]
    fn a_forced_push_may_have_changed_anything() {
        let p = config_push(&push("refs/heads/main", &[], true))
            .unwrap()
            .unwrap();
        assert!(p.touches_config);
    }

    #[test]
    fn a_push_to_another_branch_or_a_tag_is_no_concern() {
        assert_eq!(
            config_push(&push("refs/heads/feature", &["kotef.toml"], false)).unwrap(),
            None
        );
        assert_eq!(
            config_push(&push("refs/tags/v1", &["kotef.toml"], false)).unwrap(),
            None
        );
    }

    #[test]
    fn a_push_without_a_ref_names_the_field() {
        let e = config_push(br#"{"repository":{"full_name":"a/b"}}"#).unwrap_err();
        assert_eq!(e.path, ".", "{e}");
    }
}
