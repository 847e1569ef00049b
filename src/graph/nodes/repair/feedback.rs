//! What the repair loop tells the model, as pure functions: how bad a test run is (for the
//! best candidate), the failing output compacted for the prompt, the opening message every
//! attempt shares, the one-line entries of the attempts that did not work, and when the tests
//! contradict each other.

use crate::graph::prompt::code_view::Traceback;
use crate::graph::prompt::context::clip;
use crate::graph::prompt::messages::{
    self, AttemptBreaksOthers, AttemptNotApplied, AttemptTested, AttemptUnreadable, BlocksSkipped,
    TestsTimedOut, TriedList,
};
use kotef_tools::CommandResult;
use std::path::Path;

/// Characters of the failing output shown.
pub const FAILURE_CHARS: usize = 1800;

/// Characters of the list of failed attempts (the oldest are dropped to bound the prompt).
pub const TRIED_CHARS: usize = 3000;

/// Characters of one failed attempt's failure in that list.
pub const TRIED_FAILURE_CHARS: usize = 300;

/// How bad a test run is, to keep the best candidate: 0 passed, else the failing tests its
/// output reports, `u32::MAX` for code that does not load or output that says neither.
pub fn badness(r: &CommandResult) -> u32 {
    if r.success() {
        return 0;
    }
    let out = format!("{}\n{}", r.stdout, r.stderr);
    let tail: Vec<&str> = out.lines().rev().take(6).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    let head: String = out.chars().take(4000).collect();
    if kotef_tools::failure_severity(&head) == Some(u32::MAX) {
        return u32::MAX;
    }
    kotef_tools::failure_severity(&tail.join("\n"))
        .filter(|n| *n > 0)
        .unwrap_or(u32::MAX - 1)
}

/// The part of a failing run the model reads: the start of the output (where unittest, pytest and
/// cargo print the first failure) and its last lines (the counts), compacted by [`compact_output`],
/// with unittest's later failures shortened ([`crate::lang::unittest::trim_failure_blocks`]); the
/// line that raised and the deepest frame in the repository (`files`) are never cut
/// ([`crate::graph::prompt::code_view::raise_site`]).
pub fn failure_text(r: &CommandResult, root: &Path, files: &[String]) -> String {
    let out =
        crate::lang::traceback::without_warnings_summary(&format!("{}{}", r.stdout, r.stderr));
    let out = compact_output(&out, root);
    let keep =
        crate::graph::prompt::code_view::raise_site(&out, &root.display().to_string(), files);
    let out = crate::lang::unittest::trim_failure_blocks(&out);
    let out = out.trim();
    if r.timed_out {
        return format!(
            "{}\n{}",
            TestsTimedOut,
            crate::graph::prompt::code_view::clip_keeping(
                out,
                FAILURE_CHARS.saturating_sub(80),
                &keep
            )
        );
    }
    crate::graph::prompt::code_view::clip_keeping(out, FAILURE_CHARS, &keep)
}

