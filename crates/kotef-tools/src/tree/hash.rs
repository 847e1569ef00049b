//! Content hashes of a work tree's files, bounded by bytes (issue 29, row 8: eight sparse
//! 64 MiB files made every snapshot hash 512 MiB of zeros):
//!
//! - a process-wide cache keyed by what `fstat` says of the opened file (device, inode, size,
//!   mtime, ctime): a snapshot reads only the files that changed since the last one (ctime
//!   cannot be set back by a command; a file changed in the last [`RACY`] is not cached, as its
//!   next change may keep the same timestamps);
//! - a [`HashBudget`] of bytes shared by one snapshot's files: once spent, and for a file
//!   larger than [`HASH_CAP`] or sparse (far fewer blocks than its size), the hash is a
//!   fingerprint of that metadata instead of the content (it still changes when the file does);
//! - a cancel flag and a deadline in the budget, checked between 64 KiB chunks, so a pass stops
//!   at its deadline on its own thread, whether or not the caller's runtime got to cancel it.

use super::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

/// Bytes of one file hashed at most; a larger file gets a metadata fingerprint.
pub const HASH_CAP: u64 = 16 * 1024 * 1024;
/// Hashes the cache keeps (it is emptied when full).
const CACHE_CAP: usize = MAX_WALK_ENTRIES;
/// A file changed this recently is hashed but not cached.
const RACY: Duration = Duration::from_secs(2);
/// A file at least this large with under half its size allocated is sparse.
const SPARSE_MIN: u64 = 1024 * 1024;
/// Bytes read at once.
const CHUNK: usize = 64 * 1024;

/// The bytes one pass of hashing may read, its cancel flag and its deadline.
#[derive(Debug)]
pub struct HashBudget {
    left: AtomicU64,
    read: AtomicU64,
    cancel: Arc<AtomicBool>,
    deadline: Option<Instant>,
}

impl HashBudget {
    /// A budget of `bytes`, never cancelled.
    pub fn new(bytes: u64) -> Self {
        Self::with_cancel(bytes, Arc::new(AtomicBool::new(false)))
    }

    /// A budget of `bytes` that stops when `cancel` is set.
    pub fn with_cancel(bytes: u64, cancel: Arc<AtomicBool>) -> Self {
        Self {
            left: AtomicU64::new(bytes),
            read: AtomicU64::new(0),
            cancel,
            deadline: None,
        }
    }

    /// The same budget, also cancelled once `time` has passed from now.
    pub fn lasting(mut self, time: Duration) -> Self {
        // A time too long to add to now never runs out.
        self.deadline = Instant::now().checked_add(time);
        self
    }

    /// The pass was cancelled, or its deadline has passed.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }

