//! Tracebacks read from a failing test run's output, as pure functions: the frames (Python's
//! `File "path", line N, in f`, pytest's `path.py:N: in f` and `path.py:N: XError` short
//! forms), and the lines that say what was raised (`NameError: name 'x' is not defined`,
//! pytest's `E   AssertionError: …`). Which frames are the repository's is the caller's to
//! say (it knows the tree); this module only reads text.

/// One frame of a traceback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The path as printed (absolute, or relative to where the tests ran).
    pub path: String,
    /// 1-based line number.
    pub line: usize,
    /// The function the frame is in, when printed (`<module>` is kept as printed).
    pub function: Option<String>,
    /// The index of the output line that names the frame.
    pub at: usize,
    /// pytest's `a/b.py:173: NameError`: the deepest frame, printed after the error line of
    /// its traceback (`E   NameError: …`) rather than before it.
    pub after_error: bool,
}

/// The frames of every traceback in `output`, in the order printed (Python prints the
/// outermost call first, so within one traceback the last frame is the deepest).
pub fn frames(output: &str) -> Vec<Frame> {
    let mut warnings = false;
    output
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            if let Some(heading) = pytest_heading(l) {
                warnings = heading == "warnings summary";
            }
            !warnings
        })
        .filter_map(|(at, l)| python_frame(l, at).or_else(|| short_frame(l, at)))
        .collect()
}

/// The title of a pytest section heading (`==== warnings summary ====` gives
/// `warnings summary`).
fn pytest_heading(line: &str) -> Option<&str> {
    let t = line.trim();
    let inner = t.strip_prefix("===")?.strip_suffix("===")?;
    let title = inner.trim_matches('=').trim();
    (!title.is_empty()).then_some(title)
}

/// `output` without pytest's warnings summary (from its `=== warnings summary ===` heading to
/// the next heading): its `path.py:N: XWarning: …` lines are neither frames nor the failure.
pub fn without_warnings_summary(output: &str) -> String {
    let mut warnings = false;
    let kept: Vec<&str> = output
        .lines()
        .filter(|l| {
            if let Some(heading) = pytest_heading(l) {
                warnings = heading == "warnings summary";
            }
            !warnings
        })
        .collect();
    let mut out = kept.join("\n");
    if output.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// `  File "a/b.py", line 72, in run`.
fn python_frame(line: &str, at: usize) -> Option<Frame> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let (path, rest) = rest.split_once('"')?;
    let rest = rest.trim_start().strip_prefix(", line ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let function = rest[digits.len()..]
        .trim_start()
        .strip_prefix(", in ")
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty());
    Some(Frame {
        path: path.to_string(),
        line: digits.parse().ok()?,
        function,
        at,
        after_error: false,
    })
}

/// pytest's `a/b.py:72: in run` and `a/b.py:173: NameError` (and `--tb=line`'s
/// `/abs/a/b.py:173: NameError: name …`): a path ending in `.py` at the start of the line.
fn short_frame(line: &str, at: usize) -> Option<Frame> {
    let t = line.trim();
    let (path, rest) = t.split_once(".py:")?;
    if path.is_empty() || path.contains(char::is_whitespace) {
        return None;
    }
    let (digits, after) = rest.split_once(':')?;
    let line_no: usize = digits.parse().ok()?;
    let after = after.trim();
    let function = after
        .strip_prefix("in ")
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty());
    // A warning printed with its place (`a/b.py:9: DeprecationWarning: …`) is no frame.
    let raised = exception_line(after).filter(|(class, _)| !class.ends_with("Warning"));
    let plausible = function.is_some() || after.is_empty() || raised.is_some();
    plausible.then(|| Frame {
        path: format!("{path}.py"),
        line: line_no,
        after_error: raised.is_some(),
        function,
        at,
    })
}

/// The exception a line reports, `(class, message)`: `NameError: name 'x' is not defined`,
/// `httpie.ExitStatus: …`, pytest's `E       AssertionError: assert 1 == 2`, a bare
/// `AssertionError`. `None` for any other line.
pub fn exception_line(line: &str) -> Option<(String, String)> {
    let t = line.trim();
    let t = t
        .strip_prefix("E ")
        .map(str::trim_start)
        .filter(|_| line.trim_start().starts_with("E "))
        .unwrap_or(t);
    let (class, message) = match t.split_once(':') {
        Some((c, m)) => (c, m.trim()),
        None => (t, ""),
    };
    let last = class.rsplit('.').next().unwrap_or(class);
    let named = [
        "Error",
        "Exception",
        "Exit",
        "Interrupt",
        "Failure",
        "Warning",
    ]
    .iter()
    .any(|s| last.ends_with(s) && last.len() > s.len())
        || matches!(last, "Exception" | "StopIteration" | "KeyboardInterrupt")
        // A dotted class (`requests.exceptions.TooManyRedirects`) names an exception too.
        || (class.contains('.')
            && last.chars().next().is_some_and(char::is_uppercase)
            && last.chars().any(char::is_lowercase)
            && !message.is_empty());
    let identifier = !class.is_empty()
        && class
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
        && class.chars().next().is_some_and(|c| c.is_alphabetic());
    (named && identifier).then(|| (class.to_string(), message.to_string()))
}

