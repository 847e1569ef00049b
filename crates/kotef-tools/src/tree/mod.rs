//! `Tree`: the one way kotef itself touches a work tree from the host. After a sandboxed command
//! the tree is hostile (a test may have swapped any file for a symlink, a FIFO or a link to
//! `/dev/zero`), so every host-side read, write, hash, listing, undo, report and issues entry
//! goes through here:
//!
//! - paths are opened relative to a directory handle held for the root, one component at a
//!   time with `O_NOFOLLOW`: **no symlink is ever followed**, in any component (`..` and
//!   absolute paths are refused before anything is opened);
//! - only regular files are opened for reading (`O_NONBLOCK`, then `fstat`: a FIFO, socket or
//!   device is refused without blocking);
//! - every read has a byte cap, enforced while reading, never after;
//! - writes never go through a link: kotef's own files (reports, undo) replace a symlink or
//!   special file in their way with a real one, and nothing outside the root is touched;
//! - the walk (snapshots, hashes, `list_files`, `search`) reads directories by handle, skips
//!   `.git`, honours `.gitignore`/`.ignore`/`.git/info/exclude` read through the same capped,
//!   no-follow reads, and visits a bounded number of entries.
//!
//! The agent's file tools resolve the model's path with [`crate::WorkDir::resolve`] (which may
//! follow a symlink that stays inside) and then open the resolved path here too.
//! `scripts/host-fs.py` (run by CI) fails when production code outside this module and an
//! allow-list opens files with `std::fs`.

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

mod hash;
mod usage;
mod walk;
pub use hash::{HashBudget, HASH_CAP};
#[cfg(test)]
pub(crate) use usage::test_files;
pub use usage::Usage;

/// Entries visited in one walk at most (a runaway tree cannot stall a run).
pub const MAX_WALK_ENTRIES: usize = 200_000;
/// Bytes of one ignore file read at most.
const IGNORE_FILE_CAP: u64 = 1024 * 1024;
/// Directory depth a walk descends at most.
const MAX_DEPTH: usize = 64;

/// What is at a path, looked at without following anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    File {
        size: u64,
    },
    Dir,
    /// A symbolic link and its target text (never followed).
    Symlink {
        target: String,
    },
    /// A FIFO, socket or device.
    Special(&'static str),
    Missing,
}

/// Why a host-side operation on the tree was refused or failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    #[error("`{0}` is not a path inside the workspace")]
    Outside(String),
    #[error("`{0}` does not exist")]
    NotFound(String),
    #[error("`{path}` is a symbolic link to `{target}`; kotef does not follow links")]
    Symlink { path: String, target: String },
    #[error("`{path}` is a {kind}, not a regular file")]
    NotRegular { path: String, kind: &'static str },
    #[error("`{0}` is a directory")]
    IsADirectory(String),
    #[error("{op} `{path}` failed: {message}")]
    Io {
        op: &'static str,
        path: String,
        message: String,
    },
}

impl TreeError {
    fn io(op: &'static str, path: &str, e: impl std::fmt::Display) -> Self {
        TreeError::Io {
            op,
            path: path.to_string(),
            message: e.to_string(),
        }
    }
}

/// The bytes of a capped read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capped {
    pub bytes: Vec<u8>,
    /// The file's size on disk.
    pub size: u64,
    /// `size` is larger than what was read.
    pub truncated: bool,
}

/// One entry of a walk: a regular file or a symlink (never a directory or special file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walked {
    /// Relative, `/`-separated.
    pub rel: String,
    /// `Some(target)` for a symlink.
    pub link: Option<String>,
    pub size: u64,
}

/// What a write does about a symlink or special file where it wants to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Refuse (the agent's tools: their path was resolved just before).
    Refuse,
    /// Remove the link or special file and write a real one (kotef's own files: reports, the
    /// issues entry, an undo).
    Replace,
}

/// A work tree opened by handle.
#[derive(Debug, Clone)]
pub struct Tree {
    root: Arc<OwnedFd>,
    path: PathBuf,
}

fn kind_of(stat: &rustix::fs::Stat) -> FileType {
    FileType::from_raw_mode(stat.st_mode)
}