    /// Takes `n` bytes from the budget, or nothing when fewer are left.
    fn take(&self, n: u64) -> bool {
        self.left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |l| l.checked_sub(n))
            .is_ok()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Key {
    // The `stat` fields' types differ between targets.
    #[allow(clippy::unnecessary_cast)]
    fn of(st: &rustix::fs::Stat) -> Key {
        Key {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            size: st.st_size as u64,
            mtime: (st.st_mtime as i64, st.st_mtime_nsec as i64),
            ctime: (st.st_ctime as i64, st.st_ctime_nsec as i64),
        }
    }

    /// The hash of the metadata, for a file whose content is not read.
    fn fingerprint(&self) -> String {
        let k = self;
        let text = format!(
            "meta\0{}:{}:{}:{}.{}:{}.{}",
            k.dev, k.ino, k.size, k.mtime.0, k.mtime.1, k.ctime.0, k.ctime.1
        );
        hex::encode(Sha256::digest(text.as_bytes()))
    }

    /// Changed so recently that another change may keep these timestamps.
    fn racy(&self) -> bool {
        let ctime = Duration::new(
            self.ctime.0.max(0) as u64,
            self.ctime.1.clamp(0, 999_999_999) as u32,
        );
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default();
        now.saturating_sub(ctime) < RACY
    }
}

fn cache() -> &'static Mutex<HashMap<Key, [u8; 32]>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, [u8; 32]>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

impl Tree {
    /// sha256 hex of a file's content (a symlink: of its target text) and its size; a
    /// metadata fingerprint instead for a file past [`HASH_CAP`], a sparse one, or one the
    /// `budget` has no bytes left for (see the module doc). `None` for anything else, or when
    /// the budget was cancelled.
    pub fn hash(&self, entry: &Walked, budget: &HashBudget) -> Option<(String, u64)> {
        if let Some(target) = &entry.link {
            let mut h = Sha256::new();
            h.update(b"symlink:");
            h.update(target.as_bytes());
            return Some((hex::encode(h.finalize()), target.len() as u64));
        }
        if budget.cancelled() {
            return None;
        }
        let (f, st) = self.open_regular(&entry.rel).ok()?;
        let key = Key::of(&st);
        if let Some(h) = cache().lock().ok().and_then(|c| c.get(&key).copied()) {
            return Some((hex::encode(h), key.size));
        }
        let allocated = (st.st_blocks as u64).saturating_mul(512);
        let sparse = key.size >= SPARSE_MIN && allocated < key.size / 2;
        if sparse || key.size > HASH_CAP || !budget.take(key.size) {
            return Some((key.fingerprint(), key.size));
        }
        let digest = read_digest(f, key.size, budget)?;
        if !key.racy() {
            if let Ok(mut c) = cache().lock() {
                if c.len() >= CACHE_CAP {
                    c.clear();
                }
                c.insert(key, digest);
            }
        }
        Some((hex::encode(digest), key.size))
    }
}

/// sha256 of at most `size` bytes of `f`; `None` on a read error or when cancelled.
fn read_digest(f: impl Read, size: u64, budget: &HashBudget) -> Option<[u8; 32]> {
    let mut h = Sha256::new();
    let mut r = f.take(size);
    let mut buf = vec![0u8; CHUNK];
    loop {
        if budget.cancelled() {
            return None;
        }
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                budget.read.fetch_add(n as u64, Ordering::Relaxed);
                h.update(&buf[..n]);
            }
            Err(_) => return None,
        }
    }
    Some(h.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walked(rel: &str) -> Walked {
        Walked {
            rel: rel.into(),
            link: None,
            size: 0,
        }
    }

    #[test]
    fn sparse_files_are_fingerprinted_not_read() {
        let t = tempfile::tempdir().unwrap();
        for i in 0..8 {
            std::fs::File::create(t.path().join(format!("s{i}")))
                .unwrap()
                .set_len(64 << 20)
                .unwrap();
        }
        let tree = Tree::open(t.path()).unwrap();
        let budget = HashBudget::new(u64::MAX);
        for i in 0..8 {
            let (h, size) = tree.hash(&walked(&format!("s{i}")), &budget).unwrap();
            assert_eq!((h.len(), size), (64, 64 << 20));
        }
        assert_eq!(budget.bytes_read(), 0);
    }

    #[test]
    fn the_budget_bounds_the_bytes_read_and_the_cache_skips_unchanged_files() {
        let t = tempfile::tempdir().unwrap();
        for i in 0..4 {
            std::fs::write(t.path().join(format!("f{i}")), vec![b'x'; 100_000]).unwrap();
        }
        let tree = Tree::open(t.path()).unwrap();
        let budget = HashBudget::new(250_000);
        let hashes: Vec<String> = (0..4)
            .map(|i| tree.hash(&walked(&format!("f{i}")), &budget).unwrap().0)
            .collect();
        assert_eq!(budget.bytes_read(), 200_000, "two files fit the budget");
        assert_eq!(hashes[0], hashes[1]);
        assert_ne!(hashes[1], hashes[2], "past the budget: a fingerprint");
    }

    #[test]
    fn a_cached_hash_is_not_read_again_until_the_file_changes() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("f"), "one").unwrap();
        let tree = Tree::open(t.path()).unwrap();
        let (_, st) = tree.open_regular("f").unwrap();
        // Not racy any more (the file is older than RACY): what a cached entry looks like.
        cache().lock().unwrap().insert(Key::of(&st), [7u8; 32]);
        let budget = HashBudget::new(u64::MAX);
        let (h, _) = tree.hash(&walked("f"), &budget).unwrap();
        assert_eq!((h, budget.bytes_read()), (hex::encode([7u8; 32]), 0));
        std::fs::write(t.path().join("f"), "two!").unwrap();
        let (h, _) = tree.hash(&walked("f"), &budget).unwrap();
        assert_eq!(h, hex::encode(Sha256::digest(b"two!")));
    }

    #[test]
    fn a_cancelled_budget_hashes_nothing() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("f"), "x").unwrap();
        let tree = Tree::open(t.path()).unwrap();
        let cancel = Arc::new(AtomicBool::new(true));
        let budget = HashBudget::with_cancel(u64::MAX, cancel);
        assert_eq!(tree.hash(&walked("f"), &budget), None);
    }

    #[test]
    fn a_budget_whose_time_has_run_out_hashes_nothing() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("f"), "x").unwrap();
        let tree = Tree::open(t.path()).unwrap();
        let budget = HashBudget::new(u64::MAX).lasting(Duration::ZERO);
        assert_eq!(tree.hash(&walked("f"), &budget), None);
    }

    #[test]
    fn a_budget_lasting_longer_than_time_can_count_never_runs_out() {
        assert!(!HashBudget::new(1).lasting(Duration::MAX).cancelled());
    }
}
