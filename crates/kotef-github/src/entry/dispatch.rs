//! `kotef serve --executor actions`: the server as a thin dispatcher. An accepted job keeps the
//! server's permission check, rejection comments and 👀, gets its goal built (with the
//! discussion for `/kotef run`) and the first state of the sticky status comment, and is then
//! handed to the repository's kotef workflow as one `workflow_dispatch`. The workflow's
//! `kotef action` step reads the inputs back ([`DispatchedRun`]), continues the same comment
//! and does the run on a GitHub Actions runner.

use crate::outbound::render::{self, RunHeader};
use crate::pipeline::{
    admit, fail, goal_for, react, traced, wait_for_api_budget, JobContext, JobResult, JobStatus,
    Sticky,
};
use crate::queue::job::Job;
use kotef_core::Limits;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `workflow_dispatch` input naming the issue or pull request.
pub const INPUT_ISSUE: &str = "issue-number";
/// The `workflow_dispatch` input holding the goal.
pub const INPUT_GOAL: &str = "goal";
/// The `workflow_dispatch` input holding [`DispatchedRun`] as JSON.
pub const INPUT_RUN: &str = "kotef-run";

/// What a dispatching server tells the workflow run besides the issue and the goal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DispatchedRun {
    /// The run id (the status comment's marker carries it).
    pub run_id: String,
    /// The status comment the server posted, which the run keeps editing.
    #[serde(default)]
    pub comment_id: Option<u64>,
    /// Who asked for the run (their permission is checked again on the runner).
    pub requested_by: String,
    pub requested_by_id: u64,
    /// The webhook delivery that started it.
    #[serde(default)]
    pub delivery: String,
}

impl DispatchedRun {
    /// Parses the `kotef-run` input; the message says what is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let run: Self = serde_json::from_str(text)
            .map_err(|e| format!("the `{INPUT_RUN}` input is not valid: {e}"))?;
        let id_ok = !run.run_id.is_empty()
            && run.run_id.len() <= 64
            && run
                .run_id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !id_ok {
            return Err(format!(
                "the `{INPUT_RUN}` input has an invalid run id `{}`",
                run.run_id
            ));
        }
        if run.requested_by.trim().is_empty() {
            return Err(format!("the `{INPUT_RUN}` input names no requester"));
        }
        Ok(run)
    }
}

/// The `inputs` of the dispatch: every value a string, as the API requires.
pub fn dispatch_inputs(number: u64, goal: &str, run: &DispatchedRun) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(INPUT_ISSUE.into(), Value::String(number.to_string()));
    m.insert(INPUT_GOAL.into(), Value::String(goal.to_string()));
    m.insert(
        INPUT_RUN.into(),
        Value::String(serde_json::to_string(run).unwrap_or_default()),
    );
    m
}

/// What to tell the user when the dispatch is refused.
pub fn dispatch_hint(workflow: &str, status: Option<u16>) -> String {
    let declare = format!(
        "`.github/workflows/{workflow}` must exist on the default branch and declare `workflow_dispatch` with the inputs `{INPUT_ISSUE}`, `{INPUT_GOAL}` and `{INPUT_RUN}`"
    );
    match status {
        Some(403) => format!(
            "kotef's GitHub App (or token) needs the Actions: write permission to start workflows; {declare}."
        ),
        _ => format!("{declare}."),
    }
}

/// Handles one job in dispatch mode; never panics on bad input.
pub async fn dispatch_job(ctx: &JobContext, job: &Job, workflow: &str) -> JobResult {
    let span = tracing::info_span!(
        "dispatch",
        run_id = %job.run_id,
        delivery = %job.delivery,
        repo = %job.repo(),
        issue = %job.number(),
    );
    traced(ctx, span, dispatch_inner(ctx, job, workflow)).await
}

