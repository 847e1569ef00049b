//! `kotef action` as an Actions runner starts it: the real binary as a process, a real event
//! payload file, the `GITHUB_*` environment a runner sets (nothing inherited from the test's
//! own environment), the fake GitHub over loopback HTTP, a bare repository as the remote, a
//! checkout in `GITHUB_WORKSPACE` (or none), and a scripted model. Checks the outputs file, the
//! step summary, the annotations, the sticky comment, the PR and the pushed branch.

mod support;

use kotef_testkit::{git, Script, FAKE_TOKEN};
use serde_json::json;
use support::action_runner::{
    checkout, labeled, run_action, run_labeled, world_with_config, Launch, Ran, World, REPO,
    RUN_ID, SERVER,
};

fn success_model() -> serde_json::Value {
    Script::new()
        .planner_to(
            "coder",
            json!({"task": "Create hello.txt containing hello", "plan": ["write hello.txt"]}),
        )
        .planner_to("done", json!({}))
        .coder_call(
            "write_file",
            json!({"path": "hello.txt", "content": "hello\n"}),
        )
        .coder_done("wrote hello.txt")
        .build()
}

fn loop_model() -> serde_json::Value {
    Script::new()
        .planner_to(
            "researcher",
            json!({"query": "How is the greeting configured?"}),
        )
        .researcher("README.md only", 0.9)
        .build()
}

/// The repository whose tests pass once the agent wrote hello.txt.
async fn world() -> World {
    support::action_runner::world("grep -q hello hello.txt").await
}

/// A labeled issue run by `kotef action` in a runner's checkout, recorded once; each test
/// below checks one fact of it.
mod labeled_issue_in_a_checkout {
    use super::*;
    use kotef_testkit::FakePull;
    use std::sync::OnceLock;

    struct Finished {
        n: u64,
        ran: Ran,
        pulls: Vec<FakePull>,
        comments: Vec<String>,
        hello_on_branch: Option<String>,
        report_on_branch: bool,
        checkout_head: String,
        hello_in_checkout: String,
        checkout_git_config: String,
    }

