//! What one delivery asks for: a webhook payload, its event name and the configuration become
//! a [`Admission`] — run a [`Trigger`], ignore it (with a reason) or reject it (with a comment).
//! Pure: no network, no clock; the permission check is a separate async step.

use super::payload::{
    parse, repo_name, ActionOnly, AssignedEvent, IssueCommentEvent, IssuePayload, IssuesEvent,
    LabelPayload, PullPayload, PullRequestEvent, RepoPayload, ReviewCommentEvent, ReviewEvent,
    User,
};
use super::sanitize::{find_phrase, plain_text, visible_text, Command};
use super::trigger::{
    Actor, Admission, AdmissionConfig, Author, CodeComment, PayloadError, Rejection, Target,
    Trigger,
};
use crate::marker::MARKER_PREFIX;
use kotef_core::IssueNumber;

/// Whether a login belongs to a bot account.
pub fn is_bot(login: &str, kind: Option<&str>) -> bool {
    kind == Some("Bot") || login.ends_with("[bot]")
}

/// The writer of a payload's issue or PR.
fn author(user: Option<&User>, association: Option<&str>) -> Option<Author> {
    user.map(|u| Author {
        login: u.login.clone(),
        association: association.map(str::to_string),
    })
}

fn actor(u: &User) -> Actor {
    Actor {
        login: u.login.clone(),
        id: u.id,
    }
}

/// The target of an `issues` or `issue_comment` event: the issue (or PR) it is about.
fn issue_target(
    event: &str,
    repository: &RepoPayload,
    issue: &IssuePayload,
    sender: &User,
) -> Result<Target, PayloadError> {
    Ok(Target {
        repo: repo_name(event, repository)?,
        default_branch: repository.default_branch.clone(),
        number: IssueNumber(issue.number),
        title: plain_text(&issue.title),
        body: visible_text(issue.body.as_deref().unwrap_or_default()),
        sender: actor(sender),
        author: author(issue.user.as_ref(), issue.author_association.as_deref()),
    })
}

/// Decides what one delivery asks for. `Err` only for a payload that is not valid JSON or
/// lacks a field its event needs (the caller answers 400 with the message).
pub fn decide(event: &str, body: &[u8], cfg: &AdmissionConfig) -> Result<Admission, PayloadError> {
    if event == "ping" {
        return Ok(Admission::Ping);
    }
    if !matches!(
        event,
        "issues"
            | "issue_comment"
            | "pull_request"
            | "pull_request_review_comment"
            | "pull_request_review"
    ) {
        // Still require JSON, so garbage is not silently accepted.
        parse::<serde_json::Value>(event, body)?;
        return Ok(Admission::Ignore(format!("event `{event}` is not handled")));
    }
    let head: ActionOnly = parse(event, body)?;
    let action = head.action.unwrap_or_default();
    let wanted: &[&str] = match event {
        "issues" => &["labeled", "assigned"],
        "pull_request" => &["labeled"],
        "pull_request_review" => &["submitted"],
        _ => &["created"],
    };
    if !wanted.contains(&action.as_str()) {
        return Ok(Admission::Ignore(format!(
            "`{event}.{action}` is not handled"
        )));
    }
    if let Some(sender) = &head.sender {
        if is_bot(&sender.login, sender.kind.as_deref()) {
            return Ok(Admission::Ignore(format!(
                "sender `{}` is a bot",
                sender.login
            )));
        }
        if cfg
            .bot_login
            .as_deref()
            .is_some_and(|b| b.eq_ignore_ascii_case(&sender.login))
        {
            return Ok(Admission::Ignore("kotef's own event".into()));
        }
    }
    match (event, action.as_str()) {
        ("issues", "assigned") => decide_assigned(event, parse(event, body)?, cfg),
        ("issues", _) => decide_issue(event, parse(event, body)?, cfg),
        ("pull_request", _) => decide_pull(event, parse(event, body)?, cfg),
        ("pull_request_review_comment", _) => {
            decide_review_comment(event, parse(event, body)?, cfg)
        }
        ("pull_request_review", _) => decide_review(event, parse(event, body)?, cfg),
        _ => decide_comment(event, parse(event, body)?, cfg),
    }
}

