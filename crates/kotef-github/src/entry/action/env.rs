//! The runner's environment: the `GITHUB_*` (and `RUNNER_TEMP`, `KOTEF_GIT_BASE_URL`)
//! variables an Actions runner sets for a step, read into one [`ActionEnv`].

use crate::secret::Secret;
use kotef_core::RepoName;
use std::path::PathBuf;

/// What the runner's environment says about this step.
#[derive(Debug, Clone)]
pub struct ActionEnv {
    /// `GITHUB_EVENT_NAME`.
    pub event_name: String,
    /// `GITHUB_EVENT_PATH`: the event's payload file.
    pub event_path: PathBuf,
    /// `GITHUB_REPOSITORY`.
    pub repository: RepoName,
    /// `GITHUB_TOKEN` (the action's `github-token` input).
    pub token: Secret,
    /// `GITHUB_WORKSPACE`, when set.
    pub workspace: Option<PathBuf>,
    /// `GITHUB_SERVER_URL` (default `https://github.com`): web links.
    pub server_url: String,
    /// `GITHUB_API_URL` (default `https://api.github.com`).
    pub api_url: String,
    /// `GITHUB_RUN_ID`, for the link to this run.
    pub run_id: Option<String>,
    /// `GITHUB_RUN_ATTEMPT`.
    pub run_attempt: Option<String>,
    /// `GITHUB_OUTPUT`.
    pub output_path: Option<PathBuf>,
    /// `GITHUB_STEP_SUMMARY`.
    pub summary_path: Option<PathBuf>,
    /// `RUNNER_TEMP` (else the system's temporary directory): where clones go.
    pub temp_dir: PathBuf,
    /// `KOTEF_GIT_BASE_URL` (default: the server URL): `{base}/{owner}/{repo}.git`.
    pub git_base_url: String,
}

/// The trimmed value, or `None` when unset or blank.
pub(super) fn non_empty(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

impl ActionEnv {
    /// Reads the environment through `env`; the error names every missing or bad variable.
    pub fn from_lookup(env: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let get = |k: &str| non_empty(env(k));
        let mut missing = Vec::new();
        let mut need = |k: &'static str| {
            let v = get(k);
            if v.is_none() {
                missing.push(k);
            }
            v.unwrap_or_default()
        };
        let event_name = need("GITHUB_EVENT_NAME");
        let event_path = need("GITHUB_EVENT_PATH");
        let repository = need("GITHUB_REPOSITORY");
        let token = need("GITHUB_TOKEN");
        if !missing.is_empty() {
            return Err(format!(
                "not running in GitHub Actions? {} not set{}",
                missing.join(", "),
                if missing.contains(&"GITHUB_TOKEN") {
                    " (GITHUB_TOKEN comes from the action's `github-token` input)"
                } else {
                    ""
                }
            ));
        }
        let repository = RepoName::parse(&repository)
            .ok_or_else(|| format!("GITHUB_REPOSITORY `{repository}` is not owner/name"))?;
        let server_url = get("GITHUB_SERVER_URL")
            .unwrap_or_else(|| "https://github.com".into())
            .trim_end_matches('/')
            .to_string();
        Ok(Self {
            event_name,
            event_path: PathBuf::from(event_path),
            repository,
            token: Secret::from(token),
            workspace: get("GITHUB_WORKSPACE").map(PathBuf::from),
            api_url: get("GITHUB_API_URL").unwrap_or_else(|| "https://api.github.com".into()),
            run_id: get("GITHUB_RUN_ID"),
            run_attempt: get("GITHUB_RUN_ATTEMPT"),
            output_path: get("GITHUB_OUTPUT").map(PathBuf::from),
            summary_path: get("GITHUB_STEP_SUMMARY").map(PathBuf::from),
            temp_dir: get("RUNNER_TEMP")
                .map(PathBuf::from)
                .unwrap_or_else(std::env::temp_dir),
            git_base_url: get("KOTEF_GIT_BASE_URL").unwrap_or_else(|| server_url.clone()),
            server_url,
        })
    }

    /// The web page of this Actions run.
    pub fn run_url(&self) -> Option<String> {
        let id = self.run_id.as_deref()?;
        if !id.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        Some(format!(
            "{}/{}/{}/actions/runs/{id}",
            self.server_url, self.repository.owner, self.repository.name
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: std::collections::HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn environment_is_read_and_gaps_are_named() {
        let e = ActionEnv::from_lookup(env_of(&[
            ("GITHUB_EVENT_NAME", "issues"),
            ("GITHUB_EVENT_PATH", "/tmp/event.json"),
            ("GITHUB_REPOSITORY", "acme/widgets"),
            ("GITHUB_TOKEN", "ghs_x"),
            ("GITHUB_SERVER_URL", "https://github.example/"),
            ("GITHUB_RUN_ID", "42"),
            ("GITHUB_WORKSPACE", ""),
        ]))
        .unwrap();
        assert_eq!(e.repository, RepoName::new("acme", "widgets"));
        assert_eq!(e.api_url, "https://api.github.com");
        assert_eq!(e.git_base_url, "https://github.example");
        assert_eq!(e.workspace, None, "empty counts as unset");
        assert_eq!(
            e.run_url().as_deref(),
            Some("https://github.example/acme/widgets/actions/runs/42")
        );
        let err = ActionEnv::from_lookup(env_of(&[("GITHUB_EVENT_NAME", "issues")])).unwrap_err();
        assert!(
            err.contains("GITHUB_EVENT_PATH") && err.contains("GITHUB_TOKEN"),
            "{err}"
        );
        let err = ActionEnv::from_lookup(env_of(&[
            ("GITHUB_EVENT_NAME", "issues"),
            ("GITHUB_EVENT_PATH", "/e"),
            ("GITHUB_REPOSITORY", "nope"),
            ("GITHUB_TOKEN", "t"),
        ]))
        .unwrap_err();
        assert!(err.contains("owner/name"), "{err}");
    }
}
