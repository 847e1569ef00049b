//! Repository snapshots: a gitignore-aware listing with short content hashes (shown to the model
//! as context), and full content hashes of every file (compared by the graph to see whether
//! files changed). Both skip `.git/`, never follow symlinks and are bounded: in entries
//! ([`MAX_WALK_ENTRIES`]) and in bytes read ([`SNAPSHOT_BYTES`] per snapshot, unchanged files
//! not read again, sparse and large files fingerprinted; see [`crate::tree::HashBudget`]).
//! The `_within` forms run on a blocking thread, off the async runtime, and are cancelled at
//! their deadline.

use crate::tree::{HashBudget, Tree, Walked};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub use crate::tree::{HASH_CAP, MAX_WALK_ENTRIES};

/// Bytes one snapshot reads at most to hash files; past it, files are fingerprinted.
pub const SNAPSHOT_BYTES: u64 = 256 * 1024 * 1024;

/// One file in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileEntry {
    /// Relative, `/`-separated.
    pub path: String,
    /// The first 12 hex digits of the content's sha256.
    pub short_hash: String,
    pub size: u64,
}

/// A bounded listing of the repository.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RepoSnapshot {
    /// Sorted by path, at most `max_files`.
    pub files: Vec<FileEntry>,
    /// Files found in all.
    pub total_files: usize,
    /// `files` holds fewer than `total_files`.
    pub truncated: bool,
    /// The size of `.sdd/issues.md` (kotef's backlog for a human) when there is one: offered
    /// to the agent as the backlog it is, never listed among the project's files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backlog_bytes: Option<u64>,
}

/// Paths that builds and test runs create; their churn is not progress, and they are not
/// listed in prompts.
pub fn is_build_artifact(path: &str) -> bool {
    path.split('/').any(|c| {
        matches!(
            c,
            "__pycache__"
                | ".pytest_cache"
                | "target"
                | "node_modules"
                | ".mypy_cache"
                | ".ruff_cache"
                | ".venv"
        )
    }) || path.ends_with(".pyc")
}

/// kotef's backlog: the snitch's notes for a human, offered to the agent only as that.
pub const BACKLOG: &str = ".sdd/issues.md";

/// kotef's own records (`.sdd/runs/`: earlier runs' reports and transcripts; the backlog
/// [`BACKLOG`]): not the project, so never listed, searched or shown to the agent as part of
/// it.
pub fn is_kotef_record(path: &str) -> bool {
    path.starts_with(".sdd/runs/") || path == BACKLOG
}

/// Files and symlinks under `root` through [`Tree::walk`] (sorted, `.git` skipped, ignore
/// files honoured, links not followed, special files left out), skipping top-level folders
/// named in `skip_top` and kotef's own run records; with the tree they were walked in. Empty
/// when `root` cannot be opened.
pub(crate) fn walk_files(root: &Path, skip_top: &[&str]) -> (Option<Tree>, Vec<Walked>) {
    match Tree::open(root) {
        Ok(t) => {
            let mut w = t.walk(skip_top);
            w.retain(|e| !is_kotef_record(&e.rel));
            (Some(t), w)
        }
        Err(_) => (None, Vec::new()),
    }
}

/// Runs `f` with a fresh [`SNAPSHOT_BYTES`] budget lasting `time` on a blocking thread; `None`
/// when it does not finish within `time` (the budget's own deadline stops it at its next chunk,
/// and the caller cancels it too, so a pass never outlives its time, however busy either side).
async fn off_runtime<T: Send + 'static>(
    time: Duration,
    f: impl FnOnce(&HashBudget) -> Option<T> + Send + 'static,
) -> Option<T> {
    let cancel = Arc::new(AtomicBool::new(false));
    let budget = HashBudget::with_cancel(SNAPSHOT_BYTES, cancel.clone()).lasting(time);
    let task = tokio::task::spawn_blocking(move || f(&budget));
    match tokio::time::timeout(time, task).await {
        Ok(Ok(v)) => v,
        _ => {
            cancel.store(true, Ordering::Relaxed);
            None
        }
    }
}

/// [`snapshot`] off the async runtime, `None` when it takes longer than `time`.
pub async fn snapshot_within(
    root: &Path,
    max_files: usize,
    time: Duration,
) -> Option<RepoSnapshot> {
    let root: PathBuf = root.to_path_buf();
    off_runtime(time, move |b| snapshot_with(&root, max_files, b)).await
}

/// [`content_hashes`] off the async runtime, `None` when it takes longer than `time`.
pub async fn content_hashes_within(
    root: &Path,
    time: Duration,
) -> Option<BTreeMap<String, String>> {
    let root: PathBuf = root.to_path_buf();
    off_runtime(time, move |b| content_hashes_with(&root, b)).await
}

/// A sorted listing of at most `max_files` files with short hashes; gitignore-aware, skips `.git`.
pub fn snapshot(root: &Path, max_files: usize) -> RepoSnapshot {
    let budget = HashBudget::new(SNAPSHOT_BYTES);
    snapshot_with(root, max_files, &budget).unwrap_or(RepoSnapshot {
        files: Vec::new(),
        total_files: 0,
        truncated: true,
        backlog_bytes: None,
    })
}

