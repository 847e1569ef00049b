//! `constraint`: the stops a command brings, asked where a command is denied or ends
//! ([`ON_COMMAND`]): a command the strict profile denies ([`CommandDenied`]), a test command
//! the run's policy refuses ([`TestCommandDenied`]), and a command that ran into a resource
//! limit ([`ResourceLimit`]). The rules are pure functions in [`crate::graph::rules::budgets`].

use super::{Checkpoint, Fires, Row, StopGuard};
use crate::graph::memory::state::Fired;
use crate::graph::rules::budgets::{
    command_denied, resource_limit, test_command_denied, Denial, SOFT_DENIAL_LIMIT,
};
use kotef_core::{Profile, StopRule};

/// What happened to a command.
#[derive(Debug, Clone, Copy)]
pub enum CommandEvent<'a> {
    /// The profile's policy denied a command the agent ran or the planner named.
    Denied { reason: &'a str, denial: Denial },
    /// The policy denied the run's test command itself.
    TestCommandDenied { reason: &'a str },
    /// The command ran into a resource limit for one command.
    Limit { why: &'a str },
}

/// A command and what happened to it, under the run's profile.
#[derive(Debug, Clone, Copy)]
pub struct CommandFacts<'a> {
    pub profile: Profile,
    pub command: &'a str,
    pub event: CommandEvent<'a>,
}

/// Where a command is denied or ends.
pub struct OnCommand;

impl Checkpoint for OnCommand {
    type Facts<'a> = CommandFacts<'a>;
    const CHECKED: &'static str = "where a command is denied or ends";
    const SUCCESS_WINS: bool = false;
}

/// A command the strict profile denies.
pub struct CommandDenied;

impl StopGuard<OnCommand> for CommandDenied {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::Constraint),
            variant: "",
            checked: "where a command is denied or ends: the coder's `run_command`; the planner's `verify` command",
            threshold: format!("under `strict`: a command reaching outside the workspace or on the denylist (at once), or command number {SOFT_DENIAL_LIMIT} merely off the allow-list (earlier ones are tool errors)"),
        }
    }

    fn check(&self, f: &CommandFacts<'_>) -> Option<Fired> {
        match f.event {
            CommandEvent::Denied { reason, denial } => {
                command_denied(f.profile, f.command, reason, denial)
            }
            _ => None,
        }
    }
}

/// The run's own test command, refused by its policy: nothing can be verified.
pub struct TestCommandDenied;

impl StopGuard<OnCommand> for TestCommandDenied {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::Constraint),
            variant: "test command",
            checked:
                "where a command is denied or ends: the verifier, before it runs the test command",
            threshold:
                "the run's policy refuses the test command (the denylist; under any profile)".into(),
        }
    }

    fn check(&self, f: &CommandFacts<'_>) -> Option<Fired> {
        match f.event {
            CommandEvent::TestCommandDenied { reason } => {
                Some(test_command_denied(f.command, reason))
            }
            _ => None,
        }
    }
}

/// A command that ran into a resource limit: the next would do the same.
pub struct ResourceLimit;

impl StopGuard<OnCommand> for ResourceLimit {
    fn row(&self) -> Row {
        Row {
            rule: Fires::Rule(StopRule::Constraint),
            variant: "resource limit",
            checked: "where a command is denied or ends: the verifier, the repair loop's test runs, the coder's `run_command`",
            threshold: "the command ran into a limit for one command: processes, memory, file size or disk".into(),
        }
    }

    fn check(&self, f: &CommandFacts<'_>) -> Option<Fired> {
        match f.event {
            CommandEvent::Limit { why } => Some(resource_limit(f.command, why)),
            _ => None,
        }
    }
}

/// The guards asked on a command, in order.
pub const ON_COMMAND: &[&dyn StopGuard<OnCommand>] =
    &[&CommandDenied, &TestCommandDenied, &ResourceLimit];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::guards::runner::first_stop;

    fn stop(profile: Profile, event: CommandEvent<'_>) -> Option<StopRule> {
        let facts = CommandFacts {
            profile,
            command: "c",
            event,
        };
        first_stop(ON_COMMAND, &facts).map(|s| s.fired.rule)
    }

    #[test]
    fn a_resource_limit_stops_a_yolo_run_too() {
        let e = CommandEvent::Limit {
            why: "too many processes",
        };
        assert_eq!(stop(Profile::Yolo, e), Some(StopRule::Constraint));
    }

    #[test]
    fn a_denied_command_stops_only_a_strict_run() {
        let e = CommandEvent::Denied {
            reason: "denylist",
            denial: Denial::Hard,
        };
        assert_eq!(stop(Profile::Yolo, e), None);
        assert_eq!(stop(Profile::Strict, e), Some(StopRule::Constraint));
    }
}
