//! The failing test as the repair loop's specification: the test function the traceback
//! passes through, shown (read-only) above the failure. A unittest traceback quotes one line
//! of the test (`None,` of a call over three lines), which says neither what was called nor
//! what was expected; the test's body says both. Pytest quotes the test itself, so a failure
//! that already holds the test's `def` line gets nothing more. The test is the function the
//! run failed in (`test_comment_indentation`), not the assertion helper it called
//! (`assertFormatEqual`). When no frame of the failure is in the project's code, the test's
//! names ([`test_names`]) are what the repair loop looks the code up by.

use crate::graph::prompt::code_view::{code_names, Traceback};
use crate::graph::prompt::messages::RepairTest;
use kotef_tools::outline::{outline, Outlined};
use std::collections::BTreeSet;

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Lines of a long test shown before the failing line (after its `def` line).
const BEFORE: usize = 20;
/// Lines of a test shown after the failing line.
const AFTER: usize = 8;

/// Names of the failing test looked up at most.
pub const TEST_NAMES: usize = 16;

/// The test the run failed in: its file's path and text, the frame's line and its function.
pub(super) struct FailingTest {
    pub(super) path: String,
    pub(super) text: String,
    pub(super) line: usize,
    pub(super) def: Outlined,
}

/// [`failing_def`] read from the work tree.
pub(super) fn in_tree(
    ctx: &crate::graph::GraphContext,
    trace: &Traceback,
    protected: &[String],
) -> Option<FailingTest> {
    let tree = ctx.tools.workdir().tree();
    failing_def(trace, protected, |p| {
        tree.read_text(p, kotef_tools::file_tools::READ_CAP_BYTES as u64)
            .ok()
    })
}

/// The failing test of `trace`: the first protected frame whose function is a test
/// (`test_…`), else the first protected frame whose function `read` can show (a helper the
/// test called, when the test itself is not on the traceback).
pub(super) fn failing_def(
    trace: &Traceback,
    protected: &[String],
    read: impl Fn(&str) -> Option<String>,
) -> Option<FailingTest> {
    let mut first: Option<FailingTest> = None;
    for (path, line) in trace.repo.iter().filter(|(p, _)| protected.contains(p)) {
        let Some(text) = read(path) else { continue };
        let Some(def) = kotef_tools::outline::enclosing(&text, *line) else {
            continue;
        };
        let found = FailingTest {
            path: path.clone(),
            text,
            line: *line,
            def,
        };
        if found.def.name.to_lowercase().starts_with("test") {
            return Some(found);
        }
        first.get_or_insert(found);
    }
    first
}

/// The failing test's statement at its frame, whole ([`super::targets::span_at`]): the
/// traceback quotes one line of a call written over several.
pub(super) fn failing_statement(t: &FailingTest) -> Option<String> {
    super::targets::span_at(&t.text, t.line).map(|(_, stmt)| stmt)
}

/// A failing run's frames in the order printed (the outermost call first), each with its
/// output line and its repository path (`None` outside the repository), and the output lines
/// that end a traceback (what was raised; "During handling of the above exception", which
/// pytest prints after an earlier traceback's last frame).
pub(super) struct Printed {
    frames: Vec<(usize, Option<String>, usize)>,
    raised: Vec<usize>,
}

impl Printed {
    pub(super) fn read(output: &str, root: &str, files: &[String]) -> Self {
        use crate::graph::prompt::code_view::{place, Place};
        let frames = crate::lang::traceback::frames(output)
            .into_iter()
            .map(|f| {
                let path = match place(&f.path, root, files) {
                    Place::Repo(p) => Some(p),
                    Place::Outside(_) => None,
                };
                (f.at, path, f.line)
            })
            .collect();
        let raised = output
            .lines()
            .enumerate()
            .filter(|(_, l)| {
                crate::lang::traceback::exception_line(l).is_some()
                    || l.contains("During handling of the above exception")
                    || l.contains("The above exception was the direct cause")
            })
            .map(|(i, _)| i)
            .collect();
        Printed { frames, raised }
    }
}

