//! `kotef action`: the GitHub Action step. The action's inputs arrive as environment variables
//! (`KOTEF_*`, set by `action.yml`), the event from the `GITHUB_*` variables an Actions runner
//! sets; `kotef_github::entry::action` turns them into one job and runs it with the real graph
//! (`GraphExecutor`) exactly as the server would. Exit 0 unless the ending is in `fail-on`.

use clap::Args;
use kotef::executor::GraphExecutor;
use kotef_core::{Ceilings, LimitsOverride, Profile, Redactor};
use kotef_github::entry::action::{self, ActionEnv, ActionInputs, FailOn};
use std::path::PathBuf;

/// The action's inputs. Each flag falls back to the variable `action.yml` sets; an empty
/// variable (an input left blank) counts as unset.
#[derive(Debug, Clone, Default, Args)]
pub struct ActionArgs {
    /// Model spec: `openai:NAME`, `anthropic:NAME`, `local` or `scripted:FILE` (wins over the
    /// repository's `[model] name`).
    #[arg(long, env = "KOTEF_MODEL")]
    pub model: Option<String>,
    /// `strict` or `yolo` (default: the repository's config, else strict).
    #[arg(long, env = "KOTEF_PROFILE")]
    pub profile: Option<String>,
    /// The label that triggers a run.
    #[arg(long, env = "KOTEF_TRIGGER_LABEL")]
    pub trigger_label: Option<String>,
    /// The account whose assignment of an issue starts a run (`@` optional).
    #[arg(long, env = "KOTEF_ASSIGNEE_TRIGGER")]
    pub assignee_trigger: Option<String>,
    /// The phrase at the start of a comment's line that starts a run (default `/kotef run`).
    #[arg(long, env = "KOTEF_TRIGGER_PHRASE")]
    pub trigger_phrase: Option<String>,
    /// The prefix of the branch an issue's run creates (default `kotef/`).
    #[arg(long, env = "KOTEF_BRANCH_PREFIX")]
    pub branch_prefix: Option<String>,
    /// The branch an issue's run starts from and targets (default: the repository's default).
    #[arg(long, env = "KOTEF_BASE_BRANCH")]
    pub base_branch: Option<String>,
    /// A goal replacing the issue's title and body.
    #[arg(long, env = "KOTEF_GOAL")]
    pub goal: Option<String>,
    /// The issue or pull request to work on (`workflow_dispatch`).
    #[arg(long, env = "KOTEF_ISSUE_NUMBER")]
    pub issue_number: Option<String>,
    /// Global cap on graph steps.
    #[arg(long, env = "KOTEF_MAX_STEPS")]
    pub max_steps: Option<String>,
    /// Prompt + completion tokens allowed in the run.
    #[arg(long, env = "KOTEF_TOKEN_BUDGET")]
    pub token_budget: Option<String>,
    /// The verifier's command (default: the repository's config, else detected).
    #[arg(long, env = "KOTEF_TEST_COMMAND")]
    pub test_command: Option<String>,
    /// A config file used instead of the repository's (relative: inside the repository).
    #[arg(long, env = "KOTEF_CONFIG_PATH")]
    pub config_path: Option<String>,
    /// Endings that fail the step: terminal statuses and/or `error`, comma-separated (`none`
    /// for never).
    #[arg(long, env = "KOTEF_FAIL_ON")]
    pub fail_on: Option<String>,
    /// Ceiling on the run's token budget (wins over the config file).
    #[arg(long, env = "KOTEF_MAX_TOKEN_BUDGET")]
    pub max_token_budget: Option<String>,
    /// Ceiling on the run's time budget in seconds.
    #[arg(long, env = "KOTEF_MAX_TIME_BUDGET_S")]
    pub max_time_budget_s: Option<String>,
    /// Ceiling on the run's cost in dollars.
    #[arg(long, env = "KOTEF_MAX_COST_USD")]
    pub max_cost_usd: Option<String>,
}

