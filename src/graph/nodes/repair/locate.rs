//! Localisation as a step of the repair loop: when tested attempts keep failing in one file
//! ([`LOCATE_AFTER`] in the same file), the loop stops resampling it and looks where the
//! failure's names (`ExitStatus.ERROR_TOO_MANY_REDIRECTS`, `output_path`) are defined and
//! used ([`kotef_tools::locate::places`]), and the next attempts see those files instead.
//! The file the failure was raised in stays shown beside the new ones (the attempts may have
//! changed the right line the wrong way); it takes [`LOCATE_AFTER`] more failures there
//! before the loop moves again. Bounded: at most [`MOVES`] moves a step, each with its reason
//! in the transcript. Only free attempts count: line attempts follow their queue of statements
//! (`super::lines`) whatever the opening shows, and a move re-reads the whole opening (in
//! held-out run 35, eleven moves during line attempts cost 358 s of model time).

use crate::graph::prompt::code_view::code_names;
use crate::lang::traceback::exception_line;
use std::collections::{BTreeMap, BTreeSet};

/// Failed tested attempts in one file before the loop looks elsewhere.
pub const LOCATE_AFTER: u32 = 2;
/// Moves to other files in one repair step at most.
pub const MOVES: u32 = 2;
/// Names looked up at most.
pub const NAMES: usize = 8;

/// What the loop knows of where it has tried.
#[derive(Debug, Default)]
pub struct Locator {
    /// The names the failure calls (`urljoin(`), see [`called_names`].
    called: Vec<String>,
    /// Failed tested attempts per file since the last move.
    failed_in: BTreeMap<String, u32>,
    /// Every file the loop has moved away from: never looked up again.
    left: BTreeSet<String>,
    pub moves: u32,
}

impl Locator {
    /// A locator for a failure that calls `called`.
    pub fn new(called: Vec<String>) -> Self {
        Locator {
            called,
            ..Locator::default()
        }
    }

    /// A tested attempt that did not pass changed `diff` (a [`super::feedback::line_diff`]
    /// list, one `--- path` header a file); it `counts` when it says the fix is not there: a
    /// free attempt (not a line attempt) that did not make the tests worse (a module that no
    /// longer imports says nothing of where the fix is).
    pub fn failed(&mut self, diff: &str, counts: bool) {
        if !counts {
            return;
        }
        for path in diff.lines().filter_map(|l| l.strip_prefix("--- ")) {
            *self.failed_in.entry(path.to_string()).or_insert(0) += 1;
        }
    }

    /// The files that failed [`LOCATE_AFTER`] times since the last move, when the loop
    /// should look elsewhere now (moves left, and a file of `shown` among them).
    pub fn due(&self, shown: &[String]) -> Option<Vec<String>> {
        if self.moves >= MOVES {
            return None;
        }
        let spent = self.spent();
        spent.iter().any(|p| shown.contains(p)).then_some(spent)
    }

    /// After a failed tested attempt: the files to show next when attempts kept failing in
    /// the ones shown (see [`super::shown::look_elsewhere`]), counted as a move.
    pub(super) fn next_place(
        &mut self,
        ctx: &crate::graph::GraphContext,
        state: &mut crate::graph::memory::state::RunState,
        names: &[String],
        protected: &[String],
        shown: &super::shown::Shown,
    ) -> Option<super::shown::Shown> {
        let spent = self.due(&shown.paths())?;
        self.moved(&spent);
        let avoid: Vec<String> = self.left.iter().cloned().collect();
        let settled = settled(names, &self.called, &spent, &shown.files);
        let names: Vec<String> = names
            .iter()
            .filter(|n| !settled.contains(n))
            .cloned()
            .collect();
        let look = super::shown::LookUp {
            spent: &spent,
            avoid: &avoid,
            names: &names,
            settled: &settled,
        };
        super::shown::look_elsewhere(ctx, state, &look, protected, shown)
    }

    /// Counts a move away from `spent`: its files are not looked up again, and the count of
    /// failures starts anew (a file kept in view must fail [`LOCATE_AFTER`] times again).
    fn moved(&mut self, spent: &[String]) {
        self.moves += 1;
        self.left.extend(spent.iter().cloned());
        self.failed_in.clear();
    }

    /// The files attempts have failed in [`LOCATE_AFTER`] times since the last move.
    pub fn spent(&self) -> Vec<String> {
        self.failed_in
            .iter()
            .filter(|(_, n)| **n >= LOCATE_AFTER)
            .map(|(p, _)| p.clone())
            .collect()
    }
}

/// The names of `names` the failure calls (`urljoin(` in a traceback's line).
pub fn called_names(failure: &str, names: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|n| {
            kotef_tools::locate::name_starts(failure, n)
                .any(|at| failure[at + n.len()..].starts_with('('))
        })
        .cloned()
        .collect()
}

/// The names the failure calls that a file of `spent` defines: the function the attempts
/// kept changing is where the fix is, and its callers elsewhere (not on the traceback) cannot
/// change what the failing call returns, so they are no place to look.
pub fn settled(
    names: &[String],
    called: &[String],
    spent: &[String],
    files: &[(String, String)],
) -> Vec<String> {
    names
        .iter()
        .filter(|n| called.contains(n))
        .filter(|n| {
            files
                .iter()
                .any(|(p, text)| spent.contains(p) && kotef_tools::outline::defines(text, n))
        })
        .cloned()
        .collect()
}

