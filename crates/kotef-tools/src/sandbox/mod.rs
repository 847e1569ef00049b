//! The bubblewrap sandbox: a one-time probe of whether a working `bwrap` exists here (cached for
//! the process), and the argument list that wraps one command. Inside: an empty root with only
//! what [`host`] allows bound read-only (the system, a filtered `/etc`, toolchains), the
//! command's directory read-write, a private `/tmp`, `/dev/shm`, `/run` and home; no network
//! (or only kotef's egress proxy, for `setup`); its own pid namespace that dies with its
//! parent; no capabilities, even when kotef runs as root.

pub mod host;

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
    let args = bwrap_args(&Plan::new(&cwd, tmp.path()), "true");
    let (mut child, _registered) = kotef_core::reaper::spawn_registered(|| {
        let c = Command::new(&bwrap)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        let pid = c.id();
        Ok((c, Some(pid)))
    })
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

/// Where a command's network traffic may go: nowhere (every agent command), or out through
/// kotef's egress proxy (the repository's `setup`; see [`crate::egress`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EgressMount {
    /// The proxy's unix socket on the host.
    pub socket: PathBuf,
    /// The kotef executable, run inside as the bridge from a loopback port to the socket.
    pub bridge: PathBuf,
    /// The loopback port the bridge listens on inside the sandbox.
    pub port: u16,
}

/// Where the egress proxy's socket and bridge appear inside the sandbox.
pub const EGRESS_SOCKET: &str = "/run/kotef/egress.sock";
const EGRESS_BRIDGE: &str = "/run/kotef/kotef";

/// What one sandboxed command sees besides the host's allow-list ([`host::system_mounts`]).
#[derive(Debug, Clone)]
pub struct Plan<'a> {
    /// The working directory, bound read-write.
    pub cwd: &'a Path,
    /// Bound as the private `/tmp`.
    pub tmp: &'a Path,
    /// Paths that must read as empty even where an allowed path contains them (the
    /// operator's data directory and secret files): a directory becomes an empty tmpfs (the
    /// workspace is bound again on top when it lies inside), a file reads as empty.
    pub hidden: &'a [PathBuf],
    /// Bound read-only last, over the workspace (the work tree's git directory).
    pub read_only: &'a [PathBuf],
    /// The operator's extra read-only paths (`KOTEF_SANDBOX_BINDS`).
    pub binds: &'a [PathBuf],
    /// The home directory: an empty private tmpfs, with only its toolchains bound.
    pub home: Option<&'a Path>,
    /// The network through kotef's egress proxy; `None`: no network at all.
    pub egress: Option<&'a EgressMount>,
    /// The size of the private `/dev/shm`, in bytes.
    pub shm_bytes: u64,
    /// The run's package cache and whether the command may write it, bound at
    /// [`crate::job_cache::IN_SANDBOX`].
    pub job_cache: Option<(&'a Path, bool)>,
    /// Loopback ports forwarded from the host (`[test] network = "loopback"`).
    pub loopback: Option<&'a crate::loopback::LoopbackMount>,
}

impl<'a> Plan<'a> {
    /// A plan with nothing hidden, nothing extra, no home and no network.
    pub fn new(cwd: &'a Path, tmp: &'a Path) -> Self {
        Self {
            cwd,
            tmp,
            hidden: &[],
            read_only: &[],
            binds: &[],
            home: None,
            egress: None,
            shm_bytes: crate::quota::SHM_BYTES,
            job_cache: None,
            loopback: None,
        }
    }
}

/// The bwrap arguments that run `sh -c command` as `plan` says, over the real host.
pub fn bwrap_args(plan: &Plan, command: &str) -> Vec<String> {
    bwrap_args_over(&host::RealHost, plan, command)
}

