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
//! - **Disk**: a quota per job on the blocks its commands add to the work tree and to their
//!   `/tmp`, counted by inode against a baseline taken before the job's first command (see
//!   [`crate::quota`]); a command that takes the job past it is stopped.
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
    /// How much the job's commands may add to the work tree (and have in their `/tmp`), in
    /// bytes of allocated blocks; `KOTEF_DISK_BYTES` sets it (see [`CommandLimits::operator`]).
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

impl CommandLimits {
    /// The defaults, with the disk quota from the operator's `KOTEF_DISK_BYTES` when it is set
    /// to a number of bytes (a repository cannot set kotef's environment).
    pub fn operator() -> Self {
        let mut l = Self::default();
        if let Some(b) =
            kotef_core::process::var("KOTEF_DISK_BYTES").and_then(|v| v.trim().parse().ok())
        {
            l.disk_bytes = b;
        }
        l
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
                "the commands wrote more than {} to the workspace and /tmp; this one was stopped",
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

/// Samples one running command against its limits.
pub(crate) struct Watch<'a> {
    pub(crate) group: Option<&'a Group>,
    /// The job's disk quota over the work tree and the command's `/tmp` (see [`crate::quota`]).
    pub(crate) disk: Option<std::sync::Arc<crate::quota::DiskWatch>>,
}

impl Watch<'_> {
    /// A limit hit so far, if any (the disk is counted only when a count is due, on a
    /// blocking thread).
    pub(crate) async fn check(&self) -> Option<LimitHit> {
        self.check_disk(false).await
    }

    /// As [`Self::check`], with the disk counted now (when the command has ended: a write
    /// faster than the sampling is still seen).
    pub(crate) async fn check_now(&self) -> Option<LimitHit> {
        self.check_disk(true).await
    }

    async fn check_disk(&self, now: bool) -> Option<LimitHit> {
        if let Some(hit) = self.group.and_then(Group::hit) {
            return Some(hit);
        }
        let disk = self.disk.as_ref()?;
        disk.over_off_runtime(now).await.then_some(LimitHit::Disk)
    }
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
            "the commands wrote more than 2.0 GiB to the workspace and /tmp; this one was stopped"
        );
        assert!(LimitHit::Processes.message(&l).contains("512 processes"));
    }
}
