//! A failing verification read once, when the verifier records it, from the classifier's
//! typed [`kotef_tools::Failure`]: the line that says most, how bad it is (failing tests, or
//! code that does not load), a Python name a module lacks, the tests the output names and the
//! repository's files it names. The graph's tasks, prompts, guards and endings read these
//! fields; none of them parses the summary's prose again.

use serde::{Deserialize, Serialize};

/// What a failing test run says, read once.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureReport {
    /// The line of the summary that says most (an assertion, an error).
    pub key_line: String,
    /// Failing tests counted from the output; `u32::MAX` for code that does not load; `None`
    /// when the output says neither (see `kotef_tools::failure_severity`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<u32>,
    /// A Python name a module lacks, as (name, module), when the key line says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_name: Option<(String, String)>,
    /// The tests the output reports as failing, by name (unittest's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failing_tests: Vec<String>,
    /// The repository's files the failure names (a traceback's frames, a compiler's
    /// `file:line`), in the order named.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_named: Vec<String>,
}

impl FailureReport {
    /// Reads the classifier's `failure` of a failing run and its raw `output`.
    pub fn read(failure: &kotef_tools::Failure, output: &str) -> Self {
        let key_line = failure.key_line();
        FailureReport {
            severity: failure.severity,
            missing_name: crate::lang::python::missing_python_name(&key_line),
            failing_tests: crate::lang::unittest::failing_tests(output)
                .into_iter()
                .collect(),
            files_named: Vec::new(),
            key_line,
        }
    }

    /// A report as the verifier would read it from a `summary` (a headline, then the key
    /// lines), for tests that start from a summary's text.
    #[cfg(test)]
    pub fn from_summary(summary: &str) -> Self {
        let key_line = key_line(summary);
        FailureReport {
            severity: kotef_tools::failure_severity(summary),
            missing_name: crate::lang::python::missing_python_name(&key_line),
            key_line,
            ..Self::default()
        }
    }

    /// The report with the repository's files the failure names.
    pub fn naming(self, files_named: Vec<String>) -> Self {
        FailureReport {
            files_named,
            ..self
        }
    }
}

/// The most telling line of a failure summary: the detail after its headline when there is one.
pub fn key_line(summary: &str) -> String {
    let detail: Vec<&str> = summary
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .collect();
    if detail.is_empty() {
        summary.lines().next().unwrap_or_default().to_string()
    } else {
        detail.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_tools::{CommandResult, Failure};
    use std::path::Path;

    fn failed(stdout: &str, stderr: &str) -> Failure {
        let r = CommandResult {
            command: "python3 -m unittest".into(),
            exit_code: Some(1),
            stdout: stdout.into(),
            stderr: stderr.into(),
            timed_out: false,
            truncated: false,
            duration_ms: 5,
            spawn_error: None,
            limit: None,
        };
        Failure::of(&r, Path::new("/w"))
    }

    #[test]
    fn an_assertion_is_the_key_line_and_the_failures_are_counted() {
        let out = "FAIL: test_a (t.T.test_a)\nFAIL: test_b (t.T.test_b)\nAssertionError: 1 != 2\n\nFAILED (failures=2)\n";
        let r = FailureReport::read(&failed("", out), out);
        assert_eq!(r.key_line, "FAILED (failures=2); AssertionError: 1 != 2");
        assert_eq!(r.severity, Some(2));
        assert_eq!(r.failing_tests, ["test_a", "test_b"]);
        assert_eq!(r.missing_name, None);
    }

    #[test]
    fn the_severity_is_the_classifiers_count() {
        let out = "=== 2 failed, 3 passed in 0.1s ===\n";
        let f = failed(out, "");
        assert_eq!(FailureReport::read(&f, out).severity, Some(2));
        assert_eq!(FailureReport::read(&f, out).severity, f.severity);
    }

    #[test]
    fn a_missing_function_is_named_with_its_module() {
        let out = "ImportError: cannot import name 'median' from 'stats' (/w/stats.py)\n";
        let r = FailureReport::read(&failed("", out), out);
        assert_eq!(
            r.missing_name,
            Some(("median".to_string(), "stats".to_string()))
        );
    }

    #[test]
    fn code_that_does_not_load_is_worst() {
        let out = "  File \"a.py\", line 1\n    def f(\nSyntaxError: invalid syntax\n";
        let r = FailureReport::read(&failed("", out), out);
        assert_eq!(r.severity, Some(u32::MAX));
    }

    #[test]
    fn a_summary_without_detail_is_its_own_key_line() {
        assert_eq!(
            key_line("tooling_error: `x` timed out after 5 ms"),
            "tooling_error: `x` timed out after 5 ms"
        );
        assert_eq!(key_line("head\nA\n\nB"), "A; B");
    }
}
