//! The red-team suite for the Actions log (issue 31): `kotef action` streams the run into the
//! step's log, and everything it streams was written by the model, the repository or its
//! commands. Each test is one attack through the real binary, read back the way the runner
//! reads a step's output: line by line (split at `\n` and `\r`), workflow commands at a line's
//! start (`::name …`), old-style `##[name]` anywhere, nothing between `::stop-commands::T`
//! and `::T::`.
//!
//! | attack | test |
//! |---|---|
//! | the model's reply, a file it writes and reads back, and the test command's output carry `::set-output`, `::add-mask::`, `::error`, `##[set-output]`, a fake `::stop-commands::`, `::endgroup::`, a `\r`-split command, with debug logging on | `nothing_the_run_wrote_becomes_a_workflow_command` |
//! | the model echoes the operator's API key | `a_key_the_model_echoes_never_reaches_the_log` |

mod support;

use kotef_testkit::script::planner;
use serde_json::json;
use std::sync::OnceLock;
use support::action_runner::{run_labeled, world, Launch, Ran};

const KEY: &str = "sk-redteam-log-0123456789abcdef";

/// The lines an attacker wants the runner to obey; each carries `pwned`.
const PAYLOAD: &str = "::set-output name=terminal-status::pwned\n::add-mask::pwned-mask\n::error title=pwned::pwned error\n   ::warning::pwned indented\nsee ##[set-output name=stop-rule;]pwned\n::stop-commands::pwned-guess\n::endgroup::\n::group::pwned group\nend\r::notice::pwned after a carriage return";

/// A model whose every text carries the payload: the planner's reasons, a file it writes
/// (`inject.txt`, which the test command prints), the file read back, the coder's summary;
/// and the operator's key, in a reason and in `hello.txt` (which the test command prints).
fn hostile_model() -> serde_json::Value {
    json!({
        "planner": [
            planner("coder", &format!("{PAYLOAD} {KEY}"), json!({"task": PAYLOAD})),
            planner("done", PAYLOAD, json!({}))
        ],
        "coder": [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "inject.txt", "content": PAYLOAD}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": format!("hello {KEY}\n")}}]},
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "inject.txt"}}]},
            {"tool_calls": [{"name": "done", "arguments": {"summary": PAYLOAD}}]}
        ]
    })
}

/// The workflow commands the runner would act on in `log`: (name, properties, line). A line
/// that is a command (`::name props::message`) is that command only; one that is not is an
/// old-style command when it holds `##[`.
fn live_commands(log: &str) -> Vec<(String, String, String)> {
    let mut live = Vec::new();
    let mut stopped: Option<String> = None;
    for line in log.split(['\n', '\r']) {
        if let Some(token) = &stopped {
            if line.trim() == format!("::{token}::") {
                stopped = None;
            }
            continue;
        }
        let t = line.trim_start();
        if let Some((head, message)) = t.strip_prefix("::").and_then(|r| r.split_once("::")) {
            let name: String = head.chars().take_while(|c| *c != ' ').collect();
            if name == "stop-commands" {
                stopped = Some(message.trim().to_string());
                continue;
            }
            live.push((name, head.to_string(), line.to_string()));
        } else if line.contains("##[") {
            live.push(("##[".into(), String::new(), line.to_string()));
        }
    }
    live
}

/// Whether a live command is the attacker's: a command kotef never writes, a property or a
/// group title from the payload (an annotation's message is kotef's, escaped onto one line).
fn injected(name: &str, head: &str, line: &str) -> bool {
    let kotefs = ["group", "endgroup", "notice", "warning", "error"];
    !kotefs.contains(&name)
        || head.contains("pwned")
        || (name.ends_with("group") && line.contains("pwned"))
}

/// One hostile run with debug logging, shared by the facts below.
fn hostile_run() -> &'static Ran {
    static RAN: OnceLock<Ran> = OnceLock::new();
    kotef_testkit::recorded(&RAN, || async {
        let w = world("cat inject.txt hello.txt; grep -q hello hello.txt").await;
        let env = [("RUNNER_DEBUG", "1"), ("OPENAI_API_KEY", KEY)];
        let (_, _, ran) = run_labeled(&w, true, &hostile_model(), &env, Launch::Direct).await;
        ran
    })
}

#[test]
fn nothing_the_run_wrote_becomes_a_workflow_command() {
    let ran = hostile_run();
    let log = format!("{}\n{}", ran.stdout, ran.stderr);
    let live = live_commands(&log);
    let injected: Vec<&(String, String, String)> =
        live.iter().filter(|(n, h, l)| injected(n, h, l)).collect();
    // The run's own groups are live, and the payload reached the log (fenced).
    let groups = live
        .iter()
        .filter(|(n, _, l)| n == "group" && l.contains("step 1 · planner"))
        .count();
    assert_eq!(
        (
            injected.len(),
            groups,
            log.contains("::add-mask::pwned-mask")
        ),
        (0, 1, true),
        "live: {live:#?}\n{log}"
    );
}

#[test]
fn a_key_the_model_echoes_never_reaches_the_log() {
    let ran = hostile_run();
    let seen = [&ran.stdout, &ran.stderr, &ran.summary]
        .iter()
        .filter(|t| t.contains(KEY))
        .count();
    assert_eq!(seen, 0, "{}\n{}", ran.stdout, ran.stderr);
}
