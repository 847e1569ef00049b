//! What the run's commands get: the runner's configuration (sandbox, timeout, hidden and
//! read-only paths, the operator's binds), the job's variables, the package cache, the
//! loopback forwarders `[test]` asks for, the repository's `setup`, and the one command policy
//! the agent and the verifier share.

use super::RunSetup;
use anyhow::Context as _;
use kotef_core::{Profile, SandboxMode};
use kotef_tools::{CommandRunner, RunnerConfig};
use std::time::Duration;

/// How the run's commands run: its sandbox, timeout, hidden and read-only paths, and the
/// operator's extra read-only paths (`KOTEF_SANDBOX_BINDS`, never the repository's).
pub(super) fn runner_config(
    setup: &RunSetup,
    timeout_s: u64,
    sandbox: SandboxMode,
    job_cache: &tempfile::TempDir,
) -> RunnerConfig {
    RunnerConfig {
        job_cache: Some(kotef_tools::JobCache {
            dir: job_cache.path().to_path_buf(),
            writable: false,
        }),
        timeout: Duration::from_secs(timeout_s),
        sandbox,
        hidden_paths: setup.hidden_paths.clone(),
        read_only_paths: setup.read_only_paths.clone(),
        binds: std::env::var("KOTEF_SANDBOX_BINDS")
            .map(|v| kotef_tools::sandbox::host::parse_binds(&v))
            .unwrap_or_default(),
        extra_env: command_env(
            &setup.config.env,
            std::env::var("KOTEF_PASS_ENV").ok().as_deref(),
            &|name| std::env::var(name).ok(),
        ),
        ..RunnerConfig::default()
    }
}

/// What commands get beside the scrubbed environment: the repository's `[env]`, then the
/// variables of kotef's own environment the operator names in `pass` (`KOTEF_PASS_ENV`,
/// comma- or space-separated; unset ones are skipped). Secret-looking names are refused later,
/// by the runner. Pure over `lookup`.
pub fn command_env(
    repository: &std::collections::BTreeMap<String, String>,
    pass: Option<&str>,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Vec<(String, String)> {
    let passed = pass
        .unwrap_or_default()
        .split([',', ' '])
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .filter_map(|n| Some((n.to_string(), lookup(n)?)));
    repository
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .chain(passed)
        .collect()
}

/// Runs the repository's `setup` command (if any) before anything else, within the run's
/// time budget; its failure ends the run before any model call. Returns what it created in the
/// work tree (left out of the commit: the run commits what the agent changed, plus `.sdd`).
pub(super) async fn run_setup_command(
    setup: &RunSetup,
    tree: &kotef_tools::Tree,
    runner_config: &RunnerConfig,
    time_budget_s: u64,
) -> anyhow::Result<Vec<String>> {
    let Some(command) = setup
        .config
        .setup
        .as_deref()
        .filter(|c| !c.trim().is_empty())
    else {
        return Ok(Vec::new());
    };
    let before = crate::setup::visible_files(tree).await;
    let timeout = setup
        .config
        .setup_timeout_s
        .unwrap_or(crate::setup::DEFAULT_SETUP_TIMEOUT_S)
        .min(time_budget_s);
    crate::setup::run(
        command,
        tree.root(),
        runner_config,
        Duration::from_secs(timeout),
        &setup.redactor,
    )
    .await?;
    let after = crate::setup::visible_files(tree).await;
    Ok(crate::setup::created(&before, &after))
}

/// Starts the loopback forwarders `[test]` asks for (within the operator's ports) when the
/// commands run sandboxed; without a sandbox they share the host's network anyway. The
/// forwarders stop when the returned value is dropped, at the end of the run.
pub(super) fn forward_loopback(
    test: &kotef_core::TestConfig,
    cfg: &mut RunnerConfig,
) -> anyhow::Result<Option<kotef_tools::loopback::LoopbackForward>> {
    let ports = test.loopback_ports(cfg.extra_env.iter().map(|(_, v)| v.as_str()));
    let sandboxed = CommandRunner::new(cfg.clone()).sandbox_in_force() == "bwrap";
    if ports.is_empty() || !sandboxed {
        return Ok(None);
    }
    let Some(bridge) = crate::setup::bridge_exe() else {
        tracing::warn!("no loopback bridge in this process; the tests get no network");
        return Ok(None);
    };
    let forward = kotef_tools::loopback::LoopbackForward::start(&ports)
        .context("cannot start the loopback forwarders for `[test] network`")?;
    cfg.loopback = Some(forward.mount(bridge));
    Ok(Some(forward))
}

/// The run's one command policy (the agent's and the verifier's): the profile, the project's
/// test command and the repository's `allow` entries; a bad entry stops the run here.
pub(super) fn run_policy(
    setup: &RunSetup,
    profile: Profile,
    test_command: Option<String>,
) -> anyhow::Result<kotef_tools::RunPolicy> {
    kotef_tools::RunPolicy::new(profile)
        .with_project(test_command)
        .with_allow(&setup.config.allow)
        .context("the repository's kotef.toml")
}
