//! Resource limits for one command (issue "the work tree is hostile": a fork bomb or a 10 GB
//! write must end that command with a named error and nothing else on the machine notice).
//!
//! - **Processes and memory**: a cgroup per command when kotef may create one (cgroup v1
//!   `pids` and `memory` controllers under `/sys/fs/cgroup/{pids,memory}/kotef/`; probed once),
//!   entered by the child itself before it execs (so nothing it forks escapes); a fork bomb
//!   then hits `pids.max` and an allocation spree the memory limit, both seen in the group's
//!   counters and named. Without a usable cgroup (an unprivileged server, cgroup v2 without
//!   delegation) the child gets `RLIMIT_NPROC` and `RLIMIT_DATA` instead (`RLIMIT_AS` would
//!   kill runtimes that reserve address space, such as V8 and Go).
//! - **File size**: `RLIMIT_FSIZE` always (a write past it gets `SIGXFSZ`), and no core dumps.
//! - **Disk**: while the command runs, the free space of the work tree's file system is
//!   sampled; when it shrinks by more than the disk cap (what the command wrote to the work
//!   tree and to its `/tmp`, which live there too), the command is stopped.
//!
//! [`Watch`] samples the counters; the runner stops the process group on a hit and reports
//! [`LimitHit`] in the command's result.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The limits of one command. The operator's settings; a repository cannot change them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandLimits {
    /// Memory of the command and everything it starts, in bytes.
    pub memory_bytes: u64,
    /// Processes (and threads) at once.
    pub processes: u64,
    /// The largest file it may write, in bytes.
    pub file_bytes: u64,
    /// How much the work tree's file system may fill while it runs, in bytes.
    pub disk_bytes: u64,
}

impl Default for CommandLimits {
    /// 4 GiB of memory, 512 processes, 1 GiB per file, 2 GiB of disk.
    fn default() -> Self {
        Self {
            memory_bytes: 4 << 30,
            processes: 512,
            file_bytes: 1 << 30,
            disk_bytes: 2 << 30,
        }
    }
}

/// Which limit stopped a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitHit {
    Processes,
    Memory,
    FileSize,
    Disk,
}

impl LimitHit {
    /// The name in reports (`processes`, `memory`, `file_size`, `disk`).
    pub fn as_str(self) -> &'static str {
        match self {
            LimitHit::Processes => "processes",
            LimitHit::Memory => "memory",
            LimitHit::FileSize => "file_size",
            LimitHit::Disk => "disk",
        }
    }

    /// What the agent and the report are told.
    pub fn message(self, l: &CommandLimits) -> String {
        let gib = |b: u64| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64);
        match self {
            LimitHit::Processes => format!(
                "the command started more than {} processes at once (a fork bomb?) and was stopped",
                l.processes
            ),
            LimitHit::Memory => format!(
                "the command used more than {} of memory and was stopped",
                gib(l.memory_bytes)
            ),
            LimitHit::FileSize => format!(
                "the command wrote a file larger than {} and was stopped",
                gib(l.file_bytes)
            ),
            LimitHit::Disk => format!(
                "the command wrote more than {} to the workspace and /tmp and was stopped",
                gib(l.disk_bytes)
            ),
        }
    }
}

/// The v1 controllers' roots for kotef's groups, when kotef may create groups there.
fn cgroup_roots() -> &'static Option<(PathBuf, PathBuf)> {
    static ROOTS: OnceLock<Option<(PathBuf, PathBuf)>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        // Only mounted v1 controllers (`cgroup.clone_children` exists only there): on a v2
        // host these paths would create cgroups named `pids` and `memory` instead.
        let mut roots = Vec::new();
        for controller in ["pids", "memory"] {
            let mount = Path::new("/sys/fs/cgroup").join(controller);
            if !mount.join("cgroup.clone_children").exists() {
                return None;
            }
            let root = mount.join("kotef");
            if !root.is_dir() && std::fs::create_dir(&root).is_err() {
                return None;
            }
            roots.push(root);
        }
        let memory = roots.pop()?;
        let pids = roots.pop()?;
        Some((pids, memory))
    })
}

