//! The run as it happens, in a GitHub Actions log: one `::group::` per step (planner,
//! researcher, coder, verifier, snitch), each model call's tokens and time, each tool call and
//! command with its verdict, where the step sent the run and why, and how it ended. With
//! `RUNNER_DEBUG=1` (a re-run "with debug logging") the model's replies and the commands'
//! output are shown too.
//!
//! Everything but the group markers is text a model, a repository or a command wrote, so each
//! event's lines are fenced by `::stop-commands::<token>` … `::<token>::` with a fresh random
//! token: nothing inside can be read by the runner as a workflow command (`::add-mask::`,
//! `::set-output`, `##[...]`), and every line passes through the run's redactor.

use crate::graph::memory::events::{EventSink, RunEvent};
use kotef_core::Redactor;
use kotef_github::entry::action::{fence, fresh_token};
use serde_json::Value;
use std::io::Write as _;
use std::sync::{Arc, Mutex};

/// Characters of one argument list, output or reply shown in a line.
const SHORT: usize = 200;
/// Characters of a reply or an output shown in debug mode.
const DEBUG_CHARS: usize = 4000;
/// Lines of a failing command's output shown.
const FAIL_LINES: usize = 15;

/// What the log has shown so far (whether a group is open).
#[derive(Debug, Default)]
pub struct LogState {
    group_open: bool,
    debug: bool,
}

impl LogState {
    /// A fresh log; `debug` shows replies and outputs in full (up to a cap).
    pub fn new(debug: bool) -> Self {
        Self {
            group_open: false,
            debug,
        }
    }

    /// The log's text for one event (empty when it shows nothing), its untrusted lines fenced
    /// with `token` (see the module's doc) and redacted.
    pub fn render(&mut self, event: &RunEvent, redactor: &Redactor, token: &str) -> String {
        let mut out = String::new();
        let opens = match event {
            RunEvent::Step { step, node } => Some(format!("step {step} · {node}")),
            _ => None,
        };
        let closes = opens.is_some() || matches!(event, RunEvent::Ending(_));
        if closes && self.group_open {
            out.push_str("::endgroup::\n");
            self.group_open = false;
        }
        if let Some(title) = opens {
            out.push_str(&format!("::group::{title}\n"));
            self.group_open = true;
        }
        let body = self.body(event);
        if !body.is_empty() {
            out.push_str(&fence(&redactor.redact(&body), token));
        }
        out
    }