/// [`snapshot`] within `budget`; `None` when it was cancelled.
fn snapshot_with(root: &Path, max_files: usize, budget: &HashBudget) -> Option<RepoSnapshot> {
    // Build output (`target/`, `node_modules/`, `__pycache__/`) is not the repository, and
    // listing it would crowd the files that are out of a small model's prompt.
    let (tree, all) = walk_files(root, &[]);
    let all: Vec<Walked> = all
        .into_iter()
        .filter(|w| !is_build_artifact(&w.rel))
        .collect();
    let total_files = all.len();
    let files = match &tree {
        Some(tree) => all
            .iter()
            .take(max_files)
            .filter_map(|w| {
                let (hash, size) = tree.hash(w, budget)?;
                Some(FileEntry {
                    path: w.rel.clone(),
                    short_hash: hash[..12].to_string(),
                    size,
                })
            })
            .collect::<Vec<_>>(),
        None => Vec::new(),
    };
    if budget.cancelled() {
        return None;
    }
    let backlog_bytes = tree.as_ref().and_then(|t| match t.kind(BACKLOG) {
        Ok(crate::Kind::File { size, .. }) => Some(size),
        _ => None,
    });
    Some(RepoSnapshot {
        truncated: files.len() < total_files,
        files,
        total_files,
        backlog_bytes,
    })
}

/// path → full sha256 hex of content, every file except under `.git/` and `.sdd/`, honouring
/// `.gitignore` (used by the graph to detect file-change progress).
pub fn content_hashes(root: &Path) -> BTreeMap<String, String> {
    content_hashes_with(root, &HashBudget::new(SNAPSHOT_BYTES)).unwrap_or_default()
}

/// [`content_hashes`] within `budget`; `None` when it was cancelled.
fn content_hashes_with(root: &Path, budget: &HashBudget) -> Option<BTreeMap<String, String>> {
    let (tree, all) = walk_files(root, &[".sdd"]);
    let Some(tree) = tree else {
        return Some(BTreeMap::new());
    };
    let hashes = all
        .into_iter()
        .filter_map(|w| Some((w.rel.clone(), tree.hash(&w, budget)?.0)))
        .collect();
    (!budget.cancelled()).then_some(hashes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn write(root: &Path, p: &str, c: &str) {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, c).unwrap();
    }

    #[test]
    fn hashes_skip_git_sdd_and_ignored() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        write(r, "src/a.rs", "fn a() {}");
        write(r, ".gitignore", "target/\n*.log\n");
        write(r, "target/debug/x", "bin");
        write(r, "run.log", "log");
        write(r, ".git/config", "[core]");
        write(r, ".sdd/runs/1.md", "report");
        write(r, "docs/.sdd/keep.md", "nested .sdd is kept");
        let h = content_hashes(r);
        let keys: Vec<&str> = h.keys().map(|s| s.as_str()).collect();
        assert_eq!(keys, vec![".gitignore", "docs/.sdd/keep.md", "src/a.rs"]);
        assert_eq!(h["src/a.rs"], hex::encode(Sha256::digest(b"fn a() {}")));
        let before = h.clone();
        write(r, "src/a.rs", "fn a() { 1 }");
        write(r, "run.log", "changed but ignored");
        let after = content_hashes(r);
        assert_ne!(before["src/a.rs"], after["src/a.rs"]);
        assert_eq!(before.len(), after.len());
    }

    #[test]
    fn run_records_and_the_backlog_are_not_in_the_listing_but_the_backlog_is_offered() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(r, "calc.py", "def add(a, b): return a + b\n");
        write(r, ".sdd/runs/20261126-x.transcript.jsonl", "def add\n");
        write(r, ".sdd/runs/20261126-x.md", "# run\n");
        write(r, ".sdd/issues.md", "# backlog\n");
        let s = snapshot(r, 100);
        let paths: Vec<String> = s.files.into_iter().map(|f| f.path).collect();
        assert_eq!(
            (paths, s.backlog_bytes),
            (vec!["calc.py".to_string()], Some(10))
        );
    }

    #[test]
    fn snapshot_is_sorted_and_capped() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        for i in 0..5 {
            write(r, &format!("f{i}.txt"), &"x".repeat(i));
        }
        write(r, ".git/HEAD", "ref");
        std::os::unix::fs::symlink("/etc", r.join("link")).unwrap();
        let s = snapshot(r, 3);
        assert_eq!(s.total_files, 6);
        assert!(s.truncated);
        let paths: Vec<&str> = s.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["f0.txt", "f1.txt", "f2.txt"]);
        assert_eq!(s.files[2].size, 2);
        assert_eq!(s.files[0].short_hash.len(), 12);
        let full = snapshot(r, 100);
        assert!(!full.truncated);
        assert!(full.files.iter().any(|f| f.path == "link"));
    }

    #[tokio::test]
    async fn snapshots_run_off_the_runtime_and_stop_at_their_deadline() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        write(r, "a.txt", "a");
        let within = content_hashes_within(r, Duration::from_secs(30)).await;
        assert_eq!(within.unwrap(), content_hashes(r));
        let listed = snapshot_within(r, 10, Duration::from_secs(30)).await;
        assert_eq!(listed.unwrap(), snapshot(r, 10));
        std::fs::write(r.join("big"), vec![1u8; 8 << 20]).unwrap();
        assert_eq!(content_hashes_within(r, Duration::ZERO).await, None);
    }
}