/// Whether no frame the failing test `t` called into is the project's source (a file that is
/// neither protected nor a test): the frames printed after the test's own are the calls it
/// made, and so are those of an earlier traceback (before a raising line: the exception a
/// later one was raised while handling); the frames printed just before it, in its own
/// traceback, are the test runner's (`tornado/testing.py`'s wrapper that calls the test).
pub(super) fn runs_no_source(t: &FailingTest, printed: &Printed, protected: &[String]) -> bool {
    let source = |p: &str| !protected.iter().any(|x| x == p) && kotef_tools::locate::rank(p) == 0;
    let test_at = printed
        .frames
        .iter()
        .find(|(_, p, l)| p.as_deref() == Some(t.path.as_str()) && *l == t.line)
        .map(|(at, _, _)| *at);
    printed.frames.iter().all(|(at, path, _)| {
        if !path.as_deref().is_some_and(source) {
            return true;
        }
        // A source frame is the runner's only when printed before the test, in its traceback.
        test_at.is_some_and(|test_at| {
            *at < test_at && !printed.raised.iter().any(|r| (*at..test_at).contains(r))
        })
    })
}

/// The name a line sets another to (`request_class = Request`, `model = Foo`): a test class
/// naming the class it tests, which [`code_names`] passes over as a plain word.
fn assigned_name(line: &str) -> Option<String> {
    let (left, right) = line.trim().split_once(" = ")?;
    let ident = |w: &str| {
        w.len() >= 4
            && w.chars().next().is_some_and(char::is_alphabetic)
            && w.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    (ident(left) && ident(right) && right.chars().next().is_some_and(char::is_uppercase))
        .then(|| right.to_string())
}

/// The failing test rendered for the prompt; `None` when `failure` quotes it already.
pub(super) fn failing_test(t: &FailingTest, failure: &str) -> Option<String> {
    let FailingTest {
        path,
        text,
        line,
        def,
    } = t;
    let line = *line;
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.get(def.first - 1)?;
    if failure.contains(header.trim()) {
        return None;
    }
    let last = def.last.min(line + AFTER);
    let from = if line.saturating_sub(def.first) > BEFORE {
        line - BEFORE
    } else {
        def.first
    };
    let mut shown: Vec<String> = Vec::new();
    if from > def.first {
        shown.push(header.to_string());
        shown.push(format!("{}    …", " ".repeat(indent_of(header))));
    }
    shown.extend(lines.get(from - 1..last)?.iter().map(|l| l.to_string()));
    let code = dedent(&shown);
    Some(
        RepairTest {
            path,
            first: &def.first.to_string(),
            last: &last.to_string(),
            code: &code,
        }
        .to_string(),
    )
}

/// The names the failing test uses, to look for the code it runs: those of its body, then
/// those of its class and of its file's top level (the app, routes, client or data it uses;
/// not the other tests, the other test classes, imports or dunder names), without the names
/// the test file defines itself (its helpers and models); at most [`TEST_NAMES`].
pub(super) fn test_names(t: &FailingTest) -> Vec<String> {
    let lines: Vec<&str> = t.text.lines().collect();
    let text_of = |first: usize, last: usize| {
        lines
            .get(first - 1..last.min(lines.len()))
            .unwrap_or_default()
            .join("\n")
    };
    let body = text_of(t.def.first, t.def.last);
    let mut seeds: BTreeSet<String> = identifiers(&body).map(String::from).collect();
    let mut context = String::new();
    let mut units = context_units(t, &lines);
    // What the test uses, and what that uses in turn (`client` → `client = TestClient(app)`
    // → the routes on `app`), two steps out.
    for _ in 0..2 {
        let (used, rest): (Vec<_>, Vec<_>) = units
            .into_iter()
            .partition(|(f, l)| identifiers(&text_of(*f, *l)).any(|w| seeds.contains(w)));
        units = rest;
        for (f, l) in used {
            let unit = text_of(f, l);
            context.push_str(&unit);
            context.push('\n');
            seeds.extend(identifiers(&unit).map(String::from));
        }
    }
    let mut names: Vec<String> = Vec::new();
    let assigned = context.lines().filter_map(assigned_name);
    for n in code_names(&body)
        .into_iter()
        .chain(assigned)
        .chain(code_names(&context))
    {
        if names.len() >= TEST_NAMES {
            break;
        }
        let dunder = n.starts_with("__");
        if !dunder && !names.contains(&n) && !kotef_tools::outline::defines(&t.text, &n) {
            names.push(n);
        }
    }
    names
}

/// The parts of the failing test's file around it, as line ranges: its class's and the top
/// level's definitions (outermost only) and single statements; not the test itself, the
/// other tests, the other test classes, imports or the `__main__` guard.
fn context_units(t: &FailingTest, lines: &[&str]) -> Vec<(usize, usize)> {
    let all = outline(&t.text);
    let own_class = |d: &Outlined| d.is_class() && d.first <= t.def.first && t.def.last <= d.last;
    let kept: Vec<&Outlined> = all
        .iter()
        .filter(|d| {
            let test = d.name.to_lowercase().starts_with("test") && !d.is_class();
            let other_class = d.is_class() && d.indent == 0 && !own_class(d);
            !own_class(d) && !test && !other_class && d.first != t.def.first
        })
        .collect();
    let outermost: Vec<(usize, usize)> = kept
        .iter()
        .filter(|d| {
            !kept.iter().any(|o| {
                o.first <= d.first && d.last <= o.last && (o.first, o.last) != (d.first, d.last)
            })
        })
        .map(|d| (d.first, d.last))
        .collect();
    let covered = |n: usize| {
        all.iter()
            .any(|d| !own_class(d) && d.first <= n && n <= d.last)
    };
    let statements = (1..=lines.len()).filter(|n| {
        let l = lines[n - 1].trim_start();
        !covered(*n)
            && !l.is_empty()
            && !l.starts_with('#')
            && !l.starts_with("import ")
            && !l.starts_with("from ")
            && !l.starts_with("if __name__")
            && !l.starts_with("class ")
    });
    outermost
        .into_iter()
        .chain(statements.map(|n| (n, n)))
        .collect()
}

/// The identifiers of `text` worth following (`fs`, `client`; not keywords or `self`).
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    const SKIPPED: &[&str] = &[
        "self", "def", "return", "None", "True", "False", "assert", "and", "not", "for", "if",
        "in", "is", "or", "as", "with", "else", "elif", "while", "try", "except", "lambda",
        "yield", "async", "await", "pass", "class", "del", "global", "raise", "from",
    ];
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| {
            w.len() >= 2
                && w.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                && !SKIPPED.contains(w)
        })
}