/// Test output with what costs prompt tokens and tells the model nothing left out: the work
/// tree's own path before file names (`File "/tmp/x/run/test_a.py"` reads `File "test_a.py"`),
/// rule lines (`=====`, `-----`) and the `Traceback (most recent call last):` headers.
pub fn compact_output(out: &str, root: &Path) -> String {
    let prefix = format!("{}/", root.display().to_string().trim_end_matches('/'));
    out.lines()
        .filter(|l| {
            let t = l.trim();
            let rule = t.len() >= 8 && t.chars().all(|c| matches!(c, '=' | '-' | '_' | '*' | '~'));
            !rule && t != "Traceback (most recent call last):"
        })
        .map(|l| l.replace(&prefix, ""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A short line diff of one file (`-` old, `+` new), the unchanged lines around the change
/// left out; empty when the texts are equal.
pub fn line_diff(path: &str, before: &str, after: &str) -> String {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    if head == a.len() && head == b.len() {
        return String::new();
    }
    let mut out = format!("--- {path}\n");
    for l in &a[head..a.len() - tail] {
        out.push_str(&format!("-{l}\n"));
    }
    for l in &b[head..b.len() - tail] {
        out.push_str(&format!("+{l}\n"));
    }
    out
}

/// The first user message: the stable part of every attempt's prompt (goal, what the task
/// adds to it, files, test command and the starting failure), so a server's prompt cache
/// reuses it.
pub fn opening_message(
    goal: &str,
    task: Option<&str>,
    files: &[(String, String)],
    protected: &[String],
    command: &str,
    failure: &str,
) -> String {
    opening(&Opening {
        goal,
        task,
        files,
        protected,
        command,
        failure,
        test: None,
        trace: &Traceback::default(),
        names: &[],
        note: None,
        allowance: None,
    })
}

/// Everything the opening message is made of.
pub struct Opening<'a> {
    pub goal: &'a str,
    pub task: Option<&'a str>,
    /// The files shown, with their whole text (a long one is shown in part).
    pub files: &'a [(String, String)],
    pub protected: &'a [String],
    pub command: &'a str,
    pub failure: &'a str,
    /// The failing test's function, rendered (`super::spec`), when the failure does not
    /// quote it.
    pub test: Option<&'a str>,
    /// The failing run's tracebacks: the lines each file is shown around, the files outside.
    pub trace: &'a Traceback,
    /// Names the failure mentions: a long file's functions of these names are shown.
    pub names: &'a [String],
    /// Why these files are shown, when the loop moved to them.
    pub note: Option<&'a str>,
    /// Characters the files may take (`repair::room`); `None` shows them all in full.
    pub allowance: Option<usize>,
}

/// The opening message of [`Opening`].
pub fn opening(o: &Opening) -> String {
    let mut out = messages::RepairGoal { goal: o.goal }.to_string();
    if let Some(task) = o.task.filter(|t| t.trim() != o.goal.trim()) {
        out.push_str(&messages::RepairTask { task }.to_string());
    }
    out.push_str(&messages::RepairFilesSection.to_string());
    if let Some(note) = o.note {
        out.push_str(&messages::RepairNote { note }.to_string());
    }
    out.push_str(&super::room::files_section(&super::room::Files {
        files: o.files,
        protected: o.protected,
        trace: o.trace,
        names: o.names,
        allowance: o.allowance,
    }));
    if let Some(test) = o.test {
        out.push_str(test);
    }
    let failure = messages::RepairFailure {
        command: o.command,
        failure: o.failure,
        outside: &o.trace.outside_note(),
        ask: &messages::RepairAsk.to_string(),
    };
    out.push_str(&failure.to_string());
    out
}

/// What one attempt came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// No block could be read from the reply.
    Unreadable,
    /// Blocks were read but none could be placed; the errors say why.
    NotApplied(Vec<String>),
    /// Applied and tested.
    Tested {
        diff: String,
        badness: u32,
        failure: String,
        errors: Vec<String>,
    },
    /// The failing tests passed, but the tests of `broken` beside them, which passed at the
    /// start, failed (`failure` is their run's).
    Breaks {
        diff: String,
        broken: Vec<String>,
        failure: String,
    },
}

impl Outcome {
    /// An applied and tested attempt: its diff, how bad the run was, what still fails and
    /// the blocks it could not place.
    pub fn tested(diff: String, badness: u32, failure: String, errors: Vec<String>) -> Self {
        Outcome::Tested {
            diff,
            badness,
            failure,
            errors,
        }
    }
}

/// The entry that tells the model how its attempt `n` (1-based) went.
pub fn feedback(n: u32, outcome: &Outcome, baseline: u32) -> String {
    match outcome {
        Outcome::Unreadable => AttemptUnreadable { n: &n.to_string() }.to_string(),
        Outcome::NotApplied(errors) => {
            let list: Vec<String> = errors.iter().map(|e| format!("- {e}")).collect();
            AttemptNotApplied {
                n: &n.to_string(),
                errors: &list.join("\n"),
            }
            .to_string()
        }
        Outcome::Tested {
            diff,
            badness,
            failure,
            errors,
        } => {
            let verdict = match (*badness, baseline) {
                (b, base) if b < base && b != u32::MAX - 1 => {
                    messages::VerdictPartlyFixed.to_string()
                }
                (b, base) if b > base => messages::VerdictWorse.to_string(),
                _ => messages::VerdictNotFixed.to_string(),
            };
            let skipped = if errors.is_empty() {
                String::new()
            } else {
                let errors = clip(&errors.join("; "), 300);
                format!(" {}", BlocksSkipped { errors: &errors })
            };
            AttemptTested {
                n: &n.to_string(),
                verdict: &verdict,
                change: &change_summary(diff),
                skipped: &skipped,
                failure: &first_failure(failure),
            }
            .to_string()
        }
        Outcome::Breaks {
            diff,
            broken,
            failure,
        } => AttemptBreaksOthers {
            n: &n.to_string(),
            broken: &clip(&broken.join(", "), 200),
            change: &change_summary(diff),
            failure: &first_failure(failure),
        }
        .to_string(),
    }
}

/// A file tool's error in the words of edit blocks (SEARCH and REPLACE, not `old` and
/// `new`), for the model: the edit errors are written from their fields, any other error as
/// the tool wrote it.
pub struct BlockError<'a>(pub &'a kotef_tools::ToolError);

