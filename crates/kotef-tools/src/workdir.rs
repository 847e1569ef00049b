//! `WorkDir`: the workspace root and the one function that turns a model-supplied relative path
//! into a real path inside it. Every file tool goes through [`WorkDir::resolve`]; nothing else in
//! the crate joins model input onto a path. The resolved path is then opened through
//! [`WorkDir::tree`], which follows no link, so a link swapped in after the check is refused.

use crate::{ToolError, Tree};
use std::path::{Component, Path, PathBuf};

/// Symlink hops followed while resolving one path before giving up (a loop or a very deep chain).
const MAX_COMPONENTS: usize = 256;

/// A workspace root, canonicalized once at construction.
#[derive(Debug, Clone)]
pub struct WorkDir {
    root: PathBuf,
    tree: Tree,
}

impl WorkDir {
    /// Canonicalizes `root` (it must exist and be a directory).
    pub fn new(root: &Path) -> std::io::Result<WorkDir> {
        let root = std::fs::canonicalize(root)?;
        if !root.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("{} is not a directory", root.display()),
            ));
        }
        let tree = Tree::open(&root)?;
        Ok(WorkDir { root, tree })
    }

    /// The root opened by handle: every read and write of a resolved path goes through it.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a model-supplied relative path inside the root. Refuses absolute paths, `..` that
    /// leaves the root (e.g. `a/../../x`), any symlink component that leads outside the root, and
    /// (when `for_write`) anything under `.git/`. Symlinks that stay inside are followed; the
    /// returned path contains no symlink in its existing part and no `..`.
    ///
    /// The empty string and `.` name the root itself.
    pub fn resolve(&self, rel: &str, for_write: bool) -> Result<PathBuf, ToolError> {
        if rel.contains('\0') {
            return Err(ToolError::InvalidPath(
                rel.escape_debug().to_string(),
                "contains a NUL byte".into(),
            ));
        }
        let p = Path::new(rel);
        if p.has_root() || rel.starts_with('/') {
            return Err(ToolError::AbsolutePath(rel.to_string()));
        }
        // 1. Lexical normalisation: `..` may never climb above the root.
        let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
        for c in p.components() {
            match c {
                Component::Normal(s) => parts.push(s),
                Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        return Err(ToolError::OutsideRoot(rel.to_string()));
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(ToolError::AbsolutePath(rel.to_string()))
                }
            }
        }
        if parts.len() > MAX_COMPONENTS {
            return Err(ToolError::InvalidPath(
                rel.to_string(),
                "too many components".into(),
            ));
        }
        if for_write && parts.iter().any(|s| is_git_dir_name(s)) {
            return Err(ToolError::GitDir(rel.to_string()));
        }
        // 2. Physical walk: every existing component is checked; symlinks must stay inside.
        let mut current = self.root.clone();
        let mut exists = true;
        for (i, part) in parts.iter().enumerate() {
            let next = current.join(part);
            if !exists {
                current = next;
                continue;
            }
            match std::fs::symlink_metadata(&next) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    let shown = display_parts(&parts[..=i]);
                    let target =
                        std::fs::canonicalize(&next).map_err(|_| ToolError::BrokenSymlink {
                            path: rel.to_string(),
                            link: shown.clone(),
                        })?;
                    if !target.starts_with(&self.root) {
                        return Err(ToolError::SymlinkEscape {
                            path: rel.to_string(),
                            link: shown,
                        });
                    }
                    current = target;
                }
                Ok(_) => current = next,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    exists = false;
                    current = next;
                }
                Err(e) => return Err(ToolError::io("resolving", rel, &e)),
            }
        }
        if for_write {
            if let Ok(inner) = current.strip_prefix(&self.root) {
                if inner.components().any(|c| is_git_dir_name(c.as_os_str())) {
                    return Err(ToolError::GitDir(rel.to_string()));
                }
            }
        }
        Ok(current)
    }

    /// The path of `abs` relative to the root, with `/` separators (`.` for the root itself);
    /// `None` when `abs` is not inside the root.
    pub fn relative(&self, abs: &Path) -> Option<String> {
        let inner = abs.strip_prefix(&self.root).ok()?;
        let s = inner.to_string_lossy().replace('\\', "/");
        Some(if s.is_empty() { ".".to_string() } else { s })
    }
}

