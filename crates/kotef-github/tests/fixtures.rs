//! Real payloads from `@octokit/webhooks-examples` (see `fixtures/octokit-webhooks-examples`)
//! each get the right decision.

use kotef_core::IssueNumber;
use kotef_github::inbound::decide::decide;
use kotef_github::inbound::trigger::{Admission, AdmissionConfig, Trigger};

fn load(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/octokit-webhooks-examples/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn cfg(label: &str) -> AdmissionConfig {
    AdmissionConfig {
        trigger_label: label.into(),
        bot_login: Some("kotef-bot".into()),
        ..AdmissionConfig::default()
    }
}

/// `name`'s payload with `field.body` replaced by `body`.
fn with_body(name: &str, field: &str, body: &str) -> Vec<u8> {
    let mut v: serde_json::Value = serde_json::from_slice(&load(name)).unwrap();
    v[field]["body"] = serde_json::Value::String(body.into());
    serde_json::to_vec(&v).unwrap()
}

#[test]
fn a_real_review_comment_without_the_command_is_ignored() {
    let body = load("pull_request_review_comment.created.payload.json");
    assert_eq!(
        decide("pull_request_review_comment", &body, &cfg("kotef")).unwrap(),
        Admission::Ignore("no `/kotef run` command".into())
    );
}

#[test]
fn a_real_review_comment_with_the_command_runs_on_its_file() {
    let body = with_body(
        "pull_request_review_comment.created.payload.json",
        "comment",
        "/kotef run use more emoji",
    );
    let Admission::Run(Trigger::ReviewComment {
        head_ref,
        code,
        extra_goal,
        ..
    }) = decide("pull_request_review_comment", &body, &cfg("kotef")).unwrap()
    else {
        panic!("expected a run")
    };
    assert_eq!(
        (head_ref.as_str(), code.path.as_str(), extra_goal.as_str()),
        ("changes", "README.md", "use more emoji")
    );
}

#[test]
fn a_real_review_without_a_body_is_ignored() {
    let body = load("pull_request_review.submitted.payload.json");
    assert!(matches!(
        decide("pull_request_review", &body, &cfg("kotef")).unwrap(),
        Admission::Ignore(_)
    ));
}

#[test]
fn a_real_review_with_the_command_runs() {
    let body = with_body(
        "pull_request_review.submitted.payload.json",
        "review",
        "/kotef run",
    );
    assert!(matches!(
        decide("pull_request_review", &body, &cfg("kotef")).unwrap(),
        Admission::Run(Trigger::Review { .. })
    ));
}

#[test]
fn a_real_assignment_runs_only_when_kotef_is_the_assignee() {
    let body = load("issues.assigned.payload.json");
    let mut as_assignee = cfg("kotef");
    as_assignee.bot_login = Some("Codertocat".into());
    // The example's sender is also Codertocat, kotef's own login here: its own event.
    assert!(matches!(
        decide("issues", &body, &as_assignee).unwrap(),
        Admission::Ignore(why) if why == "kotef's own event"
    ));
    assert!(matches!(
        decide("issues", &body, &cfg("kotef")).unwrap(),
        Admission::Ignore(why) if why.contains("not to kotef")
    ));
}

#[test]
fn ping_is_ping() {
    assert_eq!(
        decide("ping", &load("ping.payload.json"), &cfg("kotef")).unwrap(),
        Admission::Ping
    );
}

#[test]
fn issues_labeled_runs_only_with_the_trigger_label() {
    let body = load("issues.labeled.payload.json");
    match decide("issues", &body, &cfg("kotef")).unwrap() {
        Admission::Ignore(why) => assert!(why.contains("bug"), "{why}"),
        other => panic!("{other:?}"),
    }
    let Admission::Run(Trigger::IssueLabeled { target, label, .. }) =
        decide("issues", &body, &cfg("bug")).unwrap()
    else {
        panic!("expected a run")
    };
    assert_eq!(label, "bug");
    assert_eq!(target.repo.to_string(), "Codertocat/Hello-World");
    assert_eq!(target.number, IssueNumber(1));
    assert_eq!(target.title, "Spelling error in the README file");
    assert_eq!(target.sender.login, "Codertocat");
    assert_eq!(target.default_branch.as_deref(), Some("master"));
}

#[test]
fn other_issue_actions_are_ignored() {
    assert!(matches!(
        decide("issues", &load("issues.opened.payload.json"), &cfg("bug")).unwrap(),
        Admission::Ignore(_)
    ));
}

#[test]
fn comments_without_the_command_or_edited_are_ignored_and_with_it_run() {
    let body = load("issue_comment.created.payload.json");
    assert!(matches!(
        decide("issue_comment", &body, &cfg("kotef")).unwrap(),
        Admission::Ignore(_)
    ));
    assert!(matches!(
        decide(
            "issue_comment",
            &load("issue_comment.edited.payload.json"),
            &cfg("kotef")
        )
        .unwrap(),
        Admission::Ignore(_)
    ));
    // The same real payload with the command in the comment becomes a run.
    let mut v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    v["comment"]["body"] = "Thanks!\n\n/kotef run fix the typo too".into();
    let d = decide(
        "issue_comment",
        &serde_json::to_vec(&v).unwrap(),
        &cfg("kotef"),
    )
    .unwrap();
    let Admission::Run(Trigger::Command {
        extra_goal,
        is_pull_request,
        comment_id,
        ..
    }) = d
    else {
        panic!("{d:?}")
    };
    assert_eq!(extra_goal, "fix the typo too");
    assert!(!is_pull_request);
    assert_eq!(comment_id, v["comment"]["id"].as_u64().unwrap());
}

#[test]
fn pull_request_labeled_runs_on_the_head_branch() {
    let body = load("pull_request.labeled.payload.json");
    assert!(matches!(
        decide("pull_request", &body, &cfg("kotef")).unwrap(),
        Admission::Ignore(_)
    ));
    let d = decide("pull_request", &body, &cfg("bug")).unwrap();
    let Admission::Run(Trigger::PullRequestLabeled {
        head_ref,
        base_ref,
        target,
        ..
    }) = d
    else {
        panic!("{d:?}")
    };
    assert_eq!(head_ref, "changes");
    assert_eq!(base_ref, "master");
    assert_eq!(target.number, IssueNumber(2));
    assert!(matches!(
        decide(
            "pull_request",
            &load("pull_request.opened.payload.json"),
            &cfg("bug")
        )
        .unwrap(),
        Admission::Ignore(_)
    ));
}

#[test]
fn unhandled_events_are_ignored() {
    for (event, file) in [
        ("star", "star.created.payload.json"),
        ("push", "push.payload.json"),
    ] {
        assert!(
            matches!(
                decide(event, &load(file), &cfg("kotef")).unwrap(),
                Admission::Ignore(_)
            ),
            "{event}"
        );
    }
}

#[test]
fn a_real_assignment_to_kotef_by_someone_else_runs() {
    let mut v: serde_json::Value =
        serde_json::from_slice(&load("issues.assigned.payload.json")).unwrap();
    v["sender"]["login"] = "alice".into();
    let mut as_assignee = cfg("kotef");
    as_assignee.bot_login = Some("Codertocat".into());
    assert!(matches!(
        decide("issues", &serde_json::to_vec(&v).unwrap(), &as_assignee).unwrap(),
        Admission::Run(Trigger::IssueAssigned { .. })
    ));
}
