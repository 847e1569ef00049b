//! The job's environment reaches the project's commands when someone says so: the
//! repository's `[env]` values, and the variables of the job the operator names in
//! `KOTEF_PASS_ENV` (the Action's `pass-env`). Nothing else of kotef's environment does, and a
//! secret-looking name is never passed. Through the real `kotef run`, `setup` and the verifier.

mod support;

use kotef_core::RunSummary;
use serde_json::json;
use support::recording_model::RecordingModel;

/// `kotef run` on a repository whose `setup` and test command write what they see.
async fn run_with(
    config_env: &str,
    kotef_env: &[(&str, &str)],
) -> (Option<RunSummary>, String, String) {
    let model = RecordingModel::start(json!({"next": "done", "reason": "stop"})).await;
    let config = format!(
        "setup = \"echo \\\"$GREETING\\\" > setup.seen\"\ntest_command = \"env > test.seen\"\n{config_env}"
    );
    let dir =
        kotef_testkit::committed_repo(&[("kotef.toml", &config), (".gitignore", "*.seen\n")], &[]);
    let ran = model
        .kotef_run(dir.path(), "sk-command-env-0123456789")
        .goal("Make the check pass")
        .envs(kotef_env)
        .run()
        .await;
    let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).unwrap_or_default();
    (ran.try_summary(), read("setup.seen"), read("test.seen"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_repositorys_env_values_reach_setup_and_the_tests() {
    let (_, setup, test) = run_with("[env]\nGREETING = \"hello from kotef.toml\"\n", &[]).await;
    assert_eq!(setup.trim(), "hello from kotef.toml");
    assert!(test.contains("GREETING=hello from kotef.toml"), "{test}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn variables_the_operator_names_reach_the_tests_and_no_others() {
    let job = [
        ("DATABASE_URL", "postgres://localhost/test"),
        ("NODE_OPTIONS", "--max-old-space-size=512"),
        ("UNNAMED_JOB_VAR", "not passed"),
        ("KOTEF_PASS_ENV", "DATABASE_URL, NODE_OPTIONS"),
    ];
    let (_, _, test) = run_with("", &job).await;
    assert!(
        test.contains("DATABASE_URL=postgres://localhost/test"),
        "{test}"
    );
    assert!(
        test.contains("NODE_OPTIONS=--max-old-space-size=512"),
        "{test}"
    );
    assert!(!test.contains("UNNAMED_JOB_VAR"), "{test}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_looking_name_is_never_passed() {
    let (_, _, test) = run_with(
        "[env]\nDEPLOY_TOKEN = \"from-config\"\n",
        &[("NPM_TOKEN", "npm_secret"), ("KOTEF_PASS_ENV", "NPM_TOKEN")],
    )
    .await;
    assert!(test.contains("PATH="), "the tests did not run: {test}");
    assert!(
        !test.contains("DEPLOY_TOKEN") && !test.contains("npm_secret"),
        "{test}"
    );
}
