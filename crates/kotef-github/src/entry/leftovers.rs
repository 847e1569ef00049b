//! Clones a crash left behind: a workspace is a `kotef-ws-*` temporary directory removed when
//! its job ends, so one still there when the server starts belongs to a process that died.
//! [`remove_leftover_clones`] removes them before any worker starts, without ever following a
//! symbolic link.

use std::path::Path;

/// How the names of workspace directories start.
pub const CLONE_PREFIX: &str = "kotef-ws-";

/// The most directory entries looked at in one sweep.
const MAX_ENTRIES: usize = 10_000;

/// Removes the `kotef-ws-*` directories directly inside `work_dir`. Only real directories are
/// removed: an entry is judged by its own metadata (`symlink_metadata`), so a symbolic link
/// named like a clone is left alone, and `remove_dir_all` does not follow the links inside a
/// tree it removes. Looks at no more than [`MAX_ENTRIES`] entries. Returns how many were removed.
pub fn remove_leftover_clones(work_dir: &Path) -> usize {
    let entries = match std::fs::read_dir(work_dir) {
        Ok(entries) => entries,
        Err(e) => {
            tracing::warn!(dir = %work_dir.display(), error = %e, "cannot list the work dir for leftover clones");
            return 0;
        }
    };
    let mut removed = 0;
    for entry in entries.take(MAX_ENTRIES).flatten() {
        let is_clone = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(CLONE_PREFIX));
        if !is_clone {
            continue;
        }
        let path = entry.path();
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_dir() => match std::fs::remove_dir_all(&path) {
                Ok(()) => removed += 1,
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "cannot remove a leftover clone")
                }
            },
            Ok(_) => {
                tracing::warn!(path = %path.display(), "not a directory; left alone")
            }
            Err(e) => tracing::warn!(path = %path.display(), error = %e, "cannot inspect"),
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leftover_clone_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("kotef-ws-abc/.git")).unwrap();
        assert_eq!(remove_leftover_clones(dir.path()), 1);
    }

    #[test]
    fn other_entries_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("keep")).unwrap();
        std::fs::write(dir.path().join("kotef-ws-file"), "x").unwrap();
        remove_leftover_clones(dir.path());
        assert!(dir.path().join("keep").is_dir() && dir.path().join("kotef-ws-file").is_file());
    }

    #[test]
    fn a_symlink_named_like_a_clone_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("precious"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("kotef-ws-evil")).unwrap();
        remove_leftover_clones(dir.path());
        assert!(outside.path().join("precious").is_file());
    }
}
