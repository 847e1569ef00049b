//! Running one host git command: the token only in the child's environment (an
//! `extraHeader` for the repository's URL), the `-c` hardening every call gets, a timeout and
//! an output cap, and the output redacted.

use super::*;

#[derive(Debug)]
pub(super) struct Output {
    pub(super) ok: bool,
    pub(super) code: Option<i32>,
    pub(super) stdout: String,
    pub(super) stderr: String,
    /// stdout went past its cap (what is past it was dropped, or git was stopped there).
    pub(super) truncated: bool,
}

/// What happens to git's stdout past its cap.
#[derive(Debug, Clone, Copy)]
pub(super) enum Past {
    /// It is read and dropped, so git never blocks on a full pipe and ends as it would.
    Drop,
    /// git is killed at the first byte past it (a blob read: the prefix is all kotef wants).
    Kill,
}

/// Reads `r` to its end keeping at most `cap` bytes, and whether more came; with
/// [`Past::Kill`] it returns at the first byte past the cap instead (the caller then kills the
/// writer). The writer is never left blocked on a pipe nobody reads.
async fn read_capped<R: tokio::io::AsyncRead + Unpin>(
    r: &mut R,
    cap: u64,
    past: Past,
) -> std::io::Result<(Vec<u8>, bool)> {
    let mut kept = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut over = false;
    loop {
        let n = r.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        let room = cap.saturating_sub(kept.len() as u64).min(n as u64) as usize;
        kept.extend_from_slice(&buf[..room]);
        if n > room {
            over = true;
            if matches!(past, Past::Kill) {
                break;
            }
        }
    }
    Ok((kept, over))
}

/// The environment that gives git the token: an `Authorization` header scoped to `url` (the
/// repository's own URL, so a remote or push URL pointing elsewhere never receives it), for
/// http(s) remotes only.
pub(super) fn auth_env(url: &str, token: Option<&Secret>) -> Vec<(String, Secret)> {
    match token {
        Some(t)
            if !t.expose_secret().is_empty()
                && (url.starts_with("https://") || url.starts_with("http://")) =>
        {
            let basic = base64::engine::general_purpose::STANDARD
                .encode(format!("x-access-token:{}", t.expose_secret()));
            vec![
                ("GIT_CONFIG_COUNT".into(), "1".into()),
                (
                    "GIT_CONFIG_KEY_0".into(),
                    format!("http.{url}.extraHeader").into(),
                ),
                (
                    "GIT_CONFIG_VALUE_0".into(),
                    format!("Authorization: Basic {basic}").into(),
                ),
            ]
        }
        _ => vec![("GIT_CONFIG_COUNT".into(), "0".into())],
    }
}

/// A redactor for the token as given and in the `x-access-token:` Basic form git sends.
pub(super) fn token_redactor(token: Option<&Secret>) -> Redactor {
    let mut redactor = Redactor::new();
    if let Some(t) = token.filter(|t| !t.expose_secret().is_empty()) {
        redactor.add(t.expose_secret());
        redactor.add(
            base64::engine::general_purpose::STANDARD
                .encode(format!("x-access-token:{}", t.expose_secret())),
        );
    }
    redactor
}

/// How one git command runs: the settings, the empty `HOME`, the token's environment and
/// the redactor for its output.
pub(super) struct GitEnv<'a> {
    pub(super) settings: &'a GitSettings,
    pub(super) home: &'a Path,
    pub(super) auth: &'a [(String, Secret)],
    pub(super) redactor: &'a Redactor,
}

/// `-c` settings every host git call gets: no credential helper, hooks, fsmonitor, attribute
/// file, ssh command or transport but http(s) (and `file` when the remotes are `file://`).
pub(super) fn hardening(settings: &GitSettings) -> Vec<&'static str> {
    let mut c = vec![
        "credential.helper=",
        "core.hooksPath=/dev/null",
        "core.fsmonitor=false",
        "core.attributesFile=/dev/null",
        "core.sshCommand=false",
        "submodule.recurse=false",
        "protocol.allow=never",
        "protocol.https.allow=always",
        "protocol.http.allow=always",
    ];
    if settings.base_url.starts_with("file://") {
        c.push("protocol.file.allow=always");
    }
    c
}