async fn dispatch_inner(ctx: &JobContext, job: &Job, workflow: &str) -> JobResult {
    let trigger = match admit(ctx, job).await {
        Ok(t) => t,
        Err(result) => return result,
    };
    let repo = job.repo().clone();
    let number = job.number();
    let target = trigger.target();
    react(ctx, &repo, number, trigger).await;

    let profile = job.profile.unwrap_or_default();
    let mut limits = Limits::for_profile(profile);
    limits.apply(&job.limits);
    let header = RunHeader {
        run_id: job.run_id.0.clone(),
        number: number.0,
        is_pull_request: trigger.is_pull_request(),
        branch: String::new(),
        profile,
        limits,
        model: ctx.model.clone(),
        requested_by: target.sender.login.clone(),
        actions_run: None,
    };
    let mut sticky = Sticky {
        ctx,
        repo: repo.clone(),
        number,
        id: job.status_comment,
        redactor: ctx.redactor.clone(),
        last: None,
    };
    wait_for_api_budget(&mut sticky, &header).await;
    let git_ref = match &target.default_branch {
        Some(b) => Ok(b.clone()),
        None => ctx
            .github
            .repository(&repo)
            .await
            .map(|r| r.default_branch)
            .map_err(|e| e.to_string()),
    };
    let git_ref = match git_ref {
        Ok(r) => r,
        Err(e) => {
            return fail(
                &mut sticky,
                &header,
                crate::pipeline::Stage::LookingUpDefaultBranch,
                &e,
                &[],
            )
            .await
        }
    };
    let goal = goal_for(ctx, job, trigger).await;

    let web = ctx.repo_web_url(&repo);
    let workflow_url = format!("{web}/actions/workflows/{workflow}");
    if let Err(e) = sticky
        .post(&render::dispatched_comment(
            &header,
            workflow,
            &workflow_url,
        ))
        .await
    {
        tracing::warn!(error = %e, "the first status comment is missing; dispatching anyway");
    }
    let run = DispatchedRun {
        run_id: job.run_id.0.clone(),
        comment_id: sticky.id,
        requested_by: target.sender.login.clone(),
        requested_by_id: target.sender.id,
        delivery: job.delivery.0.clone(),
    };
    let inputs = dispatch_inputs(number.0, &goal, &run);
    match ctx
        .github
        .dispatch_workflow(&repo, workflow, &git_ref, &inputs)
        .await
    {
        Ok(()) => sticky.result(
            JobStatus::Dispatched,
            format!("dispatched the workflow {workflow} on {git_ref}"),
        ),
        Err(e) => {
            let error = format!(
                "{}\n\n{}",
                ctx.redactor.redact(&e.to_string()),
                dispatch_hint(workflow, e.status())
            );
            fail(
                &mut sticky,
                &header,
                crate::pipeline::Stage::HandingToActions,
                &error,
                &[],
            )
            .await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> DispatchedRun {
        DispatchedRun {
            run_id: "0123456789ab".into(),
            comment_id: Some(17),
            requested_by: "alice".into(),
            requested_by_id: 7,
            delivery: "d-1".into(),
        }
    }

    #[test]
    fn inputs_are_strings_and_round_trip() {
        let m = dispatch_inputs(5, "Issue #5: t\n\nbody", &run());
        assert_eq!(m.len(), 3);
        assert!(m.values().all(Value::is_string));
        assert_eq!(m[INPUT_ISSUE], "5");
        let back = DispatchedRun::parse(m[INPUT_RUN].as_str().unwrap()).unwrap();
        assert_eq!(back, run());
    }

    #[test]
    fn bad_run_inputs_are_named() {
        assert!(DispatchedRun::parse("{").unwrap_err().contains(INPUT_RUN));
        let mut r = run();
        r.run_id = "../x".into();
        let e = DispatchedRun::parse(&serde_json::to_string(&r).unwrap()).unwrap_err();
        assert!(e.contains("run id"), "{e}");
        let mut r = run();
        r.requested_by = " ".into();
        assert!(DispatchedRun::parse(&serde_json::to_string(&r).unwrap()).is_err());
    }

    #[test]
    fn hints_name_the_workflow_inputs_and_permission() {
        let h = dispatch_hint("kotef.yml", Some(404));
        assert!(h.contains(".github/workflows/kotef.yml") && h.contains(INPUT_RUN));
        assert!(dispatch_hint("kotef.yml", Some(403)).contains("Actions: write"));
    }
}
