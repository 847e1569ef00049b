//! The config a run gets. The repository's `kotef.toml` (or the file the job names instead) is
//! read from the trusted branch — the base branch, also for a run on a pull request — then laid
//! under the job's profile, limits and test command. On a server ([`Trust::Untrusted`]) the
//! file's operator-only fields (`[model]`, `sandbox`) are dropped and named, the operator's
//! model and sandbox are used, and the limits are clamped to the operator's ceilings; in the
//! Action the repository is the operator and only the Action's own ceilings apply.

use crate::outbound::workspace::Workspace;
use crate::pipeline::OperatorSettings;
use crate::queue::job::Job;
use kotef_core::config::CONFIG_FILES;
use kotef_core::{KotefConfig, Limits, Profile, Trust};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a run is given, and what the operator's rules changed on the way.
#[derive(Debug, Clone)]
pub struct Effective {
    pub config: KotefConfig,
    pub profile: Profile,
    pub limits: Limits,
    /// One sentence per ignored field or lowered limit, for the comment and the report.
    pub notes: Vec<String>,
}

/// The config the run gets: the repository's file (trimmed to what it may set on a server),
/// then the job's profile, limits and test command, then the operator's model, sandbox and
/// ceilings.
pub fn effective_config(
    repo_config: KotefConfig,
    job: &Job,
    operator: &OperatorSettings,
    model: Option<&str>,
) -> Effective {
    let mut notes = Vec::new();
    let mut config = match operator.trust {
        Trust::Operator => repo_config,
        Trust::Untrusted => {
            let (mut c, ignored) = repo_config.repository_part();
            notes.extend(ignored.iter().map(ToString::to_string));
            c.model = operator.model.clone();
            c.test.ceiling = Some(operator.loopback_ports.clone());
            if c.test.network == Some(kotef_core::TestNetwork::Loopback)
                && operator.loopback_ports.is_empty()
            {
                notes.push(
                    "ignored `[test] network = \"loopback\"`: the operator allows no loopback ports (KOTEF_LOOPBACK_PORTS)".into(),
                );
            }
            c
        }
    };
    if let Some(s) = operator.sandbox {
        config.sandbox = Some(s);
    }
    let profile = job.profile.or(config.profile).unwrap_or_default();
    config.profile = Some(profile);
    if let Some(m) = model {
        config.model.name = Some(m.to_string());
    }
    if let Some(t) = job.test_command.as_deref().filter(|t| !t.trim().is_empty()) {
        config.test_command = Some(t.to_string());
    }
    config.limits = job.limits.over(&config.limits);
    let mut limits = config.limits(profile);
    notes.extend(
        operator
            .ceilings
            .clamp(&mut limits)
            .iter()
            .map(ToString::to_string),
    );
    // The run resolves its limits from the config again: hand it exactly these.
    config.limits = limits.as_override();
    Effective {
        config,
        profile,
        limits,
        notes,
    }
}

/// Reads the repository's config as it is on the trusted revision `rev` (the base branch):
/// `config_path` when given (a relative path inside the repository; an absolute one is the
/// operator's own file), else `kotef.toml` / `.github/kotef.toml`.
pub(crate) async fn load_repo_config(
    config_path: Option<&PathBuf>,
    ws: &Workspace,
    rev: &str,
) -> Result<KotefConfig, String> {
    if let Some(p) = config_path.filter(|p| p.is_absolute()) {
        return read_bounded(p)
            .await
            .and_then(|text| KotefConfig::parse(&text, p).map_err(|e| e.to_string()));
    }
    let candidates: Vec<PathBuf> = match config_path {
        Some(p) => vec![p.clone()],
        None => CONFIG_FILES.iter().map(PathBuf::from).collect(),
    };
    for path in &candidates {
        match ws
            .file_on_branch(rev, path, MAX_CONFIG_BYTES)
            .await
            .map_err(|e| e.to_string())?
        {
            Some(f) if f.truncated => {
                return Err(format!(
                    "cannot read {}: {} bytes, larger than {MAX_CONFIG_BYTES}",
                    path.display(),
                    f.size
                ))
            }
            Some(f) => {
                return KotefConfig::parse(&f.text, Path::new(path)).map_err(|e| e.to_string())
            }
            None if config_path.is_some() => {
                return Err(format!(
                    "cannot read {}: not found on {rev}",
                    path.display()
                ))
            }
            None => {}
        }
    }
    Ok(KotefConfig::default())
}

/// The largest config file read from disk.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// How long reading a config file from disk may take.
const CONFIG_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Reads the config file at `path` off the async threads, bounded in time and size: only a
/// regular file (not a FIFO or device that could block for ever), at most
/// [`MAX_CONFIG_BYTES`], within [`CONFIG_READ_TIMEOUT`].
async fn read_bounded(path: &Path) -> Result<String, String> {
    let shown = path.display().to_string();
    let path = path.to_path_buf();
    let read = tokio::task::spawn_blocking(move || -> Result<String, String> {
        use std::io::Read as _;
        let meta = std::fs::metadata(&path).map_err(|e| e.to_string())?;
        if !meta.is_file() {
            return Err("not a regular file".into());
        }
        let mut text = String::new();
        std::fs::File::open(&path)
            .map_err(|e| e.to_string())?
            .take(MAX_CONFIG_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| e.to_string())?;
        if text.len() as u64 > MAX_CONFIG_BYTES {
            return Err(format!("larger than {MAX_CONFIG_BYTES} bytes"));
        }
        Ok(text)
    });
    match tokio::time::timeout(CONFIG_READ_TIMEOUT, read).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!(
            "reading it took longer than {}s",
            CONFIG_READ_TIMEOUT.as_secs()
        )),
    }
    .map_err(|e| format!("cannot read {shown}: {e}"))
}