    fn run() -> &'static Finished {
        static RUN: OnceLock<Finished> = OnceLock::new();
        kotef_testkit::recorded(&RUN, record)
    }

    async fn record() -> Finished {
        let w = world().await;
        let (n, ws, ran) = run_labeled(&w, true, &success_model(), &[], Launch::Direct).await;
        let branch = format!("kotef/issue-{n}");
        let report = ran.outputs.get("report-path").cloned().unwrap_or_default();
        Finished {
            n,
            pulls: w.gh.pulls(REPO),
            comments: w
                .gh
                .kotef_comments(REPO, n)
                .into_iter()
                .map(|c| c.body)
                .collect(),
            hello_on_branch: kotef_testkit::git_output(
                &w.bare,
                &["show", &format!("{branch}:hello.txt")],
            ),
            report_on_branch: kotef_testkit::git_output(
                &w.bare,
                &["show", &format!("{branch}:{report}")],
            )
            .is_some(),
            checkout_head: git(&ws, &["rev-parse", "--abbrev-ref", "HEAD"]),
            hello_in_checkout: std::fs::read_to_string(ws.join("hello.txt")).unwrap_or_default(),
            checkout_git_config: std::fs::read_to_string(ws.join(".git/config"))
                .unwrap_or_default(),
            ran,
        }
    }

    fn output(name: &str) -> &'static str {
        run()
            .ran
            .outputs
            .get(name)
            .map(String::as_str)
            .unwrap_or("(not set)")
    }

    fn branch() -> String {
        format!("kotef/issue-{}", run().n)
    }

    #[test]
    fn the_step_succeeds() {
        let r = &run().ran;
        assert_eq!(r.code, 0, "stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    }

    #[test]
    fn one_draft_pull_request_is_opened() {
        let drafts: Vec<bool> = run().pulls.iter().map(|p| p.draft).collect();
        assert_eq!(drafts, [true]);
    }

    #[test]
    fn the_outputs_name_the_ending() {
        assert_eq!(
            (output("terminal-status"), output("stop-rule")),
            ("done_success", "")
        );
    }

    #[test]
    fn the_outputs_give_a_stop_reason() {
        assert!(!output("stop-reason").is_empty());
    }

    #[test]
    fn the_outputs_name_the_branch_and_the_pull_request() {
        let pr = format!("{SERVER}/{REPO}/pull/{}", run().pulls[0].number);
        assert_eq!(
            (output("branch"), output("pr-url")),
            (branch().as_str(), pr.as_str())
        );
    }

    #[test]
    fn the_report_path_is_a_run_report() {
        let report = output("report-path");
        assert!(
            report.starts_with(".sdd/runs/") && report.ends_with(".md"),
            "{report}"
        );
    }

    #[test]
    fn there_is_one_sticky_comment_naming_the_ending() {
        let c = &run().comments;
        assert_eq!(
            (c.len(), c[0].contains("`done_success`")),
            (1, true),
            "{c:?}"
        );
    }

    #[test]
    fn the_comment_links_the_actions_run() {
        let link = format!("[Actions run]({SERVER}/{REPO}/actions/runs/{RUN_ID})");
        assert!(run().comments[0].contains(&link), "{}", run().comments[0]);
    }

    /// The repository's config sets `sandbox = "none"`.
    #[test]
    fn the_comment_says_commands_ran_without_a_sandbox() {
        assert!(
            run().comments[0].contains("⚠️ Commands ran without a sandbox"),
            "{}",
            run().comments[0]
        );
    }

    #[test]
    fn the_step_summary_is_the_comment() {
        assert_eq!(run().ran.summary, run().comments[0]);
    }

    #[test]
    fn a_notice_annotation_names_the_ending() {
        let notice = "::notice title=kotef%3A done_success::kotef run ended done_success";
        assert!(run().ran.stdout.contains(notice), "{}", run().ran.stdout);
    }

    #[test]
    fn the_change_is_pushed_with_the_report() {
        let r = run();
        assert_eq!(
            (r.hello_on_branch.as_deref(), r.report_on_branch),
            (Some("hello\n"), true)
        );
    }

    #[test]
    fn the_checkout_is_left_on_the_kotef_branch_with_the_change() {
        let r = run();
        assert_eq!(
            (r.checkout_head.as_str(), r.hello_in_checkout.as_str()),
            (branch().as_str(), "hello\n")
        );
    }

    #[test]
    fn the_token_is_gone_from_the_checkouts_git_config() {
        let config = &run().checkout_git_config;
        assert!(
            !config.contains(FAKE_TOKEN) && !config.contains("extraheader"),
            "{config}"
        );
    }

    #[test]
    fn the_token_is_never_printed() {
        let r = &run().ran;
        assert!(!r.stdout.contains(FAKE_TOKEN) && !r.stderr.contains(FAKE_TOKEN));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_looping_command_run_is_cloned_stopped_and_fails_the_step() {
    let w = world().await;
    let n =
        w.gh.add_issue(REPO, "Add a greeting", "Please add hello.txt saying hello.");
    let (comment_id, at) = w.gh.add_comment(REPO, n, "alice", "/kotef run please");
    let payload = kotef_testkit::issue_comment_created(
        REPO,
        n,
        false,
        comment_id,
        at,
        "/kotef run please",
        "alice",
    );
    let empty = w.dir.path().join("empty-workspace");
    let r = run_action(&w, "issue_comment", &payload, &empty, &loop_model(), &[]).await;
    assert_eq!(
        r.code, 3,
        "aborted_stuck is in fail-on: stdout:\n{}\nstderr:\n{}",
        r.stdout, r.stderr
    );
    assert!(r.stdout.contains("no checkout"), "{}", r.stdout);
    assert_eq!(r.outputs["terminal-status"], "aborted_stuck");
    assert_eq!(r.outputs["stop-rule"], "planner_to_researcher");
    assert!(
        r.stdout
            .contains("::error title=kotef%3A aborted_stuck::kotef run ended aborted_stuck (stop rule planner_to_researcher)"),
        "{}",
        r.stdout
    );
    let comment = w.gh.kotef_comments(REPO, n).pop().expect("status comment");
    assert!(comment.body.contains("`aborted_stuck`"), "{}", comment.body);
    assert_eq!(r.summary, comment.body);
    assert!(w
        .gh
        .reactions()
        .iter()
        .any(|x| x.on_comment && x.target == comment_id && x.content == "eyes"));
    let branch = format!("kotef/issue-{n}");
    let issues =
        kotef_testkit::git_output(&w.bare, &["show", &format!("{branch}:.sdd/issues.md")]).unwrap();
    assert!(issues.contains("planner_to_researcher"), "{issues}");
    assert_eq!(
        std::fs::read_dir(&empty).unwrap().count(),
        0,
        "the clone went to RUNNER_TEMP"
    );

    // The same ending with fail-on `none` passes the step.
    let (comment_id, at) = w.gh.add_comment(REPO, n, "alice", "/kotef run again");
    let payload = kotef_testkit::issue_comment_created(
        REPO,
        n,
        false,
        comment_id,
        at,
        "/kotef run again",
        "alice",
    );
    let r = run_action(
        &w,
        "issue_comment",
        &payload,
        &empty,
        &loop_model(),
        &[("KOTEF_FAIL_ON", "none")],
    )
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("::warning title=kotef%3A aborted_stuck"),
        "{}",
        r.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_sender_starts_nothing() {
    let w = world().await;
    let ws = checkout(&w, true);
    let (n, payload) = labeled(&w, "rita");
    let r = run_action(&w, "issues", &payload, &ws, &success_model(), &[]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "kotef: not running: `rita` has Read permission; write, maintain or admin is needed"
        ),
        "{}",
        r.stdout
    );
    let replies = w.gh.comments(REPO, n);
    assert!(
        replies.len() == 1
            && replies[0]
                .body
                .starts_with(kotef_github::outbound::render::REFUSED_MARKER),
        "one short reply saying why: {replies:?}"
    );
    assert!(w.gh.pulls(REPO).is_empty());
    assert!(w.gh.reactions().is_empty());
    assert_eq!(r.outputs["terminal-status"], "");
    assert_eq!(r.outputs["branch"], "");
    assert!(r.summary.contains("did not run"), "{}", r.summary);
    assert_eq!(git(&ws, &["rev-parse", "--abbrev-ref", "HEAD"]), "main");

    // An event that asks for nothing (another label) is explained the same way.
    let other = kotef_testkit::issues_labeled(REPO, n, "t", "b", "bug", "alice");
    let r = run_action(&w, "issues", &other, &ws, &success_model(), &[]).await;
    assert_eq!(r.code, 0);
    assert!(
        r.stdout
            .contains("::notice title=kotef::kotef did not run: label `bug`"),
        "{}",
        r.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_event_file_is_a_clear_error() {
    let w = world().await;
    let ws = w.dir.path().join("ws");
    let body = br#"{"action":"labeled","issue":{"number":"five","title":"t"},"label":{"name":"kotef"},"repository":{"full_name":"acme/greeter"},"sender":{"login":"alice","id":1}}"#;
    let r = run_action(&w, "issues", body, &ws, &success_model(), &[]).await;
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stderr
            .contains("invalid issues payload at `issue.number`"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("::error title=kotef::"), "{}", r.stdout);
    assert!(r.summary.contains("could not start"), "{}", r.summary);
    let r = run_action(&w, "issues", b"{not json", &ws, &success_model(), &[]).await;
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("invalid issues payload"), "{}", r.stderr);
    let r = run_action(
        &w,
        "issues",
        b"{}",
        &ws,
        &success_model(),
        &[("GITHUB_EVENT_PATH", "/nonexistent/event.json")],
    )
    .await;
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("cannot read the event file /nonexistent/event.json"),
        "{}",
        r.stderr
    );
    let r = run_action(
        &w,
        "issues",
        b"{}",
        &ws,
        &success_model(),
        &[("KOTEF_FAIL_ON", "aborted")],
    )
    .await;
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("fail-on: unknown status `aborted`"),
        "{}",
        r.stderr
    );
    assert!(w
        .gh
        .with_state(|s| s.comments.is_empty() && s.requests.is_empty()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workflow_dispatch_runs_the_issue_with_the_goal_from_its_inputs() {
    let w = world().await;
    let ws = checkout(&w, true);
    let n = w.gh.add_issue(REPO, "Greeting", "Something vague.");
    let payload = kotef_testkit::workflow_dispatch(
        REPO,
        &[
            ("issue-number", &n.to_string()),
            ("goal", "Create hello.txt saying hello"),
        ],
        "alice",
    );
    let r = run_action(
        &w,
        "workflow_dispatch",
        &payload,
        &ws,
        &success_model(),
        &[("KOTEF_PROFILE", "yolo"), ("KOTEF_MAX_STEPS", "30")],
    )
    .await;
    assert_eq!(r.code, 0, "stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert_eq!(r.outputs["terminal-status"], "done_success");
    let comment = w.gh.kotef_comments(REPO, n).pop().expect("status comment");
    assert!(comment.body.contains("profile `yolo`"), "{}", comment.body);
    assert!(
        comment.history[0].contains("| `max_steps` | 30 |"),
        "{}",
        comment.history[0]
    );
    let report = kotef_testkit::git_output(
        &w.bare,
        &[
            "show",
            &format!("kotef/issue-{n}:{}", r.outputs["report-path"]),
        ],
    )
    .unwrap();
    assert!(
        report.contains("Create hello.txt saying hello") && !report.contains("Something vague"),
        "the goal input replaces the issue text:\n{report}"
    );

    // Without an issue number there is nothing to work on: a clear error.
    let payload = kotef_testkit::workflow_dispatch(REPO, &[("goal", "x")], "alice");
    let r = run_action(
        &w,
        "workflow_dispatch",
        &payload,
        &ws,
        &success_model(),
        &[],
    )
    .await;
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("issue-number"), "{}", r.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_action_honours_the_repository_model_settings_as_its_operator() {
    let model = support::recording_model::RecordingModel::start(
        json!({"next": "done", "reason": "nothing to do"}),
    )
    .await;
    let config = format!(
        "test_command = \"true\"\nsandbox = \"none\"\n[model]\nname = \"openai:repo-model\"\nbase_url = \"{}\"\n",
        model.base_url()
    );
    let w = world_with_config(&config).await;
    let env = [
        ("KOTEF_MODEL", ""),
        ("OPENAI_API_KEY", "sk-action-key-0123"),
    ];
    let (_, _, r) = run_labeled(&w, true, &json!({}), &env, Launch::Direct).await;
    let first = model.first_planner_request();
    assert_eq!(
        first.as_ref().and_then(|s| s.body["model"].as_str()),
        Some("repo-model"),
        "stdout:\n{}\nstderr:\n{}",
        r.stdout,
        r.stderr
    );
}

/// The transcript of a branch's files, and the artifact's files, after a run in a repository
/// whose config is `config`.
async fn transcript_places(config: &str) -> (Vec<String>, Vec<String>, Ran) {
    let w = world_with_config(config).await;
    let (n, _, ran) = run_labeled(&w, true, &success_model(), &[], Launch::Direct).await;
    let branch = format!("kotef/issue-{n}");
    let on_branch: Vec<String> =
        kotef_testkit::git_output(&w.bare, &["ls-tree", "-r", "--name-only", &branch])
            .unwrap_or_default()
            .lines()
            .filter(|f| f.contains(".transcript."))
            .map(str::to_string)
            .collect();
    let dir = ran
        .outputs
        .get("artifact-path")
        .cloned()
        .unwrap_or_default();
    let mut in_artifact: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    in_artifact.sort();
    (on_branch, in_artifact, ran)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_transcript_goes_to_the_artifact_not_the_branch() {
    let config = "test_command = \"grep -q hello hello.txt\"\nsandbox = \"none\"\n";
    let (on_branch, in_artifact, ran) = transcript_places(config).await;
    let exts: Vec<&str> = in_artifact
        .iter()
        .filter_map(|f| f.rsplit('.').next())
        .collect();
    assert_eq!(
        (
            on_branch.len(),
            exts,
            ran.outputs
                .get("artifact-name")
                .map(|n| n.starts_with("kotef-run-"))
        ),
        (0, vec!["html", "jsonl"], Some(true)),
        "{}",
        ran.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repository_that_opts_in_gets_the_transcript_on_its_branch_too() {
    let config = "test_command = \"grep -q hello hello.txt\"\nsandbox = \"none\"\n[report]\ncommit_transcript = true\n";
    let (on_branch, in_artifact, ran) = transcript_places(config).await;
    let on_branch_ext: Vec<&str> = on_branch
        .iter()
        .filter_map(|f| f.rsplit('.').next())
        .collect();
    assert_eq!(
        (on_branch_ext, in_artifact.len()),
        (vec!["jsonl"], 2),
        "{}",
        ran.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_step_summary_names_the_artifact() {
    let config = "test_command = \"grep -q hello hello.txt\"\nsandbox = \"none\"\n";
    let (_, _, ran) = transcript_places(config).await;
    assert!(
        ran.summary.contains("artifact `kotef-run-")
            && ran.summary.contains(&format!("/actions/runs/{RUN_ID}")),
        "{}",
        ran.summary
    );
}

/// Every trigger the README's workflow subscribes to, through `kotef action` with the real
/// `@octokit/webhooks-examples` payloads (their repository, numbers and sender set to this
/// world's).
mod octokit_triggers {
    use super::*;
    use serde_json::Value;

    fn octokit(name: &str) -> Value {
        let path = format!(
            "{}/crates/kotef-github/tests/fixtures/octokit-webhooks-examples/{name}.payload.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let mut p: Value =
            serde_json::from_str(&text.replace("Codertocat/Hello-World", REPO)).unwrap();
        p["repository"]["default_branch"] = json!("main");
        p
    }

    fn as_sender(mut p: Value, login: &str) -> Vec<u8> {
        p["sender"]["login"] = json!(login);
        p["sender"]["type"] = json!("User");
        serde_json::to_vec(&p).unwrap()
    }

    /// A pull request on the branch `changes` (the payloads' head), with its number.
    fn pull(w: &World) -> u64 {
        git::push_branch(&w.bare, "changes", &[("notes.md", "changes\n")]);
        w.gh.add_pull(REPO, "Update the README", "changes", REPO, "main")
    }

    fn on_pull(mut p: Value, n: u64) -> Value {
        p["pull_request"]["number"] = json!(n);
        p["pull_request"]["state"] = json!("open");
        p["pull_request"]["base"]["ref"] = json!("main");
        p
    }

    fn hello_on(w: &World, branch: &str) -> Option<String> {
        kotef_testkit::git_output(&w.bare, &["show", &format!("{branch}:hello.txt")])
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_review_comment_with_kotef_run_runs_on_the_pull_request() {
        let w = world().await;
        let n = pull(&w);
        let mut p = on_pull(octokit("pull_request_review_comment.created"), n);
        p["comment"]["body"] = json!("/kotef run add hello.txt");
        let ws = checkout(&w, true);
        let r = run_action(
            &w,
            "pull_request_review_comment",
            &as_sender(p, "alice"),
            &ws,
            &success_model(),
            &[],
        )
        .await;
        assert_eq!(
            r.outputs["terminal-status"], "done_success",
            "{}\n{}",
            r.stdout, r.stderr
        );
        assert_eq!(hello_on(&w, "changes").as_deref(), Some("hello\n"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_submitted_review_with_kotef_run_runs_on_the_pull_request() {
        let w = world().await;
        let n = pull(&w);
        let mut p = on_pull(octokit("pull_request_review.submitted"), n);
        p["review"]["body"] = json!("Looks close.\n\n/kotef run add hello.txt");
        let ws = checkout(&w, true);
        let r = run_action(
            &w,
            "pull_request_review",
            &as_sender(p, "alice"),
            &ws,
            &success_model(),
            &[],
        )
        .await;
        assert_eq!(
            r.outputs["terminal-status"], "done_success",
            "{}\n{}",
            r.stdout, r.stderr
        );
        assert_eq!(hello_on(&w, "changes").as_deref(), Some("hello\n"));
    }

    fn assigned(w: &World, assignee: &str) -> (u64, Vec<u8>) {
        let n =
            w.gh.add_issue(REPO, "Add a greeting", "Please add hello.txt saying hello.");
        let mut p = octokit("issues.assigned");
        p["issue"]["number"] = json!(n);
        p["issue"]["state"] = json!("open");
        p["issue"]["title"] = json!("Add a greeting");
        p["issue"]["body"] = json!("Please add hello.txt saying hello.");
        p["issue"]["pull_request"] = Value::Null;
        p["assignee"]["login"] = json!(assignee);
        (n, as_sender(p, "alice"))
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_assignment_to_the_assignee_trigger_runs_the_issue() {
        let w = world().await;
        let (n, payload) = assigned(&w, "kotef-machine");
        let ws = checkout(&w, true);
        let env = [("KOTEF_ASSIGNEE_TRIGGER", "@kotef-machine")];
        let r = run_action(&w, "issues", &payload, &ws, &success_model(), &env).await;
        assert_eq!(
            r.outputs["terminal-status"], "done_success",
            "{}\n{}",
            r.stdout, r.stderr
        );
        assert_eq!(
            hello_on(&w, &format!("kotef/issue-{n}")).as_deref(),
            Some("hello\n")
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_assignment_to_someone_else_starts_nothing() {
        let w = world().await;
        let (n, payload) = assigned(&w, "bob");
        let ws = checkout(&w, true);
        let env = [("KOTEF_ASSIGNEE_TRIGGER", "kotef-machine")];
        let r = run_action(&w, "issues", &payload, &ws, &success_model(), &env).await;
        assert_eq!(r.outputs["terminal-status"], "", "{}", r.stdout);
        assert!(w.gh.comments(REPO, n).is_empty());
    }
}

/// Rows 1 and 9 of the red-team table (SECURITY.md) in the Action: the repository's tests are
/// the attacker, and what they find lands in the work tree kotef commits and pushes.
mod red_team {
    use super::*;

    /// Tests that run `loot` then pass once the agent wrote hello.txt.
    async fn world_whose_tests_run(sandbox: &str, loot: &str) -> World {
        let check = format!("{loot}; grep -q hello hello.txt");
        world_with_config(&format!(
            "test_command = {check:?}\nsandbox = \"{sandbox}\"\n[limits]\nmax_steps = 40\n"
        ))
        .await
    }

    /// Row 1: actions/checkout keeps the job's token in `$RUNNER_TEMP/git-credentials-*.config`
    /// (and earlier steps' scripts with secrets expanded sit there too). A sandboxed test
    /// reading it finds nothing.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sandboxed_tests_cannot_read_the_runners_temp_dir() {
        if let Err(why) = kotef_tools::bwrap_status() {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI needs bubblewrap: {why}"
            );
            eprintln!("skipped: no working bubblewrap ({why})");
            return;
        }
        // Outside /tmp, as on a runner (/home/runner/work/_temp).
        let temp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let creds = temp.path().join("git-credentials-9c2e.config");
        std::fs::write(
            &creds,
            format!("[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic {FAKE_TOKEN}\n"),
        )
        .unwrap();
        let loot = format!("cat {} > loot.txt 2>&1", creds.display());
        let w = world_whose_tests_run("bwrap", &loot).await;
        let temp_dir = temp.path().display().to_string();
        let env = [("RUNNER_TEMP", temp_dir.as_str())];
        let (_, ws, ran) = run_labeled(&w, true, &success_model(), &env, Launch::Direct).await;
        let got = std::fs::read_to_string(ws.join("loot.txt"))
            .unwrap_or_else(|e| panic!("the tests did not run ({e}): {}", ran.stderr));
        assert!(!got.contains(FAKE_TOKEN), "the job's token leaked: {got}");
    }

    /// Row 9: without a sandbox, the tests walk up their ancestors' `/proc/<pid>/environ`. The
    /// step's shell held `GITHUB_TOKEN` and the model keys while kotef ran under it; with
    /// `exec kotef action` there is no such shell, and kotef itself is not readable.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn unsandboxed_tests_find_no_ancestor_holding_the_token() {
        let walk = "python3 -c \"import os\nout=[]\npid=os.getppid()\nwhile pid > 1:\n    try: out.append(open('/proc/%d/environ' % pid, 'rb').read().decode('latin1'))\n    except Exception as e: out.append(str(e))\n    pid=int([l for l in open('/proc/%d/status' % pid) if l.startswith('PPid:')][0].split()[1])\nopen('loot.txt','w').write(chr(10).join(out))\n\"";
        let w = world_whose_tests_run("none", walk).await;
        let (_, ws, ran) = run_labeled(&w, true, &success_model(), &[], Launch::ActionStep).await;
        let got = std::fs::read_to_string(ws.join("loot.txt"))
            .unwrap_or_else(|e| panic!("the tests did not run ({e}): {}", ran.stderr));
        assert!(
            got.contains("Permission denied") || got.contains("Errno"),
            "{got}"
        );
        assert!(
            !got.contains(FAKE_TOKEN),
            "an ancestor held the token: {got}"
        );
    }
}
