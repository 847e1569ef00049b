//! The job's package cache: one folder per run where the repository's `setup` can install
//! what users install outside a virtualenv (`pip install -r requirements.txt` falls back to a
//! user install when the interpreter's site-packages is read-only, `npm install -g`,
//! `gem install`), and which every later command of the run sees (read-only in the sandbox).
//! Commands find it through the variables each tool reads ([`env`]); in the sandbox it appears
//! at [`IN_SANDBOX`], without one at its host path.

use std::path::{Path, PathBuf};

/// Where the job cache appears inside the sandbox.
pub const IN_SANDBOX: &str = "/var/cache/kotef-job";

/// The job cache of one run's commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobCache {
    /// The folder on the host (the run owns it and removes it when it ends).
    pub dir: PathBuf,
    /// Whether commands may write it: `setup` may, the agent's commands and the tests only read.
    pub writable: bool,
}

impl JobCache {
    /// `env` with the cache's variables laid over it, for a command that sees the cache at
    /// [`IN_SANDBOX`] (`sandboxed`) or at its host path.
    pub fn over(&self, mut env: Vec<(String, String)>, sandboxed: bool) -> Vec<(String, String)> {
        let root = if sandboxed {
            Path::new(IN_SANDBOX)
        } else {
            self.dir.as_path()
        };
        let path = env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone());
        for (k, v) in self::env(root, path.as_deref()) {
            env.retain(|(ok, _)| *ok != k);
            env.push((k, v));
        }
        env.sort();
        env
    }
}

/// The variables that point the package tools at the cache seen at `root`, with its `bin`
/// folders before `path` (the command's `PATH`). Pure.
pub fn env(root: &Path, path: Option<&str>) -> Vec<(String, String)> {
    let at = |sub: &str| root.join(sub).to_string_lossy().into_owned();
    let bins = [at("python/bin"), at("npm/bin"), at("gem/bin")].join(":");
    vec![
        ("PYTHONUSERBASE".into(), at("python")),
        ("npm_config_prefix".into(), at("npm")),
        ("GEM_HOME".into(), at("gem")),
        (
            "PATH".into(),
            match path.filter(|p| !p.is_empty()) {
                Some(p) => format!("{bins}:{p}"),
                None => bins,
            },
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caches_bin_folders_come_before_the_commands_path() {
        let e = env(Path::new(IN_SANDBOX), Some("/usr/bin:/bin"));
        let path = e.iter().find(|(k, _)| k == "PATH").map(|(_, v)| v.as_str());
        assert_eq!(
            path,
            Some("/var/cache/kotef-job/python/bin:/var/cache/kotef-job/npm/bin:/var/cache/kotef-job/gem/bin:/usr/bin:/bin")
        );
    }

    #[test]
    fn python_installs_for_the_user_into_the_cache() {
        let e = env(Path::new("/c"), None);
        assert!(e.contains(&("PYTHONUSERBASE".into(), "/c/python".into())));
    }
}
