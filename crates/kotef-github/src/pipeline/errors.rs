//! The pipeline's failures as types: the [`Stage`] of a job that failed, and why the agent
//! run gave no outcome ([`RunError`]). The status comment and the job's message are rendered
//! from them.

/// A stage of a job that can fail before or instead of the run's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The server stopped during the run too often.
    Restarts,
    LookingUpBranch,
    GitToken,
    Cloning,
    RepoConfig,
    PreparingBranch,
    /// The agent run itself.
    AgentRun,
    /// Action dispatch: the default branch the workflow runs on.
    LookingUpDefaultBranch,
    /// Action dispatch: starting the workflow.
    HandingToActions,
}

impl Stage {
    /// The stage in the status comment's words.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Restarts => "interrupted by server restarts",
            Stage::LookingUpBranch => "looking up the branch",
            Stage::GitToken => "getting a token for git",
            Stage::Cloning => "cloning the repository",
            Stage::RepoConfig => "reading the repository's kotef config",
            Stage::PreparingBranch => "preparing the branch",
            Stage::AgentRun => "the agent run",
            Stage::LookingUpDefaultBranch => "looking up the default branch",
            Stage::HandingToActions => "handing the run to GitHub Actions",
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the agent run ended without an outcome.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The executor returned an error (its whole chain, `{:#}`).
    #[error("{0}")]
    Failed(String),
    /// The executor panicked.
    #[error("the agent crashed (internal error); see the server log")]
    Crashed,
    /// The run outlived its time budget and the grace after it.
    #[error("the run did not end within its time budget ({budget_s}s) plus {grace_s}s grace and was stopped")]
    Overran { budget_s: u64, grace_s: u64 },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_error_says_what_happened_in_the_comments_words() {
        assert_eq!(
            RunError::Overran {
                budget_s: 60,
                grace_s: 30
            }
            .to_string(),
            "the run did not end within its time budget (60s) plus 30s grace and was stopped"
        );
        assert_eq!(
            RunError::Crashed.to_string(),
            "the agent crashed (internal error); see the server log"
        );
        assert_eq!(
            RunError::Failed("no model: x".into()).to_string(),
            "no model: x"
        );
    }

    #[test]
    fn stages_are_named_as_the_comment_names_them() {
        assert_eq!(Stage::AgentRun.to_string(), "the agent run");
        assert_eq!(Stage::Cloning.as_str(), "cloning the repository");
    }
}
