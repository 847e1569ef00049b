//! Typed repairs: before the first model call, the fix templates of Python's type errors
//! ([`crate::lang::type_repair`]) at the traceback's frames in the project's code — the
//! statement a frame stopped at given the value the failure says it lacked, and `None`
//! guards at its function's top — each applied and judged by the test command as an attempt
//! is, within a share of the time left ([`share`]). The first that passes (and copies no value
//! from the tests, [`super::fitted`]) ends the step without a model call; one that fails
//! fewer tests is kept as the best candidate; none is shown to the model (a template's
//! failure says little of the fix, and would crowd the attempts the model learns from).
//! Where a deliberate `raise` stopped the deepest frame (`raise TypeError('to_bytes must
//! receive …')`), its callers are tried first, innermost first: the value came from there.

use super::attempts::Attempts;
use super::targets::{span_at, Target};
use super::{apply_attempt, badness, candidate, passed, restore, run_tests, Applied};
use crate::graph::memory::events::RunEvent;
use crate::graph::memory::state::{CoderEnd, RunState};
use crate::graph::prompt::code_view::Traceback;
use crate::graph::GraphContext;
use crate::lang::traceback::exception_line;
use crate::lang::type_repair::{self, Fault};
use kotef_core::NodeName;
use kotef_tools::{Change, CommandResult, EditBlock};
use std::time::{Duration, Instant};

/// The most templates tried in one step.
pub const MAX_CANDIDATES: usize = 12;

/// The most frames whose statements and functions are tried.
pub const MAX_FRAMES: usize = 3;

/// The most templates tried at one frame.
pub const MAX_PER_FRAME: usize = 6;

/// The most parameters of one function given a `None` guard.
pub const MAX_GUARDED: usize = 2;

/// One template at one place: the change, and what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub block: EditBlock,
    pub why: String,
}

/// The time the templates may take: a sixth of the time left, at most 90 s.
pub fn share(time_left: Duration) -> Duration {
    (time_left / 6).min(Duration::from_secs(90))
}

/// The fault the failing run's `output` says the code made: its last raising line a
/// template knows, with that line's message.
pub fn fault_of(output: &str) -> Option<(Fault, String)> {
    output.lines().rev().find_map(|l| {
        let (class, message) = exception_line(l)?;
        Some((type_repair::fault(&class, &message)?, message))
    })
}

/// The templates for the failure in `output` at the frames of `trace` in `files` (the code
/// shown, tests not among it), likeliest first, at most [`MAX_CANDIDATES`].
pub fn candidates(output: &str, trace: &Traceback, files: &[(String, String)]) -> Vec<Candidate> {
    let Some((fault, message)) = fault_of(output) else {
        return Vec::new();
    };
    let mut frames: Vec<(&str, &str, usize)> = trace
        .repo
        .iter()
        .filter_map(|(path, line)| {
            let (_, text) = files.iter().find(|(p, _)| p == path)?;
            Some((path.as_str(), text.as_str(), *line))
        })
        .collect();
    let raised = frames.first().is_some_and(|(_, text, line)| {
        line.checked_sub(1)
            .and_then(|i| text.lines().nth(i))
            .is_some_and(|l| l.trim_start().starts_with("raise "))
    });
    if raised && frames.len() > 1 {
        frames.rotate_left(1);
    }
    let mut out: Vec<Candidate> = Vec::new();
    for (path, text, line) in frames.into_iter().take(MAX_FRAMES) {
        let mut here = at_frame(&fault, &message, path, text, line);
        here.retain(|c| !out.contains(c));
        here.truncate(MAX_PER_FRAME);
        out.extend(here);
    }
    out.truncate(MAX_CANDIDATES);
    out
}

