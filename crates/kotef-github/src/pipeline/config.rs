//! The config a run gets: the repository's `kotef.toml` (or the file the job names instead),
//! then the job's profile, limits and test command, then the server's model.

use crate::job::Job;
use kotef_core::{KotefConfig, Limits, Profile};
use std::path::{Path, PathBuf};

/// The config the run gets: the repository's file, then the job's profile and limits, then the
/// server's model.
pub fn effective_config(
    repo_config: KotefConfig,
    job: &Job,
    model: Option<&str>,
) -> (KotefConfig, Profile, Limits) {
    let mut config = repo_config;
    let profile = job.profile.or(config.profile).unwrap_or_default();
    config.profile = Some(profile);
    config.limits = job.limits.over(&config.limits);
    if let Some(m) = model {
        config.model.name = Some(m.to_string());
    }
    if let Some(t) = job.test_command.as_deref().filter(|t| !t.trim().is_empty()) {
        config.test_command = Some(t.to_string());
    }
    let limits = config.limits(profile);
    (config, profile, limits)
}

/// Reads the repository's config from the work tree: `config_path` when given (a relative
/// path is read inside `work_tree`), else `kotef.toml` / `.github/kotef.toml`.
pub(crate) fn load_repo_config(
    config_path: Option<&PathBuf>,
    work_tree: &Path,
) -> Result<KotefConfig, String> {
    match config_path {
        Some(p) => {
            let full = if p.is_absolute() {
                p.clone()
            } else {
                work_tree.join(p)
            };
            std::fs::read_to_string(&full)
                .map_err(|e| format!("cannot read {}: {e}", p.display()))
                .and_then(|text| KotefConfig::parse(&text, p).map_err(|e| e.to_string()))
        }
        None => KotefConfig::load_from_repo(work_tree)
            .map(|(c, _)| c)
            .map_err(|e| e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::Work;
    use crate::trigger::{Actor, Target, Trigger};
    use kotef_core::{DeliveryId, IssueNumber, RepoName};

    #[test]
    fn job_settings_win_over_the_repository_config() {
        let target = Target {
            repo: RepoName::new("o", "r"),
            default_branch: None,
            number: IssueNumber(1),
            title: "t".into(),
            body: "b".into(),
            sender: Actor {
                login: "u".into(),
                id: 1,
            },
        };
        let mut job = Job::new(
            DeliveryId("d".into()),
            Work::Run {
                trigger: Trigger::IssueLabeled {
                    target,
                    label: "kotef".into(),
                },
            },
            "kotef",
        );
        job.limits.max_steps = Some(9);
        let repo_config = KotefConfig::parse(
            "profile = \"yolo\"\n[limits]\nmax_steps = 50\nfix_attempts = 1\n[model]\nname = \"openai:x\"\n",
            std::path::Path::new("kotef.toml"),
        )
        .unwrap();
        let (c, p, l) = effective_config(repo_config, &job, Some("scripted:/s.json"));
        assert_eq!(p, Profile::Yolo);
        assert_eq!(l.max_steps, 9);
        assert_eq!(l.fix_attempts, 1);
        assert_eq!(c.model.name.as_deref(), Some("scripted:/s.json"));
        job.profile = Some(Profile::Strict);
        let (_, p, _) = effective_config(KotefConfig::default(), &job, None);
        assert_eq!(p, Profile::Strict);
    }
}
