//! The repository's `setup` command (`kotef.toml`): run once in the work tree before the
//! graph, so the tests find their dependencies. It gets the network (package registries) but
//! not the agent's command policy, runs in the run's sandbox when there is one (so on a server
//! it can write only the work tree and its own `/tmp`), with a scrubbed environment, a timeout
//! and an output cap. In the sandbox its network is not the host's: it reaches the public
//! internet through kotef's egress proxy ([`kotef_tools::egress`]), never loopback, cloud
//! metadata or the host's private ranges (the operator may name hosts, or turn it off, with
//! `KOTEF_SETUP_NETWORK`). A failure ends the run before any model call with [`SetupFailed`],
//! which quotes the end of the output and what the proxy refused.

use kotef_core::Redactor;
use kotef_tools::egress::{self, EgressPolicy, EgressProxy};
use kotef_tools::sandbox::EgressMount;
use kotef_tools::{CommandResult, CommandRunner, RunnerConfig};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// Seconds `setup` may take when `setup_timeout_s` is not set.
pub const DEFAULT_SETUP_TIMEOUT_S: u64 = 600;
/// Lines of output a failure quotes.
const QUOTED_LINES: usize = 20;

/// The kotef executable, which runs inside `setup`'s sandbox as the egress bridge. Set by the
/// `kotef` binary at start; a process that never sets it (a library user) runs `setup`
/// sandboxed without network.
static BRIDGE: OnceLock<PathBuf> = OnceLock::new();

/// Names the executable that serves as the egress bridge (the `kotef` binary itself).
pub fn set_bridge_exe(path: PathBuf) {
    let _ = BRIDGE.set(path);
}

/// The bridge executable, when this process named one.
pub fn bridge_exe() -> Option<&'static PathBuf> {
    BRIDGE.get()
}

/// `setup` did not succeed; the message names the command, how it ended and its last lines.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the repository's setup command `{command}` {ended}{output}")]
pub struct SetupFailed {
    pub command: String,
    pub ended: String,
    /// The end of its output (redacted), on its own lines; empty when it printed nothing.
    pub output: String,
}

/// How a failed `setup` ended, in words (pure).
pub fn failure(result: &CommandResult, timeout: Duration, redactor: &Redactor) -> SetupFailed {
    let ended = if let Some(e) = &result.spawn_error {
        format!("could not start: {e}")
    } else if result.timed_out {
        format!("did not finish within {}s", timeout.as_secs())
    } else {
        match result.exit_code {
            Some(code) => format!("failed (exit {code})"),
            None => "was killed".to_string(),
        }
    };
    let text = format!("{}\n{}", result.stdout, result.stderr);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(QUOTED_LINES)..].join("\n");
    SetupFailed {
        command: result.command.clone(),
        ended,
        output: if tail.is_empty() {
            String::new()
        } else {
            format!(":\n{}", redactor.redact(&tail))
        },
    }
}

/// Runs `command` in `root` with `base`'s sandbox, hidden and read-only paths, plus the
/// network (through the egress proxy when sandboxed) and `timeout`. Inside the sandbox `HOME`
/// is a fresh private tmpfs holding only the toolchains, so package managers have somewhere
/// to keep their caches; what must last goes into the work tree (a `.venv`, `node_modules`) or
/// the job's package cache, which `setup` alone may write (`pip install` outside a virtualenv
/// falls back to it, `npm install -g`, `gem install`; see [`kotef_tools::job_cache`]).
pub async fn run(
    command: &str,
    root: &Path,
    base: &RunnerConfig,
    timeout: Duration,
    redactor: &Redactor,
) -> Result<(), SetupFailed> {
    // Its own disk quota: what the repository's setup installs is not the agent's to spend.
    let mut cfg = RunnerConfig {
        timeout,
        disk_ledger: kotef_tools::DiskLedger::default(),
        ..base.clone()
    };
    if let Some(cache) = cfg.job_cache.as_mut() {
        cache.writable = true;
    }
    let sandboxed = CommandRunner::new(cfg.clone()).sandbox_in_force() == "bwrap";
    let mut proxy = None;
    if sandboxed {
        cfg.extra_env
            .push(("npm_config_cache".into(), "/tmp/.npm".into()));
        let policy = policy_from_env();
        match (BRIDGE.get(), policy.any()) {
            (Some(bridge), true) => match EgressProxy::start(policy) {
                Ok(p) => {
                    cfg.egress = Some(EgressMount {
                        socket: p.socket().to_path_buf(),
                        bridge: bridge.clone(),
                        port: egress::BRIDGE_PORT,
                    });
                    cfg.extra_env.extend(egress::proxy_env(egress::BRIDGE_PORT));
                    proxy = Some(p);
                }
                Err(e) => tracing::warn!(error = %e, "setup: no egress proxy; no network"),
            },
            (None, true) => tracing::warn!("setup: no egress bridge in this process; no network"),
            (_, false) => {}
        }
    }
    let result = CommandRunner::new(cfg).run(command, root).await;
    if result.success() {
        return Ok(());
    }
    let mut failed = failure(&result, timeout, redactor);
    let refused = proxy.map(|p| p.refusals()).unwrap_or_default();
    if !refused.is_empty() {
        failed.output.push_str(&format!(
            "\n(kotef refused setup's network requests to {})",
            redactor.redact(&refused.join("; "))
        ));
    }
    Err(failed)
}

