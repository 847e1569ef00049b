//! The one command runner used by the `run_command` tool and the verifier: `sh -c COMMAND` with a
//! scrubbed environment, optionally inside bubblewrap, with a timeout that kills the whole
//! process group, per-stream output caps (head and tail kept), and bounded output draining so a
//! background grandchild holding a pipe can never hang a run.

use crate::env::scrub_env;
use crate::limits::CommandLimits;
use crate::sandbox::{bwrap_args, bwrap_status, EgressMount, Plan};
use kotef_core::SandboxMode;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;

/// How often a running command is checked against its limits.
const LIMIT_SAMPLE: Duration = Duration::from_millis(200);
/// After a timeout kill, how long to wait for the child to be reaped.
const KILL_GRACE: Duration = Duration::from_secs(5);
/// After the command ended, how long its output pipes may stay open (held by a process that
/// escaped the group) before reading is abandoned.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// How commands run.
#[derive(Debug, Clone)]
pub struct RunnerConfig {
    /// Wall-clock time one command may take; the process group is killed after it.
    pub timeout: Duration,
    /// Per stream: when more is printed, the first and last halves are kept with a
    /// `[... N bytes cut ...]` marker in the middle.
    pub output_cap_bytes: usize,
    pub sandbox: SandboxMode,
    /// Added after scrubbing (caller-controlled, e.g. `CI=true`); secret-looking names are still
    /// refused.
    pub extra_env: Vec<(String, String)>,
    /// Paths commands must not read in the sandbox (the operator's data directory, secret
    /// files): directories appear empty, files empty.
    pub hidden_paths: Vec<std::path::PathBuf>,
    /// Memory, processes, file size and disk for one command (see [`crate::limits`]).
    pub limits: CommandLimits,
    /// The network through kotef's egress proxy inside the sandbox (the repository's `setup`
    /// only; the agent's commands never get it). Without a sandbox there is no such wall.
    pub egress: Option<EgressMount>,
    /// The operator's extra read-only paths in the sandbox (`KOTEF_SANDBOX_BINDS`), beside the
    /// system and toolchains [`crate::sandbox::host`] allows.
    pub binds: Vec<std::path::PathBuf>,
    /// Paths commands may read but not write in the sandbox (the work tree's git directory),
    /// bound read-only over the writable workspace.
    pub read_only_paths: Vec<std::path::PathBuf>,
    /// The job's disk baselines, shared by its runners: the disk quota is the job's.
    pub disk_ledger: crate::quota::DiskLedger,
    /// The run's package cache (see [`crate::job_cache`]): written by `setup`, read by the rest.
    pub job_cache: Option<crate::JobCache>,
    /// Loopback ports the sandboxed commands reach (see [`crate::loopback`]).
    pub loopback: Option<crate::loopback::LoopbackMount>,
}

impl Default for RunnerConfig {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(600),
            output_cap_bytes: 64 * 1024,
            sandbox: SandboxMode::Auto,
            extra_env: Vec::new(),
            hidden_paths: Vec::new(),
            egress: None,
            binds: Vec::new(),
            read_only_paths: Vec::new(),
            limits: CommandLimits::operator(),
            disk_ledger: crate::quota::DiskLedger::default(),
            job_cache: None,
            loopback: None,
        }
    }
}

/// What one command did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandResult {
    pub command: String,
    /// `None` when killed (timeout, signal) or when it could not be started.
    pub exit_code: Option<i32>,
    /// Capped (see [`RunnerConfig::output_cap_bytes`]).
    pub stdout: String,
    /// Capped.
    pub stderr: String,
    pub timed_out: bool,
    /// Some output was cut (cap reached, or reading abandoned).
    pub truncated: bool,
    pub duration_ms: u64,
    /// Why the command could not run at all (missing directory, sandbox required but missing).
    pub spawn_error: Option<String>,
    /// The resource limit that stopped it (`processes`, `memory`, `file_size`, `disk`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
}

