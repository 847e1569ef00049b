//! The run's one command policy, shared by the coder's `run_command` and the verifier: the
//! profile's rules ([`check_command`]), widened by the project's own test command (with
//! arguments that select tests, [`selects_from`]) and by the repository's `allow` entries.
//! Nothing widens past the denylist or into the outside world: an `allow` entry that is
//! denylisted or reaches outside (network, installs, pushes) is refused when the policy is
//! built, and a command matching an entry still passes the denylist check.

use super::{check_command, reaches_outside, selects_from, PolicyDecision};
use crate::shell::parse;
use kotef_core::Profile;

/// Why an `allow` entry cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`allow` entry `{entry}` cannot be used: {why}")]
pub struct BadAllowEntry {
    pub entry: String,
    pub why: String,
}

/// The commands one run may execute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunPolicy {
    profile: Profile,
    /// The project's test command (configured or detected).
    project: Option<String>,
    /// The repository's extra commands (`allow = [...]` in `kotef.toml`), each allowed alone
    /// or with arguments, like the project's test command.
    allow: Vec<String>,
}

impl RunPolicy {
    pub fn new(profile: Profile) -> Self {
        Self {
            profile,
            project: None,
            allow: Vec::new(),
        }
    }

    /// Names the project's own test command.
    pub fn with_project(mut self, command: Option<String>) -> Self {
        self.project = command
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty());
        self
    }

    /// Adds the repository's `allow` entries; refuses the first that is empty, holds shell
    /// syntax, is denylisted or reaches outside the workspace.
    pub fn with_allow(mut self, entries: &[String]) -> Result<Self, BadAllowEntry> {
        for entry in entries {
            self.allow.push(allow_entry(entry)?);
        }
        Ok(self)
    }

    pub fn profile(&self) -> Profile {
        self.profile
    }

    pub fn project(&self) -> Option<&str> {
        self.project.as_deref()
    }

    /// Decides whether `command` may run.
    pub fn decide(&self, command: &str) -> PolicyDecision {
        let listed = self
            .project
            .iter()
            .chain(&self.allow)
            .any(|p| selects_from(command, p));
        if listed && check_command(Profile::Yolo, command).is_allowed() {
            return PolicyDecision::Allow;
        }
        check_command(self.profile, command)
    }

    /// What the agent may run instead of a refused `command`, as a sentence to append to the
    /// refusal (empty when there is nothing to offer). Never offers `command` itself.
    pub fn instead(&self, command: &str) -> String {
        let command = command.trim();
        let mut parts = Vec::new();
        if let Some(p) = self.project.as_deref().filter(|p| *p != command) {
            parts.push(format!(
                "The project's tests run with `{p}` (add a test file or test id after it to run fewer)"
            ));
        }
        let extra: Vec<String> = self
            .allow
            .iter()
            .filter(|a| a.as_str() != command)
            .map(|a| format!("`{a}`"))
            .collect();
        if !extra.is_empty() {
            parts.push(format!("the repository also allows {}", extra.join(", ")));
        }
        parts.join("; ")
    }
}

fn allow_entry(entry: &str) -> Result<String, BadAllowEntry> {
    let e = entry.trim();
    let bad = |why: &str| BadAllowEntry {
        entry: entry.to_string(),
        why: why.to_string(),
    };
    if e.is_empty() {
        return Err(bad("it is empty"));
    }
    let one_command = parse(e).is_ok_and(|p| p.commands.len() == 1 && p.substitutions.is_empty());
    if !one_command || e.contains(['\n', '\r', '`', '$', ';', '|', '&', '<', '>']) {
        return Err(bad(
            "an entry is one command and its leading arguments, without shell syntax",
        ));
    }
    if reaches_outside(e) {
        return Err(bad(
            "it reaches outside the workspace (network, installs or pushes), which no setting allows",
        ));
    }
    if let PolicyDecision::Deny { reason, .. } = check_command(Profile::Yolo, e) {
        return Err(bad(&format!("it is on the denylist ({reason})")));
    }
    Ok(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: &[&str]) -> RunPolicy {
        RunPolicy::new(Profile::Strict)
            .with_project(Some("./gradlew test".into()))
            .with_allow(&allow.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap()
    }

    #[test]
    fn an_allow_entry_runs_under_strict_alone_and_with_arguments() {
        let p = policy(&["sh lint.sh", "tox"]);
        assert!(p.decide("sh lint.sh").is_allowed());
        assert!(p.decide("tox -e py311").is_allowed());
        assert!(!p.decide("sh other.sh").is_allowed());
    }

    #[test]
    fn shell_syntax_after_an_allow_entry_is_still_refused() {
        let p = policy(&["sh lint.sh"]);
        assert!(!p.decide("sh lint.sh; sh other.sh").is_allowed());
        assert!(!p.decide("sh lint.sh > out.txt").is_allowed());
    }

    #[test]
    fn the_project_command_on_the_denylist_is_refused_even_as_the_project_command() {
        let p = RunPolicy::new(Profile::Strict).with_project(Some("git push".into()));
        assert!(!p.decide("git push").is_allowed());
    }

    #[test]
    fn an_allow_entry_that_reaches_outside_is_refused_with_its_field_named() {
        for entry in ["curl", "pip install -e .", "git push", "npm install"] {
            let err = RunPolicy::new(Profile::Strict)
                .with_allow(&[entry.to_string()])
                .unwrap_err();
            assert!(err.to_string().starts_with("`allow` entry"), "{err}");
        }
    }

    #[test]
    fn an_allow_entry_with_shell_syntax_is_refused() {
        for entry in ["make; sh", "make && true", "", "a | b", "$(x)"] {
            assert!(
                RunPolicy::new(Profile::Strict)
                    .with_allow(&[entry.to_string()])
                    .is_err(),
                "{entry:?}"
            );
        }
    }

    #[test]
    fn instead_never_offers_the_refused_command() {
        let p = RunPolicy::new(Profile::Strict).with_project(Some("bun test".into()));
        assert_eq!(p.instead("bun test"), "");
        assert_eq!(
            p.instead("curl x"),
            "The project's tests run with `bun test` (add a test file or test id after it to run fewer)"
        );
    }

    #[test]
    fn instead_names_the_repositorys_allow_entries() {
        let p = policy(&["make check"]);
        assert!(p
            .instead("rm x")
            .ends_with("; the repository also allows `make check`"));
    }
}