fn special_name(t: FileType) -> &'static str {
    match t {
        FileType::Fifo => "FIFO",
        FileType::Socket => "socket",
        FileType::CharacterDevice => "character device",
        FileType::BlockDevice => "block device",
        _ => "special file",
    }
}

/// Splits a relative path into its normal components; `..`, absolute paths and NUL bytes are
/// refused. The empty path and `.` are the root (no components).
fn components(rel: &str) -> Result<Vec<&std::ffi::OsStr>, TreeError> {
    if rel.contains('\0') {
        return Err(TreeError::Outside(rel.escape_debug().to_string()));
    }
    let mut out = Vec::new();
    for c in Path::new(rel).components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            _ => return Err(TreeError::Outside(rel.to_string())),
        }
    }
    Ok(out)
}

fn join_shown(parts: &[&std::ffi::OsStr]) -> String {
    parts
        .iter()
        .map(|p| p.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

impl Tree {
    /// Opens `root` (a directory kotef created or was given; the root path itself is trusted).
    pub fn open(root: &Path) -> std::io::Result<Tree> {
        let fd = rustix::fs::open(
            root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Tree {
            root: Arc::new(fd),
            path: root.to_path_buf(),
        })
    }

    /// The root's path (for messages and for running commands in it).
    pub fn root(&self) -> &Path {
        &self.path
    }

    fn dup_root(&self) -> Result<OwnedFd, TreeError> {
        rustix::fs::openat(&*self.root, ".", DIR_FLAGS, Mode::empty())
            .map_err(|e| TreeError::io("opening", ".", e))
    }

    /// Opens the directory holding the last component of `parts`, following no link; with
    /// `create`, missing directories are made, and (under [`Links::Replace`]) a link or file
    /// in the way is replaced by a directory.
    fn parent_dir(
        &self,
        parts: &[&std::ffi::OsStr],
        rel: &str,
        create: Option<Links>,
    ) -> Result<OwnedFd, TreeError> {
        let mut dir = self.dup_root()?;
        let n = parts.len().saturating_sub(1);
        for (i, part) in parts[..n].iter().enumerate() {
            let shown = join_shown(&parts[..=i]);
            match rustix::fs::openat(&dir, *part, DIR_FLAGS, Mode::empty()) {
                Ok(next) => dir = next,
                Err(e) => {
                    let stat = rustix::fs::statat(&dir, *part, AtFlags::SYMLINK_NOFOLLOW);
                    match (stat, create) {
                        (Err(_), Some(_)) => {
                            rustix::fs::mkdirat(&dir, *part, Mode::from_raw_mode(0o755))
                                .map_err(|e| TreeError::io("creating", &shown, e))?;
                        }
                        (Ok(_), Some(Links::Replace)) => {
                            rustix::fs::unlinkat(&dir, *part, AtFlags::empty())
                                .map_err(|e| TreeError::io("replacing", &shown, e))?;
                            rustix::fs::mkdirat(&dir, *part, Mode::from_raw_mode(0o755))
                                .map_err(|e| TreeError::io("creating", &shown, e))?;
                        }
                        (Ok(st), _) if kind_of(&st) == FileType::Symlink => {
                            return Err(TreeError::Symlink {
                                target: self.link_target(&dir, part),
                                path: shown,
                            })
                        }
                        (Ok(_), _) => return Err(TreeError::io("opening", &shown, e)),
                        (Err(_), None) => return Err(TreeError::NotFound(rel.to_string())),
                    }
                    dir = rustix::fs::openat(&dir, *part, DIR_FLAGS, Mode::empty())
                        .map_err(|e| TreeError::io("opening", &shown, e))?;
                }
            }
        }
        Ok(dir)
    }

    fn link_target(&self, dir: &OwnedFd, name: &std::ffi::OsStr) -> String {
        rustix::fs::readlinkat(dir, name, Vec::new())
            .map(|t| t.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// What is at `rel`, following nothing.
    pub fn kind(&self, rel: &str) -> Result<Kind, TreeError> {
        let parts = components(rel)?;
        let Some(last) = parts.last() else {
            return Ok(Kind::Dir);
        };
        let dir = match self.parent_dir(&parts, rel, None) {
            Ok(d) => d,
            Err(TreeError::NotFound(_)) => return Ok(Kind::Missing),
            Err(e) => return Err(e),
        };
        Ok(
            match rustix::fs::statat(&dir, *last, AtFlags::SYMLINK_NOFOLLOW) {
                Err(_) => Kind::Missing,
                Ok(st) => match kind_of(&st) {
                    FileType::RegularFile => Kind::File {
                        size: st.st_size as u64,
                    },
                    FileType::Directory => Kind::Dir,
                    FileType::Symlink => Kind::Symlink {
                        target: self.link_target(&dir, last),
                    },
                    other => Kind::Special(special_name(other)),
                },
            },
        )
    }

    /// Whether `rel` is a regular file (not a link) with an execute bit.
    pub fn is_executable(&self, rel: &str) -> bool {
        let Ok(parts) = components(rel) else {
            return false;
        };
        let Some(last) = parts.last() else {
            return false;
        };
        let Ok(dir) = self.parent_dir(&parts, rel, None) else {
            return false;
        };
        rustix::fs::statat(&dir, *last, AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|st| kind_of(&st) == FileType::RegularFile && st.st_mode & 0o111 != 0)
    }

    /// Opens the regular file at `rel` for reading; anything else is refused without blocking.
    fn open_file(&self, rel: &str) -> Result<(std::fs::File, u64), TreeError> {
        let (f, st) = self.open_regular(rel)?;
        Ok((f, st.st_size as u64))
    }

    /// As [`Self::open_file`], with what `fstat` says of the opened file.
    fn open_regular(&self, rel: &str) -> Result<(std::fs::File, rustix::fs::Stat), TreeError> {
        let parts = components(rel)?;
        let Some(last) = parts.last() else {
            return Err(TreeError::IsADirectory(".".into()));
        };
        let dir = self.parent_dir(&parts, rel, None)?;
        let st = rustix::fs::statat(&dir, *last, AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|_| TreeError::NotFound(rel.to_string()))?;
        match kind_of(&st) {
            FileType::RegularFile => {}
            FileType::Directory => return Err(TreeError::IsADirectory(rel.to_string())),
            FileType::Symlink => {
                return Err(TreeError::Symlink {
                    path: rel.to_string(),
                    target: self.link_target(&dir, last),
                })
            }
            other => {
                return Err(TreeError::NotRegular {
                    path: rel.to_string(),
                    kind: special_name(other),
                })
            }
        }
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&dir, *last, flags, Mode::empty())
            .map_err(|e| TreeError::io("opening", rel, e))?;
        // The entry may have been swapped between the look and the open: check what was opened.
        let st = rustix::fs::fstat(&fd).map_err(|e| TreeError::io("opening", rel, e))?;
        if kind_of(&st) != FileType::RegularFile {
            return Err(TreeError::NotRegular {
                path: rel.to_string(),
                kind: special_name(kind_of(&st)),
            });
        }
        Ok((std::fs::File::from(fd), st))
    }

    /// At most `cap` bytes of the regular file at `rel`.
    pub fn read(&self, rel: &str, cap: u64) -> Result<Capped, TreeError> {
        let (f, size) = self.open_file(rel)?;
        let mut bytes = Vec::with_capacity(size.min(cap).min(1 << 20) as usize);
        f.take(cap)
            .read_to_end(&mut bytes)
            .map_err(|e| TreeError::io("reading", rel, e))?;
        let truncated = size > bytes.len() as u64;
        Ok(Capped {
            bytes,
            size,
            truncated,
        })
    }

    /// The text of the regular file at `rel` (lossy UTF-8), at most `cap` bytes of it.
    pub fn read_text(&self, rel: &str, cap: u64) -> Result<String, TreeError> {
        let c = self.read(rel, cap)?;
        Ok(match String::from_utf8(c.bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// Writes `bytes` to `rel`, creating parent directories. See [`Links`] for what happens to
    /// a symlink or special file in the way.
    pub fn write(&self, rel: &str, bytes: &[u8], links: Links) -> Result<(), TreeError> {
        self.put(rel, bytes, links, false)
    }

    /// Appends `bytes` to `rel` (created when missing).
    pub fn append(&self, rel: &str, bytes: &[u8], links: Links) -> Result<(), TreeError> {
        self.put(rel, bytes, links, true)
    }

    fn put(&self, rel: &str, bytes: &[u8], links: Links, append: bool) -> Result<(), TreeError> {
        let parts = components(rel)?;
        let Some(last) = parts.last() else {
            return Err(TreeError::IsADirectory(".".into()));
        };
        let dir = self.parent_dir(&parts, rel, Some(links))?;
        if let Ok(st) = rustix::fs::statat(&dir, *last, AtFlags::SYMLINK_NOFOLLOW) {
            match (kind_of(&st), links) {
                (FileType::RegularFile, _) => {}
                (FileType::Directory, _) => return Err(TreeError::IsADirectory(rel.into())),
                (FileType::Symlink, Links::Refuse) => {
                    return Err(TreeError::Symlink {
                        path: rel.into(),
                        target: self.link_target(&dir, last),
                    })
                }
                (other, Links::Refuse) => {
                    return Err(TreeError::NotRegular {
                        path: rel.into(),
                        kind: special_name(other),
                    })
                }
                (_, Links::Replace) => rustix::fs::unlinkat(&dir, *last, AtFlags::empty())
                    .map_err(|e| TreeError::io("replacing", rel, e))?,
            }
        }
        let mut flags = OFlags::WRONLY
            | OFlags::CREATE
            | OFlags::NOFOLLOW
            | OFlags::NONBLOCK
            | OFlags::NOCTTY
            | OFlags::CLOEXEC;
        flags |= if append {
            OFlags::APPEND
        } else {
            OFlags::TRUNC
        };
        let fd = rustix::fs::openat(&dir, *last, flags, Mode::from_raw_mode(0o644))
            .map_err(|e| TreeError::io("writing", rel, e))?;
        let st = rustix::fs::fstat(&fd).map_err(|e| TreeError::io("writing", rel, e))?;
        if kind_of(&st) != FileType::RegularFile {
            return Err(TreeError::NotRegular {
                path: rel.into(),
                kind: special_name(kind_of(&st)),
            });
        }
        let mut f = std::fs::File::from(fd);
        f.write_all(bytes)
            .map_err(|e| TreeError::io("writing", rel, e))
    }

    /// Removes the empty directory at `rel` (a link there is not followed, and not removed); a
    /// missing one is not an error.
    pub fn remove_empty_dir(&self, rel: &str) -> Result<(), TreeError> {
        self.remove(rel, true)
    }

    /// Removes the file or link at `rel` (never what a link points to); a missing entry is not
    /// an error, a directory is.
    pub fn remove_file(&self, rel: &str) -> Result<(), TreeError> {
        self.remove(rel, false)
    }

    /// Removes the entry at `rel`, never following a link: an empty directory when `dir`,
    /// else a file or link; a missing entry is not an error, one of the other kind is.
    fn remove(&self, rel: &str, dir_wanted: bool) -> Result<(), TreeError> {
        let parts = components(rel)?;
        let Some(last) = parts.last() else {
            return Err(TreeError::IsADirectory(".".into()));
        };
        let dir = match self.parent_dir(&parts, rel, None) {
            Ok(d) => d,
            Err(TreeError::NotFound(_)) => return Ok(()),
            Err(e) => return Err(e),
        };
        let st = match rustix::fs::statat(&dir, *last, AtFlags::SYMLINK_NOFOLLOW) {
            Err(_) => return Ok(()),
            Ok(st) => st,
        };
        match (kind_of(&st) == FileType::Directory, dir_wanted) {
            (true, true) => rustix::fs::unlinkat(&dir, *last, AtFlags::REMOVEDIR)
                .map_err(|e| TreeError::io("removing", rel, e)),
            (false, false) => rustix::fs::unlinkat(&dir, *last, AtFlags::empty())
                .map_err(|e| TreeError::io("removing", rel, e)),
            (true, false) => Err(TreeError::IsADirectory(rel.into())),
            (false, true) => Err(TreeError::io("removing", rel, "not a directory")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree() -> (tempfile::TempDir, Tree) {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("ws/src")).unwrap();
        std::fs::create_dir_all(t.path().join("outside")).unwrap();
        std::fs::write(t.path().join("ws/src/a.py"), "x = 1\n").unwrap();
        std::fs::write(t.path().join("outside/secret"), "s3cret").unwrap();
        let tree = Tree::open(&t.path().join("ws")).unwrap();
        (t, tree)
    }

    fn mkfifo(p: &Path) {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            p,
            FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
    }

    #[test]
    fn a_regular_file_reads_within_its_cap() {
        let (_t, tree) = tree();
        assert_eq!(tree.read_text("src/a.py", 100).unwrap(), "x = 1\n");
        let c = tree.read("src/a.py", 3).unwrap();
        assert_eq!(
            (c.bytes.as_slice(), c.size, c.truncated),
            (&b"x ="[..], 6, true)
        );
    }

    #[test]
    fn a_symlinked_file_is_reported_as_a_link_and_not_read() {
        let (t, tree) = tree();
        symlink(
            t.path().join("outside/secret"),
            t.path().join("ws/notes.txt"),
        )
        .unwrap();
        let e = tree.read_text("notes.txt", 100).unwrap_err();
        assert!(
            matches!(e, TreeError::Symlink { ref target, .. } if target.ends_with("outside/secret")),
            "{e}"
        );
    }

    #[test]
    fn a_symlinked_directory_is_never_entered() {
        let (t, tree) = tree();
        symlink(t.path().join("outside"), t.path().join("ws/out")).unwrap();
        assert!(matches!(
            tree.read("out/secret", 100),
            Err(TreeError::Symlink { .. })
        ));
    }

    #[test]
    fn dot_dot_and_absolute_paths_are_refused() {
        let (_t, tree) = tree();
        for p in ["../outside/secret", "/etc/passwd", "src/../../x"] {
            assert!(
                matches!(tree.read(p, 10), Err(TreeError::Outside(_))),
                "{p}"
            );
        }
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let (t, tree) = tree();
        mkfifo(&t.path().join("ws/pipe"));
        assert!(matches!(
            tree.read("pipe", 10),
            Err(TreeError::NotRegular { kind: "FIFO", .. })
        ));
    }

    #[test]
    fn a_link_to_dev_zero_is_not_read() {
        let (t, tree) = tree();
        symlink("/dev/zero", t.path().join("ws/zero")).unwrap();
        assert!(matches!(
            tree.read("zero", u64::MAX),
            Err(TreeError::Symlink { .. })
        ));
    }

    #[test]
    fn a_replacing_write_removes_the_link_and_leaves_its_target_alone() {
        let (t, tree) = tree();
        symlink(t.path().join("outside/secret"), t.path().join("ws/f")).unwrap();
        tree.write("f", b"mine", Links::Replace).unwrap();
        assert_eq!(
            std::fs::read_to_string(t.path().join("outside/secret")).unwrap(),
            "s3cret"
        );
        assert_eq!(tree.read_text("f", 10).unwrap(), "mine");
    }

    #[test]
    fn a_replacing_write_replaces_a_linked_parent_directory() {
        let (t, tree) = tree();
        std::fs::create_dir(t.path().join("ws/.sdd")).unwrap();
        symlink(t.path().join("outside"), t.path().join("ws/.sdd/runs")).unwrap();
        tree.write(".sdd/runs/r.md", b"report", Links::Replace)
            .unwrap();
        assert!(!t.path().join("outside/r.md").exists());
        assert!(t.path().join("ws/.sdd/runs").is_dir());
    }

    #[test]
    fn a_refusing_write_does_not_go_through_a_link() {
        let (t, tree) = tree();
        symlink(t.path().join("outside/secret"), t.path().join("ws/f")).unwrap();
        assert!(matches!(
            tree.write("f", b"x", Links::Refuse),
            Err(TreeError::Symlink { .. })
        ));
        assert_eq!(
            std::fs::read_to_string(t.path().join("outside/secret")).unwrap(),
            "s3cret"
        );
    }

    #[test]
    fn a_write_to_a_fifo_does_not_block() {
        let (t, tree) = tree();
        mkfifo(&t.path().join("ws/pipe"));
        assert!(tree.write("pipe", b"x", Links::Refuse).is_err());
        tree.write("pipe", b"x", Links::Replace).unwrap();
        assert_eq!(tree.read_text("pipe", 10).unwrap(), "x");
    }

    #[test]
    fn appending_adds_to_the_end() {
        let (_t, tree) = tree();
        tree.append("log.md", b"a", Links::Replace).unwrap();
        tree.append("log.md", b"b", Links::Replace).unwrap();
        assert_eq!(tree.read_text("log.md", 10).unwrap(), "ab");
    }

    #[test]
    fn removing_a_link_removes_only_the_link() {
        let (t, tree) = tree();
        symlink(t.path().join("outside/secret"), t.path().join("ws/f")).unwrap();
        tree.remove_file("f").unwrap();
        assert!(t.path().join("outside/secret").exists());
        assert_eq!(tree.kind("f").unwrap(), Kind::Missing);
    }

    #[test]
    fn an_empty_folder_is_removed_and_a_link_in_its_place_is_left_alone() {
        let (t, tree) = tree();
        std::fs::create_dir(t.path().join("ws/d")).unwrap();
        tree.remove_empty_dir("d").unwrap();
        assert_eq!(tree.kind("d").unwrap(), Kind::Missing);
        std::fs::create_dir(t.path().join("outside/empty")).unwrap();
        symlink(t.path().join("outside/empty"), t.path().join("ws/d")).unwrap();
        assert!(tree.remove_empty_dir("d").is_err());
        assert!(t.path().join("outside/empty").is_dir());
    }

    #[test]
    fn the_walk_lists_links_as_links_and_skips_special_files_and_git() {
        let (t, tree) = tree();
        symlink("/dev/zero", t.path().join("ws/zero")).unwrap();
        symlink(t.path().join("outside"), t.path().join("ws/out")).unwrap();
        mkfifo(&t.path().join("ws/pipe"));
        std::fs::create_dir(t.path().join("ws/.git")).unwrap();
        std::fs::write(t.path().join("ws/.git/config"), "").unwrap();
        let w = tree.walk(&[]);
        let names: Vec<(&str, Option<&str>)> = w
            .iter()
            .map(|e| (e.rel.as_str(), e.link.as_deref()))
            .collect();
        let out = t.path().join("outside").to_string_lossy().into_owned();
        assert_eq!(
            names,
            vec![
                ("out", Some(out.as_str())),
                ("src/a.py", None),
                ("zero", Some("/dev/zero"))
            ]
        );
    }

    #[test]
    fn the_walk_honours_gitignore_even_in_subfolders() {
        let (t, tree) = tree();
        std::fs::write(t.path().join("ws/.gitignore"), "*.log\nbuild/\n").unwrap();
        std::fs::write(t.path().join("ws/src/.gitignore"), "gen.py\n").unwrap();
        std::fs::write(t.path().join("ws/x.log"), "").unwrap();
        std::fs::write(t.path().join("ws/src/gen.py"), "").unwrap();
        std::fs::create_dir(t.path().join("ws/build")).unwrap();
        std::fs::write(t.path().join("ws/build/o"), "").unwrap();
        let w: Vec<String> = tree.walk(&[]).into_iter().map(|e| e.rel).collect();
        assert_eq!(w, vec![".gitignore", "src/.gitignore", "src/a.py"]);
    }

    #[test]
    fn an_ignore_file_that_is_a_fifo_or_a_link_is_not_read() {
        let (t, tree) = tree();
        mkfifo(&t.path().join("ws/.gitignore"));
        symlink("/dev/zero", t.path().join("ws/src/.gitignore")).unwrap();
        let w: Vec<String> = tree.walk(&[]).into_iter().map(|e| e.rel).collect();
        assert_eq!(w, vec!["src/.gitignore", "src/a.py"]);
    }

    #[test]
    fn a_hash_covers_a_capped_prefix_and_the_size() {
        let (_t, tree) = tree();
        let e = Walked {
            rel: "src/a.py".into(),
            link: None,
            size: 6,
        };
        let (h, size) = tree.hash(&e, &HashBudget::new(1 << 20)).unwrap();
        assert_eq!((h.len(), size), (64, 6));
    }
}
