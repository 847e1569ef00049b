//! `kotef action` as an Actions runner starts it: the real binary as a process (or action.yml's
//! own step running it), a real event payload file, the `GITHUB_*` environment a runner sets
//! (nothing inherited from the test's own environment), the fake GitHub over loopback HTTP, a
//! bare repository as the remote, a checkout in `GITHUB_WORKSPACE` (or none), and a scripted
//! model.

use kotef_testkit::{git, FakeGitHub, FAKE_TOKEN};
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub const REPO: &str = "acme/greeter";
pub const SERVER: &str = "https://github.test";
pub const RUN_ID: &str = "777";

pub struct World {
    pub gh: FakeGitHub,
    pub git_root: tempfile::TempDir,
    pub dir: tempfile::TempDir,
    pub bare: PathBuf,
}

pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub outputs: HashMap<String, String>,
    pub summary: String,
}

/// A model that writes `hello.txt` and ends, giving `reason` for every planner decision and
/// `summary` as the coder's summary.
pub fn hello_model(reason: &str, summary: &str) -> serde_json::Value {
    kotef_testkit::Script::new()
        .planner(
            "coder",
            reason,
            json!({"task": "Create hello.txt containing hello", "plan": ["write hello.txt"]}),
        )
        .planner("done", reason, json!({}))
        .coder_call(
            "write_file",
            json!({"path": "hello.txt", "content": "hello\n"}),
        )
        .coder_done(summary)
        .build()
}

/// A repository whose config names `test_command` and runs commands without a sandbox (so a
/// test command can do what a hostile repository's tests would).
pub async fn world(test_command: &str) -> World {
    world_with_config(&format!(
        "test_command = {}\nsandbox = \"none\"\n[limits]\nmax_steps = 40\n",
        toml_string(test_command)
    ))
    .await
}

/// A repository with `config` as its `.github/kotef.toml`; alice is its admin, rita a reader.
pub async fn world_with_config(config: &str) -> World {
    let gh = FakeGitHub::start().await;
    gh.add_repo(REPO, "main");
    gh.set_permission(REPO, "alice", "admin");
    gh.set_permission(REPO, "rita", "read");
    let git_root = tempfile::tempdir().unwrap();
    let bare = kotef_testkit::init_bare_repo(
        git_root.path(),
        REPO,
        &[("README.md", "# greeter\n"), (".github/kotef.toml", config)],
    );
    World {
        gh,
        git_root,
        dir: tempfile::tempdir().unwrap(),
        bare,
    }
}

fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// What actions/checkout leaves: a clone of the default branch, with the token persisted in
/// `.git/config` when `persist_credentials` (its input of that name).
pub fn checkout(w: &World, persist_credentials: bool) -> PathBuf {
    let ws = w.dir.path().join("workspace");
    let url = format!(
        "{}/{REPO}.git",
        kotef_testkit::file_base_url(w.git_root.path())
    );
    git(
        w.dir.path(),
        &["clone", "-q", "--depth", "1", &url, ws.to_str().unwrap()],
    );
    if persist_credentials {
        git(
            &ws,
            &[
                "config",
                "--local",
                &format!("http.{SERVER}/.extraheader"),
                &format!("AUTHORIZATION: basic {FAKE_TOKEN}"),
            ],
        );
    }
    ws
}

/// An issue labeled `kotef` by `sender`: its number and the event payload.
pub fn labeled(w: &World, sender: &str) -> (u64, Vec<u8>) {
    let (title, body) = ("Add a greeting", "Please add hello.txt saying hello.");
    let n = w.gh.add_issue(REPO, title, body);
    (
        n,
        kotef_testkit::issues_labeled(REPO, n, title, body, "kotef", sender),
    )
}

/// `NAME=value` and `NAME<<EOF … EOF` lines of a `GITHUB_OUTPUT`/`GITHUB_ENV` file.
pub fn parse_outputs(text: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delim)) = line.split_once("<<") {
            let value: Vec<&str> = lines.by_ref().take_while(|l| *l != delim).collect();
            out.insert(name.to_string(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            out.insert(name.to_string(), value.to_string());
        }
    }
    out
}

/// How the runner starts kotef.
#[derive(Clone, Copy, PartialEq)]
pub enum Launch {
    /// The binary itself.
    Direct,
    /// bash running action.yml's own `run:` line of its "Run kotef" step as a script file,
    /// `kotef` on `PATH`: what a composite action's step does; as an unprivileged user (a
    /// runner's), through setpriv when the tests run as root.
    ActionStep,
}

/// The `run:` line of action.yml's "Run kotef" step.
fn action_step_run_line() -> String {
    let yml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/action.yml")).unwrap();
    let step = yml
        .split("- name: Run kotef\n")
        .nth(1)
        .expect("a Run kotef step");
    step.lines()
        .find_map(|l| l.trim().strip_prefix("run: "))
        .expect("a one-line run:")
        .to_string()
}

