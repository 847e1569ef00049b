//! What a work tree holds on disk, for the disk quota: the blocks allocated to everything
//! under the root (`st_blocks`, counted once per inode), read by directory handle without
//! following a link or opening anything but directories. Timestamps play no part, so a file
//! whose mtime was set back (`touch -d 2001-01-01`) counts like any other, a sparse file
//! counts what it really occupies, and a hard link is not counted twice.

use super::*;
use std::collections::HashSet;

/// The allocated bytes under a root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Bytes allocated (`st_blocks` × 512) to the entries seen.
    pub bytes: u64,
    /// Entries seen.
    pub entries: usize,
    /// Every entry was seen (the entry cap and the depth cap were not reached).
    pub complete: bool,
}

impl Tree {
    /// The bytes allocated under the root (the root's own directory included): every entry,
    /// `.git` and ignored files too, links not followed, each inode counted once, at most
    /// `max_entries` entries and [`MAX_DEPTH`] levels (past either, `complete` is false).
    pub fn allocated(&self, max_entries: usize) -> Usage {
        let mut u = Usage {
            complete: true,
            ..Usage::default()
        };
        let Ok(root) = self.dup_root() else {
            u.complete = false;
            return u;
        };
        if let Ok(st) = rustix::fs::fstat(&root) {
            u.bytes = blocks_of(&st);
        }
        let mut linked = HashSet::new();
        let mut stack: Vec<(OwnedFd, usize)> = vec![(root, 0)];
        while let Some((dir, depth)) = stack.pop() {
            let Ok(reader) = rustix::fs::Dir::read_from(dir.as_fd()) else {
                continue;
            };
            for entry in reader {
                let Ok(entry) = entry else {
                    break;
                };
                let name = entry.file_name();
                if matches!(name.to_bytes(), b"." | b"..") {
                    continue;
                }
                u.entries += 1;
                if u.entries > max_entries {
                    u.complete = false;
                    return u;
                }
                let Ok(st) = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) else {
                    continue;
                };
                // A hard-linked inode is counted at its first name only.
                if st.st_nlink > 1 && !linked.insert((st.st_dev, st.st_ino)) {
                    continue;
                }
                u.bytes = u.bytes.saturating_add(blocks_of(&st));
                if kind_of(&st) != FileType::Directory {
                    continue;
                }
                if depth + 1 > MAX_DEPTH {
                    u.complete = false;
                    continue;
                }
                if let Ok(sub) = rustix::fs::openat(&dir, name, DIR_FLAGS, Mode::empty()) {
                    stack.push((sub, depth + 1));
                }
            }
        }
        u
    }
}

fn blocks_of(st: &rustix::fs::Stat) -> u64 {
    (st.st_blocks as u64).saturating_mul(512)
}

/// Files for the disk-quota tests.
#[cfg(test)]
pub(crate) mod test_files {
    use std::path::Path;

    pub(crate) const MIB: u64 = 1 << 20;

    /// A file of `bytes` allocated without writing: fast, and what `fallocate` in an attack
    /// does.
    pub(crate) fn filled(path: &Path, bytes: u64) {
        let f = std::fs::File::create(path).unwrap();
        rustix::fs::fallocate(&f, rustix::fs::FallocateFlags::empty(), 0, bytes).unwrap();
    }

    /// Sets `path`'s mtime back to 2001-01-01.
    pub(crate) fn set_old_mtime(path: &Path) {
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(978_307_200);
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
}

#[cfg(test)]
mod tests {
    use super::test_files::{filled, set_old_mtime, MIB};
    use super::*;

    #[test]
    fn old_mtimes_do_not_hide_allocated_bytes() {
        let t = tempfile::tempdir().unwrap();
        let tree = Tree::open(t.path()).unwrap();
        let before = tree.allocated(1000);
        std::fs::create_dir(t.path().join("d")).unwrap();
        filled(&t.path().join("d/old"), 3 * MIB);
        set_old_mtime(&t.path().join("d/old"));
        let after = tree.allocated(1000);
        assert!(after.complete);
        assert!(
            after.bytes - before.bytes >= 3 * MIB,
            "{before:?} {after:?}"
        );
    }

    #[test]
    fn sparse_files_and_hard_links_count_what_they_occupy() {
        let t = tempfile::tempdir().unwrap();
        let tree = Tree::open(t.path()).unwrap();
        let before = tree.allocated(1000).bytes;
        std::fs::File::create(t.path().join("sparse"))
            .unwrap()
            .set_len(64 * MIB)
            .unwrap();
        filled(&t.path().join("real"), 2 * MIB);
        std::fs::hard_link(t.path().join("real"), t.path().join("again")).unwrap();
        std::os::unix::fs::symlink("/", t.path().join("root")).unwrap();
        let grown = tree.allocated(1000).bytes - before;
        assert!((2 * MIB..3 * MIB).contains(&grown), "{grown}");
    }

    #[test]
    fn the_entry_cap_marks_the_count_incomplete() {
        let t = tempfile::tempdir().unwrap();
        for i in 0..5 {
            std::fs::write(t.path().join(format!("f{i}")), "x").unwrap();
        }
        let tree = Tree::open(t.path()).unwrap();
        assert!(tree.allocated(5).complete);
        assert!(!tree.allocated(4).complete);
    }
}
