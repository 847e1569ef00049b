//! The walk over a work tree: directories read by handle, `.git` skipped at every level,
//! `.gitignore`/`.ignore`/`.git/info/exclude` honoured (read through the same capped, no-follow
//! reads), symlinks listed as links and never entered, special files skipped, and a bounded
//! number of entries visited.

use super::*;

impl Tree {
    /// The regular files and symlinks under the root, sorted by path: `.git` skipped at every
    /// level, ignore files honoured, top-level folders in `skip_top` left out, at most
    /// [`MAX_WALK_ENTRIES`] entries visited.
    pub fn walk(&self, skip_top: &[&str]) -> Vec<Walked> {
        let mut out = Vec::new();
        let mut visited = 0usize;
        let Ok(root) = self.dup_root() else {
            return out;
        };
        let mut matchers = Vec::new();
        if let Some(m) = self.ignore_matcher("", true) {
            matchers.push(m);
        }
        self.walk_dir(root, "", &mut matchers, skip_top, &mut visited, &mut out);
        out.sort_by(|a, b| a.rel.cmp(&b.rel));
        out
    }

    /// The ignore rules of one directory: its `.gitignore` then `.ignore` (and, at the root,
    /// `.git/info/exclude` first), each read through the capped, no-follow read.
    fn ignore_matcher(&self, dir_rel: &str, at_root: bool) -> Option<ignore::gitignore::Gitignore> {
        let mut b = ignore::gitignore::GitignoreBuilder::new(self.path.join(dir_rel));
        let mut any = false;
        let mut names = Vec::new();
        if at_root {
            names.push(".git/info/exclude".to_string());
        }
        for n in [".gitignore", ".ignore"] {
            names.push(if dir_rel.is_empty() {
                n.to_string()
            } else {
                format!("{dir_rel}/{n}")
            });
        }
        for name in names {
            let Ok(text) = self.read_text(&name, IGNORE_FILE_CAP) else {
                continue;
            };
            for line in text.lines() {
                if b.add_line(None, line).is_ok() {
                    any = true;
                }
            }
        }
        if !any {
            return None;
        }
        b.build().ok()
    }

    fn ignored(&self, matchers: &[ignore::gitignore::Gitignore], rel: &str, is_dir: bool) -> bool {
        let abs = self.path.join(rel);
        for m in matchers.iter().rev() {
            let matched = m.matched(&abs, is_dir);
            if matched.is_ignore() {
                return true;
            }
            if matched.is_whitelist() {
                return false;
            }
        }
        false
    }

    fn walk_dir(
        &self,
        dir: OwnedFd,
        prefix: &str,
        matchers: &mut Vec<ignore::gitignore::Gitignore>,
        skip_top: &[&str],
        visited: &mut usize,
        out: &mut Vec<Walked>,
    ) {
        let depth = if prefix.is_empty() {
            0
        } else {
            prefix.matches('/').count() + 1
        };
        if depth > MAX_DEPTH {
            return;
        }
        let Ok(reader) = rustix::fs::Dir::read_from(dir.as_fd()) else {
            return;
        };
        let mut names: Vec<std::ffi::OsString> = Vec::new();
        for entry in reader {
            let Ok(entry) = entry else {
                break;
            };
            *visited += 1;
            if *visited > MAX_WALK_ENTRIES {
                break;
            }
            let bytes = entry.file_name().to_bytes();
            if bytes == b"." || bytes == b".." || bytes == b".git" {
                continue;
            }
            names.push(
                <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(bytes).to_os_string(),
            );
        }
        names.sort();
        for name in names {
            let shown = name.to_string_lossy().into_owned();
            if depth == 0 && skip_top.iter().any(|s| *s == shown) {
                continue;
            }
            let rel = if prefix.is_empty() {
                shown.clone()
            } else {
                format!("{prefix}/{shown}")
            };
            let Ok(st) = rustix::fs::statat(&dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW)
            else {
                continue;
            };
            match kind_of(&st) {
                FileType::Directory => {
                    if self.ignored(matchers, &rel, true) {
                        continue;
                    }
                    let Ok(sub) =
                        rustix::fs::openat(&dir, name.as_os_str(), DIR_FLAGS, Mode::empty())
                    else {
                        continue;
                    };
                    let pushed = match self.ignore_matcher(&rel, false) {
                        Some(m) => {
                            matchers.push(m);
                            true
                        }
                        None => false,
                    };
                    self.walk_dir(sub, &rel, matchers, skip_top, visited, out);
                    if pushed {
                        matchers.pop();
                    }
                    if *visited > MAX_WALK_ENTRIES {
                        return;
                    }
                }
                FileType::RegularFile if !self.ignored(matchers, &rel, false) => {
                    out.push(Walked {
                        rel,
                        link: None,
                        size: st.st_size as u64,
                    });
                }
                FileType::Symlink if !self.ignored(matchers, &rel, false) => {
                    let target = self.link_target(&dir, name.as_os_str());
                    out.push(Walked {
                        rel,
                        size: target.len() as u64,
                        link: Some(target),
                    });
                }
                _ => {}
            }
        }
    }
}