impl std::fmt::Display for BlockError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use kotef_tools::ToolError as E;
        match self.0 {
            E::EditNoMatch { path, closest } => write!(
                f,
                "the SEARCH text was not found in `{path}` (0 matches); copy the exact lines from the file, including whitespace{closest}"
            ),
            E::EditManyMatches { path, count } => write!(
                f,
                "the SEARCH text matches {count} times in `{path}`; include more surrounding lines so it matches exactly once"
            ),
            E::EditEmptyOld => f.write_str("the SEARCH text must not be empty"),
            E::EditNoChange => f.write_str(
                "SEARCH and REPLACE are the same text, so nothing would change; put the corrected lines in REPLACE",
            ),
            E::BadArguments { tool, message } if tool == "edit_file" => f.write_str(message),
            other => write!(f, "{other}"),
        }
    }
}

/// A diff in one line: `` `old` to `new` `` (lines joined by ` / `), so the list of tried
/// changes holds no code block a small model would copy back as its answer.
pub fn change_summary(diff: &str) -> String {
    let side = |mark: char| {
        let lines: Vec<&str> = diff
            .lines()
            .filter(|l| l.starts_with(mark) && !l.starts_with("---") && !l.starts_with("+++"))
            .map(|l| l[1..].trim())
            .filter(|l| !l.is_empty())
            .collect();
        clip(&lines.join(" / "), 240)
    };
    let (old, new) = (side('-'), side('+'));
    match (old.is_empty(), new.is_empty()) {
        (true, _) => messages::ChangeAdded { new: &new }.to_string(),
        (_, true) => messages::ChangeRemoved { old: &old }.to_string(),
        _ => messages::ChangeChanged {
            old: &old,
            new: &new,
        }
        .to_string(),
    }
}

/// The first failure of a test run in one line: the failing assertion or call, and the
/// error it raised (`self.assertEqual(f(1), 2) → AssertionError: 1 != 2`); else the output's
/// first lines.
pub fn first_failure(failure: &str) -> String {
    let lines: Vec<&str> = failure
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let error = lines.iter().position(|l| {
        let head = l.split(':').next().unwrap_or_default();
        l.contains(':')
            && !head.contains(' ')
            && (head.ends_with("Error") || head.ends_with("Exception") || head == "error")
    });
    let text = match error {
        Some(i) if i > 0 && !lines[i - 1].starts_with("File ") => {
            format!("{} → {}", lines[i - 1], lines[i])
        }
        Some(i) => lines[i].to_string(),
        None => lines
            .iter()
            .take(3)
            .copied()
            .collect::<Vec<_>>()
            .join(" / "),
    };
    clip(&text, TRIED_FAILURE_CHARS)
}