/// Runs `kotef action` with a runner's environment; `env` adds or overrides variables.
pub async fn run_action(
    w: &World,
    event: &str,
    payload: &[u8],
    workspace: &Path,
    model: &serde_json::Value,
    env: &[(&str, &str)],
) -> Ran {
    run_action_as(w, event, payload, workspace, model, env, Launch::Direct).await
}

/// [`run_action`], started as `launch` says.
pub async fn run_action_as(
    w: &World,
    event: &str,
    payload: &[u8],
    workspace: &Path,
    model: &serde_json::Value,
    env: &[(&str, &str)],
    launch: Launch,
) -> Ran {
    let d = w.dir.path();
    let event_path = d.join("event.json");
    std::fs::write(&event_path, payload).unwrap();
    let model_file = d.join("model.json");
    std::fs::write(&model_file, json!({ "model": model }).to_string()).unwrap();
    let output = d.join("github_output");
    let summary = d.join("step_summary");
    let temp = d.join("runner_temp");
    std::fs::create_dir_all(&temp).unwrap();
    std::fs::create_dir_all(workspace).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_kotef"));
    let mut cmd = match launch {
        Launch::Direct => {
            let mut c = tokio::process::Command::new(bin);
            c.arg("action");
            c
        }
        Launch::ActionStep => {
            let prefix = super::unprivileged::prefix(&[d, w.git_root.path(), workspace])
                .expect("setpriv, to run the step as an unprivileged user");
            let mut c = tokio::process::Command::new(prefix.first().copied().unwrap_or("bash"));
            c.args(prefix.iter().skip(1));
            if !prefix.is_empty() {
                c.arg("bash");
            }
            // As the runner does for `shell: bash`: the step's script in a file (bash execs
            // the last command of a `-c` string by itself, never of a script file).
            let script = d.join("step.sh");
            std::fs::write(&script, format!("{}\n", action_step_run_line())).unwrap();
            c.args(["--noprofile", "--norc", "-eo", "pipefail"])
                .arg(script);
            c
        }
    };
    let path = std::env::join_paths(std::iter::once(bin.parent().unwrap().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    cmd.env_clear()
        .env("PATH", path)
        .env("HOME", d)
        .env("CI", "true")
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", event)
        .env("GITHUB_EVENT_PATH", &event_path)
        .env("GITHUB_REPOSITORY", REPO)
        .env("GITHUB_TOKEN", FAKE_TOKEN)
        .env("GITHUB_WORKSPACE", workspace)
        .env("GITHUB_SERVER_URL", SERVER)
        .env("GITHUB_API_URL", w.gh.api_url())
        .env("GITHUB_RUN_ID", RUN_ID)
        .env("GITHUB_RUN_ATTEMPT", "1")
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("RUNNER_TEMP", &temp)
        .env(
            "KOTEF_GIT_BASE_URL",
            kotef_testkit::file_base_url(w.git_root.path()),
        )
        .env("KOTEF_MODEL", format!("scripted:{}", model_file.display()))
        // What action.yml passes for inputs left blank.
        .env("KOTEF_PROFILE", "")
        .env("KOTEF_GOAL", "")
        .env("KOTEF_ISSUE_NUMBER", "")
        .env("KOTEF_MAX_STEPS", "")
        .env("KOTEF_TOKEN_BUDGET", "")
        .env("KOTEF_TEST_COMMAND", "")
        .env("KOTEF_CONFIG_PATH", "")
        .env("KOTEF_TRIGGER_LABEL", "kotef")
        .env("KOTEF_FAIL_ON", "aborted_stuck,aborted_constraint,error")
        .kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = tokio::time::timeout(std::time::Duration::from_secs(120), cmd.output())
        .await
        .expect("kotef action finished in time")
        .unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).to_string(),
        stderr: String::from_utf8_lossy(&out.stderr).to_string(),
        outputs: parse_outputs(&std::fs::read_to_string(&output).unwrap_or_default()),
        summary: std::fs::read_to_string(&summary).unwrap_or_default(),
    }
}

/// An issue labeled `kotef` by alice, run by `kotef action` (started as `launch` says, `env`
/// added) in a checkout made as [`checkout`] makes it: the issue's number, the checkout and
/// the run.
pub async fn run_labeled(
    w: &World,
    persist_credentials: bool,
    model: &serde_json::Value,
    env: &[(&str, &str)],
    launch: Launch,
) -> (u64, PathBuf, Ran) {
    let ws = checkout(w, persist_credentials);
    let (n, payload) = labeled(w, "alice");
    let ran = run_action_as(w, "issues", &payload, &ws, model, env, launch).await;
    (n, ws, ran)
}

/// `text` without its code spans and fenced blocks (a backtick run up to the next run of the
/// same length): what GitHub renders as Markdown rather than as literal code.
pub fn outside_code(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let run = |from: usize| chars[from..].iter().take_while(|c| **c == '`').count();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = run(i);
        let mut j = i + n;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let m = run(j);
                if m == n {
                    close = Some(j + m);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                out.push_str(" <code> ");
                i = end;
            }
            None => {
                out.push_str(&"`".repeat(n));
                i += n;
            }
        }
    }
    out
}
