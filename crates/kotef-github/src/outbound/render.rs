//! Everything kotef writes on GitHub, as pure functions: the sticky status comment (started,
//! progress, finished, failed) with its hidden marker, the draft PR's body, and the rejection
//! comment. Checked with snapshot tests.

use kotef_core::{Edge, Limits, Profile, RunOutcome, StepProgress};

pub use kotef_core::markdown::{code, inert, INERT_CAP};

pub use crate::marker::{marker, parse_marker, MarkerData, MARKER_PREFIX};

pub use super::links::{link_target, links_line, short_stat, DiffStat, Links, TranscriptLink};

/// What every status comment shows about its run.
#[derive(Debug, Clone)]
pub struct RunHeader {
    pub run_id: String,
    pub number: u64,
    pub is_pull_request: bool,
    pub branch: String,
    pub profile: Profile,
    pub limits: Limits,
    pub model: Option<String>,
    pub requested_by: String,
    /// The GitHub Actions run doing the work (Action mode), linked from the footer.
    pub actions_run: Option<String>,
}

/// The state a status comment shows.
#[derive(Debug, Clone)]
pub enum Phase<'a> {
    /// Accepted, about to run.
    Started,
    /// Running; the latest steps.
    Progress { steps: &'a [StepProgress] },
    /// Ended with an outcome (any terminal status). `notes` tell about push/PR trouble;
    /// `diff_stat` is `git diff --shortstat` of the code the run changed; `not_pushed` is why
    /// the work was not pushed (a tampered git directory, a refused push): then it is the
    /// headline, whatever the terminal status.
    Finished {
        outcome: &'a RunOutcome,
        links: &'a Links,
        notes: &'a [String],
        diff_stat: Option<DiffStat<'a>>,
        not_pushed: Option<&'a str>,
    },
    /// Ended without an outcome: what failed (`stage`) and why.
    Failed {
        stage: &'a str,
        error: &'a str,
        links: &'a Links,
        notes: &'a [String],
    },
}

/// Steps shown in a progress comment.
pub const PROGRESS_LINES: usize = 10;

/// Makes free text (a reason, a summary, a note, anything a model or a run wrote) inert inside
/// a table cell or paragraph: one line, no HTML, no marker look-alikes, no markup, links,
/// mentions or issue references, at most [`INERT_CAP`] characters (see
/// [`kotef_core::markdown::inert`]).
pub fn inline(text: &str) -> String {
    inert(text, INERT_CAP)
}

/// [`code`] for a GitHub table cell, where a `|` would end the cell even inside a code span.
pub fn code_in_cell(text: &str) -> String {
    code(text).replace('|', "\\|")
}

/// Characters of a fenced block (test output, an error) shown at most.
const FENCED_CAP: usize = 4000;

fn fenced(lang: &str, text: &str) -> String {
    let body = crate::text::truncate_chars(text, FENCED_CAP).replace("```", "ʼʼʼ");
    format!("```{lang}\n{}\n```\n", body.trim_end())
}

/// `1m 05s`, `12.3s`, `850ms`.
pub fn format_duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        let s = ms / 1000;
        if s < 3600 {
            format!("{}m {:02}s", s / 60, s % 60)
        } else {
            format!("{}h {:02}m", s / 3600, (s % 3600) / 60)
        }
    }
}

/// The footer; a final comment @-mentions the requester (notifying them once), others name
/// them as code.
fn footer(h: &RunHeader, mention: bool) -> String {
    let model = h
        .model
        .as_deref()
        .map(|m| format!(" · model {}", code(m)))
        .unwrap_or_default();
    let run = h
        .actions_run
        .as_deref()
        .map(|u| format!(" · [Actions run]({})", link_target(u)))
        .unwrap_or_default();
    let requester = if mention {
        format!("@{}", inline(&h.requested_by))
    } else {
        code(&h.requested_by)
    };
    format!(
        "\n<sub>kotef run {} · profile `{}`{} · requested by {requester}{}</sub>\n",
        code(&h.run_id),
        h.profile.as_str(),
        model,
        run
    )
}

/// The first state of the status comment when the run was handed to a GitHub Actions
/// workflow (`kotef serve --executor actions`); the workflow's run edits it from then on.
pub fn dispatched_comment(h: &RunHeader, workflow: &str, workflow_url: &str) -> String {
    let mut out = marker(&MarkerData {
        run_id: h.run_id.clone(),
        number: h.number,
        ended: false,
    });
    out.push_str("\n### ⏳ kotef is starting on GitHub Actions\n\n");
    out.push_str(&format!(
        "This run was handed to the workflow [{}]({}); this comment is updated once a runner picks it up.\n",
        code(workflow),
        link_target(workflow_url)
    ));
    out.push_str(&format!(
        "\n<sub>kotef run {} · requested by {}</sub>\n",
        code(&h.run_id),
        code(&h.requested_by)
    ));
    out
}

fn limits_table(l: &Limits) -> String {
    let rows = [
        ("max_steps", l.max_steps as u64),
        ("edge_limit_researcher", l.edge_limit_researcher as u64),
        ("edge_limit_coder", l.edge_limit_coder as u64),
        ("edge_limit_verifier", l.edge_limit_verifier as u64),
        ("no_progress_steps", l.no_progress_steps as u64),
        ("fix_attempts", l.fix_attempts as u64),
        ("coder_turns", l.coder_turns as u64),
        ("token_budget", l.token_budget),
        ("time_budget_s", l.time_budget_s),
        ("command_timeout_s", l.command_timeout_s),
        ("coder_step_calls", l.coder_step_calls as u64),
        ("max_model_calls", l.max_model_calls as u64),
    ];
    let mut s = String::from("| limit | value |\n|---|---:|\n");
    for (k, v) in rows {
        s.push_str(&format!("| `{k}` | {v} |\n"));
    }
    if let Some(c) = l.cost_budget_usd {
        s.push_str(&format!("| `cost_budget_usd` | {c} |\n"));
    }
    s
}