    fn body(&self, event: &RunEvent) -> String {
        match event {
            RunEvent::Step { .. } => String::new(),
            RunEvent::ModelRequest {
                messages, tools, ..
            } if self.debug => format!(
                "model request: {} messages{}",
                messages.len(),
                if tools.is_empty() {
                    String::new()
                } else {
                    format!(", tools {}", tools.join(", "))
                }
            ),
            RunEvent::ModelRequest { .. } => String::new(),
            RunEvent::ModelReply {
                content,
                tool_calls,
                finish_reason,
                usage,
                latency_ms,
                ..
            } => {
                let mut s = format!(
                    "model call: {} prompt + {} completion tokens in {}{}",
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    seconds(*latency_ms),
                    finish_reason
                        .as_deref()
                        .map(|f| format!(" (finish: {f})"))
                        .unwrap_or_default()
                );
                if !tool_calls.is_empty() {
                    let names: Vec<&str> = tool_calls.iter().map(|c| c.name.as_str()).collect();
                    s.push_str(&format!("; asks for {}", names.join(", ")));
                }
                if self.debug && !content.trim().is_empty() {
                    s.push_str(&format!("\n{}", clip(content, DEBUG_CHARS)));
                }
                s
            }
            RunEvent::ModelError { error, .. } => format!("model call failed: {}", one_line(error)),
            RunEvent::CallPaced { sent, note, .. } => format!(
                "model call {}: {}",
                if *sent { "resized" } else { "not started" },
                one_line(note)
            ),
            RunEvent::ToolCall {
                name,
                arguments,
                output,
                is_error,
                ..
            } => {
                let verdict = if *is_error {
                    format!("error: {}", one_line(output))
                } else {
                    format!("ok ({} chars)", output.chars().count())
                };
                let mut s = format!("{name} {} → {verdict}", arguments_line(arguments));
                if self.debug && !output.is_empty() {
                    s.push_str(&format!("\n{}", clip(output, DEBUG_CHARS)));
                }
                s
            }
            RunEvent::Verification {
                command,
                passed,
                exit_code,
                timed_out,
                output,
                ..
            } => {
                let verdict = match (passed, timed_out, exit_code) {
                    (true, _, _) => "passed".to_string(),
                    (false, true, _) => "timed out".to_string(),
                    (false, false, Some(c)) => format!("failed (exit {c})"),
                    (false, false, None) => "failed".to_string(),
                };
                let mut s = format!("verification `{command}` → {verdict}");
                if self.debug {
                    s.push_str(&format!("\n{}", clip(output, DEBUG_CHARS)));
                } else if !passed {
                    s.push_str(&format!("\n{}", last_lines(output, FAIL_LINES)));
                }
                s
            }
            RunEvent::StepDone {
                decision,
                reason,
                progress,
                ..
            } => format!(
                "→ {decision}{}: {}",
                if *progress { " (progress)" } else { "" },
                one_line(reason)
            ),
            RunEvent::Ending(e) => ending_line(e),
        }
    }
}

/// The run's last line in the log: how it ended, why, and its figures.
fn ending_line(e: &crate::graph::memory::events::Ending) -> String {
    let rule = e
        .stop_rule
        .map(|r| format!(" (stop rule {r})"))
        .unwrap_or_default();
    let cost = e
        .cost_usd
        .map(|c| format!(" · ${c:.4}"))
        .unwrap_or_default();
    let mut s = format!(
        "kotef run ended {}{rule}: {}\n{} steps · {} model calls · {} + {} tokens{cost} · {}",
        e.status,
        one_line(&e.reason),
        e.steps,
        e.model_calls,
        e.prompt_tokens,
        e.completion_tokens,
        seconds(e.duration_ms)
    );
    if !e.files_changed.is_empty() {
        s.push_str(&format!("\nfiles changed: {}", e.files_changed.join(", ")));
    }
    s
}

/// A sink writing each event to stdout (the step's log), redacted by `redactor`.
pub fn stdout_sink(redactor: Redactor, debug: bool) -> EventSink {
    let state = Arc::new(Mutex::new(LogState::new(debug)));
    Arc::new(move |event: &RunEvent| {
        let Ok(mut s) = state.lock() else {
            return;
        };
        let text = s.render(event, &redactor, &fresh_token());
        if !text.is_empty() {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
    })
}

/// Whether the runner asks for debug logging (`RUNNER_DEBUG=1`, a re-run with debug logging).
pub fn runner_debug(var: impl Fn(&str) -> Option<String>) -> bool {
    var("RUNNER_DEBUG").is_some_and(|v| v.trim() == "1")
}

/// `text` with every line that the runner could read as a workflow command defused: a `::`
/// at a line's start (after blanks) and a `##[` anywhere get a zero-width space inside. For
/// what is not fenced (kotef's own tracing lines on stderr).
pub fn defuse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for piece in text.split_inclusive(['\n', '\r']) {
        let body = piece.trim_start();
        let lead = &piece[..piece.len() - body.len()];
        out.push_str(lead);
        if let Some(rest) = body.strip_prefix("::") {
            out.push_str(":\u{200b}:");
            out.push_str(rest);
        } else {
            out.push_str(body);
        }
    }
    out.replace("##[", "#\u{200b}#[")
        .replace("##vso[", "#\u{200b}#vso[")
}

