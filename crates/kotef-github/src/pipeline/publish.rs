//! Publishing a run's work on every ending: the commit message, commit and push (with the
//! notes a rejected push leaves), the web links to the branch and the report, and the draft PR
//! (issue runs, only when code changed) or the PR itself (PR runs), and the diff the
//! transcript's diff record holds.

use super::JobContext;
use crate::inbound::trigger::{Target, Trigger};
use crate::outbound::render::{self, Links, RunHeader};
use crate::outbound::workspace::{co_author_trailer, Pushed, Workspace};
use crate::queue::job::Job;
use kotef_core::{Redactor, RunId, RunOutcome};

/// What a job publishes, borrowed from it.
pub(super) struct Publish<'a> {
    pub(super) ctx: &'a JobContext,
    pub(super) job: &'a Job,
    pub(super) trigger: &'a Trigger,
    pub(super) header: &'a RunHeader,
    /// The branch that was cloned: the base of a new pull request.
    pub(super) clone_branch: &'a str,
    pub(super) work_branch: &'a str,
    pub(super) redactor: &'a Redactor,
    /// The run's transcript, taken out of the work tree (see `record`).
    pub(super) transcript: Option<&'a super::record::Taken>,
}

/// Where the work went.
pub(super) struct Published {
    /// The branch the work was pushed to.
    pub(super) branch: Option<String>,
    pub(super) pull: Option<u64>,
    pub(super) links: Links,
    /// `git diff --shortstat` of the code pushed (empty: no code changed).
    pub(super) diff_stat: Option<String>,
    /// Files of kotef's record under `.sdd/` the pushed commits hold.
    pub(super) sdd_files: u64,
    /// The code's diff (capped), for the transcript's diff record.
    pub(super) diff: Option<String>,
    /// Why the work was not pushed, when committing or pushing it failed or was refused (a
    /// run that changed nothing has nothing to push and no reason here).
    pub(super) not_pushed: Option<String>,
}

impl Publish<'_> {
    /// Commits and pushes whatever changed in `ws`, then opens or updates the pull request;
    /// what went wrong or differently is added to `notes`.
    pub(super) async fn publish(
        &self,
        ws: &Workspace,
        run: &Result<RunOutcome, super::RunError>,
        notes: &mut Vec<String>,
    ) -> Published {
        let job = self.job;
        let repo = job.repo();
        let number = job.number();
        let target = self.trigger.target();
        let message = commit_message(target, &job.run_id, run);
        let work_branch = self.work_branch;
        let mut links = Links::default();
        let mut pushed_branch = None;
        let mut not_pushed = None;
        let setup_created = run.as_ref().map_or(&[][..], |o| &o.setup_created[..]);
        match push_work(
            ws,
            work_branch,
            &job.run_id.0,
            &message,
            setup_created,
            notes,
        )
        .await
        {
            Ok(Some(p)) => {
                if p.retried {
                    notes.push(if p.branch == work_branch {
                        "the first push was rejected; kotef fetched, rebased and pushed again".to_string()
                    } else {
                        format!("the push to `{work_branch}` was rejected and could not be rebased; the work is on `{}`", p.branch)
                    });
                }
                pushed_branch = Some(p.branch);
            }
            Ok(None) => notes.push("the run changed nothing, so nothing was pushed".into()),
            Err(e) => not_pushed = Some(e),
        }
        let web = self.ctx.repo_web_url(repo);
        if let Some(b) = &pushed_branch {
            links.branch = Some((b.clone(), format!("{web}/tree/{b}")));
            if let Ok(o) = run {
                if !o.report_rel_path.is_empty() {
                    links.report = Some((
                        o.report_rel_path.clone(),
                        format!("{web}/blob/{b}/{}", o.report_rel_path),
                    ));
                }
            }
        }
        links.transcript = self.transcript.and_then(|t| {
            let web_branch = pushed_branch.as_ref().map(|b| format!("{web}/blob/{b}"));
            super::record::link(self.ctx, t, web_branch.as_deref())
        });

        let (diff_stat, sdd_files, diff) = match &pushed_branch {
            Some(_) => (
                ws.code_diff_stat().await.ok(),
                ws.sdd_files_changed().await.unwrap_or(0),
                ws.code_diff(super::record::DIFF_CAP).await.ok(),
            ),
            None => (None, 0, None),
        };
        let code_changed = diff_stat.as_deref().is_some_and(|d| !d.is_empty());

        // The draft PR (issue runs) or the PR itself (PR runs); no PR that would hold only
        // kotef's notes.
        let mut pull = None;
        if self.trigger.is_pull_request() {
            pull = Some(number.0);
            links.pull = Some((number.0, format!("{web}/pull/{number}")));
        } else if let (Some(branch), Ok(outcome)) = (&pushed_branch, run) {
            match self
                .open_or_update_pull(target.title.as_str(), branch, outcome, &links, code_changed)
                .await
            {
                Ok(Some((n, url))) => {
                    pull = Some(n);
                    links.pull = Some((n, url));
                }
                Ok(None) => notes.push(format!(
                    "no code was changed, so no pull request was opened; the run's report is on the branch `{branch}`"
                )),
                Err(e) => notes.push(format!("opening the pull request failed: {e}")),
            }
        }
        Published {
            branch: pushed_branch,
            pull,
            links,
            diff_stat,
            sdd_files,
            diff,
            not_pushed,
        }
    }

    async fn open_or_update_pull(
        &self,
        title: &str,
        branch: &str,
        outcome: &RunOutcome,
        links: &Links,
        code_changed: bool,
    ) -> Result<Option<(u64, String)>, String> {
        let ctx = self.ctx;
        let repo = self.job.repo();
        let title = render::pull_title(self.header.number, title);
        let body = self
            .redactor
            .redact(&render::pull_body(self.header, outcome, links));
        let existing = ctx
            .github
            .find_pull_by_head(repo, branch)
            .await
            .map_err(|e| e.to_string())?;
        let pr = match existing {
            Some(pr) => {
                ctx.github
                    .update_pull(repo, pr.number, &title, &body)
                    .await
                    .map_err(|e| e.to_string())?;
                pr
            }
            None if !code_changed => return Ok(None),
            None => ctx
                .github
                .create_draft_pull(repo, branch, self.clone_branch, &title, &body)
                .await
                .map_err(|e| e.to_string())?,
        };
        let url = pr
            .html_url
            .unwrap_or_else(|| format!("{}/pull/{}", ctx.repo_web_url(repo), pr.number));
        Ok(Some((pr.number, url)))
    }
}