/// What a pull request trigger runs on, or the decision that it runs on nothing.
enum PullTarget {
    /// The pull request, open and in the repository itself.
    Open(Target),
    /// Closed (ignored) or from a fork (rejected: kotef cannot push there).
    Not(Admission),
}

/// What a pull request trigger runs on, or why not: closed PRs are ignored, PRs from forks
/// rejected (kotef cannot push there).
fn pull_target(
    event: &str,
    repository: &RepoPayload,
    pr: &PullPayload,
    sender: &User,
) -> Result<PullTarget, PayloadError> {
    if pr.state.as_deref() == Some("closed") {
        return Ok(PullTarget::Not(Admission::Ignore(
            "the pull request is closed".into(),
        )));
    }
    let repo = repo_name(event, repository)?;
    let head_repo = pr.head.repo.as_ref().map(|r| r.full_name.as_str());
    if head_repo != Some(repository.full_name.as_str()) {
        return Ok(PullTarget::Not(Admission::Reject(Rejection {
            repo,
            number: IssueNumber(pr.number),
            sender: actor(sender),
            reason: fork_reason(head_repo),
        })));
    }
    Ok(PullTarget::Open(Target {
        repo,
        default_branch: repository.default_branch.clone(),
        number: IssueNumber(pr.number),
        title: plain_text(&pr.title),
        body: visible_text(pr.body.as_deref().unwrap_or_default()),
        sender: actor(sender),
        author: author(pr.user.as_ref(), pr.author_association.as_deref()),
    }))
}

/// The trigger phrase's command (`/kotef run`) of a comment body: the extra goal text, or why
/// there is none.
fn run_command(raw: &str, cfg: &AdmissionConfig) -> Result<String, String> {
    if raw.contains(MARKER_PREFIX) {
        return Err("kotef's own comment".into());
    }
    let phrase = cfg.trigger_phrase.trim();
    match find_phrase(&visible_text(raw), phrase) {
        Some(Command::Run { extra }) => Ok(extra),
        Some(Command::Unknown(word)) => {
            let first = phrase.split_whitespace().next().unwrap_or_default();
            Err(format!("unknown command `{first} {word}`"))
        }
        None => Err(format!("no `{phrase}` command")),
    }
}

/// Longest diff hunk of a review comment passed to the agent, in characters.
const MAX_HUNK_CHARS: usize = 3_000;

fn decide_review_comment(
    event: &str,
    e: ReviewCommentEvent,
    cfg: &AdmissionConfig,
) -> Result<Admission, PayloadError> {
    let c = e.comment;
    if let (Some(app), Some(own)) = (&c.performed_via_github_app, cfg.app_id) {
        if app.id == own {
            return Ok(Admission::Ignore("kotef's own comment".into()));
        }
    }
    let extra = match run_command(c.body.as_deref().unwrap_or_default(), cfg) {
        Ok(x) => x,
        Err(why) => return Ok(Admission::Ignore(why)),
    };
    let target = match pull_target(event, &e.repository, &e.pull_request, &e.sender)? {
        PullTarget::Open(t) => t,
        PullTarget::Not(d) => return Ok(d),
    };
    let code = Box::new(CodeComment {
        path: plain_text(&c.path),
        start_line: c.start_line.or(c.original_start_line),
        line: c.line.or(c.original_line),
        diff_hunk: crate::inbound::sanitize::truncate_chars(
            &plain_text(c.diff_hunk.as_deref().unwrap_or_default()),
            MAX_HUNK_CHARS,
        ),
        body: visible_text(c.body.as_deref().unwrap_or_default()),
        author: Author {
            login: c
                .user
                .as_ref()
                .map(|u| u.login.clone())
                .unwrap_or_else(|| e.sender.login.clone()),
            association: c.author_association,
        },
    });
    Ok(Admission::Run(Trigger::ReviewComment {
        target,
        head_ref: e.pull_request.head.name,
        base_ref: e.pull_request.base.name,
        comment_id: c.id,
        extra_goal: extra,
        code,
    }))
}

