//! Nothing a job started outlives it. kotef makes itself a child subreaper
//! ([`become_subreaper`]): a process that escapes its command's process group (`setsid`,
//! a double fork) and loses its parent is re-parented to kotef instead of init. After every
//! command, [`kill_orphans`] ends each child of kotef that kotef did not start itself (those
//! are registered with [`Spawned`] while they run) and reaps it, and zombies too. Without a
//! sandbox this is what keeps a daemon of one job from reading the next job's git token from
//! `/proc`; inside one, bubblewrap's pid namespace already ends everything with the command.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, RwLock};

/// This process is a subreaper: orphans come here, and only then are they looked for (a
/// process that is not, a test binary, may have children it never registered).
static REAPING: AtomicBool = AtomicBool::new(false);
/// kotef's own children that are running (their pids).
static SPAWNED: Mutex<Option<HashSet<i32>>> = Mutex::new(None);
/// Held for reading while a child is started and registered, for writing while orphans are
/// looked for: a child between `spawn()` and [`Spawned::register`] is never taken for one.
static SPAWNING: RwLock<()> = RwLock::new(());
/// Rounds of [`kill_orphans`] (an orphan's own children become orphans when it dies).
const ROUNDS: usize = 16;

/// Re-parents orphaned descendants to this process (`PR_SET_CHILD_SUBREAPER`). Call once at
/// start; returns whether the kernel agreed.
pub fn become_subreaper() -> bool {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes plain integers.
    let ok = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 };
    REAPING.store(ok, Ordering::SeqCst);
    ok
}

/// Starts a child under the spawn lock, so it is registered before anyone looks for orphans.
pub fn spawn_registered<T>(
    spawn: impl FnOnce() -> std::io::Result<(T, Option<u32>)>,
) -> std::io::Result<(T, Spawned)> {
    let _guard = SPAWNING.read().unwrap_or_else(|e| e.into_inner());
    let (child, pid) = spawn()?;
    Ok((child, Spawned::register(pid)))
}

/// A running child kotef started itself; unregistered when dropped (after it was waited for).
#[derive(Debug)]
pub struct Spawned(Option<i32>);

impl Spawned {
    /// Registers `pid` (nothing for `None`, a child that already ended).
    pub fn register(pid: Option<u32>) -> Self {
        let pid = pid.and_then(|p| i32::try_from(p).ok());
        if let Some(p) = pid {
            let mut set = SPAWNED.lock().unwrap_or_else(|e| e.into_inner());
            set.get_or_insert_with(HashSet::new).insert(p);
        }
        Spawned(pid)
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if let Some(p) = self.0 {
            let mut set = SPAWNED.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(s) = set.as_mut() {
                s.remove(&p);
            }
        }
    }
}

/// The pids whose parent is `parent`, from `/proc/<pid>/stat` (pure over the texts given).
pub fn children_in<'a>(parent: i32, stats: impl Iterator<Item = (i32, &'a str)>) -> Vec<i32> {
    stats
        .filter(|(_, stat)| ppid_of(stat) == Some(parent))
        .map(|(pid, _)| pid)
        .collect()
}

/// The parent pid in a `/proc/<pid>/stat` line (after the command name, which may hold
/// spaces and parentheses: the last `)` ends it).
fn ppid_of(stat: &str) -> Option<i32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Kills and reaps every child of this process that it did not start itself (escaped
/// descendants of finished commands, re-parented here), in rounds until none is left.
/// Returns how many were ended.
pub fn kill_orphans() -> usize {
    if !REAPING.load(Ordering::SeqCst) {
        return 0;
    }
    let _guard = SPAWNING.write().unwrap_or_else(|e| e.into_inner());
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    let mut ended = 0;
    for _ in 0..ROUNDS {
        let known = SPAWNED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .unwrap_or_default();
        let stats = read_stats();
        let orphans: Vec<i32> = children_in(me, stats.iter().map(|(p, s)| (*p, s.as_str())))
            .into_iter()
            .filter(|p| !known.contains(p))
            .collect();
        if orphans.is_empty() {
            break;
        }
        for pid in orphans {
            let name = stats
                .iter()
                .find(|(p, _)| *p == pid)
                .and_then(|(_, s)| Some(s.get(s.find('(')? + 1..s.rfind(')')?)?.to_string()))
                .unwrap_or_default();
            tracing::info!(pid, name = %name, "ending a process a command left behind");
            // SAFETY: kill and waitpid on a pid that is this process's own child; a
            // blocking wait is bounded because SIGKILL cannot be caught.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
            ended += 1;
        }
    }
    ended
}

/// `/proc/<pid>/stat` of every process (a bounded scan of `/proc`).
fn read_stats() -> Vec<(i32, String)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.take(1 << 17)
        .filter_map(|e| {
            let pid: i32 = e.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            Some((pid, stat))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_after_a_command_name_with_parentheses() {
        assert_eq!(ppid_of("42 (a) b (c)) S 7 42 42 0"), Some(7));
        assert_eq!(ppid_of("garbage"), None);
    }

    #[test]
    fn children_are_those_whose_parent_matches() {
        let stats = [
            (10, "10 (sh) S 1 10"),
            (11, "11 (sleep) S 10 10"),
            (12, "12 (x y) Z 10 12"),
        ];
        assert_eq!(children_in(10, stats.iter().copied()), [11, 12]);
    }
}