/// One command's cgroups (removed on drop, after killing what is left in them).
#[derive(Debug)]
pub(crate) struct Group {
    dirs: Vec<PathBuf>,
}

impl Group {
    /// Creates the groups for one command with `limits`; `None` when cgroups are not usable.
    pub(crate) fn create(limits: &CommandLimits) -> Option<Group> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let (pids_root, mem_root) = cgroup_roots().as_ref()?;
        let name = format!(
            "cmd-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let group = Group {
            dirs: vec![pids_root.join(&name), mem_root.join(&name)],
        };
        for d in &group.dirs {
            std::fs::create_dir(d).ok()?;
        }
        let write = |file: PathBuf, value: String| std::fs::write(file, value).ok();
        write(group.dirs[0].join("pids.max"), limits.processes.to_string())?;
        write(
            group.dirs[1].join("memory.limit_in_bytes"),
            limits.memory_bytes.to_string(),
        )?;
        Some(group)
    }

    /// The `cgroup.procs` files the child writes itself into before it execs.
    pub(crate) fn procs_files(&self) -> Vec<CString> {
        self.dirs
            .iter()
            .filter_map(|d| CString::new(d.join("cgroup.procs").into_os_string().into_vec()).ok())
            .collect()
    }

    fn counter(&self, i: usize, file: &str, key: Option<&str>) -> u64 {
        let text = std::fs::read_to_string(self.dirs[i].join(file)).unwrap_or_default();
        match key {
            None => text.trim().parse().unwrap_or(0),
            Some(k) => text
                .lines()
                .find_map(|l| l.strip_prefix(k)?.trim().parse().ok())
                .unwrap_or(0),
        }
    }

    /// A limit the group ran into so far.
    pub(crate) fn hit(&self) -> Option<LimitHit> {
        if self.counter(0, "pids.events", Some("max ")) > 0 {
            return Some(LimitHit::Processes);
        }
        // Not `memory.failcnt`: the page cache of a large write reaches the limit too, and is
        // reclaimed; an OOM kill is what the limit did to the command.
        if self.counter(1, "memory.oom_control", Some("oom_kill ")) > 0 {
            return Some(LimitHit::Memory);
        }
        None
    }

    /// Kills every process still in the group.
    pub(crate) fn kill_all(&self) {
        for d in &self.dirs {
            let text = std::fs::read_to_string(d.join("cgroup.procs")).unwrap_or_default();
            for pid in text
                .lines()
                .filter_map(|l| l.trim().parse::<libc::pid_t>().ok())
            {
                if pid > 1 {
                    // SAFETY: kill has no memory-safety preconditions.
                    unsafe {
                        libc::kill(pid, libc::SIGKILL);
                    }
                }
            }
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill_all();
        for d in &self.dirs {
            // A group still holding a dying process cannot be removed yet; retry briefly.
            for _ in 0..50 {
                if std::fs::remove_dir(d).is_ok() || !d.exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    }
}

use std::os::unix::ffi::OsStringExt;

/// What the child does between fork and exec: enter `procs` (its cgroups), set the rlimits
/// (`RLIMIT_NPROC`/`RLIMIT_DATA` only when there is no cgroup), and with `drop_caps` empty its
/// capability bounding set, so a command that runs as root without a sandbox execs with no
/// capabilities (it cannot read kotef's memory or `/proc/<pid>/environ`, which kotef's
/// non-dumpable mark reserves to privileged processes). Only async-signal-safe calls.
pub(crate) fn in_child(
    procs: &[CString],
    limits: &CommandLimits,
    cgroup: bool,
    drop_caps: bool,
) -> std::io::Result<()> {
    let set = |resource, value: u64| {
        let lim = libc::rlimit {
            rlim_cur: value,
            rlim_max: value,
        };
        // SAFETY: setrlimit only reads `lim`.
        if unsafe { libc::setrlimit(resource, &lim) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    for p in procs {
        // SAFETY: open/write/close on a NUL-terminated path made before the fork.
        unsafe {
            let fd = libc::open(p.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let ok = libc::write(fd, b"0".as_ptr().cast(), 1) == 1;
            libc::close(fd);
            if !ok {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
    set(libc::RLIMIT_FSIZE, limits.file_bytes)?;
    set(libc::RLIMIT_CORE, 0)?;
    if !cgroup {
        set(libc::RLIMIT_NPROC, limits.processes)?;
        set(libc::RLIMIT_DATA, limits.memory_bytes)?;
    }
    if drop_caps {
        for cap in 0..64 {
            // SAFETY: prctl with integer arguments; EINVAL past the last capability is fine.
            unsafe {
                libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
            }
        }
    }
    Ok(())
}

/// Free bytes of the file system holding `path`.
pub(crate) fn free_bytes(path: &Path) -> Option<u64> {
    let s = rustix::fs::statvfs(path).ok()?;
    Some(s.f_bavail.saturating_mul(s.f_frsize))
}

/// Entries one disk walk visits at most.
const WALK_CAP: usize = 200_000;
/// Least time between two walks of the command's directories.
const WALK_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// Samples one running command against its limits.
pub(crate) struct Watch<'a> {
    pub(crate) group: Option<&'a Group>,
    /// The directories the command may write (the work tree, its sandbox's `/tmp`).
    pub(crate) dirs: Vec<PathBuf>,
    pub(crate) free_at_start: Option<u64>,
    pub(crate) disk_bytes: u64,
    pub(crate) started: std::time::SystemTime,
    pub(crate) last_walk: std::cell::Cell<Option<std::time::Instant>>,
}

impl Watch<'_> {
    /// A limit hit so far, if any. The disk check is two-step: the file system's free space
    /// (cheap, but other writers count) must have shrunk by more than the cap, and then the
    /// files the command's directories gained since it started must add up to more than it.
    pub(crate) fn check(&self) -> Option<LimitHit> {
        if let Some(hit) = self.group.and_then(Group::hit) {
            return Some(hit);
        }
        let dir = self.dirs.first()?;
        let (start, now) = (self.free_at_start?, free_bytes(dir)?);
        if start.saturating_sub(now) <= self.disk_bytes {
            return None;
        }
        if self
            .last_walk
            .get()
            .is_some_and(|t| t.elapsed() < WALK_EVERY)
        {
            return None;
        }
        self.last_walk.set(Some(std::time::Instant::now()));
        (written_since(&self.dirs, self.started) > self.disk_bytes).then_some(LimitHit::Disk)
    }
}

/// Bytes allocated to regular files under `dirs` modified at or after `since` (links not
/// followed, at most [`WALK_CAP`] entries).
fn written_since(dirs: &[PathBuf], since: std::time::SystemTime) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0u64;
    let mut seen = 0usize;
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > WALK_CAP {
                return total;
            }
            let Ok(m) = std::fs::symlink_metadata(e.path()) else {
                continue;
            };
            if m.is_dir() {
                stack.push(e.path());
            } else if m.is_file() && m.modified().is_ok_and(|t| t >= since) {
                total = total.saturating_add(m.blocks().saturating_mul(512));
            }
        }
    }
    total
}

/// The limit a finished command ran into, judged from how it ended (no cgroup counters): a
/// `SIGXFSZ` death or a shell's 128 + `SIGXFSZ` exit is the file-size limit.
pub fn hit_from_exit(exit_code: Option<i32>, signal: Option<i32>) -> Option<LimitHit> {
    (signal == Some(libc::SIGXFSZ) || exit_code == Some(128 + libc::SIGXFSZ))
        .then_some(LimitHit::FileSize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_size_death_is_named() {
        assert_eq!(
            hit_from_exit(None, Some(libc::SIGXFSZ)),
            Some(LimitHit::FileSize)
        );
        assert_eq!(hit_from_exit(Some(153), None), Some(LimitHit::FileSize));
        assert_eq!(hit_from_exit(Some(1), None), None);
    }

    #[test]
    fn messages_name_the_limit() {
        let l = CommandLimits::default();
        assert_eq!(
            LimitHit::Disk.message(&l),
            "the command wrote more than 2.0 GiB to the workspace and /tmp and was stopped"
        );
        assert!(LimitHit::Processes.message(&l).contains("512 processes"));
    }
}