impl CommandResult {
    /// Why a resource limit stopped the command, in words (`None` when none did).
    pub fn limit_message(&self) -> Option<String> {
        self.limit.as_ref()?;
        let note = self
            .stderr
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("[killed: ")?.strip_suffix(']'))
            .unwrap_or("it was stopped by a resource limit");
        Some(note.to_string())
    }

    /// Exit code 0, no timeout, no spawn error.
    pub fn success(&self) -> bool {
        self.exit_code == Some(0)
            && !self.timed_out
            && self.spawn_error.is_none()
            && self.limit.is_none()
    }

    fn new(command: &str) -> Self {
        Self {
            command: command.to_string(),
            exit_code: None,
            stdout: String::new(),
            stderr: String::new(),
            timed_out: false,
            truncated: false,
            duration_ms: 0,
            spawn_error: None,
            limit: None,
        }
    }
}

/// Runs commands; cheap to clone.
#[derive(Debug, Clone)]
pub struct CommandRunner {
    cfg: Arc<RunnerConfig>,
    /// The environment commands start from, before scrubbing.
    parent_env: Arc<Vec<(String, String)>>,
}

impl CommandRunner {
    /// A runner whose commands start from this process's environment (scrubbed).
    pub fn new(cfg: RunnerConfig) -> Self {
        let parent_env = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        Self {
            cfg: Arc::new(cfg),
            parent_env: Arc::new(parent_env),
        }
    }

    /// Replaces the environment commands start from (still scrubbed); for tests and embedders.
    pub fn with_parent_env(mut self, env: Vec<(String, String)>) -> Self {
        self.parent_env = Arc::new(env);
        self
    }

    pub fn config(&self) -> &RunnerConfig {
        &self.cfg
    }

