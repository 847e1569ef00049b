//! What the step leaves for the workflow: its outputs ([`outputs`], written as
//! [`github_output`] text), the step summary ([`step_summary`]) and the exit code
//! ([`exit_code`]).

use super::FailOn;
use crate::pipeline::{JobResult, JobStatus};

/// The step's outputs, in the order action.yml declares them (empty when unknown).
pub fn outputs(result: Option<&JobResult>) -> Vec<(&'static str, String)> {
    let outcome = result.and_then(|r| r.outcome.as_ref());
    let s = outcome.map(|o| &o.summary);
    vec![
        (
            "terminal-status",
            s.map(|s| s.terminal_status.as_str().to_string())
                .unwrap_or_default(),
        ),
        (
            "stop-rule",
            s.and_then(|s| s.stop_rule)
                .map(|r| r.as_str().to_string())
                .unwrap_or_default(),
        ),
        (
            "stop-reason",
            s.map(|s| s.stop_reason.clone()).unwrap_or_default(),
        ),
        (
            "report-path",
            outcome
                .map(|o| o.report_rel_path.clone())
                .unwrap_or_default(),
        ),
        (
            "pr-url",
            result.and_then(|r| r.pull_url.clone()).unwrap_or_default(),
        ),
        (
            "branch",
            result.and_then(|r| r.branch.clone()).unwrap_or_default(),
        ),
        (
            "tokens",
            s.map(|s| (s.prompt_tokens + s.completion_tokens).to_string())
                .unwrap_or_default(),
        ),
        (
            "cost-usd",
            outcome
                .and_then(|o| o.cost_usd)
                .map(|c| format!("{c:.4}"))
                .unwrap_or_default(),
        ),
        (
            "not-pushed",
            result
                .and_then(|r| r.not_pushed.clone())
                .unwrap_or_default(),
        ),
    ]
}

/// `$GITHUB_OUTPUT` text: `name=value` lines, or a heredoc with a delimiter the value does not
/// contain for values with line breaks.
pub fn github_output(pairs: &[(&str, String)]) -> String {
    let mut out = String::new();
    for (name, value) in pairs {
        if value.contains(['\n', '\r']) {
            let mut n = 0u32;
            let delimiter = loop {
                let d = format!("ghadelimiter_kotef_{n}");
                if !value.contains(&d) {
                    break d;
                }
                n += 1;
            };
            out.push_str(&format!("{name}<<{delimiter}\n{value}\n{delimiter}\n"));
        } else {
            out.push_str(&format!("{name}={value}\n"));
        }
    }
    out
}

/// The step summary: the status comment's Markdown, or why nothing ran.
pub fn step_summary(result: Option<&JobResult>, skipped: Option<&str>) -> String {
    match (result, skipped) {
        (Some(r), _) => match &r.comment {
            Some(c) => c.clone(),
            None => match r.status {
                JobStatus::Ignored => format!("### kotef did not run\n\n{}\n", r.message),
                _ => format!("### ❌ kotef run failed\n\n{}\n", r.message),
            },
        },
        (None, Some(reason)) => format!("### kotef did not run\n\n{reason}\n"),
        (None, None) => String::new(),
    }
}

/// 0 unless the ending is in `fail_on`: then the terminal status's exit code (2, 3, 4; 1 for
/// `done_success`), or 1 for `error` (which a run whose work was not pushed is, whatever its
/// terminal status).
pub fn exit_code(result: Option<&JobResult>, fail_on: &FailOn) -> i32 {
    let Some(r) = result else { return 0 };
    if r.not_pushed.is_some() && fail_on.error {
        return 1;
    }
    match (r.status, r.terminal_status()) {
        (JobStatus::Finished, Some(t)) if fail_on.statuses.contains(&t) => t.exit_code().max(1),
        (JobStatus::Failed | JobStatus::GaveUp, _) if fail_on.error => 1,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::finished;
    use super::*;
    use kotef_core::{StopRule, TerminalStatus};
    #[test]
    fn outputs_and_multiline_values() {
        let r = finished(
            TerminalStatus::AbortedStuck,
            Some(StopRule::PlannerToResearcher),
        );
        let pairs = outputs(Some(&r));
        let text = github_output(&pairs);
        assert!(
            text.starts_with("terminal-status=aborted_stuck\nstop-rule=planner_to_researcher\n")
        );
        assert!(text.contains(
            "stop-reason<<ghadelimiter_kotef_0\nthe planner looped\nsecond line\nghadelimiter_kotef_0\n"
        ));
        assert!(text.contains("report-path=.sdd/runs/r1.md\n"));
        assert!(text.contains("pr-url=https://github.com/o/r/pull/5\n"));
        assert!(text.contains("branch=kotef/issue-4\n"));
        assert!(
            text.ends_with("tokens=15\ncost-usd=\nnot-pushed=\n"),
            "{text}"
        );
        let tricky = github_output(&[("x", "a\nghadelimiter_kotef_0".to_string())]);
        assert!(tricky.starts_with("x<<ghadelimiter_kotef_1\n"), "{tricky}");
        let none = outputs(None);
        assert_eq!(none.len(), 9);
        assert!(none.iter().all(|(_, v)| v.is_empty()));
    }

    #[test]
    fn exit_codes_follow_fail_on() {
        let fail_on = FailOn::default();
        let stuck = finished(TerminalStatus::AbortedStuck, Some(StopRule::NoProgress));
        assert_eq!(exit_code(Some(&stuck), &fail_on), 3);
        let partial = finished(TerminalStatus::DonePartial, None);
        assert_eq!(exit_code(Some(&partial), &fail_on), 0);
        assert_eq!(
            exit_code(Some(&partial), &FailOn::parse("done_partial").unwrap()),
            2
        );
        let failed = JobResult {
            status: JobStatus::Failed,
            outcome: None,
            ..finished(TerminalStatus::DoneSuccess, None)
        };
        assert_eq!(exit_code(Some(&failed), &fail_on), 1);
        assert_eq!(exit_code(Some(&failed), &FailOn::parse("none").unwrap()), 0);
        assert_eq!(exit_code(None, &fail_on), 0);
    }

    #[test]
    fn a_run_whose_work_was_not_pushed_is_an_error() {
        let r = JobResult {
            not_pushed: Some("the run tampered with .git".into()),
            ..finished(TerminalStatus::DoneSuccess, None)
        };
        assert_eq!(
            (
                exit_code(Some(&r), &FailOn::default()),
                exit_code(Some(&r), &FailOn::parse("none").unwrap())
            ),
            (1, 0)
        );
    }

    #[test]
    fn the_outputs_say_why_the_work_was_not_pushed() {
        let r = JobResult {
            not_pushed: Some("the run tampered with .git".into()),
            ..finished(TerminalStatus::DoneSuccess, None)
        };
        let pairs = outputs(Some(&r));
        assert!(pairs.contains(&("not-pushed", "the run tampered with .git".to_string())));
    }

    #[test]
    fn summary_is_the_comment_or_the_reason() {
        let r = finished(TerminalStatus::DoneSuccess, None);
        assert_eq!(step_summary(Some(&r), None), r.comment.clone().unwrap());
        let ignored = JobResult {
            status: JobStatus::Ignored,
            comment: None,
            message: "`rita` has Read permission".into(),
            ..r
        };
        assert!(step_summary(Some(&ignored), None).contains("did not run"));
        assert!(step_summary(None, Some("why")).contains("why"));
    }
}
