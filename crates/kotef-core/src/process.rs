//! What the kotef process does to itself before anything else runs, so that a command it
//! starts without a sandbox (the Action's fallback, `--allow-unsandboxed`, `kotef run`) cannot
//! read its secrets from `/proc/<pid>/environ` or its memory:
//!
//! - [`harden`] marks the process non-dumpable (`PR_SET_DUMPABLE` 0: another process of the
//!   same user can neither ptrace it nor open its `/proc/<pid>/{environ,mem}`), then moves
//!   every secret-looking variable ([`is_secret_var`]) out of the environment:
//!   its value is kept in this module, overwritten with zeros in the environment block the
//!   kernel shows as `/proc/<pid>/environ` (which even root could read), and removed.
//! - [`var`] is how kotef reads a variable afterwards: the environment, else the kept secret.
//!
//! [`harden`] must run while the process has one thread (before the tokio runtime starts):
//! changing the environment while another thread reads it is undefined behaviour in libc.

use std::collections::BTreeMap;
use std::sync::OnceLock;

static KEPT: OnceLock<BTreeMap<String, String>> = OnceLock::new();

/// Marks the process non-dumpable and moves its secret-looking environment variables out of
/// the environment (see the module doc). Call once, first thing in `main`, single-threaded.
pub fn harden() {
    set_non_dumpable();
    let mut kept = BTreeMap::new();
    for (name, value) in std::env::vars_os() {
        let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
            continue;
        };
        if !is_secret_var(name) {
            continue;
        }
        kept.insert(name.to_string(), value.to_string());
        zero_in_place(name);
        std::env::remove_var(name);
    }
    let _ = KEPT.set(kept);
}

/// Marks the process non-dumpable (safe to call at any time, from any thread).
pub fn set_non_dumpable() {
    // SAFETY: prctl with PR_SET_DUMPABLE takes plain integers and has no memory effects.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
}

/// Overwrites the value of `name` where the environment block holds it, so the kernel's copy
/// (`/proc/<pid>/environ` reads that memory) no longer shows it.
fn zero_in_place(name: &str) {
    let Ok(c) = std::ffi::CString::new(name) else {
        return;
    };
    // SAFETY: single-threaded (see `harden`); getenv returns a pointer into the environment
    // block's NUL-terminated value, which is writable memory of this process, and we write
    // only within its `strlen`.
    unsafe {
        let p = libc::getenv(c.as_ptr());
        if !p.is_null() {
            let len = libc::strlen(p);
            std::ptr::write_bytes(p, 0, len);
        }
    }
}

/// Whether an environment variable name holds a secret by its name.
pub fn is_secret_var(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "TOKEN",
        "SECRET",
        "KEY",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "PRIVATE",
    ]
    .iter()
    .any(|w| upper.contains(w))
}

/// A variable of the environment, or the secret [`harden`] moved out of it.
pub fn var(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .or_else(|| KEPT.get().and_then(|k| k.get(name).cloned()))
}

/// The secrets [`harden`] moved out of the environment (name, value), for redaction.
pub fn kept_secrets() -> impl Iterator<Item = (&'static str, &'static str)> {
    KEPT.get()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), v.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_marked_non_dumpable_is_not_dumpable() {
        set_non_dumpable();
        // SAFETY: PR_GET_DUMPABLE takes no pointers.
        let dumpable = unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) };
        assert_eq!(dumpable, 0);
    }
}