fn is_git_dir_name(s: &std::ffi::OsStr) -> bool {
    s.to_str().is_some_and(|s| s.eq_ignore_ascii_case(".git"))
}

fn display_parts(parts: &[&std::ffi::OsStr]) -> String {
    parts
        .iter()
        .map(|p| p.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The canonical working directory of a command, or why it cannot be one.
pub(crate) fn resolve_cwd(cwd: &Path) -> Result<std::path::PathBuf, String> {
    match std::fs::canonicalize(cwd) {
        Ok(p) if p.is_dir() => Ok(p),
        Ok(p) => Err(format!(
            "working directory {} is not a directory",
            p.display()
        )),
        Err(e) => Err(format!("working directory {}: {e}", cwd.display())),
    }
}

/// A work directory in a fresh temporary directory holding `files` (path, text), for tests.
#[cfg(test)]
pub(crate) fn with_files(files: &[(&str, &str)]) -> (tempfile::TempDir, WorkDir) {
    let dir = tempfile::tempdir().unwrap();
    for (p, text) in files {
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let wd = WorkDir::new(dir.path()).unwrap();
    (dir, wd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, WorkDir) {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("root/a/b")).unwrap();
        std::fs::create_dir_all(t.path().join("outside")).unwrap();
        std::fs::create_dir_all(t.path().join("root/.git")).unwrap();
        let wd = WorkDir::new(&t.path().join("root")).unwrap();
        (t, wd)
    }

    #[test]
    fn plain_and_normalised_paths_resolve_inside() {
        let (_t, wd) = setup();
        assert_eq!(wd.resolve("a/b", false).unwrap(), wd.root().join("a/b"));
        assert_eq!(
            wd.resolve("a/../a/./b", false).unwrap(),
            wd.root().join("a/b")
        );
        assert_eq!(wd.resolve("", false).unwrap(), wd.root());
        assert_eq!(wd.resolve(".", false).unwrap(), wd.root());
        assert_eq!(
            wd.resolve("new/dir/f.txt", true).unwrap(),
            wd.root().join("new/dir/f.txt")
        );
        assert_eq!(wd.relative(&wd.root().join("a/b")).as_deref(), Some("a/b"));
    }

    #[test]
    fn escapes_are_refused() {
        let (t, wd) = setup();
        symlink("/", wd.root().join("rootlink")).unwrap();
        symlink(t.path().join("outside"), wd.root().join("out")).unwrap();
        symlink("b", wd.root().join("a/inner")).unwrap();
        symlink("missing-target", wd.root().join("dangling")).unwrap();
        let cases: &[(&str, bool)] = &[
            ("../x", false),
            ("/etc/passwd", false),
            ("a/../../x", false),
            ("rootlink/etc/passwd", false),
            ("out/sentinel", true),
            ("out", false),
            (".git/config", true),
            ("a/../.git/hooks/pre-commit", true),
            (".GIT/config", true),
            ("dangling", true),
            ("bad\0name", false),
        ];
        for (rel, w) in cases {
            assert!(wd.resolve(rel, *w).is_err(), "{rel} should be refused");
        }
        // A symlink that stays inside is followed.
        assert_eq!(wd.resolve("a/inner", false).unwrap(), wd.root().join("a/b"));
        // Reading .git is allowed; writing is not.
        assert!(wd.resolve(".git", false).is_ok());
        // A link to .git is caught after resolution.
        symlink(".git", wd.root().join("g")).unwrap();
        assert!(matches!(
            wd.resolve("g/config", true),
            Err(ToolError::GitDir(_))
        ));
    }

    #[test]
    fn errors_name_the_problem() {
        let (_t, wd) = setup();
        let e = wd.resolve("/etc/passwd", false).unwrap_err().to_string();
        assert!(e.contains("absolute"), "{e}");
        let e = wd.resolve("a/../../x", false).unwrap_err().to_string();
        assert!(e.contains("leaves the workspace"), "{e}");
        let e = wd.resolve(".git/config", true).unwrap_err().to_string();
        assert!(e.contains(".git"), "{e}");
    }
}
