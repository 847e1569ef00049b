//! Typed ids, so a repository name, an issue number and a delivery id can never be swapped.

use serde::{Deserialize, Serialize};
use std::fmt;

/// `owner/name` of a GitHub repository.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub struct RepoName {
    pub owner: String,
    pub name: String,
}

impl RepoName {
    pub fn new(owner: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            owner: owner.into(),
            name: name.into(),
        }
    }

    /// Parses `owner/name`; `None` when either part is missing or empty.
    pub fn parse(full: &str) -> Option<Self> {
        let (owner, name) = full.split_once('/')?;
        if owner.is_empty() || name.is_empty() || name.contains('/') {
            return None;
        }
        Some(Self::new(owner, name))
    }
}

impl fmt::Display for RepoName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

/// An issue or pull-request number (they share one sequence on GitHub).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(transparent)]
pub struct IssueNumber(pub u64);

impl fmt::Display for IssueNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// GitHub's `X-GitHub-Delivery` header: one id per delivery, the same on redelivery.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DeliveryId(pub String);

impl fmt::Display for DeliveryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One run of the agent graph; short, file-name safe.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(pub String);

impl RunId {
    /// A fresh id: the first 12 hex characters of a random (v4) UUID.
    pub fn generate() -> Self {
        let hex = uuid::Uuid::new_v4().simple().to_string();
        Self(hex[..12].to_string())
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_name_parses_owner_and_name() {
        assert_eq!(RepoName::parse("a/b"), Some(RepoName::new("a", "b")));
        assert_eq!(RepoName::parse("a/"), None);
        assert_eq!(RepoName::parse("a/b/c"), None);
        assert_eq!(RepoName::parse("ab"), None);
        assert_eq!(RepoName::new("o", "r").to_string(), "o/r");
    }

    #[test]
    fn run_ids_are_distinct() {
        let a = RunId::generate();
        let b = RunId::generate();
        assert_ne!(a, b);
        assert_eq!(a.0.len(), 12);
    }
}