fn decide_review(
    event: &str,
    e: ReviewEvent,
    cfg: &AdmissionConfig,
) -> Result<Admission, PayloadError> {
    let raw = e.review.body.as_deref().unwrap_or_default();
    let extra = match run_command(raw, cfg) {
        Ok(x) => x,
        Err(why) => return Ok(Admission::Ignore(why)),
    };
    let target = match pull_target(event, &e.repository, &e.pull_request, &e.sender)? {
        PullTarget::Open(t) => t,
        PullTarget::Not(d) => return Ok(d),
    };
    Ok(Admission::Run(Trigger::Review {
        target,
        head_ref: e.pull_request.head.name,
        base_ref: e.pull_request.base.name,
        review_id: e.review.id,
        extra_goal: extra,
        body: visible_text(raw),
    }))
}

fn decide_assigned(
    event: &str,
    e: AssignedEvent,
    cfg: &AdmissionConfig,
) -> Result<Admission, PayloadError> {
    let Some(bot) = cfg.assignee.as_deref().or(cfg.bot_login.as_deref()) else {
        return Ok(Admission::Ignore(
            "no assignee triggers a run (set the action's `assignee-trigger` input, or `kotef serve --assignee-trigger`), so an assignment cannot be matched".into(),
        ));
    };
    let assignee = e.assignee.as_ref().map(|a| a.login.as_str()).unwrap_or("");
    if !assignee.eq_ignore_ascii_case(bot) {
        return Ok(Admission::Ignore(format!(
            "assigned to `{assignee}`, not to kotef (`{bot}`)"
        )));
    }
    if e.issue.pull_request.is_some() {
        return Ok(Admission::Ignore(
            "assignment of a pull request (label it or comment `/kotef run`)".into(),
        ));
    }
    if e.issue.state.as_deref() == Some("closed") {
        return Ok(Admission::Ignore("the issue is closed".into()));
    }
    let target = issue_target(event, &e.repository, &e.issue, &e.sender)?;
    Ok(Admission::Run(Trigger::IssueAssigned { target }))
}

fn label_matches(label: &Option<LabelPayload>, cfg: &AdmissionConfig) -> Result<String, String> {
    match label {
        Some(l) if l.name.eq_ignore_ascii_case(&cfg.trigger_label) || cfg.repository_labels => {
            Ok(l.name.clone())
        }
        Some(l) => Err(format!(
            "label `{}` is not the trigger label `{}`",
            l.name, cfg.trigger_label
        )),
        None => Err("no label in the payload".into()),
    }
}

fn decide_issue(
    event: &str,
    e: IssuesEvent,
    cfg: &AdmissionConfig,
) -> Result<Admission, PayloadError> {
    let label = match label_matches(&e.label, cfg) {
        Ok(l) => l,
        Err(why) => return Ok(Admission::Ignore(why)),
    };
    if e.issue.state.as_deref() == Some("closed") {
        return Ok(Admission::Ignore("the issue is closed".into()));
    }
    // A pull request labelled through the issues API: its branches (and whether it comes from
    // a fork) are looked up when the run starts.
    let target = issue_target(event, &e.repository, &e.issue, &e.sender)?;
    Ok(Admission::Run(Trigger::IssueLabeled {
        target,
        label,
        pull_request: e.issue.pull_request.is_some(),
    }))
}

fn decide_pull(
    event: &str,
    e: PullRequestEvent,
    cfg: &AdmissionConfig,
) -> Result<Admission, PayloadError> {
    let label = match label_matches(&e.label, cfg) {
        Ok(l) => l,
        Err(why) => return Ok(Admission::Ignore(why)),
    };
    let target = match pull_target(event, &e.repository, &e.pull_request, &e.sender)? {
        PullTarget::Open(t) => t,
        PullTarget::Not(d) => return Ok(d),
    };
    let pr = e.pull_request;
    Ok(Admission::Run(Trigger::PullRequestLabeled {
        target,
        label,
        head_ref: pr.head.name,
        base_ref: pr.base.name,
    }))
}

/// The comment text for a pull request kotef cannot push to.
pub fn fork_reason(head_repo: Option<&str>) -> String {
    match head_repo {
        Some(r) => format!(
            "kotef only runs on pull requests whose branch lives in this repository; this one comes from the fork `{r}`, which kotef cannot push to."
        ),
        None => "kotef only runs on pull requests whose branch lives in this repository; this one's head repository no longer exists.".to_string(),
    }
}

