//! The runner's default environment comes from this process and is scrubbed. This binary holds a
//! single test, so setting variables here races with nothing.

use kotef_core::SandboxMode;
use kotef_tools::{CommandRunner, RunnerConfig};

#[tokio::test]
async fn process_secrets_never_reach_commands() {
    std::env::set_var("KOTEF_TEST_SECRET_TOKEN", "kotef-secret-value-1");
    std::env::set_var("OPENAI_API_KEY", "sk-process-secret-2");
    std::env::set_var("GITHUB_TOKEN", "ghp_process_secret_3");
    let dir = tempfile::tempdir().unwrap();
    let runner = CommandRunner::new(RunnerConfig {
        sandbox: SandboxMode::None,
        ..RunnerConfig::default()
    });
    let out = runner
        .run("env; echo \"[$OPENAI_API_KEY]\"", dir.path())
        .await;
    assert!(out.success(), "{out:?}");
    for bad in [
        "KOTEF_TEST_SECRET_TOKEN",
        "kotef-secret-value-1",
        "OPENAI_API_KEY",
        "sk-process-secret-2",
        "GITHUB_TOKEN",
        "ghp_process_secret_3",
    ] {
        assert!(!out.stdout.contains(bad), "{bad} leaked:\n{}", out.stdout);
    }
    assert!(out.stdout.contains("[]"), "{}", out.stdout);
    // The same holds inside the sandbox when one is in force.
    let boxed = CommandRunner::new(RunnerConfig::default());
    let out = boxed.run("env", dir.path()).await;
    assert!(out.success(), "{} {out:?}", boxed.sandbox_in_force());
    assert!(
        !out.stdout.contains("sk-process-secret-2"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("KOTEF_TEST_SECRET_TOKEN"),
        "{}",
        out.stdout
    );
}