/// The commit message of a run: the title, how the run ended, and the requester as
/// co-author.
fn commit_message(
    target: &Target,
    run_id: &RunId,
    run: &Result<RunOutcome, super::RunError>,
) -> String {
    let mut message = format!(
        "kotef: {} (#{})\n\n",
        target.title.replace(['\r', '\n'], " "),
        target.number
    );
    match run {
        Ok(o) => message.push_str(&format!(
            "Run {} ended {}{}.\n",
            run_id,
            o.summary.terminal_status,
            o.summary
                .stop_rule
                .map(|r| format!(" (stop rule {r})"))
                .unwrap_or_default()
        )),
        Err(_) => message.push_str(&format!("Run {} failed before it could finish.\n", run_id)),
    }
    message.push_str(&format!(
        "\n{}\n",
        co_author_trailer(&target.sender.login, target.sender.id)
    ));
    message
}

async fn push_work(
    ws: &Workspace,
    work_branch: &str,
    run_id: &str,
    message: &str,
    setup_created: &[String],
    notes: &mut Vec<String>,
) -> Result<Option<Pushed>, String> {
    let (committed, left_out) = ws
        .commit_work(message, setup_created)
        .await
        .map_err(|e| e.to_string())?;
    if !setup_created.is_empty() {
        let shown: Vec<String> = setup_created
            .iter()
            .take(5)
            .map(|p| render::code(p))
            .collect();
        let more = setup_created.len().saturating_sub(shown.len());
        notes.push(format!(
            "the repository's `setup` created {}{}; kotef left it out of the commit",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    if !left_out.is_empty() {
        let shown: Vec<String> = left_out.iter().take(5).map(|p| render::code(p)).collect();
        notes.push(format!(
            "the run left symbolic links under `.sdd/` ({}); kotef did not commit them",
            shown.join(", ")
        ));
    }
    if !committed
        && ws
            .commits_ahead_of_base()
            .await
            .map_err(|e| e.to_string())?
            == 0
    {
        return Ok(None);
    }
    let fallback = format!("{work_branch}-{run_id}");
    ws.push(&fallback)
        .await
        .map(Some)
        .map_err(|e| e.to_string())
}