/// Bytes read of one instruction file: enough for the characters the agent is given.
const INSTRUCTION_FILE_BYTES: u64 = 4 * kotef_core::config::MAX_INSTRUCTION_FILE_CHARS as u64;

/// The repository's instruction files (`AGENTS.md`, `.sdd/*.md`) as they are on the trusted
/// revision `rev`; missing ones are left out.
pub(crate) async fn instruction_files(ws: &Workspace, rev: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for path in kotef_core::config::INSTRUCTION_FILES {
        // Only the start of a long file is used: no more is read.
        if let Ok(Some(f)) = ws
            .file_on_branch(rev, Path::new(path), INSTRUCTION_FILE_BYTES)
            .await
        {
            out.push((path, f.text));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_core::{Ceilings, SandboxMode};

    fn job() -> Job {
        crate::queue::job::test_job("d", 1)
    }

    fn operator(trust: Trust) -> OperatorSettings {
        OperatorSettings {
            trust,
            ..OperatorSettings::server()
        }
    }

    fn repo(text: &str) -> KotefConfig {
        KotefConfig::parse(text, Path::new("kotef.toml")).unwrap()
    }

    #[test]
    fn job_settings_win_over_the_repository_config() {
        let mut job = job();
        job.limits.max_steps = Some(9);
        let e = effective_config(
            repo("profile = \"yolo\"\n[limits]\nmax_steps = 50\nfix_attempts = 1\n"),
            &job,
            &operator(Trust::Operator),
            None,
        );
        assert_eq!(e.profile, Profile::Yolo);
        assert_eq!(e.limits.max_steps, 9);
        assert_eq!(e.limits.fix_attempts, 1);
    }

    const LOOPBACK: &str = "[test]\nnetwork = \"loopback\"\nports = [5432, 22]\n";

    #[test]
    fn on_a_server_a_repository_reaches_only_the_operators_loopback_ports() {
        let mut o = operator(Trust::Untrusted);
        o.loopback_ports = vec![5432];
        let e = effective_config(repo(LOOPBACK), &job(), &o, None);
        assert_eq!(e.config.test.loopback_ports([]), [5432]);
    }

    #[test]
    fn on_a_server_without_loopback_ports_the_setting_is_ignored_and_named() {
        let e = effective_config(repo(LOOPBACK), &job(), &operator(Trust::Untrusted), None);
        assert!(e.config.test.loopback_ports([]).is_empty());
        assert!(
            e.notes
                .iter()
                .any(|n| n.starts_with("ignored `[test] network")),
            "{:?}",
            e.notes
        );
    }

    #[test]
    fn in_the_action_the_repositorys_loopback_ports_are_taken_whole() {
        let e = effective_config(repo(LOOPBACK), &job(), &operator(Trust::Operator), None);
        assert_eq!(e.config.test.loopback_ports([]), [22, 5432]);
    }

    #[test]
    fn a_server_ignores_the_repository_model_and_names_it() {
        let mut o = operator(Trust::Untrusted);
        o.model.base_url = Some("http://operator.example/v1".into());
        let e = effective_config(
            repo(
                "[model]\nname = \"scripted:/etc/passwd\"\nbase_url = \"http://evil.example/v1\"\n",
            ),
            &job(),
            &o,
            Some("openai:operator-model"),
        );
        assert_eq!(
            e.config.model.name.as_deref(),
            Some("openai:operator-model")
        );
        assert_eq!(
            e.config.model.base_url.as_deref(),
            Some("http://operator.example/v1")
        );
        assert!(e.notes[0].contains("`[model] base_url`"), "{:?}", e.notes);
        assert!(e.notes[1].contains("`[model] name`"), "{:?}", e.notes);
    }

    #[test]
    fn a_server_keeps_its_own_sandbox() {
        let mut o = operator(Trust::Untrusted);
        o.sandbox = Some(SandboxMode::Bwrap);
        let e = effective_config(repo("sandbox = \"none\"\n"), &job(), &o, None);
        assert_eq!(e.config.sandbox, Some(SandboxMode::Bwrap));
        assert!(e.notes[0].starts_with("ignored `sandbox`"), "{:?}", e.notes);
    }

    #[test]
    fn a_server_clamps_repository_limits_and_hands_the_run_the_clamped_ones() {
        let e = effective_config(
            repo("[limits]\ntoken_budget = 999999999999\ntime_budget_s = 999999\n"),
            &job(),
            &operator(Trust::Untrusted),
            None,
        );
        assert_eq!(e.limits.token_budget, 2_000_000);
        assert_eq!(e.limits.time_budget_s, 3600);
        assert_eq!(e.config.limits(e.profile), e.limits);
        assert_eq!(e.notes.len(), 2, "{:?}", e.notes);
    }

    #[test]
    fn the_action_honours_its_own_config_file_whole() {
        let mut o = operator(Trust::Operator);
        o.ceilings = Ceilings::default();
        let e = effective_config(
            repo("sandbox = \"none\"\n[model]\nbase_url = \"http://mine/v1\"\n[limits]\ntoken_budget = 5000000\n"),
            &job(),
            &o,
            None,
        );
        assert_eq!(e.config.model.base_url.as_deref(), Some("http://mine/v1"));
        assert_eq!(e.config.sandbox, Some(SandboxMode::None));
        assert_eq!(e.limits.token_budget, 5_000_000);
        assert!(e.notes.is_empty());
    }
}
