//! The bubblewrap sandbox: a one-time probe of whether a working `bwrap` exists here (cached for
//! the process), and the argument list that wraps one command. Inside: no network, the host
//! filesystem read-only, only the command's directory and a fresh temp dir (`/tmp`) writable,
//! its own pid namespace that dies with its parent.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long the probe may take before bwrap is declared unusable.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

static PROBE: OnceLock<Result<PathBuf, String>> = OnceLock::new();

/// The path of a working `bwrap`, or why there is none (the exact error). Probed once per
/// process by running `true` inside the same kind of sandbox commands get.
pub fn bwrap_status() -> &'static Result<PathBuf, String> {
    PROBE.get_or_init(probe)
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn probe() -> Result<PathBuf, String> {
    let bwrap = find_in_path("bwrap").ok_or_else(|| "bwrap is not installed".to_string())?;
    probe_with(bwrap)
}

/// Runs `true` inside a sandbox built by the given bwrap binary.
fn probe_with(bwrap: PathBuf) -> Result<PathBuf, String> {
    let cwd = std::env::temp_dir();
    let tmp = tempfile::tempdir().map_err(|e| format!("cannot create a temp dir: {e}"))?;
    let args = bwrap_args(&cwd, tmp.path(), "true");
    let mut child = Command::new(&bwrap)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bwrap.display()))?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(bwrap),
            Ok(Some(status)) => {
                let mut err = String::new();
                if let Some(mut s) = child.stderr.take() {
                    use std::io::Read;
                    let _ = s.by_ref().take(4096).read_to_string(&mut err);
                }
                return Err(format!(
                    "bwrap does not work here ({status}): {}",
                    err.trim()
                ));
            }
            Ok(None) if start.elapsed() > PROBE_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("bwrap probe timed out".into());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("bwrap probe failed: {e}")),
        }
    }
}

/// The bwrap arguments that run `sh -c command` in `cwd` (writable) with `tmp` as `/tmp`.
pub fn bwrap_args(cwd: &Path, tmp: &Path, command: &str) -> Vec<String> {
    bwrap_args_hiding(cwd, tmp, &[], &[], command)
}

/// As [`bwrap_args`], with `hidden` paths made unreadable inside the sandbox: a directory
/// becomes an empty tmpfs (the workspace is bound again on top when it lies inside), a file
/// reads as empty. The operator's data directory and secret files go here. `read_only` paths
/// are bound read-only last, over the workspace and the hidden paths (the work tree's git
/// directory: readable, never writable).
pub fn bwrap_args_hiding(
    cwd: &Path,
    tmp: &Path,
    hidden: &[PathBuf],
    read_only: &[PathBuf],
    command: &str,
) -> Vec<String> {
    let cwd = cwd.to_string_lossy().into_owned();
    let tmp = tmp.to_string_lossy().into_owned();
    let mut a: Vec<String> = [
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/dev/shm",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for h in hidden.iter().filter(|h| h.is_absolute() && h.exists()) {
        let path = h.to_string_lossy().into_owned();
        if h.is_dir() {
            a.extend(["--tmpfs".to_string(), path]);
        } else {
            a.extend(["--ro-bind".to_string(), "/dev/null".to_string(), path]);
        }
    }
    a.extend(
        [
            "--bind",
            &tmp,
            "/tmp",
            "--bind",
            &cwd,
            &cwd,
            "--chdir",
            &cwd,
            "--unshare-net",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--die-with-parent",
            "--new-session",
            "--setenv",
            "TMPDIR",
            "/tmp",
            "--setenv",
            "XDG_CACHE_HOME",
            "/tmp/.cache",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    for p in read_only.iter().filter(|p| p.is_absolute() && p.exists()) {
        let path = p.to_string_lossy().into_owned();
        a.extend(["--ro-bind".to_string(), path.clone(), path]);
    }
    a.extend(["/bin/sh".to_string(), "-c".to_string(), command.to_string()]);
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn fake(dir: &Path, body: &str) -> PathBuf {
        let p = dir.join("bwrap");
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn a_broken_bwrap_is_reported_with_its_error() {
        let t = tempfile::tempdir().unwrap();
        let b = fake(
            t.path(),
            "echo 'bwrap: No permissions to create new namespace' >&2; exit 1",
        );
        let e = probe_with(b).unwrap_err();
        assert!(e.contains("No permissions to create new namespace"), "{e}");
        let missing = probe_with(t.path().join("absent")).unwrap_err();
        assert!(missing.contains("cannot start"), "{missing}");
    }

    #[test]
    fn a_working_bwrap_passes() {
        let t = tempfile::tempdir().unwrap();
        let b = fake(t.path(), "exit 0");
        assert_eq!(probe_with(b.clone()).unwrap(), b);
    }

    #[test]
    fn args_isolate_network_and_bind_cwd_writable() {
        let a = bwrap_args(Path::new("/w/repo"), Path::new("/tmp/x"), "cargo test");
        let joined = a.join(" ");
        assert!(joined.contains("--ro-bind / /"));
        assert!(joined.contains("--bind /tmp/x /tmp"));
        assert!(joined.contains("--bind /w/repo /w/repo"));
        assert!(joined.contains("--unshare-net"));
        assert!(joined.contains("--die-with-parent"));
        assert_eq!(&a[a.len() - 3..], ["/bin/sh", "-c", "cargo test"]);
    }

    #[test]
    fn hidden_paths_are_masked_before_the_workspace_is_bound() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("key.pem");
        std::fs::write(&secret, "k").unwrap();
        let a = bwrap_args_hiding(
            Path::new("/w/repo"),
            Path::new("/tmp/x"),
            &[dir.path().to_path_buf(), secret.clone()],
            &[],
            "true",
        );
        let at = |needle: &str| a.iter().position(|x| x == needle).unwrap();
        let d = dir.path().to_string_lossy().to_string();
        let f = secret.to_string_lossy().to_string();
        assert!(
            a[at(&d) - 1] == "--tmpfs" && a[at(&f) - 1] == "/dev/null" && at(&f) < at("/w/repo"),
            "{a:?}"
        );
    }

    #[test]
    fn read_only_paths_are_bound_read_only_after_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir(&git).unwrap();
        let a = bwrap_args_hiding(
            dir.path(),
            Path::new("/tmp/x"),
            &[],
            std::slice::from_ref(&git),
            "true",
        );
        let g = git.to_string_lossy().to_string();
        let bound = a.windows(3).position(|w| w == ["--ro-bind", &g, &g]);
        let workspace = a.iter().rposition(|x| *x == dir.path().to_string_lossy());
        assert!(bound.is_some() && bound > workspace, "{a:?}");
    }
}
