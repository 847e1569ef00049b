//! `kotef report --html`: a run's transcript (`.transcript.jsonl`) as one self-contained page —
//! inline CSS, no scripts, every text from the transcript HTML-escaped (it holds what the
//! repository and the model wrote). Model calls fold their messages in `<details>`; tool calls
//! and verifications show their output; passing and failing checks are coloured.

use serde_json::Value;
use std::fmt::Write as _;

/// `text` with `& < > " '` escaped, safe inside an element or a quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#1f2328}\
h1{font-size:1.4em}.ev{border:1px solid #d0d7de;border-radius:6px;margin:.6em 0;padding:.5em .8em}\
.meta{color:#59636e;font-size:.85em}.req{background:#f6f8fa}.reply{background:#fff}\
.tool{background:#fbfbff}.tool.err,.err{border-color:#d1242f}.pass{background:#dafbe1;border-color:#1a7f37}\
.fail{background:#ffebe9;border-color:#d1242f}pre{white-space:pre-wrap;word-break:break-word;\
background:#f6f8fa;padding:.5em;border-radius:4px;margin:.3em 0}summary{cursor:pointer}\
.role{font-weight:600}.cut{color:#9a6700}";

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

fn pre(s: &str) -> String {
    format!("<pre>{}</pre>", escape(s))
}

fn head(e: &Value, what: &str) -> String {
    format!(
        "<div class=\"meta\">step {} · {} · {}</div>",
        escape(&text(&e["step"])),
        escape(&text(&e["node"])),
        escape(what)
    )
}

fn tool_calls(calls: &Value) -> String {
    let mut s = String::new();
    for c in calls.as_array().into_iter().flatten() {
        let _ = write!(
            s,
            "<div><span class=\"role\">tool call</span> <code>{}</code>{}</div>",
            escape(&text(&c["name"])),
            pre(&text(&c["arguments"]))
        );
    }
    s
}

/// One event as HTML.
fn event(e: &Value) -> String {
    match e["type"].as_str().unwrap_or("") {
        "model_request" => {
            let msgs = e["messages"].as_array().cloned().unwrap_or_default();
            let mut body = String::new();
            for m in &msgs {
                let _ = write!(
                    body,
                    "<div><span class=\"role\">{}</span>{}{}</div>",
                    escape(&text(&m["role"])),
                    pre(&text(&m["content"])),
                    tool_calls(&m["tool_calls"])
                );
            }
            format!(
                "<div class=\"ev req\">{}<details><summary>{} messages sent to the model</summary>{body}</details></div>",
                head(e, "model request"),
                msgs.len()
            )
        }
        "model_reply" => format!(
            "<div class=\"ev reply\">{}{}{}</div>",
            head(
                e,
                &format!(
                    "model reply · {} ms · {} prompt + {} completion tokens · finish {}",
                    text(&e["latency_ms"]),
                    text(&e["usage"]["prompt_tokens"]),
                    text(&e["usage"]["completion_tokens"]),
                    text(&e["finish_reason"])
                )
            ),
            if text(&e["content"]).is_empty() {
                String::new()
            } else {
                pre(&text(&e["content"]))
            },
            tool_calls(&e["tool_calls"])
        ),
        "model_error" => format!(
            "<div class=\"ev err\">{}{}</div>",
            head(e, "model call failed"),
            pre(&text(&e["error"]))
        ),
        "tool_call" => {
            let failed = e["is_error"].as_bool().unwrap_or(false);
            format!(
                "<div class=\"ev tool{}\">{}<code>{}</code>{}<details{}><summary>output</summary>{}</details></div>",
                if failed { " err" } else { "" },
                head(e, if failed { "tool call (error)" } else { "tool call" }),
                escape(&text(&e["name"])),
                pre(&text(&e["arguments"])),
                if failed { " open" } else { "" },
                pre(&text(&e["output"]))
            )
        }
        "verification" => {
            let passed = e["passed"].as_bool().unwrap_or(false);
            format!(
                "<div class=\"ev {}\"><div class=\"meta\">step {} · verification · {} (exit {})</div><code>{}</code><details{}><summary>output</summary>{}</details></div>",
                if passed { "pass" } else { "fail" },
                escape(&text(&e["step"])),
                if passed { "passed" } else { "failed" },
                escape(&text(&e["exit_code"])),
                escape(&text(&e["command"])),
                if passed { "" } else { " open" },
                pre(&text(&e["output"]))
            )
        }
        "cut" => format!("<p class=\"cut\">{}</p>", escape(&text(&e["note"]))),
        _ => format!("<div class=\"ev\">{}</div>", pre(&e.to_string())),
    }
}

/// The page for a transcript's text (one JSON object per line; a line that is not JSON is
/// shown as it is).
pub fn render(transcript: &str, title: &str) -> String {
    let mut body = String::new();
    let (mut calls, mut tools, mut checks) = (0, 0, 0);
    for line in transcript.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Value>(line) {
            Ok(e) => {
                match e["type"].as_str() {
                    Some("model_reply" | "model_error") => calls += 1,
                    Some("tool_call") => tools += 1,
                    Some("verification") => checks += 1,
                    _ => {}
                }
                body.push_str(&event(&e));
            }
            Err(_) => body.push_str(&format!("<div class=\"ev\">{}</div>", pre(line))),
        }
        body.push('\n');
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title><style>{STYLE}</style></head>\n<body><h1>{t}</h1><p class=\"meta\">{calls} model calls · {tools} tool calls · {checks} verifications</p>\n{body}</body></html>\n",
        t = escape(title)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_from_the_transcript_is_shown_as_text() {
        let line = r#"{"type":"model_reply","step":1,"node":"coder","content":"<script>alert(1)</script>","tool_calls":[],"usage":{"prompt_tokens":1,"completion_tokens":1},"latency_ms":5,"finish_reason":"stop"}"#;
        let page = render(line, "t");
        assert!(!page.contains("<script>"));
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    }

    #[test]
    fn a_failed_verification_is_open_and_marked() {
        let line = r#"{"type":"verification","step":2,"command":"pytest","passed":false,"exit_code":1,"timed_out":false,"output":"1 failed"}"#;
        let page = render(line, "t");
        assert!(page.contains("class=\"ev fail\"") && page.contains("<details open>"));
    }

    #[test]
    fn the_counts_name_what_happened() {
        let lines = [
            r#"{"type":"model_reply","step":1,"node":"planner","content":"{}","tool_calls":[],"usage":{"prompt_tokens":1,"completion_tokens":1},"latency_ms":5}"#,
            r#"{"type":"tool_call","step":1,"node":"coder","name":"read_file","arguments":{"path":"a"},"output":"x","is_error":false}"#,
        ]
        .join("\n");
        assert!(render(&lines, "t").contains("1 model calls · 1 tool calls · 0 verifications"));
    }

    #[test]
    fn a_line_that_is_not_json_is_shown_escaped() {
        assert!(render("<b>not json", "t").contains("&lt;b&gt;not json"));
    }

    #[test]
    fn escape_covers_attribute_quotes() {
        assert_eq!(
            escape(r#"<a href="x" title='y'>&"#),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;"
        );
    }
}
