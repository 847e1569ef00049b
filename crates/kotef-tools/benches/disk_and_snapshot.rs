//! Figures for issue 29 (rows 6 and 8), printed by
//! `cargo bench -p kotef-tools --bench disk_and_snapshot`:
//!
//! - the disk quota's count (`Tree::allocated`, what one check does besides a `statvfs`):
//!   median time per count over a tree of N small files;
//! - a snapshot's content hashes over a tree holding eight sparse 64 MiB files and 200 small
//!   ones: the old way (every file read whole up to 64 MiB, no cache) against the new one, cold
//!   (first pass) and warm (second pass).

use kotef_tools::quota::MAX_ENTRIES;
use kotef_tools::Tree;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// `n` files of 100 bytes, 100 to a directory.
fn small_tree(root: &Path, n: usize) {
    for i in 0..n {
        let dir = root.join(format!("d{}", i / 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        std::fs::write(dir.join(format!("f{i}.txt")), [b'x'; 100]).unwrap();
    }
}

fn quota_counts() {
    println!("disk quota: one count (Tree::allocated) per check");
    for n in [1_000, 10_000, 50_000] {
        let t = tempfile::tempdir().unwrap();
        small_tree(t.path(), n);
        let tree = Tree::open(t.path()).unwrap();
        let times: Vec<Duration> = (0..15)
            .map(|_| {
                let s = Instant::now();
                let u = tree.allocated(MAX_ENTRIES);
                assert!(u.complete && u.entries >= n);
                s.elapsed()
            })
            .collect();
        println!("  {n:>6} files: median {} per count", ms(median(times)));
    }
}

/// The old snapshot: every walked file read up to 64 MiB and hashed, nothing cached.
fn old_hashes(root: &Path) -> usize {
    let tree = Tree::open(root).unwrap();
    let mut n = 0;
    for w in tree.walk(&[".sdd"]) {
        let mut h = Sha256::new();
        let f = std::fs::File::open(root.join(&w.rel)).unwrap();
        let mut r = f.take(64 << 20);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(k) => h.update(&buf[..k]),
            }
        }
        let _ = h.finalize();
        n += 1;
    }
    n
}

fn snapshots() {
    let t = tempfile::tempdir().unwrap();
    small_tree(t.path(), 200);
    for i in 0..8 {
        std::fs::File::create(t.path().join(format!("sparse{i}.bin")))
            .unwrap()
            .set_len(64 << 20)
            .unwrap();
    }
    println!("snapshot (content hashes) of 200 small files + 8 sparse 64 MiB files");
    let old: Vec<Duration> = (0..3)
        .map(|_| {
            let s = Instant::now();
            assert_eq!(old_hashes(t.path()), 208);
            s.elapsed()
        })
        .collect();
    println!("  before (read everything): median {}", ms(median(old)));
    let s = Instant::now();
    assert_eq!(kotef_tools::content_hashes(t.path()).len(), 208);
    println!("  after, first pass:        {}", ms(s.elapsed()));
    let warm: Vec<Duration> = (0..5)
        .map(|_| {
            let s = Instant::now();
            assert_eq!(kotef_tools::content_hashes(t.path()).len(), 208);
            s.elapsed()
        })
        .collect();
    println!("  after, next passes:       median {}", ms(median(warm)));
}

fn main() {
    quota_counts();
    snapshots();
}