/// The indices of the lines of `output` that report what was raised, in order.
pub fn raising_lines(output: &str) -> Vec<usize> {
    output
        .lines()
        .enumerate()
        .filter(|(_, l)| exception_line(l).is_some())
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNITTEST: &str = "ERROR: test_output (tests.test_x.T)\nTraceback (most recent call last):\n  File \"/w/tests/test_x.py\", line 12, in test_output\n    snoop(output=path)(f)()\n  File \"/w/.venv/lib/python3.11/site-packages/six.py\", line 3, in wrap\n    return f()\n  File \"/w/pysnooper/tracer.py\", line 173, in __call__\n    self.write(output_path)\nNameError: name 'output_path' is not defined\n";

    #[test]
    fn python_frames_are_read_in_order_with_their_functions() {
        let f = frames(UNITTEST);
        let got: Vec<(&str, usize, Option<&str>)> = f
            .iter()
            .map(|f| (f.path.as_str(), f.line, f.function.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("/w/tests/test_x.py", 12, Some("test_output")),
                (
                    "/w/.venv/lib/python3.11/site-packages/six.py",
                    3,
                    Some("wrap")
                ),
                ("/w/pysnooper/tracer.py", 173, Some("__call__")),
            ]
        );
    }

    const WITH_WARNINGS: &str = "    def prune(self, config):\n>       if self.last_active + 1 < time.time():\nE       TypeError: unsupported operand\n\nluigi/scheduler.py:245: TypeError\n=============================== warnings summary ===============================\nluigi/parameter.py:533\n  luigi/parameter.py:533: DeprecationWarning: invalid escape sequence \\d\n    return 1\n\n-- Docs: https://docs.pytest.org\n=========================== short test summary info ============================\nFAILED test/scheduler_test.py::T::test_prune - TypeError\n";

    #[test]
    fn a_warning_in_pytests_summary_is_no_frame() {
        let found: Vec<(String, usize)> = frames(WITH_WARNINGS)
            .into_iter()
            .map(|f| (f.path, f.line))
            .collect();
        assert_eq!(found, [("luigi/scheduler.py".to_string(), 245)]);
        assert!(short_frame("  a/b.py:9: DeprecationWarning: old", 0).is_none());
    }

    #[test]
    fn the_warnings_summary_is_left_out_of_the_failure() {
        let out = without_warnings_summary(WITH_WARNINGS);
        assert!(!out.contains("DeprecationWarning"), "{out}");
        assert!(out.contains("luigi/scheduler.py:245: TypeError"), "{out}");
        assert!(
            out.contains("FAILED test/scheduler_test.py::T::test_prune"),
            "{out}"
        );
    }

    #[test]
    fn pytest_short_frames_are_read() {
        let out = "tests/test_x.py:12: in test_output\n    snoop()\npysnooper/tracer.py:173: NameError\nE   NameError: name 'output_path' is not defined\n____ summary ____\nFAILED tests/test_x.py::test_output - NameError\n";
        let f = frames(out);
        let got: Vec<(&str, usize)> = f.iter().map(|f| (f.path.as_str(), f.line)).collect();
        assert_eq!(got, [("tests/test_x.py", 12), ("pysnooper/tracer.py", 173)]);
    }

    #[test]
    fn the_raised_exception_is_found_bare_dotted_or_after_pytest_e() {
        assert_eq!(
            exception_line("NameError: name 'x' is not defined"),
            Some(("NameError".into(), "name 'x' is not defined".into()))
        );
        assert_eq!(
            exception_line("E       AssertionError: assert 1 == 2"),
            Some(("AssertionError".into(), "assert 1 == 2".into()))
        );
        assert_eq!(
            exception_line("requests.exceptions.TooManyRedirects: Exceeded 30"),
            Some((
                "requests.exceptions.TooManyRedirects".into(),
                "Exceeded 30".into()
            ))
        );
        assert_eq!(
            exception_line("AssertionError"),
            Some(("AssertionError".into(), String::new()))
        );
        assert_eq!(exception_line("Ran 3 tests in 0.1s"), None);
        assert_eq!(exception_line("    self.write(output_path)"), None);
        assert_eq!(raising_lines(UNITTEST), [8]);
    }
}