/// The names a failure is about: those in the lines that raised and the line before each (the
/// assertion or call), then those of the failing test's `statement` whole (a call written over
/// several lines is reported at one of them: `u'trailer.mp4')` names nothing the test
/// called), then the goal's, at most [`NAMES`].
pub fn failing_names(failure: &str, statement: Option<&str>, goal: &str) -> Vec<String> {
    let lines: Vec<&str> = failure.lines().collect();
    let mut text = String::new();
    for (i, l) in lines.iter().enumerate() {
        if exception_line(l).is_some() {
            if i > 0 {
                text.push_str(lines[i - 1]);
                text.push('\n');
            }
            text.push_str(l);
            text.push('\n');
        }
    }
    if let Some(stmt) = statement {
        text.push_str(stmt);
        text.push('\n');
    }
    text.push_str(goal);
    let mut names = code_names(&text);
    names.truncate(NAMES);
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_of_an_assertion_and_its_error_are_looked_up() {
        let failure = "FAIL: test_max_redirects (tests.test_redirects.T)\n  File \"tests/test_redirects.py\", line 20, in test_max_redirects\n    assert r.exit_status == ExitStatus.ERROR_TOO_MANY_REDIRECTS\nAssertionError: <ExitStatus.ERROR: 1> != <ExitStatus.ERROR_TOO_MANY_REDIRECTS: 6>\n";
        assert_eq!(
            failing_names(failure, None, "Fix the max-redirects test"),
            ["exit_status", "ExitStatus", "ERROR_TOO_MANY_REDIRECTS"]
        );
        assert_eq!(
            failing_names("NameError: name 'output_path' is not defined", None, ""),
            ["output_path"]
        );
    }

    #[test]
    fn the_names_of_a_failing_call_written_over_several_lines_are_looked_up() {
        let failure = "  File \"test/test_utils.py\", line 193, in test_url_basename\n    u'trailer.mp4')\nAssertionError: '' != 'trailer.mp4'\n";
        let statement = "self.assertEqual(\n    url_basename(u'http://a.org/b/trailer.mp4'),\n    u'trailer.mp4')";
        let names = failing_names(failure, Some(statement), "");
        assert!(names.contains(&"url_basename".to_string()), "{names:?}");
        assert!(!failing_names(failure, None, "").contains(&"url_basename".to_string()));
    }

    #[test]
    fn two_failed_attempts_in_one_file_make_the_loop_look_elsewhere_at_most_twice() {
        let mut l = Locator::default();
        let shown = vec!["httpie/__init__.py".to_string()];
        l.failed("--- httpie/__init__.py\n-a\n+b\n", true);
        assert_eq!(l.due(&shown), None);
        l.failed("--- httpie/__init__.py\n-a\n+c\n", true);
        assert_eq!(l.due(&shown), Some(shown.clone()));
        l.moves = MOVES;
        assert_eq!(l.due(&shown), None);
    }

    #[test]
    fn attempts_that_made_the_tests_worse_do_not_move_the_loop() {
        let mut l = Locator::default();
        let shown = vec!["luigi/parameter.py".to_string()];
        l.failed("--- luigi/parameter.py\n-a\n+b\n", false);
        l.failed("--- luigi/parameter.py\n-a\n+c\n", false);
        assert_eq!(l.due(&shown), None);
        l.failed("--- luigi/parameter.py\n-a\n+d\n", true);
        l.failed("--- luigi/parameter.py\n-a\n+e\n", true);
        assert_eq!(l.due(&shown), Some(shown.clone()));
    }

    #[test]
    fn a_called_function_defined_where_attempts_failed_is_settled_and_a_constant_is_not() {
        let failure = "    self.assertEqual(urljoin(None, 'rtmp://foo.de'), 'rtmp://foo.de')\nAssertionError: None != 'rtmp://foo.de'\nMAX_LEN used: nourljoin(x)\n";
        let names: Vec<String> = ["urljoin", "MAX_LEN", "nourl"].map(String::from).to_vec();
        let called = called_names(failure, &names);
        assert_eq!(called, ["urljoin"]);
        let files = vec![(
            "yt/utils.py".to_string(),
            "MAX_LEN = 3\n\ndef urljoin(base, path):\n    return None\n".to_string(),
        )];
        let spent = vec!["yt/utils.py".to_string()];
        assert_eq!(settled(&names, &called, &spent, &files), ["urljoin"]);
        assert!(settled(&names, &called, &[], &files).is_empty());
    }

    #[test]
    fn a_file_kept_in_view_after_a_move_must_fail_twice_again_before_the_next_move() {
        let mut l = Locator::default();
        let kept = vec!["yt/utils.py".to_string(), "yt/extractor.py".to_string()];
        l.failed("--- yt/utils.py\n-a\n+b\n", true);
        l.failed("--- yt/utils.py\n-a\n+c\n", true);
        let spent = l.due(&kept).unwrap_or_default();
        l.moved(&spent);
        l.failed("--- yt/utils.py\n-a\n+d\n", true);
        assert_eq!(l.due(&kept), None);
        l.failed("--- yt/utils.py\n-a\n+e\n", true);
        assert_eq!(l.due(&kept), Some(vec!["yt/utils.py".to_string()]));
        assert!(l.left.contains("yt/utils.py"));
    }
}