/// As [`bwrap_args`] over any [`host::Lookup`] (pure; for tests).
pub fn bwrap_args_over(host: &dyn host::Lookup, plan: &Plan, command: &str) -> Vec<String> {
    let s = |p: &Path| p.to_string_lossy().into_owned();
    let mut a: Vec<String> = Vec::new();
    let mut push = |items: &[&str]| a.extend(items.iter().map(|x| x.to_string()));
    // The root is an empty tmpfs; the home directory another, before its toolchains.
    if let Some(home) = plan
        .home
        .filter(|h| h.is_absolute() && *h != Path::new("/"))
    {
        push(&["--tmpfs", &s(home)]);
    }
    for m in host::system_mounts(host, plan.home, plan.binds) {
        match m {
            host::Mount::ReadOnly { src, dest } => push(&["--ro-bind", &s(&src), &s(&dest)]),
            host::Mount::Symlink { target, at } => push(&["--symlink", &s(&target), &s(&at)]),
        }
    }
    let shm = plan.shm_bytes.to_string();
    push(&["--dev", "/dev", "--proc", "/proc"]);
    push(&["--size", &shm, "--tmpfs", "/dev/shm"]);
    push(&["--tmpfs", "/run", "--tmpfs", "/var/tmp"]);
    push(&["--bind", &s(plan.tmp), "/tmp"]);
    for h in plan.hidden.iter().filter(|h| h.is_absolute()) {
        match host.entry(h) {
            Some(host::Entry::Dir) => push(&["--tmpfs", &s(h)]),
            Some(_) => push(&["--ro-bind", "/dev/null", &s(h)]),
            None => {}
        }
    }
    let cwd = s(plan.cwd);
    push(&["--bind", &cwd, &cwd, "--chdir", &cwd]);
    for p in plan.read_only.iter().filter(|p| p.is_absolute()) {
        if host.entry(p).is_some() {
            push(&["--ro-bind", &s(p), &s(p)]);
        }
    }
    if let Some((dir, writable)) = plan.job_cache.filter(|(d, _)| d.is_absolute()) {
        let how = if writable { "--bind" } else { "--ro-bind" };
        push(&[how, &s(dir), crate::job_cache::IN_SANDBOX]);
    }
    if let Some(e) = plan.egress {
        push(&["--ro-bind", &s(&e.socket), EGRESS_SOCKET]);
    }
    let loopback = plan.loopback.filter(|l| !l.ports.is_empty());
    for (port, socket) in loopback.map(|l| &l.ports[..]).unwrap_or_default() {
        push(&[
            "--ro-bind",
            &s(socket),
            &crate::loopback::socket_in_sandbox(*port),
        ]);
    }
    let bridge = plan
        .egress
        .map(|e| &e.bridge)
        .or(loopback.map(|l| &l.bridge));
    if let Some(b) = bridge {
        push(&["--ro-bind", &s(b), EGRESS_BRIDGE]);
    }
    // The root's own tmpfs (the directories made for the mounts above) is read-only too.
    push(&["--remount-ro", "/"]);
    push(&[
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--new-session",
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--setenv",
        "XDG_CACHE_HOME",
        "/tmp/.cache",
    ]);
    if bridge.is_some() {
        push(&[EGRESS_BRIDGE, crate::egress::BRIDGE_COMMAND]);
        if let Some(e) = plan.egress {
            push(&[&e.port.to_string(), EGRESS_SOCKET]);
        }
        for (port, _) in loopback.map(|l| &l.ports[..]).unwrap_or_default() {
            push(&[
                &port.to_string(),
                &crate::loopback::socket_in_sandbox(*port),
            ]);
        }
        push(&["--"]);
    }
    push(&["/bin/sh", "-c", command]);
    a
}

