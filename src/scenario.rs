//! Offline scenarios (the public contract in `docs/scenario-format.md`): a starting
//! repository, a goal and a scripted model, run through the real graph in a fresh git
//! repository, then checked against `expect`.

use crate::run::{self, RunSetup};
use anyhow::{bail, Context as _};
use kotef_core::{KotefConfig, LimitsOverride, Profile, RunSummary};
use kotef_model::ScriptedModel;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// A scenario file.
#[derive(Debug, Clone, Deserialize)]
pub struct Scenario {
    #[serde(default)]
    pub name: Option<String>,
    pub goal: String,
    #[serde(default)]
    pub profile: Option<Profile>,
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    #[serde(default)]
    pub repo: Option<String>,
    #[serde(default)]
    pub test_command: Option<String>,
    #[serde(default)]
    pub limits: LimitsOverride,
    /// Open the run with the verifier (optional; default `false`, the planner-first run the
    /// scripted turns of older scenarios are written for).
    #[serde(default)]
    pub verify_first: Option<bool>,
    #[serde(default)]
    pub model: Value,
    #[serde(default)]
    pub expect: Expect,
}

/// Expectations; every present field must hold.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default)]
    pub terminal_status: Option<String>,
    /// Absent: not checked. `null`: no rule may have fired.
    #[serde(default, deserialize_with = "some_value")]
    pub stop_rule: Option<Value>,
    #[serde(default)]
    pub max_steps: Option<u32>,
    #[serde(default)]
    pub max_model_calls: Option<u32>,
    #[serde(default)]
    pub files: BTreeMap<String, Option<String>>,
    #[serde(default)]
    pub issues_md_contains: Vec<String>,
    #[serde(default)]
    pub report_contains: Vec<String>,
}

/// Keeps an explicit `null` as `Some(Value::Null)` so it differs from an absent field.
fn some_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// A scenario that cannot be run as written (exit 2).
#[derive(Debug, thiserror::Error)]
#[error("malformed scenario {path}: {message}")]
pub struct MalformedScenario {
    pub path: String,
    pub message: String,
}

/// Parses and validates a scenario file's text.
pub fn parse(text: &str, path: &Path) -> Result<Scenario, MalformedScenario> {
    let bad = |message: String| MalformedScenario {
        path: path.display().to_string(),
        message,
    };
    let value: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let scenario: Scenario = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
    if scenario.goal.trim().is_empty() {
        return Err(bad("goal: must not be empty".into()));
    }
    for p in scenario.files.keys() {
        if !is_safe_relative(p) {
            return Err(bad(format!(
                "files: {p:?} must be a relative path inside the repository"
            )));
        }
    }
    for p in scenario.expect.files.keys() {
        if !is_safe_relative(p) {
            return Err(bad(format!("expect.files: {p:?} must be a relative path")));
        }
    }
    if let Some(s) = &scenario.expect.terminal_status {
        if kotef_core::TerminalStatus::parse(s).is_none() {
            return Err(bad(format!("expect.terminal_status: unknown status {s:?}")));
        }
    }
    match &scenario.expect.stop_rule {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if kotef_core::StopRule::parse(s).is_some() => {}
        Some(other) => return Err(bad(format!("expect.stop_rule: unknown stop rule {other}"))),
    }
    if !scenario.model.is_null() {
        ScriptedModel::from_model_value(&scenario.model).map_err(bad)?;
    }
    Ok(scenario)
}

fn is_safe_relative(p: &str) -> bool {
    let path = Path::new(p);
    !p.is_empty()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        && !path.starts_with(".git")
}

/// Builds the starting repository in `dir`: `repo` copied, `files` written, one commit.
pub fn prepare_workspace(s: &Scenario, scenario_dir: &Path, dir: &Path) -> anyhow::Result<()> {
    if let Some(repo) = &s.repo {
        let src = scenario_dir.join(repo);
        if !src.is_dir() {
            bail!("repo: {} is not a folder", src.display());
        }
        copy_dir(&src, dir)?;
    }
    for (rel, text) in &s.files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text).with_context(|| format!("writing {rel}"))?;
    }
    git(dir, &["init", "-q", "-b", "main"])?;
    git(dir, &["add", "-A"])?;
    git(
        dir,
        &[
            "-c",
            "user.name=kotef",
            "-c",
            "user.email=kotef@localhost",
            "-c",
            "commit.gpgsign=false",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "scenario start",
        ],
    )?;
    Ok(())
}

