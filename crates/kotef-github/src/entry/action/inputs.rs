//! The action's inputs, already parsed: [`ActionInputs`], the `fail-on` list ([`FailOn`]), the
//! trigger phrase and branches ([`Branching`]) and the `issue-number` input
//! ([`parse_issue_number`]).

use kotef_core::{LimitsOverride, Profile, TerminalStatus};
use std::path::PathBuf;

/// Which endings fail the step: terminal statuses, and `error` for runs that ended without an
/// outcome (clone, config, model set-up or push trouble).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailOn {
    pub statuses: Vec<TerminalStatus>,
    pub error: bool,
}

impl Default for FailOn {
    /// `aborted_stuck,aborted_constraint,error`.
    fn default() -> Self {
        Self {
            statuses: vec![
                TerminalStatus::AbortedStuck,
                TerminalStatus::AbortedConstraint,
            ],
            error: true,
        }
    }
}

impl FailOn {
    /// Comma- or space-separated names; empty or `none` fails on nothing.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut out = Self {
            statuses: Vec::new(),
            error: false,
        };
        for word in text
            .split([',', ' ', '\n'])
            .map(str::trim)
            .filter(|w| !w.is_empty())
        {
            match word {
                "none" => {}
                "error" => out.error = true,
                w => match TerminalStatus::parse(w) {
                    Some(s) if !out.statuses.contains(&s) => out.statuses.push(s),
                    Some(_) => {}
                    None => {
                        return Err(format!(
                        "fail-on: unknown status `{w}` (use done_success, done_partial, aborted_stuck, aborted_constraint, error or none)"
                    ))
                    }
                },
            }
        }
        Ok(out)
    }
}

/// What starts a run and where it works: `trigger-phrase`, `branch-prefix`, `base-branch`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Branching {
    /// The phrase at the start of a comment's line that starts a run.
    pub trigger_phrase: String,
    /// The prefix of the branch an issue's run creates.
    pub branch_prefix: String,
    /// The branch an issue's run starts from and targets; the repository's default when
    /// `None`.
    pub base_branch: Option<String>,
}

impl Default for Branching {
    fn default() -> Self {
        Self {
            trigger_phrase: crate::inbound::sanitize::DEFAULT_TRIGGER_PHRASE.into(),
            branch_prefix: crate::outbound::workspace::DEFAULT_BRANCH_PREFIX.into(),
            base_branch: None,
        }
    }
}

impl Branching {
    /// The inputs as given (`None`: left blank); the error names the input and why.
    pub fn parse(
        phrase: Option<String>,
        prefix: Option<String>,
        base: Option<String>,
    ) -> Result<Self, String> {
        use crate::outbound::workspace::{prefixed_issue_branch, valid_branch_name};
        let d = Self::default();
        let trigger_phrase = match phrase {
            None => d.trigger_phrase,
            Some(p) if p.chars().count() > 100 || p.contains(['\n', '\r']) => {
                return Err("trigger-phrase: one line of at most 100 characters".into())
            }
            Some(p) => p.split_whitespace().collect::<Vec<_>>().join(" "),
        };
        let branch_prefix = prefix.unwrap_or(d.branch_prefix);
        let example = prefixed_issue_branch(&branch_prefix, kotef_core::IssueNumber(1));
        if !valid_branch_name(&example) {
            return Err(format!(
                "branch-prefix `{branch_prefix}` does not make a branch name kotef can use (`{example}`): letters, digits, `/`, `-`, `_` and `.`"
            ));
        }
        if let Some(b) = base.as_deref().filter(|b| !valid_branch_name(b)) {
            return Err(format!(
                "base-branch `{b}` is not a branch name kotef can use"
            ));
        }
        Ok(Self {
            trigger_phrase,
            branch_prefix,
            base_branch: base,
        })
    }
}

/// The action's inputs, already parsed.
#[derive(Debug, Clone)]
pub struct ActionInputs {
    /// Model spec; wins over the repository's `[model] name`.
    pub model: Option<String>,
    pub profile: Option<Profile>,
    pub trigger_label: String,
    /// The login whose assignment of an issue starts a run (`assignee-trigger`).
    pub assignee_trigger: Option<String>,
    /// Replaces the goal built from the issue (and the `goal` input of `workflow_dispatch`).
    pub goal: Option<String>,
    /// The issue or PR for `workflow_dispatch` (else its `issue-number` input).
    pub issue_number: Option<u64>,
    pub limits: LimitsOverride,
    pub test_command: Option<String>,
    /// Used instead of the repository's config file (relative: inside the work tree).
    pub config_path: Option<PathBuf>,
    pub fail_on: FailOn,
    /// The trigger phrase, the branch prefix and the base branch.
    pub branches: Branching,
    /// The workflow's ceilings (`max-token-budget`, `max-time-budget-s`, `max-cost-usd`); in
    /// the Action the repository is the operator, so only these bound its config's limits.
    pub ceilings: kotef_core::Ceilings,
}

impl Default for ActionInputs {
    fn default() -> Self {
        Self {
            model: None,
            profile: None,
            trigger_label: crate::DEFAULT_TRIGGER_LABEL.into(),
            assignee_trigger: None,
            goal: None,
            issue_number: None,
            limits: LimitsOverride::default(),
            test_command: None,
            config_path: None,
            fail_on: FailOn::default(),
            ceilings: kotef_core::Ceilings::default(),
            branches: Branching::default(),
        }
    }
}

/// An issue number as typed into an input (`12` or `#12`).
pub fn parse_issue_number(text: &str) -> Result<u64, String> {
    let t = text.trim().trim_start_matches('#');
    match t.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "issue-number `{}` is not an issue or pull request number",
            text.trim()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branching_defaults_and_refuses_names_git_would_misread() {
        assert_eq!(Branching::parse(None, None, None), Ok(Branching::default()));
        let b = Branching::parse(
            Some(" @kotef   go ".into()),
            Some("bots/".into()),
            Some("develop".into()),
        )
        .unwrap();
        assert_eq!(
            (b.trigger_phrase.as_str(), b.branch_prefix.as_str()),
            ("@kotef go", "bots/")
        );
        assert!(Branching::parse(None, Some("-f ".into()), None).is_err());
        assert!(Branching::parse(None, None, Some("a..b".into())).is_err());
        assert!(Branching::parse(Some("a\nb".into()), None, None).is_err());
    }

    #[test]
    fn fail_on_parses_names_and_rejects_typos() {
        let f = FailOn::parse("aborted_stuck, done_partial error").unwrap();
        assert_eq!(
            f.statuses,
            vec![TerminalStatus::AbortedStuck, TerminalStatus::DonePartial]
        );
        assert!(f.error);
        assert_eq!(FailOn::parse("none").unwrap().statuses, vec![]);
        assert!(FailOn::parse("aborted").unwrap_err().contains("aborted"));
        assert_eq!(parse_issue_number("#12"), Ok(12));
        assert!(parse_issue_number("twelve").is_err());
        assert!(parse_issue_number("0").is_err());
    }
}