#[cfg(test)]
mod tests {
    use super::host::{Entry, Lookup};
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn fake(dir: &Path, body: &str) -> PathBuf {
        let p = dir.join("bwrap");
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    /// A host with a merged `/usr`, where every other path asked about exists as a directory
    /// (or a file, when its name has a dot).
    struct Host;

    impl Lookup for Host {
        fn entry(&self, path: &Path) -> Option<Entry> {
            match path.to_str()? {
                "/usr" => Some(Entry::Dir),
                "/bin" => Some(Entry::Link("usr/bin".into())),
                p if p.starts_with("/lib") || p == "/sbin" || p == "/nix" => None,
                p if p.starts_with("/opt/") => None,
                p if p.rsplit('/').next()?.contains('.') => Some(Entry::File),
                _ => Some(Entry::Dir),
            }
        }
        fn names(&self, _: &Path) -> Vec<String> {
            vec!["passwd".into(), "shadow".into()]
        }
    }

    fn args(plan: &Plan) -> Vec<String> {
        bwrap_args_over(&Host, plan, "cargo test")
    }

    fn pos(a: &[String], window: &[&str]) -> Option<usize> {
        a.windows(window.len()).position(|w| w == window)
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
    fn the_root_is_built_from_the_allow_list_never_the_whole_host() {
        let a = args(&Plan::new(Path::new("/w/repo"), Path::new("/tmp/x")));
        assert!(pos(&a, &["--ro-bind", "/", "/"]).is_none(), "{a:?}");
        assert!(pos(&a, &["--ro-bind", "/usr", "/usr"]).is_some(), "{a:?}");
        assert!(
            pos(&a, &["--symlink", "usr/bin", "/bin"]).is_some(),
            "{a:?}"
        );
        assert!(pos(&a, &["--ro-bind", "/etc/passwd", "/etc/passwd"]).is_some());
        assert!(!a.iter().any(|x| x == "/etc/shadow"), "{a:?}");
    }

    #[test]
    fn commands_get_no_network_no_capabilities_and_a_writable_cwd() {
        let a = args(&Plan::new(Path::new("/w/repo"), Path::new("/tmp/x")));
        assert!(pos(&a, &["--bind", "/tmp/x", "/tmp"]).is_some());
        assert!(pos(&a, &["--bind", "/w/repo", "/w/repo"]).is_some());
        assert!(pos(&a, &["--unshare-net"]).is_some());
        assert!(pos(&a, &["--cap-drop", "ALL"]).is_some());
        assert!(pos(&a, &["--die-with-parent"]).is_some());
        assert_eq!(&a[a.len() - 3..], ["/bin/sh", "-c", "cargo test"]);
    }

    #[test]
    fn run_and_dev_shm_are_private_and_shm_is_sized() {
        let mut plan = Plan::new(Path::new("/w/repo"), Path::new("/tmp/x"));
        plan.shm_bytes = 1 << 20;
        let a = args(&plan);
        assert!(pos(&a, &["--size", "1048576", "--tmpfs", "/dev/shm"]).is_some());
        assert!(pos(&a, &["--tmpfs", "/run"]).is_some());
    }

    #[test]
    fn the_job_cache_is_writable_for_setup_and_read_only_for_the_rest() {
        let mut plan = Plan::new(Path::new("/w/repo"), Path::new("/tmp/x"));
        plan.job_cache = Some((Path::new("/tmp/kotef-job-1"), true));
        let rw = args(&plan);
        assert!(pos(&rw, &["--bind", "/tmp/kotef-job-1", "/var/cache/kotef-job"]).is_some());
        plan.job_cache = Some((Path::new("/tmp/kotef-job-1"), false));
        let ro = args(&plan);
        assert!(pos(
            &ro,
            &["--ro-bind", "/tmp/kotef-job-1", "/var/cache/kotef-job"]
        )
        .is_some());
    }

    #[test]
    fn the_home_is_empty_but_for_its_toolchains() {
        let mut plan = Plan::new(Path::new("/w/repo"), Path::new("/tmp/x"));
        plan.home = Some(Path::new("/home/runner"));
        let a = args(&plan);
        let home = pos(&a, &["--tmpfs", "/home/runner"]).expect("a private home");
        let pyenv = pos(
            &a,
            &["--ro-bind", "/home/runner/.pyenv", "/home/runner/.pyenv"],
        );
        assert!(pyenv.is_some_and(|p| p > home), "{a:?}");
        assert!(!a.iter().any(|x| x.contains(".ssh")), "{a:?}");
    }

    #[test]
    fn hidden_paths_are_masked_before_the_workspace_is_bound() {
        let hidden = [PathBuf::from("/srv/data"), PathBuf::from("/srv/key.pem")];
        let mut plan = Plan::new(Path::new("/srv/data/w/repo"), Path::new("/tmp/x"));
        plan.hidden = &hidden;
        let a = args(&plan);
        let dir = pos(&a, &["--tmpfs", "/srv/data"]).unwrap();
        let file = pos(&a, &["--ro-bind", "/dev/null", "/srv/key.pem"]).unwrap();
        let cwd = pos(&a, &["--bind", "/srv/data/w/repo", "/srv/data/w/repo"]).unwrap();
        assert!(dir < cwd && file < cwd, "{a:?}");
    }

    #[test]
    fn read_only_paths_are_bound_read_only_after_the_workspace() {
        let git = [PathBuf::from("/w/repo/.git")];
        let mut plan = Plan::new(Path::new("/w/repo"), Path::new("/tmp/x"));
        plan.read_only = &git;
        let a = args(&plan);
        let bound = pos(&a, &["--ro-bind", "/w/repo/.git", "/w/repo/.git"]);
        let workspace = pos(&a, &["--bind", "/w/repo", "/w/repo"]);
        assert!(bound.is_some() && bound > workspace, "{a:?}");
    }

    #[test]
    fn with_egress_the_command_runs_behind_the_bridge() {
        let e = EgressMount {
            socket: PathBuf::from("/tmp/k/egress.sock"),
            bridge: PathBuf::from("/usr/local/bin/kotef"),
            port: 3128,
        };
        let mut plan = Plan::new(Path::new("/w/repo"), Path::new("/tmp/x"));
        plan.egress = Some(&e);
        let a = args(&plan);
        assert!(
            pos(&a, &["--unshare-net"]).is_some(),
            "still no host network"
        );
        assert!(pos(&a, &["--ro-bind", "/tmp/k/egress.sock", EGRESS_SOCKET]).is_some());
        let bridge = pos(&a, &[EGRESS_BRIDGE, crate::egress::BRIDGE_COMMAND, "3128"]);
        assert!(bridge.is_some_and(|b| b > pos(&a, &["--new-session"]).unwrap()));
    }
}
