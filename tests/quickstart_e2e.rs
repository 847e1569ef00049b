//! The README's quick start, followed literally on a runner-like environment: the workflow
//! block is taken from README.md, its `uses: kotef/kotef@vN` step is run the way the Actions
//! runner runs a composite action (this checkout's `action.yml`, its `run:` steps in order
//! with bash, `${{ … }}` expressions filled from the step's `with:`, the action's defaults and
//! earlier steps' outputs, `GITHUB_PATH`/`GITHUB_ENV` honoured), the install step downloads
//! the release the tag names from a loopback release server, and `kotef action` then ends a
//! labelled issue with its status comment on the fake GitHub.
//!
//! What is not the real runner: `uses:` steps inside the action (the cache) are treated as a
//! cache miss; the workflow's `model:` input is replaced by a scripted model (no API key);
//! `github.server_url` points at the loopback release server and `KOTEF_GIT_BASE_URL` at a
//! bare repository, as a GitHub Enterprise runner's would.

mod support;

use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use kotef_testkit::{git, FakeGitHub, FAKE_TOKEN};
use serde_json::json;
use serde_norway::Value as Yaml;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use support::action_runner::parse_outputs;
use support::release::{asset_name, packed_release, repo_root};

const REPO: &str = "acme/greeter";

/// The workflow block of the README's "Quick start (GitHub Action)" section.
fn readme_workflow() -> Yaml {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let section = readme
        .split("## Quick start (GitHub Action)")
        .nth(1)
        .expect("the README has a quick start");
    let block = section
        .split("```yaml\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("a yaml block in the quick start");
    serde_norway::from_str(block).expect("the quick start's workflow is YAML")
}

fn s(v: &Yaml) -> String {
    match v {
        Yaml::String(s) => s.clone(),
        Yaml::Bool(b) => b.to_string(),
        Yaml::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

/// The `with:` value as the workflow passes it: secrets are fake, `vars.X || 'd'` is `d`.
fn workflow_value(v: &str) -> String {
    let t = v.trim();
    let Some(expr) = t.strip_prefix("${{").and_then(|e| e.strip_suffix("}}")) else {
        return t.to_string();
    };
    let expr = expr.trim();
    if expr.starts_with("secrets.") {
        return "sk-quickstart-fake-key".into();
    }
    if let Some((_, default)) = expr.split_once("||") {
        return default.trim().trim_matches('\'').to_string();
    }
    String::new()
}

/// The runner's view of the action's expression contexts.
struct Contexts {
    inputs: BTreeMap<String, String>,
    github: BTreeMap<String, String>,
    steps: HashMap<String, HashMap<String, String>>,
}

impl Contexts {
    fn lookup(&self, expr: &str) -> String {
        let e = expr.trim();
        let parts: Vec<&str> = e.split('.').collect();
        match parts.as_slice() {
            ["inputs", name] => self.inputs.get(*name).cloned().unwrap_or_default(),
            ["github", name] => self.github.get(*name).cloned().unwrap_or_default(),
            ["runner", "os"] => "Linux".into(),
            ["steps", id, "outputs", name] => self
                .steps
                .get(*id)
                .and_then(|o| o.get(*name))
                .cloned()
                .unwrap_or_default(),
            _ => panic!("the emulated runner does not know `{e}`: extend tests/quickstart_e2e.rs"),
        }
    }

    /// `text` with every `${{ … }}` replaced.
    fn fill(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(i) = rest.find("${{") {
            out.push_str(&rest[..i]);
            let after = &rest[i + 3..];
            let j = after.find("}}").expect("closed expression");
            out.push_str(&self.lookup(&after[..j]));
            rest = &after[j + 2..];
        }
        out.push_str(rest);
        out
    }

    /// The action's `if:` conditions this action uses.
    fn condition(&self, cond: &str) -> bool {
        if cond.contains("steps.cache.outputs.cache-hit") {
            return true; // the cache step is a miss
        }
        if let Some(rest) = cond.strip_prefix("always() && ") {
            // The upload step: `steps.X.outputs.Y != ''`.
            let (expr, _) = rest.split_once("!=").expect("a comparison");
            return !self.lookup(expr).is_empty();
        }
        if let Some(value) = cond.strip_prefix("inputs.model == ") {
            return self.inputs["model"] == value.trim_matches('\'');
        }
        if cond.contains("inputs.install-bubblewrap") {
            let v = self.inputs["install-bubblewrap"].to_ascii_lowercase();
            return ["true", "1", "yes", "on"].contains(&v.as_str());
        }
        panic!("the emulated runner does not know `if: {cond}`: extend tests/quickstart_e2e.rs");
    }
}

async fn serve_release(root: PathBuf) -> String {
    async fn file(State(root): State<Arc<PathBuf>>, UrlPath(path): UrlPath<String>) -> Response {
        if path.split('/').any(|p| p == ".." || p.is_empty()) {
            return StatusCode::NOT_FOUND.into_response();
        }
        match tokio::fs::read(root.join(&path)).await {
            Ok(b) => (StatusCode::OK, b).into_response(),
            Err(_) => StatusCode::NOT_FOUND.into_response(),
        }
    }
    let app = Router::new()
        .route("/{*path}", get(file))
        .with_state(Arc::new(root));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

struct Finished {
    uses: String,
    logs: String,
    installed_version: String,
    outputs: HashMap<String, String>,
    comments: Vec<String>,
    branch_pushed: bool,
    pushed_files: Vec<String>,
    /// The upload step's artifact: its name, its path, the files there.
    uploaded: Option<(String, PathBuf, Vec<String>)>,
}

fn run() -> &'static Finished {
    static RUN: OnceLock<Finished> = OnceLock::new();
    kotef_testkit::recorded(&RUN, || follow_the_quick_start(QuickModel::Scripted))
}

/// The model the quick start runs with.
#[derive(Clone, Copy, PartialEq)]
enum QuickModel {
    /// A scripted model in place of the workflow's `model: openai:…` (no API key in a test).
    Scripted,
    /// `model: local`, no key: the action starts the bundled model from the weights cached
    /// in ~/.cache/kotef/models (the real one, linked into the runner's home).
    Local,
}

async fn follow_the_quick_start(quick_model: QuickModel) -> Finished {
    let workflow = readme_workflow();
    let step = workflow["jobs"]["kotef"]["steps"]
        .as_sequence()
        .into_iter()
        .flatten()
        .find(|st| s(&st["uses"]).starts_with("kotef/kotef@"))
        .expect("a `uses: kotef/kotef@…` step")
        .clone();
    let uses = s(&step["uses"]);
    let tag = uses.split('@').nth(1).unwrap_or_default().to_string();
    let action: Yaml =
        serde_norway::from_str(&std::fs::read_to_string(repo_root().join("action.yml")).unwrap())
            .unwrap();

    // The world: the fake GitHub, the repository as a bare remote, a labelled issue.
    let gh = FakeGitHub::start().await;
    gh.add_repo(REPO, "main");
    gh.set_permission(REPO, "alice", "admin");
    let dir = tempfile::tempdir().unwrap();
    let git_root = dir.path().join("git");
    // The scripted model has no list price; the workflow's `max-cost-usd` needs one (the
    // price of gpt-4o-mini, the README's model).
    let config = match quick_model {
        QuickModel::Scripted => "test_command = \"grep -q hello hello.txt\"\n[model]\nprice_prompt_per_mtok = 0.15\nprice_completion_per_mtok = 0.6\n",
        // Free, with no price set; a CPU run bounded for a test.
        QuickModel::Local => "test_command = \"grep -q hello hello.txt\"\n[limits]\nmax_model_calls = 6\ntime_budget_s = 900\n",
    };
    let bare = kotef_testkit::init_bare_repo(
        &git_root,
        REPO,
        &[("README.md", "# greeter\n"), (".github/kotef.toml", config)],
    );
    let n = gh.add_issue(REPO, "Add a greeting", "Please add hello.txt saying hello.");
    let event = kotef_testkit::issues_labeled(
        REPO,
        n,
        "Add a greeting",
        "Please add hello.txt saying hello.",
        "kotef",
        "alice",
    );
    let event_path = dir.path().join("event.json");
    std::fs::write(&event_path, event).unwrap();
    let workspace = dir.path().join("workspace");
    let url = format!("{}/{REPO}.git", kotef_testkit::file_base_url(&git_root));
    git(
        dir.path(),
        &["clone", "-q", &url, workspace.to_str().unwrap()],
    );

    // The release the tag names, served where the action downloads it.
    let version = format!("v{}", env!("CARGO_PKG_VERSION"));
    let releases = dir.path().join("releases");
    let published = releases
        .join("kotef/kotef/releases/download")
        .join(&version);
    std::fs::create_dir_all(&published).unwrap();
    for f in [asset_name(), "SHA256SUMS".to_string()] {
        std::fs::copy(packed_release().join(&f), published.join(&f)).unwrap();
    }
    let server_url = serve_release(releases).await;

    // The scripted model stands in for `model: openai:…` (no API key in a test).
    let model = dir.path().join("model.json");
    let turn = |next: &str, extra: serde_json::Value| {
        let mut d = json!({"next": next, "reason": next});
        d.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({"content": d.to_string()})
    };
    let script = json!({"model": {
        "planner": [turn("coder", json!({"task": "Create hello.txt containing hello"})), turn("done", json!({}))],
        "coder": [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "hello\n"}}]},
            {"tool_calls": [{"name": "done", "arguments": {"summary": "wrote hello.txt"}}]}
        ]
    }});
    std::fs::write(&model, script.to_string()).unwrap();

    // The step's inputs: its `with:`, else the action's defaults.
    let mut inputs = BTreeMap::new();
    for (k, v) in action["inputs"].as_mapping().into_iter().flatten() {
        inputs.insert(s(k), s(&v["default"]));
    }
    for (k, v) in step["with"].as_mapping().into_iter().flatten() {
        inputs.insert(s(k), workflow_value(&s(v)));
    }
    match quick_model {
        QuickModel::Scripted => {
            inputs.insert("model".into(), format!("scripted:{}", model.display()));
        }
        QuickModel::Local => {
            inputs.insert("model".into(), "local".into());
            // No key at all.
            inputs.retain(|k, _| !k.ends_with("api-key"));
        }
    }
    if inputs
        .get("github-token")
        .is_some_and(|t| t.contains("github.token"))
    {
        inputs.insert("github-token".into(), FAKE_TOKEN.into());
    }
    let github = BTreeMap::from([
        ("action_path".to_string(), repo_root().display().to_string()),
        ("action_ref".to_string(), tag.clone()),
        ("action_repository".to_string(), "kotef/kotef".to_string()),
        ("server_url".to_string(), server_url.clone()),
        ("token".to_string(), FAKE_TOKEN.to_string()),
    ]);
    let mut ctx = Contexts {
        inputs: inputs.clone(),
        github,
        steps: HashMap::new(),
    };
    for (k, v) in inputs.clone() {
        ctx.inputs.insert(k, ctx.fill(&v));
    }

    let home = dir.path().join("home");
    let runner_temp = dir.path().join("runner_temp");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&runner_temp).unwrap();
    if quick_model == QuickModel::Local {
        // The cache `actions/cache` restores: the weights and server already downloaded here.
        let cached = PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/kotef/models");
        std::fs::create_dir_all(home.join(".cache/kotef")).unwrap();
        std::os::unix::fs::symlink(&cached, home.join(".cache/kotef/models")).unwrap();
    }
    let step_timeout = match quick_model {
        QuickModel::Scripted => 180,
        QuickModel::Local => 1800,
    };
    let files = dir.path().join("files");
    std::fs::create_dir_all(&files).unwrap();
    let mut path_dirs: Vec<String> = Vec::new();
    let mut job_env: BTreeMap<String, String> = BTreeMap::from([
        ("HOME".into(), home.display().to_string()),
        ("CI".into(), "true".into()),
        ("GITHUB_ACTIONS".into(), "true".into()),
        ("GITHUB_EVENT_NAME".into(), "issues".into()),
        ("GITHUB_EVENT_PATH".into(), event_path.display().to_string()),
        ("GITHUB_REPOSITORY".into(), REPO.into()),
        ("GITHUB_WORKSPACE".into(), workspace.display().to_string()),
        ("GITHUB_SERVER_URL".into(), server_url.clone()),
        ("GITHUB_API_URL".into(), gh.api_url()),
        ("GITHUB_RUN_ID".into(), "4242".into()),
        ("GITHUB_RUN_ATTEMPT".into(), "1".into()),
        (
            "GITHUB_ACTION_PATH".into(),
            repo_root().display().to_string(),
        ),
        ("GITHUB_ACTION_REF".into(), tag.clone()),
        ("RUNNER_OS".into(), "Linux".into()),
        ("RUNNER_ARCH".into(), "X64".into()),
        ("RUNNER_TEMP".into(), runner_temp.display().to_string()),
        (
            "KOTEF_GIT_BASE_URL".into(),
            kotef_testkit::file_base_url(&git_root),
        ),
    ]);
    let summary = files.join("summary");
    let mut logs = String::new();
    let mut uploaded = None;
    for (i, st) in action["runs"]["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .enumerate()
    {
        if s(&st["uses"]).starts_with("actions/upload-artifact@") {
            // Where the upload step looks, and what it finds there.
            if ctx.condition(&s(&st["if"])) {
                let name = ctx.fill(&s(&st["with"]["name"]));
                let path = PathBuf::from(ctx.fill(&s(&st["with"]["path"])));
                let mut found: Vec<String> = std::fs::read_dir(&path)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                found.sort();
                uploaded = Some((name, path, found));
            }
            continue;
        }
        if !s(&st["uses"]).is_empty() {
            logs.push_str(&format!(
                "(skipped `uses: {}`: a cache miss)\n",
                s(&st["uses"])
            ));
            continue;
        }
        let cond = s(&st["if"]);
        if !cond.is_empty() && !ctx.condition(&cond) {
            continue;
        }
        let output = files.join(format!("output{i}"));
        let env_file = files.join(format!("env{i}"));
        let path_file = files.join(format!("path{i}"));
        for f in [&output, &env_file, &path_file] {
            std::fs::write(f, "").unwrap();
        }
        let script = ctx.fill(&s(&st["run"]));
        let mut cmd = tokio::process::Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", &script])
            .current_dir(&workspace)
            .env_clear()
            .envs(&job_env)
            .env(
                "PATH",
                path_dirs
                    .iter()
                    .rev()
                    .cloned()
                    .chain(std::env::var("PATH").ok())
                    .collect::<Vec<_>>()
                    .join(":"),
            )
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_ENV", &env_file)
            .env("GITHUB_PATH", &path_file)
            .env("GITHUB_STEP_SUMMARY", &summary);
        for (k, v) in st["env"].as_mapping().into_iter().flatten() {
            cmd.env(s(k), ctx.fill(&s(v)));
        }
        let out = tokio::time::timeout(std::time::Duration::from_secs(step_timeout), cmd.output())
            .await
            .expect("the step finished")
            .unwrap();
        logs.push_str(&format!(
            "== {}\n{}{}",
            s(&st["name"]),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
        let outputs = parse_outputs(&std::fs::read_to_string(&output).unwrap_or_default());
        if let Some(id) = st["id"].as_str() {
            ctx.steps.insert(id.to_string(), outputs);
        }
        job_env.extend(parse_outputs(
            &std::fs::read_to_string(&env_file).unwrap_or_default(),
        ));
        for l in std::fs::read_to_string(&path_file)
            .unwrap_or_default()
            .lines()
        {
            path_dirs.push(l.trim().to_string());
        }
        let code = out.status.code().unwrap_or(-1);
        let tolerated = s(&st["name"]) == "Run kotef" && code != 1;
        assert!(
            out.status.success() || tolerated,
            "step {} failed:\n{logs}",
            s(&st["name"])
        );
    }
    let installed = home.join(".kotef/bin/kotef");
    let installed_version = std::process::Command::new(&installed)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    Finished {
        uses,
        logs,
        installed_version,
        outputs: ctx.steps.get("run").cloned().unwrap_or_default(),
        comments: gh
            .kotef_comments(REPO, n)
            .into_iter()
            .map(|c| c.body)
            .collect(),
        branch_pushed: kotef_testkit::git_output(
            &bare,
            &["rev-parse", "--verify", &format!("kotef/issue-{n}")],
        )
        .is_some(),
        // Every file the branch's commits touched (what the pull request shows).
        pushed_files: kotef_testkit::git_output(
            &bare,
            &[
                "log",
                "--name-only",
                "--format=",
                &format!("main..kotef/issue-{n}"),
            ],
        )
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect(),
        uploaded,
    }
}

#[test]
fn the_readme_names_the_major_tag_of_this_version() {
    let major = env!("CARGO_PKG_VERSION").split('.').next().unwrap();
    assert_eq!(run().uses, format!("kotef/kotef@v{major}"));
}

#[test]
fn the_action_installs_the_released_binary_for_that_tag() {
    let f = run();
    assert!(
        f.installed_version.contains(env!("CARGO_PKG_VERSION")),
        "installed `{}`:\n{}",
        f.installed_version,
        f.logs
    );
}

#[test]
fn nothing_is_built_from_source() {
    assert!(
        !run().logs.contains("building kotef instead"),
        "{}",
        run().logs
    );
}

#[test]
fn the_labelled_issue_gets_a_finished_status_comment() {
    let f = run();
    let last = f.comments.last().cloned().unwrap_or_default();
    assert!(
        last.contains("kotef run ended"),
        "{:?}\n{}",
        f.comments,
        f.logs
    );
}

#[test]
fn the_step_outputs_how_the_run_ended() {
    assert_eq!(
        run().outputs.get("terminal-status").map(String::as_str),
        Some("done_success"),
        "{}",
        run().logs
    );
}

#[test]
fn the_branch_is_pushed() {
    assert!(run().branch_pushed, "{}", run().logs);
}

#[test]
fn the_log_shows_each_step_of_the_run_in_a_group() {
    let logs = &run().logs;
    for want in [
        "::group::step 1 · planner",
        "::group::step 2 · coder",
        "model call: ",
        "write_file hello.txt",
    ] {
        assert!(logs.contains(want), "no `{want}` in:\n{logs}");
    }
}

#[test]
fn the_upload_step_finds_the_transcript_and_its_page() {
    let f = run();
    let (name, path, found) = f.uploaded.clone().expect("the upload step ran");
    let kinds: Vec<bool> = [".transcript.jsonl", ".transcript.html"]
        .iter()
        .map(|ext| found.iter().any(|x| x.ends_with(ext)))
        .collect();
    assert_eq!(
        (name.starts_with("kotef-run-"), kinds),
        (true, vec![true, true]),
        "{name} {path:?} {found:?}\n{}",
        f.logs
    );
}

#[test]
fn the_pull_request_holds_the_record_but_not_the_transcript() {
    let files = &run().pushed_files;
    let record = files
        .iter()
        .any(|f| f.starts_with(".sdd/runs/") && f.ends_with(".md"));
    let transcript = files.iter().any(|f| f.contains("transcript"));
    assert_eq!((record, transcript), (true, false), "{files:?}");
}

#[test]
fn the_status_comment_names_the_artifact() {
    let last = run().comments.last().cloned().unwrap_or_default();
    assert!(
        last.contains("artifact `kotef-run-") && last.contains("/actions/runs/4242"),
        "{last}"
    );
}

/// The quick start with `model: local` and no key: the action starts the bundled model on
/// loopback from the cached weights, and the run ends with a named ending, for $0, with its
/// status comment. Ignored by default (a real model on the CPU, minutes); `.ci/run` runs it
/// after the other tests with the weights in ~/.cache/kotef/models.
#[test]
#[ignore = "runs the real local model from ~/.cache/kotef/models (scripts/local-model.sh)"]
fn the_quick_start_with_the_local_model_ends_with_no_key() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let f = rt.block_on(follow_the_quick_start(QuickModel::Local));
    if !f.logs.contains("reusing the running server") {
        // The server this test started (its pid file is in the shared cache).
        let _ = std::process::Command::new(repo_root().join("scripts/local-model.sh"))
            .arg("--stop")
            .output();
    }
    let status = f
        .outputs
        .get("terminal-status")
        .cloned()
        .unwrap_or_default();
    eprintln!(
        "local quick start: {status} in {} s, cost {:?}",
        started.elapsed().as_secs(),
        f.outputs.get("cost-usd")
    );
    assert!(
        f.logs.contains("== Start the local model")
            && (f.logs.contains("weights present")
                || f.logs.contains("reusing the running server")),
        "the model started from the cache:\n{}",
        f.logs
    );
    assert!(
        [
            "done_success",
            "done_partial",
            "aborted_stuck",
            "aborted_constraint"
        ]
        .contains(&status.as_str()),
        "a named ending, not `{status}`:\n{}",
        f.logs
    );
    assert_eq!(
        f.outputs.get("cost-usd").map(|c| c.parse::<f64>().ok()),
        Some(Some(0.0)),
        "free under the README's max-cost-usd"
    );
    let last = f.comments.last().cloned().unwrap_or_default();
    assert!(last.contains(&status), "{:?}", f.comments);
}
