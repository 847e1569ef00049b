//! Git on disk for the tests: bare repositories served as `file://`, branches pushed to them,
//! and a `git` runner with a fixed identity and no user or system configuration.

use std::path::{Path as FsPath, PathBuf};

/// Runs git in `dir` as "Seed" with no user or system configuration, asserts it succeeded and
/// returns its stdout, trimmed.
pub fn git(dir: &FsPath, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Seed")
        .env("GIT_AUTHOR_EMAIL", "seed@example.com")
        .env("GIT_COMMITTER_NAME", "Seed")
        .env("GIT_COMMITTER_EMAIL", "seed@example.com")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A fresh `git init` with `files` written and nothing committed: the work tree a graph or
/// `kotef run` test starts from when the commit does not matter.
pub fn uncommitted_repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    write_files(dir.path(), files);
    git(dir.path(), &["init", "-q"]);
    dir
}

fn write_files(root: &FsPath, files: &[(&str, &str)]) {
    for (p, text) in files {
        let path = root.join(p);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(path, text).expect("write file");
    }
}

/// A work tree on `main` with `files` and symlinks `links` (name → target) in one commit: the
/// repository a `kotef run` test works in.
pub fn committed_repo(files: &[(&str, &str)], links: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    write_files(dir.path(), files);
    for (p, target) in links {
        let path = dir.path().join(p);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::os::unix::fs::symlink(target, path).expect("symlink");
    }
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "-A"]);
    git(
        dir.path(),
        &["-c", "commit.gpgsign=false", "commit", "-q", "-m", "start"],
    );
    dir
}

/// Pushes `branch` of `bare` (new from its `main`, or `main` itself) with `files` added or changed.
pub fn push_branch(bare: &FsPath, branch: &str, files: &[(&str, &str)]) {
    let work = tempfile::tempdir().expect("work dir");
    let clone = work.path().join("c");
    git(
        work.path(),
        &[
            "clone",
            "-q",
            bare.to_str().expect("utf-8 path"),
            clone.to_str().expect("utf-8 path"),
        ],
    );
    git(&clone, &["checkout", "-q", "-B", branch]);
    for (path, text) in files {
        let p = clone.join(path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(p, text).expect("write branch file");
    }
    git(&clone, &["add", "-A"]);
    git(&clone, &["commit", "-q", "-m", branch]);
    git(&clone, &["push", "-q", "origin", branch]);
}

/// Creates the bare repository `root/owner/name.git` whose `main` holds `files`; returns its path.
pub fn init_bare_repo(root: &FsPath, full_name: &str, files: &[(&str, &str)]) -> PathBuf {
    let bare = root.join(format!("{full_name}.git"));
    std::fs::create_dir_all(&bare).expect("create bare dir");
    git(&bare, &["init", "-q", "--bare", "-b", "main"]);
    let seed = tempfile::tempdir().expect("seed dir");
    git(seed.path(), &["init", "-q", "-b", "main"]);
    for (path, text) in files {
        let p = seed.path().join(path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(p, text).expect("write seed file");
    }
    git(seed.path(), &["add", "-A"]);
    git(seed.path(), &["commit", "-q", "-m", "seed"]);
    git(
        seed.path(),
        &["push", "-q", bare.to_str().expect("utf-8 path"), "main"],
    );
    bare
}

/// Runs git in a bare repository and returns stdout (`None` when git fails).
pub fn git_output(repo: &FsPath, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(repo)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).to_string())
}

/// `file://` base URL for a directory of bare repositories.
pub fn file_base_url(root: &FsPath) -> String {
    format!("file://{}", root.display())
}
