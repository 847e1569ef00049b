//! Repository snapshots: a gitignore-aware listing with short content hashes (shown to the model
//! as context), and full content hashes of every file (compared by the graph to see whether
//! files changed). Both skip `.git/`, never follow symlinks and are bounded.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Entries visited in one walk at most (a runaway tree cannot stall a run).
pub const MAX_WALK_ENTRIES: usize = 200_000;

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
}

/// A gitignore-aware walker from `root` (the walk's root decides which ignore files apply):
/// hidden files included, `.git` skipped, links not followed, global git config not consulted.
pub(crate) fn walker(root: &Path) -> ignore::WalkBuilder {
    let mut b = ignore::WalkBuilder::new(root);
    b.hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .ignore(true)
        .parents(false)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|e| e.file_name() != ".git");
    b
}

/// Files (and symlinks) under `root`, as (relative path, absolute path, is_symlink), sorted,
/// skipping top-level folders named in `skip_top`; at most `MAX_WALK_ENTRIES` visited.
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

pub(crate) fn walk_files(root: &Path, skip_top: &[&str]) -> Vec<(String, PathBuf, bool)> {
    let mut b = walker(root);
    let skip: Vec<String> = skip_top.iter().map(|s| s.to_string()).collect();
    b.filter_entry(move |e| {
        e.file_name() != ".git"
            && !(e.depth() == 1 && skip.iter().any(|s| e.file_name() == s.as_str()))
    });
    let mut out = Vec::new();
    for entry in b.build().take(MAX_WALK_ENTRIES).flatten() {
        let Some(ft) = entry.file_type() else {
            continue;
        };
        if ft.is_dir() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel.is_empty() {
            continue;
        }
        out.push((rel, entry.path().to_path_buf(), ft.is_symlink()));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// sha256 hex of a file's content (a symlink: of its target text), and its size.
pub(crate) fn hash_file(path: &Path, is_symlink: bool) -> Option<(String, u64)> {
    let mut h = Sha256::new();
    if is_symlink {
        let target = std::fs::read_link(path).ok()?;
        let t = target.to_string_lossy();
        h.update(b"symlink:");
        h.update(t.as_bytes());
        return Some((hex::encode(h.finalize()), t.len() as u64));
    }
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                size += n as u64;
                h.update(&buf[..n]);
            }
            Err(_) => return None,
        }
    }
    Some((hex::encode(h.finalize()), size))
}

/// A sorted listing of at most `max_files` files with short hashes; gitignore-aware, skips `.git`.
pub fn snapshot(root: &Path, max_files: usize) -> RepoSnapshot {
    // Build output (`target/`, `node_modules/`, `__pycache__/`) is not the repository, and
    // listing it would crowd the files that are out of a small model's prompt.
    let all: Vec<_> = walk_files(root, &[])
        .into_iter()
        .filter(|(rel, _, _)| !is_build_artifact(rel))
        .collect();
    let total_files = all.len();
    let files = all
        .into_iter()
        .take(max_files)
        .filter_map(|(rel, abs, link)| {
            let (hash, size) = hash_file(&abs, link)?;
            Some(FileEntry {
                path: rel,
                short_hash: hash[..12].to_string(),
                size,
            })
        })
        .collect::<Vec<_>>();
    RepoSnapshot {
        truncated: files.len() < total_files,
        files,
        total_files,
    }
}

/// path → full sha256 hex of content, every file except under `.git/` and `.sdd/`, honouring
/// `.gitignore` (used by the graph to detect file-change progress).
pub fn content_hashes(root: &Path) -> BTreeMap<String, String> {
    walk_files(root, &[".sdd"])
        .into_iter()
        .filter_map(|(rel, abs, link)| Some((rel, hash_file(&abs, link)?.0)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