fn set(v: &Option<String>) -> Option<String> {
    v.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn number<T: std::str::FromStr>(v: &Option<String>, name: &str) -> Result<Option<T>, String> {
    match set(v) {
        None => Ok(None),
        Some(t) => t
            .parse::<T>()
            .map(Some)
            .map_err(|_| format!("{name} `{t}` is not a number")),
    }
}

impl ActionArgs {
    /// The parsed inputs; the error names the input.
    pub fn to_inputs(&self) -> Result<ActionInputs, String> {
        let profile = match set(&self.profile) {
            None => None,
            Some(p) => Some(
                Profile::parse(&p)
                    .ok_or_else(|| format!("profile `{p}`: expected strict or yolo"))?,
            ),
        };
        let issue_number = match set(&self.issue_number) {
            None => None,
            Some(t) => Some(action::parse_issue_number(&t)?),
        };
        let fail_on = match set(&self.fail_on) {
            None => FailOn::default(),
            Some(t) => FailOn::parse(&t)?,
        };
        let branches = action::Branching::parse(
            set(&self.trigger_phrase),
            set(&self.branch_prefix),
            set(&self.base_branch),
        )?;
        Ok(ActionInputs {
            branches,
            model: set(&self.model),
            profile,
            trigger_label: set(&self.trigger_label)
                .unwrap_or_else(|| kotef_github::DEFAULT_TRIGGER_LABEL.into()),
            assignee_trigger: set(&self.assignee_trigger),
            goal: set(&self.goal),
            issue_number,
            limits: LimitsOverride {
                max_steps: number(&self.max_steps, "max-steps")?,
                token_budget: number(&self.token_budget, "token-budget")?,
                ..LimitsOverride::default()
            },
            test_command: set(&self.test_command),
            config_path: set(&self.config_path).map(PathBuf::from),
            fail_on,
            ceilings: Ceilings {
                token_budget: number(&self.max_token_budget, "max-token-budget")?,
                time_budget_s: number(&self.max_time_budget_s, "max-time-budget-s")?,
                cost_usd: number(&self.max_cost_usd, "max-cost-usd")?,
            },
        })
    }
}

/// Runs the step and returns the process exit code.
pub async fn cmd_action(args: ActionArgs) -> i32 {
    let redactor = Redactor::from_env();
    let fail = |env: Option<&ActionEnv>, message: String| {
        let message = redactor.redact(&message);
        eprintln!("kotef: {message}");
        action::report_error(env, &message);
        1
    };
    let env = match ActionEnv::from_lookup(kotef_core::process::var) {
        Ok(e) => e,
        Err(e) => return fail(None, e),
    };
    let inputs = match args.to_inputs() {
        Ok(i) => i,
        Err(e) => return fail(Some(&env), e),
    };
    let executor = GraphExecutor {
        actions_log: true,
        ..GraphExecutor::default()
    };
    match action::run_action(&env, &inputs, &executor).await {
        Ok(report) => report.exit_code,
        Err(e) => fail(Some(&env), format!("{e:#}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_inputs_are_unset_and_bad_ones_are_named() {
        let args = ActionArgs {
            profile: Some("".into()),
            max_steps: Some(" 40 ".into()),
            issue_number: Some("#7".into()),
            fail_on: Some("".into()),
            ..ActionArgs::default()
        };
        let i = args.to_inputs().unwrap();
        assert_eq!(i.profile, None);
        assert_eq!(i.limits.max_steps, Some(40));
        assert_eq!(i.issue_number, Some(7));
        assert_eq!(i.trigger_label, "kotef");
        assert_eq!(i.fail_on, FailOn::default());
        let bad = ActionArgs {
            token_budget: Some("lots".into()),
            ..ActionArgs::default()
        };
        assert!(bad.to_inputs().unwrap_err().contains("token-budget"));
        let bad = ActionArgs {
            profile: Some("reckless".into()),
            ..ActionArgs::default()
        };
        assert!(bad.to_inputs().unwrap_err().contains("strict or yolo"));
        let bad = ActionArgs {
            branch_prefix: Some("-x".into()),
            ..ActionArgs::default()
        };
        assert!(bad.to_inputs().unwrap_err().contains("branch-prefix"));
    }
}
