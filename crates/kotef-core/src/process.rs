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

/// Flags whose value is a secret or the path of one; [`blank_args`] takes them off the
/// command line.
pub const SECRET_FLAGS: &[&str] = &[
    "--webhook-secret",
    "--webhook-secret-file",
    "--github-token",
    "--github-token-file",
    "--app-private-key",
    "--app-private-key-path",
];

/// Overwrites the values of `flags` (`--flag VALUE` and `--flag=VALUE`) with `*` in this
/// process's argument memory, which the kernel shows to every process as
/// `/proc/<pid>/cmdline` (unlike `environ`, it is not guarded by non-dumpable). Call after
/// the command line was parsed, while single-threaded.
pub fn blank_args(flags: &[&str]) {
    let Some((start, end)) = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| arg_range(&s))
    else {
        return;
    };
    if end <= start || end - start > 1 << 20 {
        return;
    }
    // SAFETY: [arg_start, arg_end) is this process's own argument area on its initial stack,
    // writable and alive for the whole process; we write only within it, never its NULs.
    let area = unsafe { std::slice::from_raw_parts_mut(start as *mut u8, end - start) };
    blank_in(area, flags);
}

/// `arg_start` and `arg_end` (fields 48 and 49) of a `/proc/<pid>/stat` line.
fn arg_range(stat: &str) -> Option<(usize, usize)> {
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace().skip(45);
    Some((fields.next()?.parse().ok()?, fields.next()?.parse().ok()?))
}

/// Replaces, in NUL-separated `area`, each value of `flags` with `*`s (pure).
fn blank_in(area: &mut [u8], flags: &[&str]) {
    let mut blank_next = false;
    let mut i = 0;
    while i < area.len() {
        let len = area[i..]
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(area.len() - i);
        let arg = &mut area[i..i + len];
        if blank_next {
            arg.fill(b'*');
            blank_next = false;
        } else if let Some(flag) = flags.iter().find(|f| {
            arg.starts_with(f.as_bytes()) && matches!(arg.get(f.len()), None | Some(b'='))
        }) {
            match arg.get(flag.len()) {
                None => blank_next = true,
                _ => arg[flag.len() + 1..].fill(b'*'),
            }
        }
        i += len + 1;
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
    fn secret_flag_values_are_blanked_in_both_forms() {
        let mut area =
            b"kotef\0serve\0--github-token-file\0/s/tok\0--webhook-secret=abc\0--listen\0x\0"
                .to_vec();
        blank_in(&mut area, SECRET_FLAGS);
        assert_eq!(
            String::from_utf8_lossy(&area).replace('\0', " "),
            "kotef serve --github-token-file ****** --webhook-secret=*** --listen x "
        );
    }

    #[test]
    fn the_argument_range_is_read_past_a_command_name_with_spaces() {
        let fields: Vec<String> = (3..=52).map(|n| n.to_string()).collect();
        let stat = format!("1 (a b) {}", fields.join(" "));
        assert_eq!(arg_range(&stat), Some((48, 49)));
    }

    #[test]
    fn a_process_marked_non_dumpable_is_not_dumpable() {
        set_non_dumpable();
        // SAFETY: PR_GET_DUMPABLE takes no pointers.
        let dumpable = unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) };
        assert_eq!(dumpable, 0);
    }
}
