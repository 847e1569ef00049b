//! Running a command as an unprivileged user (uid and gid 65534) when the tests run as root,
//! as a runner's or a server's commands run.

use std::path::Path;

/// The prefix that runs a command as the unprivileged user.
pub const SETPRIV: [&str; 4] = [
    "setpriv",
    "--reuid=65534",
    "--regid=65534",
    "--clear-groups",
];

/// Whether the tests run as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Hands `dir` and all below it to the unprivileged user.
pub fn chown(dir: &Path) {
    let ok = std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(dir)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "chown {}", dir.display());
}

/// The prefix that runs a command as an unprivileged user (none when the tests are not
/// root), after handing `dirs` to that user; `None` when that cannot be done here.
pub fn prefix(dirs: &[&Path]) -> Option<Vec<&'static str>> {
    if !is_root() {
        return Some(Vec::new());
    }
    let setpriv = std::process::Command::new("setpriv")
        .arg("--version")
        .output();
    if !setpriv.is_ok_and(|o| o.status.success()) {
        return None;
    }
    for d in dirs {
        chown(d);
    }
    Some(SETPRIV.to_vec())
}