/// The templates at one frame: its statement rewritten, then guards at its function's top.
fn at_frame(fault: &Fault, message: &str, path: &str, text: &str, line: usize) -> Vec<Candidate> {
    let mut out = Vec::new();
    let Some((start, _)) = span_at(text, line) else {
        return out;
    };
    let Some(target) = Target::around(path, text, start + 1) else {
        return out;
    };
    for (new, why) in type_repair::statement_rewrites(fault, &target.text) {
        out.push(replaced(&target, &new, why));
    }
    if let Fault::Missing { empties, .. } = fault {
        out.extend(function_guards(empties, message, path, text, &target));
    }
    out
}

/// `t`'s statement replaced by `new` (the lines before it that make it unique kept).
fn replaced(t: &Target, new: &str, why: String) -> Candidate {
    let with_lead = |s: &str| {
        if t.lead.is_empty() {
            s.to_string()
        } else {
            format!("{}\n{s}", t.lead)
        }
    };
    Candidate {
        block: EditBlock {
            path: Some(t.path.clone()),
            change: Change::Replace {
                search: with_lead(&t.text),
                replace: with_lead(new),
            },
        },
        why: format!("{why} ({}:{})", t.path, t.line),
    }
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

/// The 0-based line of the `def` enclosing the statement at 0-based `at`, if one does.
fn enclosing_def(lines: &[&str], at: usize) -> Option<usize> {
    let mut within = indent(lines.get(at)?);
    for i in (0..at).rev() {
        let l = lines[i];
        if l.trim().is_empty() || l.trim_start().starts_with('#') || indent(l) >= within {
            continue;
        }
        let t = l.trim_start();
        if t.strip_prefix("async ").unwrap_or(t).starts_with("def ") {
            return Some(i);
        }
        if t.starts_with("class ") || indent(l) == 0 {
            return None;
        }
        within = indent(l);
    }
    None
}

/// The 0-based line of the first statement of the function whose signature spans
/// `def_at..=sig_end`, after its docstring.
fn body_start(lines: &[&str], sig_end: usize) -> Option<usize> {
    let mut i = sig_end + 1;
    let mut in_doc: Option<&str> = None;
    while i < lines.len() {
        let t = lines[i].trim();
        if let Some(q) = in_doc {
            if t.contains(q) {
                in_doc = None;
            }
        } else if t.is_empty() || t.starts_with('#') {
        } else if let Some(q) = ["\"\"\"", "'''"]
            .into_iter()
            .find(|q| t.trim_start_matches(['r', 'u', 'b']).starts_with(q))
        {
            let rest = &t[t.find(q).map_or(0, |p| p + 3)..];
            if !rest.contains(q) {
                in_doc = Some(q);
            }
        } else {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The `None` guards for the parameters of the function around `t`, at its first statement:
/// the parameters `t` reads or the `message` names first.
fn function_guards(
    empties: &[&str],
    message: &str,
    path: &str,
    text: &str,
    t: &Target,
) -> Vec<Candidate> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(def_at) = enclosing_def(&lines, t.line - 1) else {
        return Vec::new();
    };
    let Some((_, signature)) = span_at(text, def_at + 1) else {
        return Vec::new();
    };
    let sig_end = def_at + signature.lines().count() - 1;
    let Some(first) = body_start(&lines, sig_end).and_then(|b| Target::around(path, text, b + 1))
    else {
        return Vec::new();
    };
    let def_indent = indent(lines[def_at]);
    let body: Vec<&str> = lines[first.line - 1..]
        .iter()
        .take_while(|l| l.trim().is_empty() || indent(l) > def_indent)
        .copied()
        .collect();
    let mut params = type_repair::parameters(&signature);
    let read: Vec<String> = type_repair::values(&t.text)
        .into_iter()
        .map(|v| v.text)
        .collect();
    let named = |p: &String| {
        read.contains(p)
            || message
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == p)
    };
    params.sort_by_key(|p| !named(p));
    let returned: Vec<String> = body
        .iter()
        .filter_map(|l| l.trim().strip_prefix("return "))
        .map(|r| r.trim().to_string())
        .filter(|r| params.contains(r))
        .collect();
    let pad = " ".repeat(indent(first.text.lines().next().unwrap_or("")));
    let mut out = Vec::new();
    for p in params.iter().take(MAX_GUARDED) {
        for (guard, why) in type_repair::guards(p, empties, &returned) {
            let guard: Vec<String> = guard.iter().map(|g| format!("{pad}{g}")).collect();
            let new = format!("{}\n{}", guard.join("\n"), first.text);
            out.push(replaced(&first, &new, why));
        }
    }
    out
}

/// What the templates are tried with: the test command, the files that may not change, the
/// code shown (its files and trace) and the failing run.
pub(super) struct Setting<'a> {
    command: &'a str,
    protected: &'a [String],
    files: &'a [(String, String)],
    trace: &'a Traceback,
    start: &'a CommandResult,
}

impl<'a> Setting<'a> {
    pub(super) fn new(
        command: &'a str,
        protected: &'a [String],
        shown: &'a super::Shown,
        start: &'a CommandResult,
    ) -> Self {
        Setting {
            command,
            protected,
            files: &shown.files,
            trace: &shown.trace,
            start,
        }
    }
}

/// Tries the templates for the failing run in turn (see the module's doc), within [`share`]
/// of the time left, and records what they did as a `typed_repair` tool call. The step's end
/// when one passed (`Done`) or a test run hit a resource limit (the run stops); `None` when
/// none passed and the model's attempts follow.
pub(super) async fn attempt(
    ctx: &GraphContext,
    state: &mut RunState,
    a: &mut Attempts,
    s: &Setting<'_>,
) -> Option<CoderEnd> {
    let output = format!("{}{}", s.start.stdout, s.start.stderr);
    let found = candidates(&output, s.trace, s.files);
    if found.is_empty() {
        return None;
    }
    let allowed = share(ctx.time_left());
    // A test run this slow would leave fewer than four templates their share: none is tried.
    if Duration::from_millis(s.start.duration_ms) * 4 > allowed {
        return None;
    }
    let began = Instant::now();
    let (mut tried, mut ended, mut passing) = (0, None, None);
    for c in &found {
        if began.elapsed() >= allowed {
            break;
        }
        let blocks = [c.block.clone()];
        if a.seen_as(true, &blocks) != super::attempts::Seen::New {
            continue;
        }
        let Applied { snap, diff, .. } = apply_attempt(ctx, state, &blocks, s.files, s.protected);
        if diff.is_empty() {
            restore(ctx, &snap);
            continue;
        }
        tried += 1;
        let result = run_tests(ctx, state, s.command).await;
        if let Some(why) = result.limit_message() {
            restore(ctx, &snap);
            super::resource_limit(state, &result.command, &why);
            ended = Some(CoderEnd::RunStopped);
            break;
        }
        let bad = badness(&result);
        a.notes.push(format!(
            "typed repair {}: {}",
            c.why,
            if bad == 0 {
                "the tests pass"
            } else {
                "still failing"
            }
        ));
        if bad == 0 {
            if passed(ctx, state, a, (&snap, &diff, &c.why)) {
                (ended, passing) = (Some(CoderEnd::Done), Some(c.why.clone()));
                break;
            }
            continue;
        }
        if a.improves(bad) {
            a.best = Some(candidate(ctx, &snap, bad, &diff));
        }
        restore(ctx, &snap);
    }
    ctx.record(RunEvent::ToolCall {
        step: state.total_steps + 1,
        node: NodeName::Coder,
        name: "typed_repair".into(),
        arguments: serde_json::json!({ "candidates": found.len(), "tried": tried }),
        output: passing.map_or_else(
            || format!("{tried} template(s) tried, none passed"),
            |why| format!("passed: {why}"),
        ),
        is_error: false,
    });
    state.count_tool("typed_repair");
    ended
}