/// The message after the opening that lists the attempts that did not work (the latest
/// last), newest kept within [`TRIED_CHARS`]. Entries are only ever added at its end, so the
/// server's prompt cache reuses all of the previous attempt's prompt but its last line.
pub fn tried_message(entries: &[String]) -> String {
    let mut kept: Vec<&String> = Vec::new();
    let mut size = 0;
    for e in entries.iter().rev() {
        if !kept.is_empty() && size + e.len() > TRIED_CHARS {
            break;
        }
        size += e.len();
        kept.push(e);
    }
    kept.reverse();
    let list: Vec<&str> = kept.iter().map(|e| e.as_str()).collect();
    TriedList {
        list: &list.join("\n\n"),
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(code: i32, stdout: &str, stderr: &str) -> CommandResult {
        CommandResult {
            command: "python3 -m unittest".into(),
            exit_code: Some(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
            timed_out: false,
            truncated: false,
            duration_ms: 1,
            spawn_error: None,
            limit: None,
        }
    }

    #[test]
    fn a_passing_run_is_best_and_counts_order_the_rest() {
        let two = result(
            1,
            "",
            "FAIL: test_a\n...\nRan 5 tests\n\nFAILED (failures=2)\n",
        );
        let one = result(1, "", "Ran 5 tests\n\nFAILED (failures=1)\n");
        let broken = result(1, "", "SyntaxError: invalid syntax\n");
        assert_eq!(
            [badness(&result(0, "ok", "")), badness(&one), badness(&two)],
            [0, 1, 2]
        );
        assert_eq!(badness(&broken), u32::MAX);
    }

    #[test]
    fn test_output_is_shown_without_rules_traceback_headers_or_the_work_trees_path() {
        let out = "======================================================================\nFAIL: test_2 (test_a.T.test_2)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"/tmp/w/run/test_a.py\", line 12, in test_2\n    self.assertEqual(f(1), 2)\nAssertionError: 1 != 2\n";
        assert_eq!(
            compact_output(out, Path::new("/tmp/w/run")),
            "FAIL: test_2 (test_a.T.test_2)\n  File \"test_a.py\", line 12, in test_2\n    self.assertEqual(f(1), 2)\nAssertionError: 1 != 2"
        );
    }

    #[test]
    fn edit_errors_speak_of_search_and_replace() {
        use kotef_tools::ToolError as E;
        let shown = |e: E| BlockError(&e).to_string();
        assert_eq!(
            shown(E::EditNoMatch { path: "a.py".into(), closest: "\nThe closest text in the file (line 2) is:\n```\n  x\n```".into() }),
            "the SEARCH text was not found in `a.py` (0 matches); copy the exact lines from the file, including whitespace\nThe closest text in the file (line 2) is:\n```\n  x\n```"
        );
        assert_eq!(
            shown(E::EditManyMatches { path: "a.py".into(), count: 3 }),
            "the SEARCH text matches 3 times in `a.py`; include more surrounding lines so it matches exactly once"
        );
        assert_eq!(shown(E::EditEmptyOld), "the SEARCH text must not be empty");
        assert_eq!(
            shown(E::EditNoChange),
            "SEARCH and REPLACE are the same text, so nothing would change; put the corrected lines in REPLACE"
        );
        assert_eq!(shown(E::NotFound("b.py".into())), "`b.py` does not exist");
    }

    #[test]
    fn a_diff_shows_only_the_changed_lines() {
        assert_eq!(
            line_diff(
                "gcd.py",
                "def gcd(a, b):\n    return b\n\nx = 1\n",
                "def gcd(a, b):\n    return a\n\nx = 1\n"
            ),
            "--- gcd.py\n-    return b\n+    return a\n"
        );
        assert_eq!(line_diff("a", "same\n", "same\n"), "");
    }

    #[test]
    fn the_feedback_on_a_failed_attempt_quotes_its_diff_and_the_failure() {
        let outcome = Outcome::Tested {
            diff: "--- gcd.py\n-    return b\n+    return a\n".into(),
            badness: 2,
            failure: "FAILED (failures=2)".into(),
            errors: vec![],
        };
        assert_eq!(
            feedback(1, &outcome, 2),
            "Attempt 1: This change did not fix it: it changed `return b` to `return a`. It was undone. The tests then: FAILED (failures=2)"
        );
    }

    #[test]
    fn the_feedback_on_a_pass_that_broke_its_neighbours_names_them() {
        let outcome = Outcome::Breaks {
            diff: "--- body.py\n-    return 'none'\n+    return 'chunked'\n".into(),
            broken: vec!["test_none".into()],
            failure: "FAIL: test_none (t.T.test_none)\nAssertionError: 'chunked' != 'none'\n"
                .into(),
        };
        assert_eq!(
            feedback(2, &outcome, 1),
            "Attempt 2: the failing test passed, but the change broke tests beside it that passed before (test_none): it changed `return 'none'` to `return 'chunked'`. It was undone. Those tests then: FAIL: test_none (t.T.test_none) → AssertionError: 'chunked' != 'none'"
        );
    }

    #[test]
    fn the_first_failure_is_the_assertion_and_its_error() {
        let out = "FAIL: test_2 (t.T.test_2)\n  File \"t.py\", line 12, in test_2\n    self.assertEqual(f(1), 2)\nAssertionError: 1 != 2\nFAIL: test_3 (t.T.test_3)\n";
        assert_eq!(
            first_failure(out),
            "self.assertEqual(f(1), 2) → AssertionError: 1 != 2"
        );
        assert_eq!(
            first_failure("error[E0308]: mismatched types\n --> src/lib.rs:3:5\n"),
            "error[E0308]: mismatched types / --> src/lib.rs:3:5"
        );
    }

    #[test]
    fn python_code_is_shown_with_its_docstrings_above_it_by_name() {
        let text = opening_message(
            "Fix f",
            Some("Fix f"),
            &[(
                "f.py".into(),
                "def f(a):\n    \"\"\"Add one.\"\"\"\n    return a\n".into(),
            )],
            &[],
            "python3 -m unittest",
            "FAILED (failures=1)",
        );
        assert!(
            text.contains(
                "What `f` must do (its docstring, left out of the code below):\n\"\"\"Add one.\"\"\"\n\nf.py\n```\ndef f(a):\n    return a\n```"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_opening_message_marks_the_tests_and_ends_with_the_failure() {
        let text = opening_message(
            "Fix gcd",
            None,
            &[
                ("gcd.py".into(), "def gcd(a, b):\n    return b\n".into()),
                ("test_gcd.py".into(), "import unittest\n".into()),
            ],
            &["test_gcd.py".into()],
            "python3 -m unittest",
            "FAILED (failures=1)",
        );
        assert!(
            text.contains("test_gcd.py (a test: do not change it)")
                && !text.contains("# Task")
                && text.ends_with("Say which line is wrong, then write the corrected function."),
            "{text}"
        );
    }
}