    /// `"bwrap"` or `"none"`: what is actually in force (`Auto` resolves to bwrap when a working
    /// bwrap is installed; `Bwrap` without one runs nothing and reports `"none"`).
    pub fn sandbox_in_force(&self) -> &'static str {
        match self.cfg.sandbox {
            SandboxMode::None => "none",
            SandboxMode::Auto | SandboxMode::Bwrap => match bwrap_status() {
                Ok(_) => "bwrap",
                Err(_) => "none",
            },
        }
    }

    /// The environment a command gets, `sandboxed` or not: the scrubbed parent's, the extra
    /// variables, then the job cache's variables for where the command sees the cache.
    pub fn command_env(&self, sandboxed: bool) -> Vec<(String, String)> {
        let env = scrub_env(self.parent_env.iter().cloned(), &self.cfg.extra_env);
        match &self.cfg.job_cache {
            Some(cache) => cache.over(env, sandboxed),
            None => env,
        }
    }

    /// Runs `sh -c command` in `cwd`. Never panics, never hangs: on timeout the whole process
    /// group is killed, and reading output is bounded too.
    pub async fn run(&self, command: &str, cwd: &Path) -> CommandResult {
        let start = Instant::now();
        let mut r = self.run_inner(command, cwd).await;
        r.duration_ms = start.elapsed().as_millis() as u64;
        tracing::debug!(
            command = %command,
            exit_code = ?r.exit_code,
            timed_out = r.timed_out,
            duration_ms = r.duration_ms,
            "command finished"
        );
        r
    }

    async fn run_inner(&self, command: &str, cwd: &Path) -> CommandResult {
        let mut r = CommandResult::new(command);
        let prepared = crate::workdir::resolve_cwd(cwd).and_then(|cwd| {
            let use_bwrap = self.sandbox_choice()?;
            let use_bwrap_is_none = use_bwrap.is_none();
            let program = self.program_and_args(use_bwrap, &cwd, command)?;
            Ok((cwd, use_bwrap_is_none, program))
        });
        // The sandbox's temp dir (in `program`) lives until the command has finished.
        let (cwd, use_bwrap_is_none, program) = match prepared {
            Ok(p) => p,
            Err(e) => {
                r.spawn_error = Some(e);
                return r;
            }
        };

        // Processes and memory in a cgroup when kotef may make one, else rlimits; file size
        // always (see `crate::limits`).
        let limits = self.cfg.limits;
        let cgroup = crate::limits::Group::create(&limits);
        let procs = cgroup
            .as_ref()
            .map(crate::limits::Group::procs_files)
            .unwrap_or_default();
        let in_cgroup = cgroup.is_some();
        // SAFETY: geteuid has no preconditions.
        let drop_caps = use_bwrap_is_none && unsafe { libc::geteuid() } == 0;
        let mut cmd = tokio::process::Command::new(&program.path);
        cmd.args(&program.args)
            .current_dir(&cwd)
            .env_clear()
            .envs(self.command_env(!use_bwrap_is_none))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        // SAFETY: `in_child` makes only async-signal-safe calls (open, write, close,
        // setrlimit) on data prepared before the fork.
        unsafe {
            cmd.pre_exec(move || crate::limits::in_child(&procs, &limits, in_cgroup, drop_caps));
        }
        let watch = crate::limits::Watch {
            group: cgroup.as_ref(),
            disk: crate::quota::DiskWatch::start_off_runtime(
                &self.cfg.disk_ledger,
                &cwd,
                program.tmp.as_ref().map(|t| t.path()),
                limits.disk_bytes,
            )
            .await,
        };
        let spawned = kotef_core::reaper::spawn_registered(|| {
            let c = cmd.spawn()?;
            let pid = c.id();
            Ok((c, pid))
        });
        let (mut child, registered) = match spawned {
            Ok(c) => c,
            Err(e) => {
                r.spawn_error = Some(format!("cannot start {}: {e}", program.path.display()));
                return r;
            }
        };
        let group = GroupGuard(child.id().map(|p| p as libc::pid_t));
        let cap = self.cfg.output_cap_bytes;
        let out_buf = Arc::new(Mutex::new(Capped::new(cap)));
        let err_buf = Arc::new(Mutex::new(Capped::new(cap)));
        let out_task = child
            .stdout
            .take()
            .map(|s| tokio::spawn(pump(s, out_buf.clone())));
        let err_task = child
            .stderr
            .take()
            .map(|s| tokio::spawn(pump(s, err_buf.clone())));

        let (mut hit, watch) = wait_or_kill(
            &mut child,
            self.cfg.timeout,
            watch,
            &group,
            cgroup.as_ref(),
            &mut r,
        )
        .await;
        // A limit the command ran into just before it ended (a fork bomb that gave up).
        if hit.is_none() {
            hit = watch.check_now().await;
        }
        // Background processes left in the group are not part of the result, nor are those
        // that left it (`setsid`) and were re-parented to kotef.
        group.kill();
        drop(registered);
        let _ = tokio::task::spawn_blocking(kotef_core::reaper::kill_orphans).await;
        drop(watch);
        if let Some(g) = cgroup {
            let _ = tokio::task::spawn_blocking(move || drop(g)).await;
        }

        let tasks: Vec<_> = out_task.into_iter().chain(err_task).collect();
        let aborts: Vec<_> = tasks.iter().map(|t| t.abort_handle()).collect();
        let drained = tokio::time::timeout(DRAIN_GRACE, futures_join_all(tasks)).await;
        let abandoned = drained.is_err();
        if abandoned {
            for a in aborts {
                a.abort();
            }
        }
        self.finish(&mut r, &out_buf, &err_buf, hit, abandoned);
        r
    }
}

/// What runs a command: the program, its arguments, and the sandbox's temp dir (removed when
/// this is dropped, after the command ended).
struct Program {
    path: PathBuf,
    args: Vec<String>,
    tmp: Option<tempfile::TempDir>,
}

impl CommandRunner {
    /// The bwrap binary to run the command under, `None` to run it directly (no sandbox
    /// asked, or `auto` without a working bwrap, said once); an error when bwrap is required
    /// and missing.
    fn sandbox_choice(&self) -> Result<Option<PathBuf>, String> {
        match self.cfg.sandbox {
            SandboxMode::None => Ok(None),
            mode => match (mode, bwrap_status()) {
                (_, Ok(path)) => Ok(Some(path.clone())),
                (SandboxMode::Bwrap, Err(why)) => Err(format!(
                    "sandbox `bwrap` is required but no working bwrap is available: {why}"
                )),
                (_, Err(why)) => {
                    static WARNED: AtomicBool = AtomicBool::new(false);
                    if !WARNED.swap(true, Ordering::Relaxed) {
                        tracing::warn!(reason = %why, "no working bwrap; commands run without a sandbox");
                    }
                    Ok(None)
                }
            },
        }
    }

