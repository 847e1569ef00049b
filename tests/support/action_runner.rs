//! `kotef action` as an Actions runner starts it, for the red-team tests of what kotef writes
//! for people: the real binary, an event payload file, the `GITHUB_*` environment (nothing
//! inherited), the fake GitHub over loopback, a bare repository as the remote, a checkout in
//! `GITHUB_WORKSPACE`, and a scripted model. (`tests/action_e2e.rs` has its own copy with more
//! knobs.)

use kotef_testkit::{git, FakeGitHub, FAKE_TOKEN};
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub const REPO: &str = "acme/greeter";

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

/// A planner decision.
pub fn planner(next: &str, reason: &str, extra: serde_json::Value) -> serde_json::Value {
    let mut d = json!({"next": next, "reason": reason});
    if let (Some(d), Some(e)) = (d.as_object_mut(), extra.as_object()) {
        d.extend(e.clone());
    }
    json!({"content": d.to_string()})
}

/// A model that writes `hello.txt` and ends, giving `reason` for every planner decision and
/// `summary` as the coder's summary.
pub fn hello_model(reason: &str, summary: &str) -> serde_json::Value {
    json!({
        "planner": [
            planner("coder", reason, json!({"task": "Create hello.txt containing hello", "plan": ["write hello.txt"]})),
            planner("done", reason, json!({}))
        ],
        "coder": [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "hello\n"}}]},
            {"tool_calls": [{"name": "done", "arguments": {"summary": summary}}]}
        ]
    })
}

/// A repository whose config names `test_command` and runs commands without a sandbox (so a
/// test command can do what a hostile repository's tests would).
pub async fn world(test_command: &str) -> World {
    let gh = FakeGitHub::start().await;
    gh.add_repo(REPO, "main");
    gh.set_permission(REPO, "alice", "admin");
    let git_root = tempfile::tempdir().unwrap();
    let config = format!(
        "test_command = {}\nsandbox = \"none\"\n[limits]\nmax_steps = 40\n",
        toml_string(test_command)
    );
    let bare = kotef_testkit::init_bare_repo(
        git_root.path(),
        REPO,
        &[
            ("README.md", "# greeter\n"),
            (".github/kotef.toml", &config),
        ],
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

/// What actions/checkout leaves: a clone of the default branch.
pub fn checkout(w: &World) -> PathBuf {
    let ws = w.dir.path().join("workspace");
    let url = format!(
        "{}/{REPO}.git",
        kotef_testkit::file_base_url(w.git_root.path())
    );
    git(
        w.dir.path(),
        &["clone", "-q", "--depth", "1", &url, ws.to_str().unwrap()],
    );
    ws
}

/// An issue labeled `kotef` by alice: its number and the event payload.
pub fn labeled(w: &World) -> (u64, Vec<u8>) {
    let (title, body) = ("Add a greeting", "Please add hello.txt saying hello.");
    let n = w.gh.add_issue(REPO, title, body);
    (
        n,
        kotef_testkit::issues_labeled(REPO, n, title, body, "kotef", "alice"),
    )
}

fn parse_outputs(text: &str) -> HashMap<String, String> {
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

/// Runs `kotef action` for an `issues` event in `workspace` with a runner's environment.
pub async fn run_action(
    w: &World,
    payload: &[u8],
    workspace: &Path,
    model: &serde_json::Value,
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
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_kotef"));
    cmd.arg("action")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", d)
        .env("CI", "true")
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "issues")
        .env("GITHUB_EVENT_PATH", &event_path)
        .env("GITHUB_REPOSITORY", REPO)
        .env("GITHUB_TOKEN", FAKE_TOKEN)
        .env("GITHUB_WORKSPACE", workspace)
        .env("GITHUB_SERVER_URL", "https://github.test")
        .env("GITHUB_API_URL", w.gh.api_url())
        .env("GITHUB_RUN_ID", "777")
        .env("GITHUB_RUN_ATTEMPT", "1")
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("RUNNER_TEMP", &temp)
        .env(
            "KOTEF_GIT_BASE_URL",
            kotef_testkit::file_base_url(w.git_root.path()),
        )
        .env("KOTEF_MODEL", format!("scripted:{}", model_file.display()))
        .env("KOTEF_TRIGGER_LABEL", "kotef")
        .env("KOTEF_FAIL_ON", "aborted_stuck,aborted_constraint,error")
        .kill_on_drop(true);
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
