//! The disk quota of a job: what its commands may add to the work tree and to their `/tmp`,
//! counted in allocated blocks, never by timestamps.
//!
//! - **Baseline**: before a job's first command in a work tree, the blocks allocated under it
//!   are counted ([`Tree::allocated`]: `st_blocks` per inode, links not followed) and kept in
//!   the job's [`DiskLedger`], shared by every runner of the job; later commands are measured
//!   against the same baseline, so two commands of 1.5 GiB each do not both fit a 2 GiB cap.
//! - **Check** ([`DiskWatch::over`]): the work tree's count now minus the baseline, plus
//!   everything in the command's fresh `/tmp`. An mtime set back, a hard link or a rename
//!   hides nothing; a sparse file counts what it occupies. Counted at the start of each
//!   command (a job already past its quota runs nothing more), every [`WALK_EVERY`] while it
//!   runs (sooner when the free space of the watched file systems, `/tmp`'s included when it
//!   is another one, shrank by more than the quota), and once more when it ended.
//! - **Cost**: one count visits at most [`MAX_ENTRIES`] entries; the interval between two is
//!   at least ten times the last one's duration, so the watch takes at most a tenth of a core.
//!   A count cut short by the entry cap cannot clear a command whose file systems lost more
//!   than the quota: that is a hit.
//! - **`/dev/shm`**: the sandbox mounts a tmpfs there; the sandbox's plan sizes it to
//!   [`SHM_BYTES`] (memory, gone with the sandbox).

use crate::tree::{Tree, Usage};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Entries one count visits at most.
pub const MAX_ENTRIES: usize = 200_000;
/// Longest time between two counts while a command runs.
pub const WALK_EVERY: Duration = Duration::from_secs(2);
/// Time between two counts once the watched file systems lost more than the quota.
const WALK_EVERY_PRESSED: Duration = Duration::from_millis(500);
/// The interval between counts is at least this many times the last count's duration.
const WALK_SHARE: u32 = 10;
/// Work trees one ledger remembers (a job has one; a long-lived embedder may have more).
const MAX_ROOTS: usize = 256;

/// Size of the sandbox's `/dev/shm` tmpfs, in bytes.
pub const SHM_BYTES: u64 = 64 << 20;

/// The job's baselines: the blocks allocated under each work tree before its first command.
/// Clones share them; a fresh ledger is a fresh quota.
#[derive(Debug, Clone, Default)]
pub struct DiskLedger(Arc<Mutex<HashMap<PathBuf, Usage>>>);

impl DiskLedger {
    /// The baseline of `root`, counted now when this is the job's first command there.
    fn baseline(&self, root: &Path, tree: &Tree) -> Usage {
        let Ok(mut map) = self.0.lock() else {
            return tree.allocated(MAX_ENTRIES);
        };
        if let Some(u) = map.get(root) {
            return *u;
        }
        if map.len() >= MAX_ROOTS {
            map.clear();
        }
        let u = tree.allocated(MAX_ENTRIES);
        map.insert(root.to_path_buf(), u);
        u
    }
}

/// Free bytes of the file system holding `path`, and its device.
fn free_of(path: &Path) -> Option<(u64, u64)> {
    let st = rustix::fs::stat(path).ok()?;
    let s = rustix::fs::statvfs(path).ok()?;
    Some((st.st_dev as u64, s.f_bavail.saturating_mul(s.f_frsize)))
}

/// The disk quota of one running command.
pub(crate) struct DiskWatch {
    /// The work tree, then the command's `/tmp` (if any).
    trees: Vec<Tree>,
    baseline: Usage,
    quota: u64,
    /// Each watched file system once: a path on it and its free bytes at the start.
    free_at_start: Vec<(PathBuf, u64)>,
    /// When the last count ended and how long it took.
    last: Mutex<(Option<Instant>, Duration)>,
}

impl DiskWatch {
    /// Starts watching `root` (the job's baseline from `ledger`) and `tmp` (fresh, empty)
    /// against `quota` bytes; `None` when `root` cannot be opened.
    pub(crate) fn start(
        ledger: &DiskLedger,
        root: &Path,
        tmp: Option<&Path>,
        quota: u64,
    ) -> Option<DiskWatch> {
        let tree = Tree::open(root).ok()?;
        let baseline = ledger.baseline(root, &tree);
        let mut trees = vec![tree];
        trees.extend(tmp.and_then(|t| Tree::open(t).ok()));
        let mut devs = Vec::new();
        let mut free_at_start = Vec::new();
        for t in &trees {
            if let Some((dev, free)) = free_of(t.root()) {
                if !devs.contains(&dev) {
                    devs.push(dev);
                    free_at_start.push((t.root().to_path_buf(), free));
                }
            }
        }
        Some(DiskWatch {
            trees,
            baseline,
            quota,
            free_at_start,
            last: Mutex::new((None, Duration::ZERO)),
        })
    }