fn decide_comment(
    event: &str,
    e: IssueCommentEvent,
    cfg: &AdmissionConfig,
) -> Result<Admission, PayloadError> {
    let raw = e.comment.body.as_deref().unwrap_or_default();
    if let (Some(app), Some(own)) = (&e.comment.performed_via_github_app, cfg.app_id) {
        if app.id == own {
            return Ok(Admission::Ignore("kotef's own comment".into()));
        }
    }
    let extra = match run_command(raw, cfg) {
        Ok(x) => x,
        Err(why) => return Ok(Admission::Ignore(why)),
    };
    if e.issue.state.as_deref() == Some("closed") {
        return Ok(Admission::Ignore("the issue is closed".into()));
    }
    let target = issue_target(event, &e.repository, &e.issue, &e.sender)?;
    Ok(Admission::Run(Trigger::Command {
        target,
        is_pull_request: e.issue.pull_request.is_some(),
        comment_id: e.comment.id,
        created_at: e.comment.created_at,
        extra_goal: extra,
    }))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use kotef_core::RepoName;
    use serde_json::json;

    pub(crate) fn cfg() -> AdmissionConfig {
        AdmissionConfig {
            trigger_label: "kotef".into(),
            bot_login: Some("kotef-bot".into()),
            app_id: Some(42),
            ..AdmissionConfig::default()
        }
    }

    pub(crate) fn user(login: &str) -> serde_json::Value {
        json!({"login": login, "id": 7, "type": "User"})
    }

    fn issues_labeled(label: &str, sender: serde_json::Value) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "action": "labeled",
            "issue": {"number": 5, "title": "Fix\u{200B} it", "body": "Body <!-- secret -->text", "state": "open"},
            "label": {"name": label},
            "repository": {"full_name": "acme/widgets", "default_branch": "main"},
            "sender": sender,
        }))
        .unwrap()
    }

    pub(crate) fn comment(body: &str, sender: serde_json::Value, on_pr: bool) -> Vec<u8> {
        let mut issue = json!({"number": 9, "title": "T", "body": "B", "state": "open"});
        if on_pr {
            issue["pull_request"] = json!({"url": "x"});
        }
        serde_json::to_vec(&json!({
            "action": "created",
            "issue": issue,
            "comment": {"id": 100, "body": body, "created_at": "2024-01-02T03:04:05Z"},
            "repository": {"full_name": "acme/widgets", "default_branch": "main"},
            "sender": sender,
        }))
        .unwrap()
    }

    fn pull_labeled(head_repo: Option<&str>) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "action": "labeled",
            "pull_request": {"number": 3, "title": "PR", "body": null, "state": "open",
                "head": {"ref": "feature", "repo": head_repo.map(|r| json!({"full_name": r}))},
                "base": {"ref": "main", "repo": {"full_name": "acme/widgets"}}},
            "label": {"name": "kotef"},
            "repository": {"full_name": "acme/widgets", "default_branch": "main"},
            "sender": user("maint"),
        }))
        .unwrap()
    }

    #[test]
    fn labeled_issue_with_trigger_label_runs_with_clean_text() {
        let d = decide("issues", &issues_labeled("kotef", user("alice")), &cfg()).unwrap();
        let Admission::Run(Trigger::IssueLabeled { target, label, .. }) = d else {
            panic!("{d:?}")
        };
        assert_eq!(label, "kotef");
        assert_eq!(target.repo, RepoName::new("acme", "widgets"));
        assert_eq!(target.number, IssueNumber(5));
        assert_eq!(target.title, "Fix it");
        assert_eq!(target.body, "Body text");
        assert_eq!(target.default_branch.as_deref(), Some("main"));
    }

    #[test]
    fn other_labels_bots_and_self_are_ignored() {
        let c = cfg();
        assert!(matches!(
            decide("issues", &issues_labeled("bug", user("alice")), &c).unwrap(),
            Admission::Ignore(r) if r.contains("bug")
        ));
        let bot = json!({"login": "renovate[bot]", "id": 1, "type": "Bot"});
        assert!(matches!(
            decide("issues", &issues_labeled("kotef", bot), &c).unwrap(),
            Admission::Ignore(r) if r.contains("bot")
        ));
        let typed_bot = json!({"login": "helper", "id": 1, "type": "Bot"});
        assert!(matches!(
            decide("issues", &issues_labeled("kotef", typed_bot), &c).unwrap(),
            Admission::Ignore(_)
        ));
        assert!(matches!(
            decide("issues", &issues_labeled("kotef", user("kotef-bot")), &c).unwrap(),
            Admission::Ignore(r) if r.contains("own")
        ));
    }

    #[test]
    fn comment_command_runs_on_issue_and_pr() {
        let d = decide(
            "issue_comment",
            &comment("/kotef run and add tests", user("bob"), true),
            &cfg(),
        )
        .unwrap();
        let Admission::Run(Trigger::Command {
            is_pull_request,
            extra_goal,
            comment_id,
            ..
        }) = d
        else {
            panic!("{d:?}")
        };
        assert!(is_pull_request);
        assert_eq!(extra_goal, "and add tests");
        assert_eq!(comment_id, 100);
    }

    #[test]
    fn comments_without_command_or_from_kotef_are_ignored() {
        let c = cfg();
        for body in [
            "nice work",
            "```\n/kotef run\n```",
            "> /kotef run",
            "<!-- /kotef run -->",
            "<!-- kotef:run {\"run_id\":\"x\"} -->\n/kotef run",
        ] {
            assert!(
                matches!(
                    decide("issue_comment", &comment(body, user("bob"), false), &c).unwrap(),
                    Admission::Ignore(_)
                ),
                "{body}"
            );
        }
        let mut v: serde_json::Value =
            serde_json::from_slice(&comment("/kotef run", user("bob"), false)).unwrap();
        v["comment"]["performed_via_github_app"] = json!({"id": 42});
        assert!(matches!(
            decide("issue_comment", &serde_json::to_vec(&v).unwrap(), &c).unwrap(),
            Admission::Ignore(_)
        ));
    }

    #[test]
    fn pull_request_from_fork_is_rejected_same_repo_runs() {
        let d = decide("pull_request", &pull_labeled(Some("acme/widgets")), &cfg()).unwrap();
        assert!(
            matches!(d, Admission::Run(Trigger::PullRequestLabeled { ref head_ref, .. }) if head_ref == "feature")
        );
        let d = decide(
            "pull_request",
            &pull_labeled(Some("mallory/widgets")),
            &cfg(),
        )
        .unwrap();
        let Admission::Reject(r) = d else {
            panic!("{d:?}")
        };
        assert!(r.reason.contains("mallory/widgets"));
        assert_eq!(r.number, IssueNumber(3));
        assert!(matches!(
            decide("pull_request", &pull_labeled(None), &cfg()).unwrap(),
            Admission::Reject(_)
        ));
    }

    #[test]
    fn ping_unknown_events_and_other_actions() {
        assert_eq!(decide("ping", b"{}", &cfg()).unwrap(), Admission::Ping);
        assert!(matches!(
            decide("star", b"{\"action\":\"created\"}", &cfg()).unwrap(),
            Admission::Ignore(_)
        ));
        let mut v: serde_json::Value =
            serde_json::from_slice(&issues_labeled("kotef", user("a"))).unwrap();
        v["action"] = json!("opened");
        assert!(matches!(
            decide("issues", &serde_json::to_vec(&v).unwrap(), &cfg()).unwrap(),
            Admission::Ignore(_)
        ));
    }

    #[test]
    fn malformed_payloads_name_the_field() {
        let e = decide("issues", b"{not json", &cfg()).unwrap_err();
        assert_eq!(e.event, "issues");
        let body = br#"{"action":"labeled","issue":{"number":"five","title":"t"},"repository":{"full_name":"a/b"},"sender":{"login":"x","id":1}}"#;
        let e = decide("issues", body, &cfg()).unwrap_err();
        assert_eq!(e.path, "issue.number", "{e}");
        let body = br#"{"action":"labeled","issue":{"number":1,"title":"t"},"repository":{"full_name":"ab"},"label":{"name":"kotef"},"sender":{"login":"x","id":1}}"#;
        let e = decide("issues", body, &cfg()).unwrap_err();
        assert_eq!(e.path, "repository.full_name");
        let e = decide("star", b"[", &cfg()).unwrap_err();
        assert!(e.to_string().contains("star"));
    }
}