/// Runs git in `cwd`; `dirs` (git directory, work tree) are passed explicitly so nothing in
/// the work tree (a `.git` file, directory or symlink) decides which repository git opens.
/// Output past the settings' cap is read and dropped.
pub(super) async fn run_git(
    cwd: &Path,
    dirs: Option<(&Path, &Path)>,
    args: &[&str],
    env: &GitEnv<'_>,
) -> Result<Output, GitError> {
    let cap = env.settings.output_cap as u64;
    run_git_capped(cwd, dirs, args, env, (cap, Past::Drop)).await
}

/// As [`run_git`], with stdout kept up to `stdout.0` bytes and `stdout.1` saying what happens
/// past it.
pub(super) async fn run_git_capped(
    cwd: &Path,
    dirs: Option<(&Path, &Path)>,
    args: &[&str],
    env: &GitEnv<'_>,
    stdout: (u64, Past),
) -> Result<Output, GitError> {
    let GitEnv {
        settings,
        home,
        auth,
        redactor,
    } = env;
    let step = args.first().copied().unwrap_or("git").to_string();
    let mut cmd = tokio::process::Command::new("git");
    for c in hardening(settings) {
        cmd.arg("-c").arg(c);
    }
    if let Some((git_dir, work_tree)) = dirs {
        cmd.arg("--git-dir").arg(git_dir);
        cmd.arg("--work-tree").arg(work_tree);
    }
    cmd.args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .env("LC_ALL", "C")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_ASKPASS", "/bin/false")
        .env("SSH_ASKPASS", "/bin/false")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_ATTR_NOSYSTEM", "1")
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .env("GIT_AUTHOR_NAME", &settings.author_name)
        .env("GIT_AUTHOR_EMAIL", &settings.author_email)
        .env("GIT_COMMITTER_NAME", &settings.author_name)
        .env("GIT_COMMITTER_EMAIL", &settings.author_email)
        .envs(auth.iter().map(|(k, v)| (k.as_str(), v.expose_secret())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let fail = |message: String| GitError {
        step: step.clone(),
        message: redactor.redact(&message),
    };
    let (mut child, _registered) = kotef_core::reaper::spawn_registered(|| {
        let c = cmd.spawn()?;
        let pid = c.id();
        Ok((c, pid))
    })
    .map_err(|e| fail(format!("cannot start git: {e}")))?;
    let cap = settings.output_cap as u64;
    let (Some(mut out), Some(mut err)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(fail("git's output is not piped".into()));
    };
    let work = async {
        let (r1, r2) = tokio::join!(
            async {
                let r = read_capped(&mut out, stdout.0, stdout.1).await;
                if matches!(stdout.1, Past::Kill) && r.as_ref().is_ok_and(|(_, over)| *over) {
                    let _ = child.start_kill();
                }
                r
            },
            read_capped(&mut err, cap, Past::Drop)
        );
        let ((o, over), (e, _)) = (r1?, r2?);
        let status = child.wait().await?;
        Ok::<_, std::io::Error>((status, o, e, over))
    };
    let (status, o, e, over) = match tokio::time::timeout(settings.timeout, work).await {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => return Err(fail(format!("git i/o error: {e}"))),
        Err(_) => {
            return Err(fail(format!(
                "timed out after {}s",
                settings.timeout.as_secs()
            )))
        }
    };
    Ok(Output {
        ok: status.success(),
        code: status.code(),
        stdout: redactor.redact(&String::from_utf8_lossy(&o)),
        stderr: redactor.redact(&String::from_utf8_lossy(&e)),
        truncated: over,
    })
}

pub(super) fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    /// 200 KiB through a 64 KiB pipe: with `Drop` the writer finishes (everything past the cap
    /// is read and dropped); with `Kill` the reader returns at the cap.
    #[tokio::test]
    async fn output_past_the_cap_never_blocks_the_writer() {
        for past in [Past::Drop, Past::Kill] {
            let (mut w, mut r) = tokio::io::duplex(64 * 1024);
            let writer = tokio::spawn(async move {
                let _ = w.write_all(&vec![b'x'; 200 * 1024]).await;
            });
            let (kept, over) = read_capped(&mut r, 1000, past).await.unwrap();
            assert_eq!((kept.len(), over), (1000, true));
            if matches!(past, Past::Drop) {
                writer.await.unwrap();
            } else {
                drop(r);
                writer.await.unwrap();
            }
        }
    }
}