fn git(dir: &Path, args: &[&str]) -> anyhow::Result<()> {
    let (child, _registered) = kotef_core::reaper::spawn_registered(|| {
        let c = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_TERMINAL_PROMPT", "0")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()?;
        let pid = c.id();
        Ok((c, Some(pid)))
    })
    .context("running git")?;
    let out = child.wait_with_output().context("running git")?;
    if !out.status.success() {
        bail!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

fn copy_dir(src: &Path, dst: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(src)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == ".git" {
            continue;
        }
        let ty = entry.file_type()?;
        let to = dst.join(&name);
        if ty.is_dir() {
            std::fs::create_dir_all(&to)?;
            copy_dir(&entry.path(), &to)?;
        } else if ty.is_file() {
            std::fs::copy(entry.path(), &to)?;
        }
    }
    Ok(())
}

/// A finished scenario: the summary and what did not hold.
#[derive(Debug, Clone)]
pub struct ScenarioResult {
    pub summary: RunSummary,
    /// Workspace-relative paths the run changed.
    pub files_changed: Vec<String>,
    pub failed_expectations: Vec<String>,
    pub workdir: PathBuf,
}

/// Bytes of one workspace file an expectation reads at most.
const CHECK_CAP: u64 = 16 * 1024 * 1024;

/// Checks `expect` against a finished run (pure apart from reading the workspace's files).
pub fn check(expect: &Expect, summary: &RunSummary, workdir: &Path) -> Vec<String> {
    let mut failed = Vec::new();
    // After the run the tree is the run's: read it as kotef reads any work tree.
    let tree = kotef_tools::Tree::open(workdir).ok();
    let read = |rel: &str| -> Option<String> { tree.as_ref()?.read_text(rel, CHECK_CAP).ok() };
    let canonical = workdir
        .canonicalize()
        .unwrap_or_else(|_| workdir.to_path_buf());
    let in_tree = |abs: &str| -> String {
        let abs = Path::new(abs);
        abs.strip_prefix(&canonical)
            .or_else(|_| abs.strip_prefix(workdir))
            .ok()
            .and_then(|r| read(&r.to_string_lossy()))
            .unwrap_or_default()
    };
    if let Some(want) = &expect.terminal_status {
        if summary.terminal_status.as_str() != want {
            failed.push(format!(
                "terminal_status: expected {want}, got {}",
                summary.terminal_status
            ));
        }
    }
    if let Some(want) = &expect.stop_rule {
        let got = summary.stop_rule.map(|r| r.as_str().to_string());
        let want_s = want.as_str().map(String::from);
        if got != want_s {
            failed.push(format!(
                "stop_rule: expected {}, got {}",
                want_s.as_deref().unwrap_or("null"),
                got.as_deref().unwrap_or("null")
            ));
        }
    }
    if let Some(max) = expect.max_steps {
        if summary.total_steps > max {
            failed.push(format!("max_steps: {} steps > {max}", summary.total_steps));
        }
    }
    if let Some(max) = expect.max_model_calls {
        if summary.model_calls > max {
            failed.push(format!(
                "max_model_calls: {} calls > {max}",
                summary.model_calls
            ));
        }
    }
    for (rel, want) in &expect.files {
        let got = read(rel);
        if got.as_deref() != want.as_deref() {
            failed.push(match (want, got) {
                (None, Some(_)) => format!("files: {rel} should not exist"),
                (Some(_), None) => format!("files: {rel} does not exist"),
                _ => format!("files: {rel} has different content"),
            });
        }
    }
    if !expect.issues_md_contains.is_empty() {
        let text = in_tree(&summary.issues_md_path);
        for want in &expect.issues_md_contains {
            if !text.contains(want.as_str()) {
                failed.push(format!(
                    "issues_md_contains: {want:?} not found in .sdd/issues.md"
                ));
            }
        }
    }
    if !expect.report_contains.is_empty() {
        let text = in_tree(&summary.report_path);
        for want in &expect.report_contains {
            if !text.contains(want.as_str()) {
                failed.push(format!(
                    "report_contains: {want:?} not found in the run report"
                ));
            }
        }
    }
    failed
}

/// Runs a parsed scenario in `workdir` (which must exist and be empty).
pub async fn run_in(
    s: &Scenario,
    scenario_dir: &Path,
    workdir: &Path,
    progress: Option<tokio::sync::mpsc::UnboundedSender<kotef_core::StepProgress>>,
) -> anyhow::Result<ScenarioResult> {
    prepare_workspace(s, scenario_dir, workdir)?;
    let model = ScriptedModel::from_model_value(if s.model.is_null() {
        &Value::Null
    } else {
        &s.model
    })
    .or_else(|_| ScriptedModel::new(BTreeMap::new()))
    .map_err(|e| anyhow::anyhow!(e))?;
    let setup = RunSetup::new(
        workdir,
        s.goal.clone(),
        KotefConfig::default(),
        Arc::new(model),
    )
    .model_name("scripted")
    .profile(Some(s.profile.unwrap_or_default()))
    .limits(s.limits)
    .test_command(s.test_command.clone())
    .verify_first(Some(s.verify_first.unwrap_or(false)))
    .progress(progress);
    let outcome = run::execute(setup).await?;
    let failed = check(&s.expect, &outcome.summary, workdir);
    Ok(ScenarioResult {
        summary: outcome.summary,
        files_changed: outcome.files_changed,
        failed_expectations: failed,
        workdir: workdir.to_path_buf(),
    })
}

/// Reads a scenario file (exit-2 errors are `MalformedScenario`).
pub fn load(path: &Path) -> Result<Scenario, MalformedScenario> {
    let text = std::fs::read_to_string(path).map_err(|e| MalformedScenario {
        path: path.display().to_string(),
        message: format!("cannot read: {e}"),
    })?;
    parse(&text, path)
}

/// The summary JSON of `kotef scenario --json`.
pub fn summary_json(r: &ScenarioResult) -> Value {
    let mut v = serde_json::to_value(&r.summary).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert(
            "expectations_met".into(),
            Value::Bool(r.failed_expectations.is_empty()),
        );
        m.insert(
            "failed_expectations".into(),
            Value::Array(
                r.failed_expectations
                    .iter()
                    .cloned()
                    .map(Value::String)
                    .collect(),
            ),
        );
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_scenarios_name_the_field() {
        let p = Path::new("s.json");
        let cases = [
            ("{", "not JSON"),
            ("{\"name\": \"x\"}", "goal"),
            ("{\"goal\": \" \"}", "goal"),
            ("{\"goal\": \"g\", \"profile\": \"wild\"}", "wild"),
            ("{\"goal\": \"g\", \"files\": {\"../x\": \"\"}}", "files"),
            (
                "{\"goal\": \"g\", \"limits\": {\"max_stepz\": 1}}",
                "max_stepz",
            ),
            (
                "{\"goal\": \"g\", \"expect\": {\"terminal_status\": \"fine\"}}",
                "expect.terminal_status",
            ),
            (
                "{\"goal\": \"g\", \"expect\": {\"stop_rule\": \"loop\"}}",
                "expect.stop_rule",
            ),
            ("{\"goal\": \"g\", \"expect\": {\"colour\": 1}}", "colour"),
            (
                "{\"goal\": \"g\", \"model\": {\"planner\": [{}]}}",
                "model.planner[0]",
            ),
        ];
        for (text, needle) in cases {
            let err = parse(text, p).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn null_stop_rule_differs_from_absent() {
        let s = parse(
            "{\"goal\": \"g\", \"expect\": {\"stop_rule\": null}}",
            Path::new("s"),
        )
        .unwrap();
        assert_eq!(s.expect.stop_rule, Some(Value::Null));
        let s = parse("{\"goal\": \"g\"}", Path::new("s")).unwrap();
        assert_eq!(s.expect.stop_rule, None);
    }
}