/// A writer for the process's tracing lines in an Actions step: each write redacted and
/// defused (see [`defuse`]) before it reaches stderr.
#[derive(Clone)]
pub struct SafeStderr {
    redactor: Redactor,
}

impl SafeStderr {
    pub fn new(redactor: Redactor) -> Self {
        Self { redactor }
    }
}

impl std::io::Write for SafeStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let safe = defuse(&self.redactor.redact(&text));
        std::io::stderr().lock().write_all(safe.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for SafeStderr {
    type Writer = SafeStderr;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

fn seconds(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

fn clip(text: &str, chars: usize) -> String {
    kotef_core::text::cut_middle(text, chars, chars / 2, chars / 2)
}

fn one_line(text: &str) -> String {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    clip(first.trim(), SHORT)
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let tail = &lines[lines.len().saturating_sub(n)..];
    clip(&tail.join("\n"), DEBUG_CHARS)
}

/// A tool's arguments in one line: its command, path, query or summary when it has one (a
/// file's content is not repeated), else compact JSON.
fn arguments_line(arguments: &Value) -> String {
    let named = ["command", "path", "query", "summary"]
        .iter()
        .find_map(|k| arguments.get(k).and_then(Value::as_str));
    let text = match named {
        Some(s) => s.to_string(),
        None => arguments.to_string(),
    };
    one_line(&text.replace(['\n', '\r'], " "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_core::NodeName;

    fn reply(content: &str) -> RunEvent {
        RunEvent::ModelReply {
            step: 1,
            node: NodeName::Coder,
            content: content.into(),
            tool_calls: vec![],
            finish_reason: Some("stop".into()),
            usage: kotef_model::Usage {
                prompt_tokens: 1200,
                completion_tokens: 80,
            },
            latency_ms: 812,
            odds: vec![],
        }
    }

    #[test]
    fn a_step_opens_a_group_and_the_next_closes_it() {
        let mut s = LogState::new(false);
        let r = Redactor::new();
        let a = s.render(
            &RunEvent::Step {
                step: 1,
                node: NodeName::Planner,
            },
            &r,
            "T",
        );
        let b = s.render(
            &RunEvent::Step {
                step: 2,
                node: NodeName::Coder,
            },
            &r,
            "T",
        );
        assert_eq!(
            (a.as_str(), b.as_str()),
            (
                "::group::step 1 · planner\n",
                "::endgroup::\n::group::step 2 · coder\n"
            )
        );
    }

    #[test]
    fn a_model_call_shows_its_tokens_and_time_fenced() {
        let text = LogState::new(false).render(&reply("hidden"), &Redactor::new(), "T");
        assert_eq!(
            text,
            "::stop-commands::T\nmodel call: 1200 prompt + 80 completion tokens in 812 ms (finish: stop)\n::T::\n"
        );
    }

    #[test]
    fn debug_shows_the_reply() {
        let text = LogState::new(true).render(&reply("the reply"), &Redactor::new(), "T");
        assert!(text.contains("\nthe reply\n::T::"));
    }

    #[test]
    fn a_secret_in_a_reply_is_redacted() {
        let mut r = Redactor::new();
        r.add("sk-verysecretvalue123");
        let text = LogState::new(true).render(&reply("key sk-verysecretvalue123"), &r, "T");
        assert!(!text.contains("sk-verysecretvalue123"));
    }

    #[test]
    fn defuse_breaks_commands_at_line_starts_and_old_style_anywhere() {
        assert_eq!(
            defuse("ok ::x\n  ::add-mask::a\rsee ##[set-output]b"),
            "ok ::x\n  :\u{200b}:add-mask::a\rsee #\u{200b}#[set-output]b"
        );
    }

    #[test]
    fn runner_debug_is_one() {
        assert!(runner_debug(|_| Some("1".into())));
        assert!(!runner_debug(|_| Some("0".into())));
        assert!(!runner_debug(|_| None));
    }
}