    /// The program and arguments that run `command`: bwrap with its arguments and a fresh
    /// temp dir (kept until the command ends), or `/bin/sh -c`.
    fn program_and_args(
        &self,
        use_bwrap: Option<PathBuf>,
        cwd: &Path,
        command: &str,
    ) -> Result<Program, String> {
        let Some(bwrap) = use_bwrap else {
            return Ok(Program {
                path: PathBuf::from("/bin/sh"),
                args: vec!["-c".to_string(), command.to_string()],
                tmp: None,
            });
        };
        let tmp = tempfile::Builder::new()
            .prefix("kotef-sbx-")
            .tempdir()
            .map_err(|e| format!("cannot create the sandbox temp dir: {e}"))?;
        // The home the toolchains are in: the parent's, whatever `HOME` a command is given.
        let home = self
            .parent_env
            .iter()
            .find(|(k, _)| k == "HOME")
            .map(|(_, v)| PathBuf::from(v));
        let plan = Plan {
            hidden: &self.cfg.hidden_paths,
            read_only: &self.cfg.read_only_paths,
            binds: &self.cfg.binds,
            home: home.as_deref(),
            egress: self.cfg.egress.as_ref(),
            job_cache: self
                .cfg
                .job_cache
                .as_ref()
                .map(|c| (c.dir.as_path(), c.writable)),
            loopback: self.cfg.loopback.as_ref(),
            ..Plan::new(cwd, tmp.path())
        };
        let args = bwrap_args(&plan, command);
        Ok(Program {
            path: bwrap,
            args,
            tmp: Some(tmp),
        })
    }

    /// Puts the captured output into `r` with notes for what cut it short: a background
    /// process holding the pipe, a resource limit, the timeout.
    fn finish(
        &self,
        r: &mut CommandResult,
        out_buf: &Arc<Mutex<Capped>>,
        err_buf: &Arc<Mutex<Capped>>,
        hit: Option<crate::limits::LimitHit>,
        abandoned: bool,
    ) {
        let (stdout, t1) = take(out_buf);
        let (stderr, t2) = take(err_buf);
        r.stdout = stdout;
        r.stderr = stderr;
        r.truncated = t1 || t2 || abandoned;
        if abandoned {
            r.stderr.push_str(
                "\n[output reading stopped: a background process kept the output pipe open]\n",
            );
        }
        if let Some(h) = hit {
            r.limit = Some(h.as_str().to_string());
            r.stderr
                .push_str(&format!("\n[killed: {}]\n", h.message(&self.cfg.limits)));
        }
        if r.timed_out {
            let note = format!(
                "\n[killed: timed out after {} ms]\n",
                self.cfg.timeout.as_millis()
            );
            r.stderr.push_str(&note);
        }
    }
}

/// Waits for `child` until it ends, its time is up or `watch` finds a limit hit, killing its
/// process group (and cgroup) in the last two cases; the exit code or the timeout goes into
/// `r`, the limit hit is returned with the watch (owned here, not borrowed across the waits:
/// it is not `Sync`).
async fn wait_or_kill<'a>(
    child: &mut tokio::process::Child,
    timeout: Duration,
    watch: crate::limits::Watch<'a>,
    group: &GroupGuard,
    cgroup: Option<&crate::limits::Group>,
    r: &mut CommandResult,
) -> (Option<crate::limits::LimitHit>, crate::limits::Watch<'a>) {
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let mut ticks = tokio::time::interval(LIMIT_SAMPLE);
    let mut hit = None;
    loop {
        tokio::select! {
            status = child.wait() => {
                match status {
                    Ok(status) => {
                        use std::os::unix::process::ExitStatusExt;
                        r.exit_code = status.code();
                        hit = crate::limits::hit_from_exit(status.code(), status.signal());
                    }
                    Err(e) => r.spawn_error = Some(format!("waiting for the command failed: {e}")),
                }
                break;
            }
            _ = &mut deadline => {
                r.timed_out = true;
                group.kill();
                let _ = tokio::time::timeout(KILL_GRACE, child.wait()).await;
                break;
            }
            _ = ticks.tick() => {
                if let Some(h) = watch.check().await {
                    hit = Some(h);
                    group.kill();
                    if let Some(g) = cgroup {
                        g.kill_all();
                    }
                    let _ = tokio::time::timeout(KILL_GRACE, child.wait()).await;
                    r.exit_code = None;
                    break;
                }
            }
        }
    }
    (hit, watch)
}

