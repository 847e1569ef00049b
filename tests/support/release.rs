//! A kotef release made from the binary under test, as the release workflow makes it:
//! `scripts/package.sh` packs `kotef-<target>.tar.gz` and `SHA256SUMS` into a directory that
//! a loopback server can publish (used by the installer and quick-start tests).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The asset name the installer picks on this machine (its `detect_target`).
pub fn asset_name() -> String {
    let target = match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "x86_64-unknown-linux-musl",
        ("linux", "aarch64") => "aarch64-unknown-linux-musl",
        ("macos", "x86_64") => "x86_64-apple-darwin",
        ("macos", "aarch64") => "aarch64-apple-darwin",
        (os, arch) => panic!("kotef publishes no release for {os} {arch}"),
    };
    format!("kotef-{target}.tar.gz")
}

pub fn run_script(script: &str, args: &[&Path]) {
    let out = Command::new("sh")
        .arg(repo_root().join(script))
        .args(args)
        .output()
        .expect("sh runs");
    assert!(
        out.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The real `kotef` binary packed once per test run, as the release packs it.
pub fn packed_release() -> &'static Path {
    static PACKED: OnceLock<PathBuf> = OnceLock::new();
    PACKED.get_or_init(|| {
        let dist = Path::new(env!("CARGO_TARGET_TMPDIR")).join("install-release");
        let _ = std::fs::remove_dir_all(&dist);
        std::fs::create_dir_all(&dist).unwrap();
        let target = asset_name()
            .trim_start_matches("kotef-")
            .trim_end_matches(".tar.gz")
            .to_string();
        let binary = Path::new(env!("CARGO_BIN_EXE_kotef"));
        run_script("scripts/package.sh", &[Path::new(&target), binary, &dist]);
        run_script("scripts/package.sh", &[Path::new("--checksums"), &dist]);
        dist
    })
}
