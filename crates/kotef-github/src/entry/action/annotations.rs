//! Workflow commands on stdout: `::error::`/`::warning::`/`::notice::` annotations for how the
//! job ended ([`annotations`]), with their escaping.

use super::FailOn;
use crate::pipeline::{JobResult, JobStatus};
use kotef_core::TerminalStatus;

/// Escapes a workflow command's message.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// `text` between `::stop-commands::{token}` and `::{token}::`, ending in a line break: no
/// line of it is read by the runner as a workflow command (`::add-mask::`, `::set-output`,
/// `##[...]`), whatever a model, a repository or a command wrote into it.
pub fn fence(text: &str, token: &str) -> String {
    format!(
        "::stop-commands::{token}\n{}\n::{token}::\n",
        text.trim_end_matches(['\n', '\r'])
    )
}

/// A fence token no text of the run can know: fresh randomness for each fence.
pub fn fresh_token() -> String {
    format!(
        "kotef-{}{}",
        kotef_core::RunId::generate(),
        kotef_core::RunId::generate()
    )
}

pub(super) fn command(level: &str, title: &str, message: &str) -> String {
    format!(
        "::{level} title={}::{}",
        escape_property(title),
        escape_data(message)
    )
}

/// The annotations for how the job ended (errors for endings in `fail_on`).
pub fn annotations(
    result: Option<&JobResult>,
    skipped: Option<&str>,
    fail_on: &FailOn,
) -> Vec<String> {
    let Some(r) = result else {
        return skipped
            .map(|why| {
                vec![command(
                    "notice",
                    "kotef",
                    &format!("kotef did not run: {why}"),
                )]
            })
            .unwrap_or_default();
    };
    match (r.status, r.outcome.as_ref()) {
        (JobStatus::Finished, Some(o)) => {
            let s = &o.summary;
            let level = if fail_on.statuses.contains(&s.terminal_status) {
                "error"
            } else if s.terminal_status == TerminalStatus::DoneSuccess {
                "notice"
            } else {
                "warning"
            };
            let rule = s
                .stop_rule
                .map(|r| format!(" (stop rule {r})"))
                .unwrap_or_default();
            let mut v = vec![command(
                level,
                &format!("kotef: {}", s.terminal_status),
                &format!(
                    "kotef run ended {}{rule}: {}",
                    s.terminal_status, s.stop_reason
                ),
            )];
            if let Some(f) = o
                .failure_summary
                .as_deref()
                .filter(|f| !f.trim().is_empty())
            {
                v.push(command("warning", "kotef: failing check", f));
            }
            if let Some(why) = &r.not_pushed {
                v.insert(
                    0,
                    command(
                        if fail_on.error { "error" } else { "warning" },
                        "kotef: not pushed",
                        &format!("the run's changes were not pushed: {why}"),
                    ),
                );
            }
            if o.sandbox.as_deref() == Some("none") {
                v.push(command(
                    "warning",
                    "kotef: no sandbox",
                    "The agent's commands ran WITHOUT a sandbox (bubblewrap was not available, or sandbox = \"none\"): they could read and write anything the runner's user can. Install bubblewrap (the action's install-bubblewrap input) to contain them.",
                ));
            }
            v
        }
        (JobStatus::Ignored, _) => vec![command(
            "notice",
            "kotef",
            &format!("kotef did not run: {}", r.message),
        )],
        (JobStatus::Rejected, _) => vec![command(
            "warning",
            "kotef",
            &format!("kotef will not run here: {}", r.message),
        )],
        _ => vec![command(
            if fail_on.error { "error" } else { "warning" },
            "kotef: run failed",
            &format!("kotef run failed: {}", r.message),
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::finished;
    use super::*;
    use kotef_core::StopRule;
    #[test]
    fn an_unsandboxed_run_warns_in_the_log() {
        let mut r = finished(TerminalStatus::DoneSuccess, None);
        if let Some(o) = r.outcome.as_mut() {
            o.sandbox = Some("none".into());
        }
        let a = annotations(Some(&r), None, &FailOn::default());
        assert!(
            a.iter()
                .any(|l| l.starts_with("::warning title=kotef%3A no sandbox::")),
            "{a:?}"
        );
    }

    #[test]
    fn annotations_are_escaped_and_levelled() {
        let fail_on = FailOn::default();
        let stuck = finished(
            TerminalStatus::AbortedStuck,
            Some(StopRule::PlannerToResearcher),
        );
        let a = annotations(Some(&stuck), None, &fail_on);
        assert_eq!(
            a[0],
            "::error title=kotef%3A aborted_stuck::kotef run ended aborted_stuck (stop rule planner_to_researcher): the planner looped%0Asecond line"
        );
        let ok = finished(TerminalStatus::DoneSuccess, None);
        assert!(annotations(Some(&ok), None, &fail_on)[0].starts_with("::notice "));
        let partial = finished(TerminalStatus::DonePartial, None);
        assert!(annotations(Some(&partial), None, &fail_on)[0].starts_with("::warning "));
        let skipped = annotations(None, Some("label `bug` is not the trigger label"), &fail_on);
        assert!(skipped[0].starts_with("::notice title=kotef::kotef did not run: label"));
        assert_eq!(escape_data("50% done\r\n"), "50%25 done%0D%0A");
    }
}