async fn futures_join_all(tasks: Vec<tokio::task::JoinHandle<()>>) {
    for t in tasks {
        let _ = t.await;
    }
}

async fn pump<R: tokio::io::AsyncRead + Unpin>(mut src: R, buf: Arc<Mutex<Capped>>) {
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match src.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if let Ok(mut b) = buf.lock() {
                    b.push(&chunk[..n]);
                }
            }
        }
    }
}

fn take(buf: &Arc<Mutex<Capped>>) -> (String, bool) {
    match buf.lock() {
        Ok(b) => b.render(),
        Err(_) => (String::new(), true),
    }
}

/// Kills the process group (SIGKILL) on demand and when dropped (a cancelled run leaves nothing
/// behind).
struct GroupGuard(Option<libc::pid_t>);

impl GroupGuard {
    fn kill(&self) {
        if let Some(pgid) = self.0 {
            if pgid > 1 {
                // SAFETY: killpg has no memory-safety preconditions; pgid is our child's group.
                unsafe {
                    libc::killpg(pgid, libc::SIGKILL);
                }
            }
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A byte sink keeping the first and last halves of the cap and counting what was cut.
#[derive(Debug)]
pub(crate) struct Capped {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    head_cap: usize,
    tail_cap: usize,
    total: u64,
}

impl Capped {
    pub(crate) fn new(cap: usize) -> Self {
        let head_cap = cap / 2;
        Self {
            head: Vec::new(),
            tail: VecDeque::new(),
            head_cap,
            tail_cap: cap - head_cap,
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if self.head.len() < self.head_cap {
            let n = (self.head_cap - self.head.len()).min(data.len());
            self.head.extend_from_slice(&data[..n]);
            data = &data[n..];
        }
        if self.tail_cap == 0 || data.is_empty() {
            return;
        }
        if data.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&data[data.len() - self.tail_cap..]);
        } else {
            let overflow = (self.tail.len() + data.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..overflow);
            self.tail.extend(data);
        }
    }

    /// The kept text (lossy UTF-8) and whether anything was cut.
    pub(crate) fn render(&self) -> (String, bool) {
        let kept = (self.head.len() + self.tail.len()) as u64;
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        if kept == self.total {
            let mut all = self.head.clone();
            all.extend_from_slice(&tail);
            return (String::from_utf8_lossy(&all).into_owned(), false);
        }
        let cut = self.total - kept;
        let text = format!(
            "{}\n[... {cut} bytes cut ...]\n{}",
            String::from_utf8_lossy(&self.head),
            String::from_utf8_lossy(&tail)
        );
        (text, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_keeps_head_and_tail() {
        let mut c = Capped::new(10);
        c.push(b"0123");
        c.push(b"456789abcdefgh");
        c.push(b"XYZ");
        let (s, cut) = c.render();
        assert!(cut);
        assert_eq!(s, "01234\n[... 11 bytes cut ...]\nghXYZ");
    }

    #[test]
    fn capped_under_limit_is_verbatim() {
        let mut c = Capped::new(10);
        c.push(b"hello");
        c.push(b"world");
        assert_eq!(c.render(), ("helloworld".to_string(), false));
        let mut z = Capped::new(0);
        z.push(b"abc");
        assert_eq!(z.render(), ("\n[... 3 bytes cut ...]\n".to_string(), true));
    }

    #[test]
    fn success_needs_zero_exit_and_nothing_else() {
        let mut r = CommandResult::new("true");
        r.exit_code = Some(0);
        assert!(r.success());
        r.timed_out = true;
        assert!(!r.success());
        r.timed_out = false;
        r.exit_code = Some(1);
        assert!(!r.success());
    }
}