/// The lines with their common indent taken off (a method's body starts at the margin).
fn dedent(lines: &[String]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent_of(l))
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST_FILE: &str = "import unittest\n\n\nclass TestUrlConcat(unittest.TestCase):\n    def test_url_concat_none_params(self):\n        url = url_concat(\n            \"https://localhost/path?r=1&t=2\",\n            None,\n        )\n        self.assertEqual(url, \"https://localhost/path?r=1&t=2\")\n\n    def test_other(self):\n        pass\n";

    fn trace() -> Traceback {
        Traceback {
            repo: vec![
                ("tornado/httputil.py".into(), 616),
                ("tornado/test/httputil_test.py".into(), 8),
            ],
            outside: Vec::new(),
            focus: Vec::new(),
            located: Vec::new(),
        }
    }

    fn protected() -> Vec<String> {
        vec!["tornado/test/httputil_test.py".into()]
    }

    fn shown(trace: &Traceback, protected: &[String], failure: &str, file: &str) -> Option<String> {
        let t = failing_def(trace, protected, |_| Some(file.to_string()))?;
        failing_test(&t, failure)
    }

    #[test]
    fn a_unittest_failure_shows_the_test_function_it_passes_through() {
        let shown = shown(&trace(), &protected(), "    None,\nTypeError: x", TEST_FILE).unwrap();
        insta::assert_snapshot!(shown, @r#"
        # The failing test: `tornado/test/httputil_test.py` lines 5-10 (it says what the code must do; it is not changed)
        ```
        def test_url_concat_none_params(self):
            url = url_concat(
                "https://localhost/path?r=1&t=2",
                None,
            )
            self.assertEqual(url, "https://localhost/path?r=1&t=2")
        ```
        "#);
    }

    #[test]
    fn a_failure_that_quotes_the_test_already_gets_nothing_more() {
        let pytest = "    def test_url_concat_none_params(self):\n>       url = url_concat(\n";
        assert_eq!(shown(&trace(), &protected(), pytest, TEST_FILE), None);
    }

    #[test]
    fn a_long_test_is_shown_from_its_def_line_and_the_lines_before_the_failing_one() {
        let mut file = String::from("def test_dates(self):\n");
        for i in 0..40 {
            file.push_str(&format!("    self.assertEqual(f({i}), {i})\n"));
        }
        let trace = Traceback {
            repo: vec![("test/test_utils.py".into(), 35)],
            outside: Vec::new(),
            focus: Vec::new(),
            located: Vec::new(),
        };
        let shown = shown(&trace, &["test/test_utils.py".into()], "", &file).unwrap();
        assert!(shown.contains("lines 1-41"), "{shown}");
        assert!(
            shown.contains("def test_dates(self):\n    …\n    self.assertEqual(f(13), 13)"),
            "{shown}"
        );
        assert!(
            shown
                .trim_end()
                .ends_with("    self.assertEqual(f(39), 39)\n```"),
            "{shown}"
        );
    }

    const HELPER_FILE: &str = "import unittest\n\nfs = partial(black.format_str, line_length=88)\n\n\nclass BlackTestCase(unittest.TestCase):\n    def assertFormatEqual(self, expected, actual):\n        self.assertEqual(expected, actual)\n\n    def test_comment_indentation(self):\n        contents_tab = \"if 1:\\n\\tpass\\n\"\n        self.assertFormatEqual(fs(contents_tab), contents_tab)\n\n    def test_other(self):\n        self.assertEqual(lib2to3_parse(''), None)\n";

    fn helper_trace() -> Traceback {
        Traceback {
            repo: vec![
                ("tests/test_black.py".into(), 8),
                ("tests/test_black.py".into(), 12),
            ],
            outside: Vec::new(),
            focus: Vec::new(),
            located: Vec::new(),
        }
    }

    #[test]
    fn a_tests_names_leave_out_the_other_test_classes_of_its_file() {
        let file = "class RequestTest(unittest.TestCase):\n    request_class = Request\n\n    def test_url(self):\n        self.assertRaises(ValueError, self.request_class, 'foo')\n\n\nclass FormRequestTest(RequestTest):\n    request_class = FormRequest\n\n    def setUp(self):\n        self.codec = to_native_str\n\n\nif __name__ == '__main__':\n    unittest.main()\n";
        let t = FailingTest {
            path: "tests/test_http_request.py".into(),
            text: file.into(),
            line: 5,
            def: kotef_tools::outline::enclosing(file, 5).unwrap(),
        };
        let names = test_names(&t);
        assert!(names.contains(&"Request".to_string()), "{names:?}");
        assert!(
            !names
                .iter()
                .any(|n| ["FormRequest", "to_native_str", "__main__"].contains(&n.as_str())),
            "{names:?}"
        );
    }

    #[test]
    fn the_test_function_is_shown_not_the_assertion_helper_it_called() {
        let protected = ["tests/test_black.py".to_string()];
        let shown = shown(&helper_trace(), &protected, "AssertionError", HELPER_FILE).unwrap();
        assert!(
            shown.contains("def test_comment_indentation(self):"),
            "{shown}"
        );
        assert!(!shown.contains("def assertFormatEqual"), "{shown}");
    }

    #[test]
    fn a_tests_names_are_its_bodys_then_its_files_but_other_tests_and_its_own_helpers() {
        let protected = ["tests/test_black.py".to_string()];
        let t = failing_def(&helper_trace(), &protected, |_| {
            Some(HELPER_FILE.to_string())
        })
        .unwrap();
        let names = test_names(&t);
        assert!(names.contains(&"format_str".to_string()), "{names:?}");
        assert!(
            !names.contains(&"assertFormatEqual".to_string()),
            "{names:?}"
        );
        assert!(!names.contains(&"lib2to3_parse".to_string()), "{names:?}");
    }

    fn printed(output: &str) -> Printed {
        let files = [
            "tornado/test/httpserver_test.py".to_string(),
            "tornado/testing.py".to_string(),
            "tornado/http1connection.py".to_string(),
        ];
        Printed::read(output, "/w", &files)
    }

    fn chunked_test() -> FailingTest {
        let file = "class T:\n    def test_chunked(self):\n        self.assertEqual(1, 2)\n";
        FailingTest {
            path: "tornado/test/httpserver_test.py".into(),
            text: file.into(),
            line: 3,
            def: kotef_tools::outline::enclosing(file, 3).unwrap(),
        }
    }

    const RUNNER: &str = "Traceback (most recent call last):\n  File \"/w/tornado/testing.py\", line 136, in __call__\n    result = self.orig_method(*args, **kwargs)\n  File \"/w/tornado/test/httpserver_test.py\", line 3, in test_chunked\n    self.assertEqual(1, 2)\nAssertionError: 1 != 2\n";

    #[test]
    fn frames_above_the_test_in_its_own_traceback_are_the_runners() {
        let protected = ["tornado/test/httpserver_test.py".to_string()];
        assert!(runs_no_source(
            &chunked_test(),
            &printed(RUNNER),
            &protected
        ));
    }

    #[test]
    fn frames_below_the_test_are_the_code_it_ran() {
        let protected = ["tornado/test/httpserver_test.py".to_string()];
        let called = RUNNER.replace(
            "AssertionError: 1 != 2",
            "  File \"/w/tornado/http1connection.py\", line 640, in read\n    x\nValueError: x",
        );
        assert!(!runs_no_source(
            &chunked_test(),
            &printed(&called),
            &protected
        ));
    }

    #[test]
    fn frames_of_an_earlier_pytest_traceback_are_code_the_test_ran() {
        let protected = ["tornado/test/httpserver_test.py".to_string()];
        let pytest = "    def read(self):\n>       x\nE       KeyError: 'x'\n\ntornado/http1connection.py:640: KeyError\n\nDuring handling of the above exception, another exception occurred:\n\n    def test_chunked(self):\n>       self.assertEqual(1, 2)\nE       AssertionError: 1 != 2\n\ntornado/test/httpserver_test.py:3: AssertionError\n";
        assert!(!runs_no_source(
            &chunked_test(),
            &printed(pytest),
            &protected
        ));
    }

    #[test]
    fn frames_of_an_earlier_traceback_are_code_the_test_ran() {
        let protected = ["tornado/test/httpserver_test.py".to_string()];
        let chained = format!("Traceback (most recent call last):\n  File \"/w/tornado/http1connection.py\", line 640, in read\n    x\nKeyError: 'x'\n\nDuring handling of the above exception, another exception occurred:\n\n{RUNNER}");
        assert!(!runs_no_source(
            &chunked_test(),
            &printed(&chained),
            &protected
        ));
    }
}