/// The tail of a final status comment: the notes (if any), then the links line (if any).
fn push_notes_and_links(out: &mut String, notes: &[String], links: &Links) {
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes_block(notes));
    }
    if let Some(l) = links_line(links) {
        out.push('\n');
        out.push_str(&l);
    }
}

fn notes_block(notes: &[String]) -> String {
    notes
        .iter()
        .map(|n| format!("> ⚠️ {}\n", inline(n)))
        .collect::<Vec<_>>()
        .join(">\n")
}

/// The outcome's figures, loop counters, failure summary and path diagram (shared by the
/// status comment and the PR body).
pub fn outcome_details(outcome: &RunOutcome, limits: &Limits) -> String {
    let s = &outcome.summary;
    let mut out = String::new();
    let rule = match s.stop_rule {
        Some(r) => format!("`{}`", r.as_str()),
        None => "none (the run ended by itself)".to_string(),
    };
    let cost = outcome.cost_usd.map(|c| format!("${c:.4}")).unwrap_or_else(|| {
        format!(
            "n/a (no price is known for {}; the operator can set the Action's `price-per-mtok` or `[model] price_prompt_per_mtok` and `price_completion_per_mtok`)",
            code_in_cell(&outcome.model)
        )
    });
    out.push_str("| | |\n|---|---|\n");
    out.push_str(&format!(
        "| **Terminal status** | {} `{}` |\n",
        s.terminal_status.emoji(),
        s.terminal_status.as_str()
    ));
    out.push_str(&format!("| **Stop rule** | {rule} |\n"));
    out.push_str(&format!(
        "| **Stop reason** | {} |\n",
        inline(&s.stop_reason)
    ));
    out.push_str(&format!("| **Steps** | {} |\n", s.total_steps));
    out.push_str(&format!("| **Model calls** | {} |\n", s.model_calls));
    out.push_str(&format!(
        "| **Tokens** | {} prompt + {} completion = {} |\n",
        s.prompt_tokens,
        s.completion_tokens,
        s.prompt_tokens + s.completion_tokens
    ));
    out.push_str(&format!("| **Fix attempts** | {} |\n", s.fix_attempts));
    out.push_str(&format!("| **Cost** | {cost} |\n"));
    out.push_str(&format!(
        "| **Duration** | {} |\n",
        format_duration(outcome.duration_ms)
    ));
    out.push_str("\n**Loop counters**\n\n| edge | count | limit |\n|---|---:|---:|\n");
    for e in Edge::ALL {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            e.counter_name(),
            s.loop_counters.get(e),
            limits.edge_limit(e)
        ));
    }
    if let Some(f) = outcome
        .failure_summary
        .as_deref()
        .filter(|f| !f.trim().is_empty())
    {
        out.push_str("\n**Failure summary**\n\n");
        out.push_str(&fenced("text", f));
    }
    if !outcome.files_changed.is_empty() {
        let shown: Vec<String> = outcome
            .files_changed
            .iter()
            .take(30)
            .map(|f| code(f))
            .collect();
        let more = outcome.files_changed.len().saturating_sub(30);
        out.push_str(&format!(
            "\n**Files changed:** {}{}\n",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    if !outcome.mermaid.trim().is_empty() {
        out.push_str("\n**Path taken**\n\n");
        out.push_str(&fenced("mermaid", &outcome.mermaid));
    }
    out
}

/// The sticky status comment.
pub fn status_comment(h: &RunHeader, phase: &Phase<'_>) -> String {
    let is_final = matches!(phase, Phase::Finished { .. } | Phase::Failed { .. });
    let mut out = marker(&MarkerData {
        run_id: h.run_id.clone(),
        number: h.number,
        ended: is_final,
    });
    out.push('\n');
    match phase {
        Phase::Started | Phase::Progress { .. } => {
            out.push_str("### ⏳ kotef is working on this\n\n");
            out.push_str(&format!(
                "Branch {}, profile `{}`. This comment is updated as the run goes.\n\n",
                code(&h.branch),
                h.profile.as_str()
            ));
            out.push_str("<details><summary>Limits</summary>\n\n");
            out.push_str(&limits_table(&h.limits));
            out.push_str("\n</details>\n");
            if let Phase::Progress { steps } = phase {
                if let Some(last) = steps.last() {
                    out.push_str(&format!(
                        "\n**Progress** (step {})\n\n| step | node | decision | reason |\n|---:|---|---|---|\n",
                        last.step
                    ));
                    let start = steps.len().saturating_sub(PROGRESS_LINES);
                    for s in &steps[start..] {
                        out.push_str(&format!(
                            "| {} | {} | {} | {} |\n",
                            s.step,
                            code_in_cell(s.node.as_str()),
                            inline(&s.decision),
                            inert(&s.reason, 200)
                        ));
                    }
                }
            }
        }
        Phase::Finished {
            outcome,
            links,
            notes,
            diff_stat,
            not_pushed,
        } => {
            match not_pushed {
                Some(why) => out.push_str(&unpushed_headline(outcome, why)),
                None => out.push_str(&headline(outcome)),
            }
            out.push_str(&screen_body(outcome, *diff_stat));
            push_notes_and_links(&mut out, notes, links);
            out.push_str(
                "\n<details><summary>Run details: stop rule, counters, budgets, path</summary>\n\n",
            );
            out.push_str(&outcome_details(outcome, &h.limits));
            out.push_str("\n</details>\n");
        }
        Phase::Failed {
            stage,
            error,
            links,
            notes,
        } => {
            out.push_str("### ❌ kotef run failed\n\n");
            out.push_str(&format!(
                "The run could not finish: **{}**.\n\n",
                inline(stage)
            ));
            out.push_str(&fenced("text", error));
            push_notes_and_links(&mut out, notes, links);
        }
    }
    out.push_str(&footer(h, is_final));
    out
}

/// The headline of an ending: the status in words.
fn headline(outcome: &RunOutcome) -> String {
    use kotef_core::TerminalStatus as T;
    let t = outcome.summary.terminal_status;
    let words = match t {
        T::DoneSuccess => "done, the tests pass",
        T::DonePartial => "done in part",
        T::AbortedStuck => "stopped, stuck",
        T::AbortedConstraint => "stopped by a policy",
    };
    format!(
        "### {} kotef run ended: {words} (`{}`)\n\n",
        t.emoji(),
        t.as_str()
    )
}

/// The headline of an ending whose work was not pushed: that, and why, before the status.
fn unpushed_headline(outcome: &RunOutcome, why: &str) -> String {
    format!(
        "### ⚠️ kotef run ended, but the changes were not pushed (`{}`)\n\n**Not pushed:** {}; the branch does not have this run's work.\n\n",
        outcome.summary.terminal_status.as_str(),
        inline(why.trim_end_matches(['.', ' ']))
    )
}

/// What a maintainer reads first: status, what changed, the diff stat, the verification, and
/// for unsuccessful endings the next step.
pub fn first_screen(outcome: &RunOutcome, diff_stat: Option<DiffStat>) -> String {
    headline(outcome) + &screen_body(outcome, diff_stat)
}

/// The first screen below its headline.
fn screen_body(outcome: &RunOutcome, diff_stat: Option<DiffStat>) -> String {
    let mut out = String::new();
    out.push_str(&format!("{}\n\n", inline(&outcome.summary.stop_reason)));
    let changed = match outcome.change_summary.as_deref() {
        Some(s) if !outcome.files_changed.is_empty() => inline(&first_sentences(s, 2)),
        _ if outcome.files_changed.is_empty() => "no code was changed.".to_string(),
        _ => "the coder gave no summary.".to_string(),
    };
    out.push_str(&format!("**What changed:** {changed}\n"));
    if let Some(stat) = diff_stat.filter(|d| !d.code.trim().is_empty()) {
        let files: Vec<String> = outcome
            .files_changed
            .iter()
            .take(8)
            .map(|f| code(f))
            .collect();
        let more = outcome.files_changed.len().saturating_sub(8);
        out.push_str(&format!(
            "**Diff:** {} — {}{}{}\n",
            short_stat(stat.code.trim()),
            files.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            },
            match stat.sdd_files {
                0 => String::new(),
                1 => ", plus kotef's record in `.sdd/` (1 file)".to_string(),
                n => format!(", plus kotef's record in `.sdd/` ({n} files)"),
            }
        ));
    }
    let verified = match &outcome.verification {
        Some(v) if v.passed => format!("{} ✅ passed", code(&v.command)),
        Some(v) => format!("{} ❌ failed", code(&v.command)),
        None => "not verified (no test command ran)".to_string(),
    };
    out.push_str(&format!("**Verified by:** {verified}\n"));
    for check in &outcome.checks {
        out.push_str(&format!("⚠️ **Check before merging:** {}\n", inline(check)));
    }
    if let Some(next) = next_step(outcome) {
        out.push_str(&format!("**Next step:** {next}\n"));
    }
    if outcome.sandbox.as_deref() == Some("none") {
        out.push_str(UNSANDBOXED);
    }
    out
}

/// The line a run whose commands ran without a sandbox ends with.
pub const UNSANDBOXED: &str = "\n⚠️ Commands ran without a sandbox (bubblewrap was not available, or `sandbox = \"none\"` was set): they were not cut off from the network or the rest of the machine.\n";

/// At most `n` sentences of `text`.
fn first_sentences(text: &str, n: usize) -> String {
    let mut end = text.len();
    let mut seen = 0;
    for (i, c) in text.char_indices() {
        if matches!(c, '.' | '!' | '?' | '\n') {
            seen += 1;
            if seen == n {
                end = i + c.len_utf8();
                break;
            }
        }
    }
    kotef_core::text::cut_end(text[..end].trim(), 300, "…")
}

/// What a maintainer can do after an unsuccessful ending.
pub fn next_step(outcome: &RunOutcome) -> Option<String> {
    use kotef_core::{StopRule as R, TerminalStatus as T};
    let more = "comment `/kotef run` with more detail (which file or function, what the right behaviour is)";
    let s = &outcome.summary;
    Some(match (s.terminal_status, s.stop_rule) {
        (T::DoneSuccess, _) => return None,
        (T::DonePartial, _) if outcome.verification.is_none() => {
            "add a `test_command` to `.github/kotef.toml` so kotef can verify its change, then comment `/kotef run`".to_string()
        }
        (T::DonePartial, _) => format!("the tests still fail; read the report, then {more}"),
        (T::AbortedConstraint, _) => "a command the `strict` profile does not allow was needed; set `profile = \"yolo\"` or a `test_command` the profile allows in `.github/kotef.toml`".to_string(),
        (_, Some(R::FixAttempts)) => format!("raise `fix_attempts` in `[limits]` of `.github/kotef.toml`, or {more}"),
        (_, Some(R::Budget)) => "raise `token_budget` or `time_budget_s` in `[limits]` (within the operator's ceilings), or narrow the request".to_string(),
        (_, Some(R::MaxSteps)) => format!("raise `max_steps` in `[limits]`, or {more}"),
        (_, Some(R::ModelError)) => "the model kept failing; check the provider's status and comment `/kotef run` to retry".to_string(),
        _ => more.to_string(),
    })
}

/// The draft PR's title.
pub fn pull_title(number: u64, issue_title: &str) -> String {
    let t = issue_title.replace(['\r', '\n'], " ");
    let t = kotef_core::text::cut_end(t.trim(), 200, "…");
    format!("kotef: {t} (#{number})")
}

/// The draft PR's body, short: `Closes #N` only on `done_success`, the first screen of the
/// latest run, and links (the status comment holds the details).
pub fn pull_body(h: &RunHeader, outcome: &RunOutcome, links: &Links) -> String {
    let t = outcome.summary.terminal_status;
    let mut out = String::new();
    if t == kotef_core::TerminalStatus::DoneSuccess {
        out.push_str(&format!("Closes #{}\n\n", h.number));
    } else {
        out.push_str(&format!(
            "Refs #{} (the run did not fully succeed, so the issue stays open)\n\n",
            h.number
        ));
    }
    out.push_str(&first_screen(outcome, None));
    let without_pull = Links {
        pull: None,
        ..links.clone()
    };
    if let Some(l) = links_line(&without_pull) {
        out.push('\n');
        out.push_str(&l);
    }
    out.push_str(&format!(
        "\nDetails are in the status comment on #{}.\n",
        h.number
    ));
    out.push_str(&footer(h, false));
    out
}

/// The final state of a status comment whose job could not end itself (it panicked, outlived
/// its deadline, or its stored form no longer reads): the marker and one short failure text.
pub fn ended_comment(run_id: &str, number: u64, reason: &str) -> String {
    format!(
        "{}\n### ❌ kotef run failed\n\n{}\n",
        marker(&MarkerData {
            run_id: run_id.to_string(),
            number,
            ended: true,
        }),
        inline(reason)
    )
}

/// Whether a status comment still shows a run as going (started, progress, waiting, or
/// handed to a workflow) rather than ended: read from its marker's data, not its words.
pub fn shows_working(body: &str) -> bool {
    parse_marker(body).is_some_and(|m| !m.ended)
}

/// The comment answering a trigger kotef refuses.
/// The marker line of a reply to a trigger refused for permission (see [`refusal_comment`]).
pub const REFUSED_MARKER: &str = "<!-- kotef:refused -->";

/// How long one refusal reply on an issue answers every refused trigger there.
pub const REFUSAL_QUIET: chrono::Duration = chrono::Duration::hours(1);

/// The short reply to a trigger refused because its sender may not start runs: what happened
/// and what to do, without a mention (a refusal must not become a way to ping people).
pub fn refusal_comment(login: &str, permission: &str) -> String {
    format!(
        "{REFUSED_MARKER}\nkotef did not start: starting a run needs **write**, **maintain** or **admin** permission on this repository, and {} has **{}**. Ask a maintainer to add the trigger label or comment `/kotef run`.\n",
        code(login),
        inline(permission)
    )
}

/// Whether a refusal reply was posted on the issue within [`REFUSAL_QUIET`] of `now` (then
/// another refused trigger gets none).
pub fn refused_recently(
    comments: &[(String, chrono::DateTime<chrono::Utc>)],
    now: chrono::DateTime<chrono::Utc>,
) -> bool {
    comments
        .iter()
        .any(|(body, at)| body.starts_with(REFUSED_MARKER) && now - *at < REFUSAL_QUIET)
}

pub fn rejection_comment(run_id: &str, number: u64, reason: &str) -> String {
    format!(
        "{}\n### 🚫 kotef will not run here\n\n{}\n",
        marker(&MarkerData {
            run_id: run_id.to_string(),
            number,
            ended: true,
        }),
        inline(reason)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_core::{LoopCounters, NodeName, RunId, RunSummary, StopRule, TerminalStatus};

    #[test]
    fn a_refusal_says_why_and_what_to_do_without_a_mention() {
        insta::assert_snapshot!(refusal_comment("rita", "read"), @r"
        <!-- kotef:refused -->
        kotef did not start: starting a run needs **write**, **maintain** or **admin** permission on this repository, and `rita` has **read**. Ask a maintainer to add the trigger label or comment `/kotef run`.
        ");
    }

    #[test]
    fn a_refusal_within_the_hour_silences_the_next() {
        let now = chrono::Utc::now();
        let recent = vec![(
            refusal_comment("rita", "read"),
            now - chrono::Duration::minutes(59),
        )];
        assert!(refused_recently(&recent, now));
    }

    #[test]
    fn a_refusal_older_than_an_hour_does_not() {
        let now = chrono::Utc::now();
        let old = vec![(
            refusal_comment("rita", "read"),
            now - chrono::Duration::minutes(61),
        )];
        assert!(!refused_recently(&old, now));
    }

    fn header() -> RunHeader {
        RunHeader {
            run_id: "0123456789ab".into(),
            number: 7,
            is_pull_request: false,
            branch: "kotef/issue-7".into(),
            profile: Profile::Strict,
            limits: Limits::for_profile(Profile::Strict),
            model: Some("scripted".into()),
            requested_by: "alice".into(),
            actions_run: None,
        }
    }

    fn outcome(status: TerminalStatus, rule: Option<StopRule>) -> RunOutcome {
        RunOutcome {
            run_id: RunId("0123456789ab".into()),
            summary: RunSummary {
                terminal_status: status,
                stop_rule: rule,
                stop_reason: "planner asked the researcher 5 times | no new findings <b>".into(),
                loop_counters: LoopCounters {
                    planner_to_researcher: 5,
                    planner_to_coder: 1,
                    planner_to_verifier: 0,
                },
                total_steps: 12,
                model_calls: 11,
                prompt_tokens: 1200,
                completion_tokens: 345,
                fix_attempts: 0,
                report_path: ".sdd/runs/x.md".into(),
                issues_md_path: ".sdd/issues.md".into(),
                transcript_path: None,
            },
            cost_usd: Some(0.0123),
            duration_ms: 65_000,
            failure_summary: Some("cargo test: 1 failed\nassertion `left == right`".into()),
            mermaid: "flowchart LR\n  planner --> researcher".into(),
            files_changed: vec!["src/lib.rs".into()],
            report_rel_path: ".sdd/runs/x.md".into(),
            issues_rel_path: Some(".sdd/issues.md".into()),
            model: "scripted".into(),
            change_summary: None,
            verification: None,
            sandbox: None,
            setup_created: Vec::new(),
            checks: Vec::new(),
        }
    }

    fn links() -> Links {
        Links {
            branch: Some((
                "kotef/issue-7".into(),
                "https://github.com/o/r/tree/kotef/issue-7".into(),
            )),
            report: Some((
                ".sdd/runs/x.md".into(),
                "https://github.com/o/r/blob/kotef/issue-7/.sdd/runs/x.md".into(),
            )),
            pull: Some((8, "https://github.com/o/r/pull/8".into())),
            transcript: None,
        }
    }

    #[test]
    fn the_diff_line_counts_the_code_and_names_the_record_apart() {
        let mut o = success();
        o.files_changed = vec!["calc.py".into()];
        let screen = first_screen(
            &o,
            Some(DiffStat {
                code: "1 file changed, 2 insertions(+), 1 deletion(-)",
                sdd_files: 3,
            }),
        );
        let line = screen.lines().find(|l| l.starts_with("**Diff:**"));
        insta::assert_snapshot!(line.unwrap_or_default(), @"**Diff:** 1 file changed (+2 −1) — `calc.py`, plus kotef's record in `.sdd/` (3 files)");
    }

    #[test]
    fn a_stat_git_did_not_write_is_shown_inert() {
        assert_eq!(
            short_stat("1 file changed, lots(+)"),
            "1 file changed, lots(+)"
        );
    }

    #[test]
    fn a_committed_transcript_is_linked_beside_the_report() {
        let l = Links {
            transcript: Some(TranscriptLink::Branch {
                path: ".sdd/runs/x.transcript.jsonl".into(),
                url: "https://github.com/o/r/blob/kotef/issue-7/.sdd/runs/x.transcript.jsonl"
                    .into(),
            }),
            ..links()
        };
        let line = links_line(&l).unwrap_or_default();
        assert!(
            line.contains(" · [Transcript](https://github.com/o/r/blob/kotef/issue-7/.sdd/runs/x.transcript.jsonl)"),
            "{line}"
        );
    }

    #[test]
    fn the_artifact_is_named_with_the_actions_run() {
        let l = Links {
            transcript: Some(TranscriptLink::Artifact {
                name: "kotef-run-abc".into(),
                run_url: "https://github.com/o/r/actions/runs/42".into(),
            }),
            ..links()
        };
        let line = links_line(&l).unwrap_or_default();
        assert!(
            line.contains(" · Transcript and its page: artifact `kotef-run-abc` of the [Actions run](https://github.com/o/r/actions/runs/42)"),
            "{line}"
        );
    }

    #[test]
    fn marker_round_trips() {
        let d = MarkerData {
            run_id: "abc".into(),
            number: 3,
            ended: false,
        };
        let body = format!("{}\nrest", marker(&d));
        assert_eq!(parse_marker(&body), Some(d.clone()));
        let ended = MarkerData {
            ended: true,
            ..d.clone()
        };
        assert_eq!(parse_marker(&marker(&ended)), Some(ended));
        assert_eq!(parse_marker("hello"), None);
        assert_eq!(parse_marker("<!-- kotef:run {bad json -->"), None);
    }

    #[test]
    fn a_comment_shows_the_run_going_until_its_marker_says_it_ended() {
        let h = header();
        let (links, notes) = (links(), Vec::new());
        let failed = Phase::Failed {
            stage: "the agent run",
            error: "boom",
            links: &links,
            notes: &notes,
        };
        assert!(shows_working(&status_comment(&h, &Phase::Started)));
        assert!(shows_working(&status_comment(
            &h,
            &Phase::Progress { steps: &[] }
        )));
        assert!(shows_working(&dispatched_comment(
            &h,
            "kotef.yml",
            "https://github.com/o/r/actions"
        )));
        assert!(!shows_working(&status_comment(&h, &failed)));
        assert!(!shows_working(&finished(&success(), None)));
        assert!(!shows_working(&ended_comment("r", 3, "the job panicked")));
        assert!(!shows_working(&rejection_comment("r", 3, "fork")));
    }

    #[test]
    fn a_marker_written_before_the_ended_field_shows_the_run_going() {
        assert!(shows_working(
            "<!-- kotef:run {\"run_id\":\"a\",\"number\":3} -->\n### ⏳ kotef is working on this\n"
        ));
        assert!(!shows_working(
            "### ⏳ kotef is working on this, says someone else\n"
        ));
    }

    #[test]
    fn a_long_title_is_cut_with_an_ellipsis() {
        let title = pull_title(3, &"x".repeat(250));
        assert_eq!(title, format!("kotef: {}… (#3)", "x".repeat(200)));
    }

    #[test]
    fn started_comment() {
        insta::assert_snapshot!(status_comment(&header(), &Phase::Started));
    }

    #[test]
    fn progress_comment_shows_last_steps() {
        let steps: Vec<StepProgress> = (1..=12)
            .map(|i| StepProgress {
                step: i,
                node: if i % 2 == 0 {
                    NodeName::Researcher
                } else {
                    NodeName::Planner
                },
                decision: "next".into(),
                reason: format!("reason {i}\nsecond line"),
                progress: i % 3 == 0,
            })
            .collect();
        let text = status_comment(&header(), &Phase::Progress { steps: &steps });
        assert!(
            !text.contains("| 2 |"),
            "only the last {PROGRESS_LINES} steps"
        );
        insta::assert_snapshot!(text);
    }

    fn finished(o: &RunOutcome, diff_stat: Option<&str>) -> String {
        status_comment(
            &header(),
            &Phase::Finished {
                outcome: o,
                links: &links(),
                notes: &[],
                diff_stat: diff_stat.map(|code| DiffStat { code, sdd_files: 0 }),
                not_pushed: None,
            },
        )
    }

    fn success() -> RunOutcome {
        let mut o = outcome(TerminalStatus::DoneSuccess, None);
        o.summary.stop_reason = "The planner finished and the last verification passed.".into();
        o.failure_summary = None;
        o.change_summary =
            Some("Fixed `add()` to return a + b. Also added a test. And more.".into());
        o.verification = Some(kotef_core::Verification {
            command: "python3 -m unittest -q".into(),
            passed: true,
        });
        o
    }

    #[test]
    fn success_first_screen() {
        insta::assert_snapshot!(first_screen(&success(), Some(DiffStat { code: "1 file changed, 1 insertion(+), 1 deletion(-)", sdd_files: 0 })), @r####"
            ### ✅ kotef run ended: done, the tests pass (`done_success`)

            The planner finished and the last verification passed.

            **What changed:** Fixed `add()` to return a + b. Also added a test.
            **Diff:** 1 file changed (+1 −1) — `src/lib.rs`
            **Verified by:** `python3 -m unittest -q` ✅ passed
            "####);
    }

    #[test]
    fn a_pass_that_copies_the_tests_values_asks_for_a_check_on_the_first_screen() {
        let mut o = success();
        o.checks = vec!["it passes with `573 Unknown Status` copied from the tests; nothing passed without them".into()];
        insta::assert_snapshot!(first_screen(&o, None), @r####"
            ### ✅ kotef run ended: done, the tests pass (`done_success`)

            The planner finished and the last verification passed.

            **What changed:** Fixed `add()` to return a + b. Also added a test.
            **Verified by:** `python3 -m unittest -q` ✅ passed
            ⚠️ **Check before merging:** it passes with `573 Unknown Status` copied from the tests; nothing passed without them
            "####);
    }

    #[test]
    fn partial_first_screen_with_failing_tests() {
        let mut o = outcome(TerminalStatus::DonePartial, None);
        o.summary.stop_reason = "The planner finished, but the tests fail.".into();
        o.change_summary = Some("Changed the parser".into());
        o.verification = Some(kotef_core::Verification {
            command: "cargo test".into(),
            passed: false,
        });
        insta::assert_snapshot!(first_screen(&o, Some(DiffStat { code: "1 file changed, 3 insertions(+)", sdd_files: 0 })), @r####"
            ### 🟡 kotef run ended: done in part (`done_partial`)

            The planner finished, but the tests fail.

            **What changed:** Changed the parser
            **Diff:** 1 file changed (+3) — `src/lib.rs`
            **Verified by:** `cargo test` ❌ failed
            **Next step:** the tests still fail; read the report, then comment `/kotef run` with more detail (which file or function, what the right behaviour is)
            "####);
    }

    #[test]
    fn partial_without_verification_asks_for_a_test_command() {
        let mut o = outcome(TerminalStatus::DonePartial, None);
        o.summary.stop_reason = "The planner finished; nothing verified the change.".into();
        insta::assert_snapshot!(first_screen(&o, None), @r####"
            ### 🟡 kotef run ended: done in part (`done_partial`)

            The planner finished; nothing verified the change.

            **What changed:** the coder gave no summary.
            **Verified by:** not verified (no test command ran)
            **Next step:** add a `test_command` to `.github/kotef.toml` so kotef can verify its change, then comment `/kotef run`
            "####);
    }

    #[test]
    fn stuck_first_screen_says_nothing_changed_and_what_to_do() {
        let mut o = outcome(
            TerminalStatus::AbortedStuck,
            Some(StopRule::PlannerToResearcher),
        );
        o.files_changed.clear();
        insta::assert_snapshot!(first_screen(&o, None), @r####"
            ### 🛑 kotef run ended: stopped, stuck (`aborted_stuck`)

            planner asked the researcher 5 times \| no new findings &lt;b&gt;

            **What changed:** no code was changed.
            **Verified by:** not verified (no test command ran)
            **Next step:** comment `/kotef run` with more detail (which file or function, what the right behaviour is)
            "####);
    }

    #[test]
    fn fix_attempts_first_screen_suggests_raising_them() {
        let mut o = outcome(TerminalStatus::AbortedStuck, Some(StopRule::FixAttempts));
        o.summary.stop_reason = "5 verifications after code changes failed.".into();
        o.verification = Some(kotef_core::Verification {
            command: "pytest".into(),
            passed: false,
        });
        insta::assert_snapshot!(first_screen(&o, Some(DiffStat { code: "2 files changed, 9 insertions(+)", sdd_files: 0 })), @r####"
            ### 🛑 kotef run ended: stopped, stuck (`aborted_stuck`)

            5 verifications after code changes failed.

            **What changed:** the coder gave no summary.
            **Diff:** 2 files changed (+9) — `src/lib.rs`
            **Verified by:** `pytest` ❌ failed
            **Next step:** raise `fix_attempts` in `[limits]` of `.github/kotef.toml`, or comment `/kotef run` with more detail (which file or function, what the right behaviour is)
            "####);
    }

    #[test]
    fn constraint_first_screen_names_the_profile() {
        let mut o = outcome(
            TerminalStatus::AbortedConstraint,
            Some(StopRule::Constraint),
        );
        o.summary.stop_reason = "`curl example.com` is not allowed by the strict profile.".into();
        o.files_changed.clear();
        insta::assert_snapshot!(first_screen(&o, None), @r####"
            ### ⛔ kotef run ended: stopped by a policy (`aborted_constraint`)

            `curl example.com` is not allowed by the strict profile.

            **What changed:** no code was changed.
            **Verified by:** not verified (no test command ran)
            **Next step:** a command the `strict` profile does not allow was needed; set `profile = "yolo"` or a `test_command` the profile allows in `.github/kotef.toml`
            "####);
    }

    #[test]
    fn details_are_folded_below_the_first_screen() {
        let text = finished(&success(), Some("1 file changed"));
        let at = |needle: &str| text.find(needle).unwrap_or(usize::MAX);
        assert!(
            at("**What changed:**") < at("🔗")
                && at("🔗") < at("<details>")
                && at("<details>") < at("**Loop counters**"),
            "{text}"
        );
    }

    #[test]
    fn only_the_final_comment_mentions_the_requester() {
        let progress = status_comment(&header(), &Phase::Started);
        let last = finished(&success(), None);
        assert_eq!(
            (
                progress.matches("@alice").count(),
                last.matches("@alice").count()
            ),
            (0, 1)
        );
    }

    #[test]
    fn an_unpriced_model_shows_cost_na_with_a_reason() {
        let mut o = success();
        o.cost_usd = None;
        let text = finished(&o, None);
        assert!(
            text.contains("| **Cost** | n/a (no price is known for `scripted`;")
                && !text.contains("unknown"),
            "{text}"
        );
    }

    #[test]
    fn failed_comment() {
        insta::assert_snapshot!(status_comment(
            &header(),
            &Phase::Failed {
                stage: "the agent run",
                error: "model provider unreachable: connection refused",
                links: &Links {
                    branch: links().branch,
                    ..Links::default()
                },
                notes: &[],
            }
        ));
    }

    #[test]
    fn pull_body_closes_only_on_success() {
        let ok = outcome(TerminalStatus::DoneSuccess, None);
        let body = pull_body(&header(), &ok, &links());
        assert!(body.starts_with("Closes #7"));
        assert!(!body.contains("Pull request [#8]"));
        let partial = outcome(TerminalStatus::DonePartial, None);
        let body = pull_body(&header(), &partial, &links());
        assert!(!body.contains("Closes"));
        insta::assert_snapshot!(body);
    }

    #[test]
    fn actions_run_is_linked_from_every_state() {
        let mut h = header();
        h.actions_run = Some("https://github.com/o/r/actions/runs/42".into());
        let text = status_comment(&h, &Phase::Started);
        assert!(
            text.contains("· [Actions run](https://github.com/o/r/actions/runs/42)</sub>"),
            "{text}"
        );
        let text = dispatched_comment(
            &h,
            "kotef.yml",
            "https://github.com/o/r/actions/workflows/kotef.yml",
        );
        assert!(parse_marker(&text).is_some());
        insta::assert_snapshot!(text);
        assert_eq!(link_target("https://x/a b(c)<d>"), "https://x/abcd");
    }

    /// A changed file's name, as the first screen lists it.
    fn listed(name: &str) -> String {
        let mut o = success();
        o.files_changed = vec![name.into()];
        first_screen(
            &o,
            Some(DiffStat {
                code: "1 file changed",
                sdd_files: 0,
            }),
        )
        .lines()
        .find(|l| l.starts_with("**Diff:**"))
        .unwrap_or_default()
        .to_string()
    }

    #[test]
    fn a_backtick_in_a_file_name_stays_inside_its_code_span() {
        insta::assert_snapshot!(listed("a`b.rs"), @"**Diff:** 1 file changed — ``a`b.rs``");
    }

    #[test]
    fn a_file_name_starting_with_a_backtick_is_padded() {
        insta::assert_snapshot!(listed("`x` ``y"), @"**Diff:** 1 file changed — ``` `x` ``y ```");
    }

    #[test]
    fn a_newline_in_a_file_name_stays_on_its_line() {
        insta::assert_snapshot!(listed("a\n\n# b.rs"), @"**Diff:** 1 file changed — `a  # b.rs`");
    }

    #[test]
    fn a_mention_in_a_file_name_is_code() {
        insta::assert_snapshot!(listed("@someone.rs"), @"**Diff:** 1 file changed — `@someone.rs`");
    }

    #[test]
    fn html_in_a_file_name_is_code() {
        insta::assert_snapshot!(listed("<img src=x>.rs"), @"**Diff:** 1 file changed — `<img src=x>.rs`");
    }

    #[test]
    fn a_pipe_in_a_table_cell_code_span_is_escaped() {
        assert_eq!(code_in_cell("a|b"), "`a\\|b`");
    }

    /// The status comment of a successful run whose changes were not pushed, for `why`.
    fn not_pushed(why: &str) -> String {
        status_comment(
            &header(),
            &Phase::Finished {
                outcome: &success(),
                links: &Links::default(),
                notes: &[],
                diff_stat: None,
                not_pushed: Some(why),
            },
        )
    }

    #[test]
    fn a_refused_push_is_the_headline() {
        let text = not_pushed("git verify failed: the run tampered with .git (`commondir` was added); nothing was committed or pushed");
        let first = text.lines().nth(1).unwrap_or_default();
        insta::assert_snapshot!(first, @"### ⚠️ kotef run ended, but the changes were not pushed (`done_success`)");
    }

    #[test]
    fn a_refused_push_says_why_below_the_headline() {
        let text = not_pushed("the run tampered with .git");
        assert!(
            text.contains("**Not pushed:** the run tampered with .git; the branch does not have this run's work.")
                && !text.contains("✅ kotef run ended"),
            "{text}"
        );
    }

    /// What a model might write to ping people and phish under kotef's name.
    const HOSTILE: &str = "Done @mallory @acme/everyone see [the fix](https://evil.example/login) ![x](https://evil.example/p.png) www.evil.example #1";

    #[test]
    fn model_text_in_the_first_screen_is_inert() {
        let mut o = success();
        o.summary.stop_reason = HOSTILE.into();
        o.change_summary = Some(HOSTILE.into());
        let shown = first_screen(&o, None).replace(kotef_core::markdown::WORD_JOINER, "{WJ}");
        insta::assert_snapshot!(shown, @r####"
        ### ✅ kotef run ended: done, the tests pass (`done_success`)

        Done @{WJ}mallory @{WJ}acme/everyone see [the `fix](https://evil.example/login)` `![x](https://evil.example/p.png)` `www.evil.example` \#{WJ}1

        **What changed:** Done @{WJ}mallory @{WJ}acme/everyone see [the `fix](https://evil.example/login)` !
        **Verified by:** `python3 -m unittest -q` ✅ passed
        "####);
    }

    #[test]
    fn model_text_in_a_progress_reason_is_inert() {
        let steps = [StepProgress {
            step: 1,
            node: NodeName::Planner,
            decision: "coder".into(),
            reason: HOSTILE.into(),
            progress: false,
        }];
        let text = status_comment(&header(), &Phase::Progress { steps: &steps })
            .replace(kotef_core::markdown::WORD_JOINER, "{WJ}");
        let row = text
            .lines()
            .find(|l| l.starts_with("| 1 |"))
            .unwrap_or_default();
        insta::assert_snapshot!(row, @r"| 1 | `planner` | coder | Done @{WJ}mallory @{WJ}acme/everyone see [the `fix](https://evil.example/login)` `![x](https://evil.example/p.png)` `www.evil.example` \#{WJ}1 |");
    }

    #[test]
    fn a_run_without_a_sandbox_says_so() {
        let mut o = success();
        o.sandbox = Some("none".into());
        insta::assert_snapshot!(first_screen(&o, None), @r####"
            ### ✅ kotef run ended: done, the tests pass (`done_success`)

            The planner finished and the last verification passed.

            **What changed:** Fixed `add()` to return a + b. Also added a test.
            **Verified by:** `python3 -m unittest -q` ✅ passed

            ⚠️ Commands ran without a sandbox (bubblewrap was not available, or `sandbox = "none"` was set): they were not cut off from the network or the rest of the machine.
            "####);
    }

    #[test]
    fn a_sandboxed_run_says_nothing_about_it() {
        let mut o = success();
        o.sandbox = Some("bwrap".into());
        assert!(!first_screen(&o, None).contains("sandbox"));
    }

    #[test]
    fn text_is_made_inline_and_safe() {
        assert_eq!(
            inline("a|b\n<!-- kotef:x -->"),
            "a\\|b &lt;!-- kotef:x --&gt;"
        );
        assert_eq!(format_duration(850), "850ms");
        assert_eq!(format_duration(12_340), "12.3s");
        assert_eq!(format_duration(65_000), "1m 05s");
        assert_eq!(format_duration(3_725_000), "1h 02m");
        assert_eq!(pull_title(7, "Fix\nthe bug"), "kotef: Fix the bug (#7)");
        assert!(rejection_comment("r", 3, "fork").contains("will not run"));
    }
}