/// The operator's `KOTEF_SETUP_NETWORK` (the public internet when unset; a bad value is
/// reported and means no network).
/// Most entries [`created`] names; past it the rest of what `setup` made is committed as usual.
pub const MAX_CREATED: usize = 200;

/// The files `git add -A` would see in `tree` now (ignore files honoured), for [`created`].
pub async fn visible_files(tree: &kotef_tools::Tree) -> std::collections::BTreeSet<String> {
    let tree = tree.clone();
    tokio::task::spawn_blocking(move || tree.walk(&[]).into_iter().map(|w| w.rel).collect())
        .await
        .unwrap_or_default()
}

/// What `setup` created, as the roots to leave out of the commit: for each file that is new
/// since `before`, its highest folder that did not exist before (`.venv/`, `src/pkg.egg-info/`),
/// else the file itself. Sorted, at most [`MAX_CREATED`]. Pure.
pub fn created(
    before: &std::collections::BTreeSet<String>,
    after: &std::collections::BTreeSet<String>,
) -> Vec<String> {
    let mut dirs = std::collections::BTreeSet::new();
    for f in before {
        let mut end = 0;
        while let Some(i) = f[end..].find('/') {
            end += i + 1;
            dirs.insert(&f[..end]);
        }
    }
    let mut roots = std::collections::BTreeSet::new();
    for f in after.difference(before) {
        let mut end = 0;
        let mut root = f.as_str();
        while let Some(i) = f[end..].find('/') {
            end += i + 1;
            if !dirs.contains(&f[..end]) {
                root = &f[..end];
                break;
            }
        }
        roots.insert(root.to_string());
        if roots.len() >= MAX_CREATED {
            break;
        }
    }
    roots.into_iter().collect()
}

fn policy_from_env() -> EgressPolicy {
    match std::env::var("KOTEF_SETUP_NETWORK") {
        Err(_) => EgressPolicy::default(),
        Ok(v) => EgressPolicy::parse(&v).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "setup gets no network");
            EgressPolicy::off()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(files: &[&str]) -> std::collections::BTreeSet<String> {
        files.iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn a_folder_setup_made_is_left_out_whole() {
        let before = set(&["setup.py", "src/pkg/__init__.py"]);
        let after = set(&[
            "setup.py",
            "src/pkg/__init__.py",
            ".venv/bin/python",
            ".venv/lib/site.py",
            "src/pkg.egg-info/PKG-INFO",
            "src/pkg/_version.py",
        ]);
        assert_eq!(
            created(&before, &after),
            [".venv/", "src/pkg.egg-info/", "src/pkg/_version.py"]
        );
    }

    #[test]
    fn nothing_new_is_nothing_left_out() {
        let files = set(&["a.py", "b/c.py"]);
        assert!(created(&files, &files).is_empty());
    }

    fn result(exit: Option<i32>, stderr: &str) -> CommandResult {
        CommandResult {
            command: "pip install -r requirements.txt".into(),
            exit_code: exit,
            stdout: String::new(),
            stderr: stderr.into(),
            timed_out: false,
            truncated: false,
            duration_ms: 5,
            spawn_error: None,
            limit: None,
        }
    }

    #[test]
    fn a_failure_quotes_the_command_its_exit_and_its_last_lines() {
        let r = result(
            Some(1),
            "Collecting nope\nERROR: No matching distribution found for nope\n",
        );
        let e = failure(&r, Duration::from_secs(600), &Redactor::new());
        insta::assert_snapshot!(e.to_string(), @r"
        the repository's setup command `pip install -r requirements.txt` failed (exit 1):
        Collecting nope
        ERROR: No matching distribution found for nope
        ");
    }

    #[test]
    fn a_timeout_says_how_long_it_had() {
        let mut r = result(None, "");
        r.timed_out = true;
        let e = failure(&r, Duration::from_secs(30), &Redactor::new());
        assert_eq!(e.ended, "did not finish within 30s");
    }

    #[test]
    fn a_secret_in_the_output_is_redacted() {
        let mut red = Redactor::new();
        red.add("sk-live-abcdef0123456789");
        let r = result(Some(1), "token sk-live-abcdef0123456789 refused");
        assert!(!failure(&r, Duration::from_secs(1), &red)
            .to_string()
            .contains("sk-live"));
    }
}
