//! `kotef report --html`: a run's transcript (`.transcript.jsonl`) as one self-contained page —
//! inline CSS, no scripts, every text from the transcript HTML-escaped (it holds what the
//! repository and the model wrote). The first screen is what a reader came for: how the run
//! ended (status, stop rule, reason), the goal, the figures and budgets, and the diff; then a
//! table of contents and the steps, each model call with its tokens and time, each tool call
//! once (with its arguments and output), planner decisions as fields, verifications coloured.

use super::transcript_read::{self, text, StepView, Transcript};
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

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:1.2em auto;max-width:1100px;color:#1f2328;padding:0 1em}\
h1{font-size:1.25em;margin:.2em 0 .5em}h2{font-size:1.1em;margin:.8em 0 .3em}h3{font-size:1em;margin:0 0 .3em}\
.ending{border:2px solid;border-radius:8px;padding:.5em .9em;margin:.4em 0}.ending .status{font-size:1.3em}\
.ok{border-color:#1a7f37;background:#dafbe1}.partial{border-color:#9a6700;background:#fff8c5}.stop{border-color:#d1242f;background:#ffebe9}\
.reason{margin:.3em 0 0}.figures{border-collapse:collapse;margin:.4em 0}.figures td,.figures th{border:1px solid #d0d7de;padding:.15em .6em;text-align:left}\
.figures th{background:#f6f8fa;font-weight:600}.budgets{color:#59636e;font-size:.9em}\
pre.diff{max-height:22em;overflow:auto}.add{color:#116329;background:#dafbe1}.del{color:#82071e;background:#ffebe9}.hunk{color:#0550ae}\
.ev{border:1px solid #d0d7de;border-radius:6px;margin:.4em 0;padding:.4em .8em}.step{margin:1em 0;padding-top:.3em;border-top:2px solid #d0d7de}\
.meta{color:#59636e;font-size:.85em}.req{background:#f6f8fa}.tool{background:#fbfbff}.tool.err,.err{border-color:#d1242f}\
.pass{background:#dafbe1;border-color:#1a7f37}.fail{background:#ffebe9;border-color:#d1242f}\
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;padding:.5em;border-radius:4px;margin:.3em 0}\
summary{cursor:pointer}.role{font-weight:600}.cut{color:#9a6700}.done{margin:.4em 0;font-weight:500}\
dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.2em .8em;margin:.3em 0}dl.fields dt{font-weight:600}dl.fields dd{margin:0;white-space:pre-wrap}\
nav ol{columns:2;margin:.2em 0}";

/// Characters of the diff shown on the page at most.
const DIFF_CHARS: usize = 200_000;

fn pre(s: &str) -> String {
    format!("<pre>{}</pre>", escape(s))
}

/// The page for a transcript's text (one JSON object per line; a line that is not JSON is
/// shown as it is).
pub fn render(transcript: &str, title: &str) -> String {
    let t = transcript_read::read(transcript);
    let mut body = String::new();
    body.push_str(&ending(&t));
    body.push_str(&diff(&t));
    body.push_str(&contents(&t));
    for n in &t.notes {
        let _ = write!(body, "<p class=\"cut\">{}</p>", escape(n));
    }
    for s in &t.steps {
        body.push_str(&step(s));
        body.push('\n');
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title><style>{STYLE}</style></head>\n<body><h1>{t}</h1>\n{body}</body></html>\n",
        t = escape(title)
    )
}

/// How the run ended, its goal, figures and budgets (or a note that the record is missing).
fn ending(t: &Transcript) -> String {
    let counts = format!(
        "{} model calls · {} tool calls · {} verifications",
        t.model_calls, t.tool_calls, t.verifications
    );
    let Some(e) = &t.ending else {
        return format!(
            "<section id=\"ending\" class=\"ending partial\"><div class=\"status\">no ending recorded</div>\
             <p class=\"reason\">This transcript has no ending record: the run was cut short, or it was written by a kotef before 1.1.</p></section>\
             <p class=\"meta\">{counts}</p>\n"
        );
    };
    let status = text(&e["status"]);
    let class = match status.as_str() {
        "done_success" => "ok",
        "done_partial" => "partial",
        _ => "stop",
    };
    let rule = match text(&e["stop_rule"]) {
        r if r.is_empty() => "none".to_string(),
        r => r,
    };
    let goal = text(&e["goal"]);
    let first = goal.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut s = format!(
        "<section id=\"ending\" class=\"ending {class}\"><div class=\"status\"><b>{}</b> · stop rule <code>{}</code></div>\
         <p class=\"reason\"><b>Reason:</b> {}</p></section>\n\
         <section id=\"goal\"><details><summary><b>Goal:</b> {}</summary>{}</details></section>\n",
        escape(&status),
        escape(&rule),
        escape(&text(&e["reason"])),
        escape(&kotef_core::text::cut_middle(first, 160, 150, 10)),
        pre(&goal)
    );
    let cost = match e["cost_usd"].as_f64() {
        Some(c) => format!("${c:.4}"),
        None => "unknown price".into(),
    };
    let verified = match e["verification"].as_array().map(Vec::as_slice) {
        Some([cmd, passed]) => format!(
            "<code>{}</code> {}",
            escape(&text(cmd)),
            if passed.as_bool() == Some(true) {
                "passed"
            } else {
                "failed"
            }
        ),
        _ => "no test command ran".into(),
    };
    let _ = writeln!(
        s,
        "<table class=\"figures\" id=\"figures\"><tr><th>steps</th><th>model calls</th><th>tokens (prompt + completion)</th><th>cost</th><th>time</th><th>fix attempts</th><th>verified by</th><th>model</th></tr>\
         <tr><td>{}</td><td>{}</td><td>{} + {}</td><td>{}</td><td>{:.1} s</td><td>{}</td><td>{verified}</td><td><code>{}</code></td></tr></table>",
        escape(&text(&e["steps"])),
        escape(&text(&e["model_calls"])),
        escape(&text(&e["prompt_tokens"])),
        escape(&text(&e["completion_tokens"])),
        escape(&cost),
        e["duration_ms"].as_f64().unwrap_or(0.0) / 1000.0,
        escape(&text(&e["fix_attempts"])),
        escape(&text(&e["model"])),
    );
    let _ = write!(s, "<p class=\"budgets\" id=\"budgets\"><b>Budgets:</b> {}</p>\n<p class=\"meta\">{counts}</p>\n", budgets(&e["limits"]));
    s
}

fn budgets(limits: &Value) -> String {
    let keys = [
        "max_steps",
        "token_budget",
        "time_budget_s",
        "cost_budget_usd",
        "max_model_calls",
        "fix_attempts",
        "command_timeout_s",
    ];
    keys.iter()
        .filter(|k| !limits[**k].is_null())
        .map(|k| format!("{k} {}", escape(&text(&limits[*k]))))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The diff the run pushed (from the diff record), else the files the run changed.
fn diff(t: &Transcript) -> String {
    let mut s = String::from("<section id=\"diff\"><h2>Diff</h2>");
    match &t.diff {
        Some(d) => {
            let stat = text(&d["stat"]);
            let _ = write!(
                s,
                "<p><b>{}</b>{}</p>",
                escape(if stat.is_empty() {
                    "no code changed"
                } else {
                    &stat
                }),
                match d["sdd_files"].as_u64() {
                    Some(n) if n > 0 => format!(
                        ", plus kotef's record in <code>.sdd/</code> ({n} file{})",
                        if n == 1 { "" } else { "s" }
                    ),
                    _ => String::new(),
                }
            );
            let body = text(&d["diff"]);
            if !body.is_empty() {
                s.push_str(&diff_block(&body));
            }
        }
        None => {
            let files: Vec<String> = t
                .ending
                .as_ref()
                .and_then(|e| e["files_changed"].as_array().cloned())
                .unwrap_or_default()
                .iter()
                .map(|f| format!("<code>{}</code>", escape(&text(f))))
                .collect();
            if files.is_empty() {
                s.push_str("<p>No file changed.</p>");
            } else {
                let _ = write!(
                    s,
                    "<p><b>{} file{} changed:</b> {} (the diff is recorded when kotef publishes the run)</p>",
                    files.len(),
                    if files.len() == 1 { "" } else { "s" },
                    files.join(", ")
                );
            }
        }
    }
    s.push_str("</section>\n");
    s
}

fn diff_block(diff: &str) -> String {
    let diff = kotef_core::text::cut_middle(diff, DIFF_CHARS, DIFF_CHARS / 2, DIFF_CHARS / 2);
    let mut s = String::from("<pre class=\"diff\">");
    for line in diff.lines() {
        let class = if line.starts_with("+++") || line.starts_with("---") {
            ""
        } else if line.starts_with('+') {
            "add"
        } else if line.starts_with('-') {
            "del"
        } else if line.starts_with("@@") {
            "hunk"
        } else {
            ""
        };
        if class.is_empty() {
            let _ = writeln!(s, "{}", escape(line));
        } else {
            let _ = writeln!(s, "<span class=\"{class}\">{}</span>", escape(line));
        }
    }
    s.push_str("</pre>");
    s
}

/// The table of contents: the top sections and one line per step.
fn contents(t: &Transcript) -> String {
    let mut s = String::from(
        "<nav id=\"contents\"><h2>Contents</h2><ol><li><a href=\"#ending\">Ending</a></li><li><a href=\"#diff\">Diff</a></li>",
    );
    for st in &t.steps {
        let decision = st
            .done
            .as_ref()
            .map(|d| format!(" → {}", text(&d["decision"])))
            .unwrap_or_default();
        let _ = write!(
            s,
            "<li><a href=\"#step-{n}\">step {n} · {}{}</a></li>",
            escape(&st.node),
            escape(&decision),
            n = st.step
        );
    }
    s.push_str("</ol></nav>\n");
    s
}

fn step(st: &StepView) -> String {
    let mut s = format!(
        "<section class=\"step\" id=\"step-{n}\"><h3>step {n} · {}</h3>",
        escape(&st.node),
        n = st.step
    );
    for e in &st.events {
        s.push_str(&event(e));
    }
    if let Some(d) = &st.done {
        let _ = write!(
            s,
            "<p class=\"done\">→ {}{} — {}</p>",
            escape(&text(&d["decision"])),
            if d["progress"].as_bool() == Some(true) {
                " (progress)"
            } else {
                ""
            },
            escape(&text(&d["reason"]))
        );
    }
    s.push_str("</section>");
    s
}

fn head(e: &Value, what: &str) -> String {
    format!(
        "<div class=\"meta\">{} · {}</div>",
        escape(&text(&e["node"])),
        escape(what)
    )
}

/// The names of the tools a message asks for (their arguments and output are shown once,
/// with the tool call).
fn asks_for(calls: &Value) -> String {
    let names: Vec<String> = calls
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| format!("<code>{}</code>", escape(&text(&c["name"]))))
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!("<div>asks for {}</div>", names.join(", "))
    }
}

/// A reply that is one JSON object (a planner's decision, a researcher's findings) as fields.
fn fields(content: &str) -> Option<String> {
    let start = content.find('{')?;
    let end = content.rfind('}')?;
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(content.get(start..=end)?) else {
        return None;
    };
    let mut s = String::from("<dl class=\"fields\">");
    for (k, v) in &map {
        let shown = match v {
            Value::String(t) => t.clone(),
            Value::Array(items) if items.iter().all(Value::is_string) => items
                .iter()
                .map(|i| format!("• {}", text(i)))
                .collect::<Vec<_>>()
                .join("\n"),
            other => serde_json::to_string_pretty(other).unwrap_or_default(),
        };
        let _ = write!(s, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(&shown));
    }
    s.push_str("</dl>");
    Some(s)
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
                    asks_for(&m["tool_calls"])
                );
            }
            format!(
                "<div class=\"ev req\"><details><summary>{} messages sent to the model</summary>{body}</details></div>",
                msgs.len()
            )
        }
        "model_reply" => {
            let content = text(&e["content"]);
            let shown = if content.trim().is_empty() {
                String::new()
            } else {
                fields(&content).unwrap_or_else(|| pre(&content))
            };
            format!(
                "<div class=\"ev reply\">{}{shown}{}</div>",
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
                asks_for(&e["tool_calls"])
            )
        }
        "model_error" => format!(
            "<div class=\"ev err\">{}{}</div>",
            head(e, "model call failed"),
            pre(&text(&e["error"]))
        ),
        "tool_call" => {
            let failed = e["is_error"].as_bool().unwrap_or(false);
            let args = match &e["arguments"] {
                Value::String(s) => s.clone(),
                other => serde_json::to_string_pretty(other).unwrap_or_default(),
            };
            format!(
                "<div class=\"ev tool{}\">{}<code>{}</code>{}<details{}><summary>output</summary>{}</details></div>",
                if failed { " err" } else { "" },
                head(e, if failed { "tool call (error)" } else { "tool call" }),
                escape(&text(&e["name"])),
                pre(&args),
                if failed { " open" } else { "" },
                pre(&text(&e["output"]))
            )
        }
        "verification" => {
            let passed = e["passed"].as_bool().unwrap_or(false);
            format!(
                "<div class=\"ev {}\"><div class=\"meta\">verification · {} (exit {})</div><code>{}</code><details{}><summary>output</summary>{}</details></div>",
                if passed { "pass" } else { "fail" },
                if passed { "passed" } else { "failed" },
                escape(&text(&e["exit_code"])),
                escape(&text(&e["command"])),
                if passed { "" } else { " open" },
                pre(&text(&e["output"]))
            )
        }
        _ => format!("<div class=\"ev\">{}</div>", pre(&e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENDING: &str = r#"{"type":"ending","status":"aborted_stuck","stop_rule":"no_progress","reason":"The coder made no progress in 3 steps.","goal":"Fix add()","model":"scripted","steps":4,"model_calls":3,"prompt_tokens":100,"completion_tokens":20,"fix_attempts":1,"duration_ms":1500,"cost_usd":null,"limits":{"max_steps":40,"token_budget":1000},"files_changed":["calc.py"],"verification":["pytest",false]}"#;

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
    fn the_page_opens_with_the_ending_before_any_step() {
        let lines = [
            r#"{"type":"step","step":1,"node":"planner"}"#,
            ENDING,
            r#"{"type":"diff","stat":"1 file changed, 1 insertion(+)","sdd_files":2,"diff":"@@ -1 +1 @@\n-a\n+b"}"#,
        ]
        .join("\n");
        let page = render(&lines, "t");
        let at = |needle: &str| page.find(needle).unwrap_or(usize::MAX);
        assert!(at("aborted_stuck") < at("The coder made no progress"));
        assert!(at("The coder made no progress") < at("1 file changed"));
        assert!(at("1 file changed") < at("id=\"step-1\""));
        assert!(page.contains("<span class=\"add\">+b</span>"));
        assert!(page.contains("plus kotef's record in <code>.sdd/</code> (2 files)"));
    }

    #[test]
    fn a_tool_call_shows_once() {
        let lines = [
            r#"{"type":"model_reply","step":1,"node":"coder","content":"","tool_calls":[{"id":"1","name":"read_file","arguments":{"path":"calc_unique.py"}}],"usage":{"prompt_tokens":1,"completion_tokens":1},"latency_ms":5}"#,
            r#"{"type":"tool_call","step":1,"node":"coder","name":"read_file","arguments":{"path":"calc_unique.py"},"output":"x","is_error":false}"#,
        ]
        .join("\n");
        assert_eq!(render(&lines, "t").matches("calc_unique.py").count(), 1);
    }

    #[test]
    fn a_planner_decision_is_shown_as_fields() {
        let line = r#"{"type":"model_reply","step":1,"node":"planner","content":"{\"next\":\"coder\",\"reason\":\"the \\\"add\\\" test fails\"}","tool_calls":[],"usage":{"prompt_tokens":1,"completion_tokens":1},"latency_ms":5}"#;
        let page = render(line, "t");
        assert!(
            page.contains(
                "<dt>next</dt><dd>coder</dd><dt>reason</dt><dd>the &quot;add&quot; test fails</dd>"
            ),
            "{page}"
        );
    }

    #[test]
    fn the_contents_list_every_step_with_its_decision() {
        let lines = [
            r#"{"type":"step","step":1,"node":"planner"}"#,
            r#"{"type":"step_done","step":1,"node":"planner","decision":"coder","reason":"r","progress":false}"#,
        ]
        .join("\n");
        assert!(render(&lines, "t").contains("<a href=\"#step-1\">step 1 · planner → coder</a>"));
    }

    #[test]
    fn a_transcript_without_an_ending_says_so() {
        assert!(render("", "t").contains("no ending recorded"));
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