    /// [`Self::start`] on a blocking thread (the baseline is a walk of the tree).
    pub(crate) async fn start_off_runtime(
        ledger: &DiskLedger,
        root: &Path,
        tmp: Option<&Path>,
        quota: u64,
    ) -> Option<Arc<DiskWatch>> {
        let (ledger, root) = (ledger.clone(), root.to_path_buf());
        let tmp = tmp.map(Path::to_path_buf);
        let start = move || DiskWatch::start(&ledger, &root, tmp.as_deref(), quota);
        tokio::task::spawn_blocking(start)
            .await
            .ok()
            .flatten()
            .map(Arc::new)
    }

    /// [`Self::over`] with the count on a blocking thread, off the async runtime.
    pub(crate) async fn over_off_runtime(self: &Arc<Self>, now: bool) -> bool {
        if !now && !self.due() {
            return false;
        }
        let w = Arc::clone(self);
        tokio::task::spawn_blocking(move || w.over(now))
            .await
            .unwrap_or(false)
    }

    /// Whether the next count is due (see the module doc).
    fn due(&self) -> bool {
        let (last, cost) = self
            .last
            .lock()
            .map(|g| *g)
            .unwrap_or((None, Duration::ZERO));
        let every = if self.free_lost() > self.quota {
            WALK_EVERY_PRESSED
        } else {
            WALK_EVERY
        }
        .max(cost * WALK_SHARE);
        last.is_none_or(|t| t.elapsed() >= every)
    }

    /// Bytes the watched file systems lost since the start (other writers count too).
    fn free_lost(&self) -> u64 {
        self.free_at_start
            .iter()
            .filter_map(|(p, start)| Some(start.saturating_sub(free_of(p)?.1)))
            .fold(0u64, u64::saturating_add)
    }

    /// Bytes the job added to the work tree plus what is in `/tmp`, and whether every entry
    /// was counted.
    pub(crate) fn grown(&self) -> (u64, bool) {
        let mut complete = self.baseline.complete;
        let mut grown = 0u64;
        for (i, t) in self.trees.iter().enumerate() {
            let now = t.allocated(MAX_ENTRIES);
            complete &= now.complete;
            let before = if i == 0 { self.baseline.bytes } else { 0 };
            grown = grown.saturating_add(now.bytes.saturating_sub(before));
        }
        (grown, complete)
    }

    /// Whether the job is past its quota. Counts only when one is due (see the module doc), or
    /// always with `now`; not due is not past.
    pub(crate) fn over(&self, now: bool) -> bool {
        if !now && !self.due() {
            return false;
        }
        let started = Instant::now();
        let (grown, complete) = self.grown();
        if let Ok(mut last) = self.last.lock() {
            *last = (Some(Instant::now()), started.elapsed());
        }
        grown > self.quota || (!complete && self.free_lost() > self.quota)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::test_files::{filled, set_old_mtime, MIB};

    #[test]
    fn old_mtimes_do_not_hide_writes_from_the_disk_quota() {
        let root = tempfile::tempdir().unwrap();
        filled(&root.path().join("kept"), 4 * MIB);
        let ledger = DiskLedger::default();
        let w = DiskWatch::start(&ledger, root.path(), None, 8 * MIB).unwrap();
        assert!(!w.over(true), "what was there before is the baseline");
        for i in 0..3 {
            let p = root.path().join(format!("old{i}"));
            filled(&p, 3 * MIB);
            set_old_mtime(&p);
        }
        assert!(w.over(true));
    }

    #[test]
    fn the_quota_is_the_jobs_not_each_commands() {
        let root = tempfile::tempdir().unwrap();
        let ledger = DiskLedger::default();
        let first = DiskWatch::start(&ledger, root.path(), None, 8 * MIB).unwrap();
        filled(&root.path().join("a"), 5 * MIB);
        assert!(!first.over(true));
        let second = DiskWatch::start(&ledger, root.path(), None, 8 * MIB).unwrap();
        filled(&root.path().join("b"), 5 * MIB);
        assert!(second.over(true));
        let fresh = DiskWatch::start(&DiskLedger::default(), root.path(), None, 8 * MIB);
        assert!(!fresh.unwrap().over(true));
    }

    #[test]
    fn tmp_counts_whole_and_sparse_files_count_nothing() {
        let (root, tmp) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let w = DiskWatch::start(
            &DiskLedger::default(),
            root.path(),
            Some(tmp.path()),
            8 * MIB,
        )
        .unwrap();
        std::fs::File::create(root.path().join("sparse"))
            .unwrap()
            .set_len(1 << 30)
            .unwrap();
        assert!(!w.over(true));
        filled(&tmp.path().join("t"), 9 * MIB);
        assert!(w.over(true));
    }

    #[test]
    fn counts_are_spaced_unless_asked_for() {
        let root = tempfile::tempdir().unwrap();
        let w = DiskWatch::start(&DiskLedger::default(), root.path(), None, MIB).unwrap();
        assert!(!w.over(false));
        filled(&root.path().join("big"), 2 * MIB);
        assert!(!w.over(false), "the next count is not due yet");
        assert!(w.over(true));
    }
}
