//! A passing attempt judged before it ends the step (a model's or a fix template's): the
//! failing test's neighbours (the other tests of its file) run with it
//! ([`crate::graph::memory::neighbours`]), and a pass that breaks one that passed at the start
//! is undone and told to the model as a failed attempt naming what it broke; a pass that
//! changed the tests' own code or harness, or copied values from the tests, is kept while the
//! loop looks on ([`super::fitted`]); any other pass ends the step.

use super::attempts::Attempts;
use super::feedback::{failure_text, Outcome};
use super::fitted;
use super::{candidate, keep_best, restore, run_tests_within, Snapshot};
use crate::graph::memory::neighbours::Neighbours;
use crate::graph::memory::state::{CoderEnd, RunState};
use crate::graph::prompt::context;
use crate::graph::rules::contradiction::TestSet;
use crate::graph::rules::tests_touched;
use crate::graph::GraphContext;
use kotef_tools::CommandResult;
use std::collections::BTreeSet;
use std::time::Duration;

/// A passing attempt: the files it changed as they were, its diff, and the reply.
pub(super) type Pass<'a> = (&'a Snapshot, &'a str, &'a str);

/// What a passing attempt comes to.
pub(super) enum Judged {
    /// It stands: the step ends.
    Ends,
    /// It copied values from the tests: kept as the best candidate and undone.
    Kept,
    /// It broke neighbours that passed: undone; the outcome and tests to remember it by.
    Breaks(Box<Outcome>, TestSet),
}

/// Judges a passing attempt of the test command `command`, whose passing run `took` so long
/// (see the module's doc); the tree holds the attempt unless it [`Judged::Ends`].
pub(super) async fn judge(
    ctx: &GraphContext,
    state: &mut RunState,
    a: &mut Attempts,
    (command, took): (&str, Duration),
    pass: Pass<'_>,
) -> Judged {
    let (snap, diff, _) = pass;
    if let Some((broken, run)) = broken_neighbours(ctx, state, command, snap, took).await {
        restore(ctx, snap);
        let listed: Vec<String> = state.file_hashes.keys().cloned().collect();
        let failure = failure_text(&run, ctx.tools.workdir().root(), &listed);
        a.notes.push(format!(
            "attempt {}: the tests pass, but it broke {}",
            a.made,
            broken.join(", ")
        ));
        let outcome = Outcome::Breaks {
            diff: diff.to_string(),
            broken,
            failure,
        };
        return Judged::Breaks(Box::new(outcome), TestSet::of(&run));
    }
    if passed(ctx, state, a, pass) {
        Judged::Ends
    } else {
        Judged::Kept
    }
}

/// [`judge`], and what it leaves the loop: the step's end when the pass ends it; a pass
/// that broke neighbours is remembered as a failed attempt.
pub(super) async fn settle(
    ctx: &GraphContext,
    state: &mut RunState,
    a: &mut Attempts,
    run: (&str, Duration),
    pass: Pass<'_>,
) -> Option<CoderEnd> {
    match judge(ctx, state, a, run, pass).await {
        Judged::Ends => Some(CoderEnd::Done),
        Judged::Kept => None,
        Judged::Breaks(outcome, tests) => {
            a.failed(*outcome, tests);
            None
        }
    }
}

/// The neighbours a pass (in the tree, its files as they were in `snap`) broke, with their
/// run: the tests of the failing test's file ([`super::spectrum::named_files`]) that fail
/// with it and did not at the start. The start is measured at the first pass, with the pass
/// undone (and done again after), once a run; a run cut at [`neighbours_time`] with the pass
/// that finished without it broke them all. `None` when the command names no single test,
/// the start did not finish, or nothing new fails.
async fn broken_neighbours(
    ctx: &GraphContext,
    state: &mut RunState,
    command: &str,
    snap: &Snapshot,
    took: Duration,
) -> Option<(Vec<String>, CommandResult)> {
    let (file, named) = super::spectrum::named_files(command)?;
    let time = neighbours_time(took, ctx.time_left());
    let run = run_tests_within(ctx, state, &file, time).await;
    if run.success() || run.limit.is_some() {
        return None;
    }
    let reported = failed(&run);
    if reported.is_empty() && !run.timed_out {
        return None;
    }
    if state.neighbours.as_ref().is_none_or(|n| n.of != command) {
        let pass = candidate(ctx, snap, 0, "");
        restore(ctx, snap);
        let start = run_tests_within(ctx, state, &file, time).await;
        keep_best(ctx, &pass);
        let done = finished(&start);
        state.neighbours = Neighbours::read(command, &file, &named, &failed(&start), done);
    }
    let start = state.neighbours.as_ref()?;
    // Cut at the limit with the pass, finished without it: the pass made them hang.
    let broken = if run.timed_out {
        vec![format!(
            "all of them: they no longer finish in {} s",
            time.as_secs()
        )]
    } else {
        start.broken(&reported)
    };
    (!broken.is_empty()).then_some((broken, run))
}

/// The time the neighbours' run may take: twenty times the passing run's plus thirty
/// seconds, at most a sixth of the time left (a run cut there judges nothing).
pub fn neighbours_time(passing_run: Duration, time_left: Duration) -> Duration {
    (passing_run * 20 + Duration::from_secs(30)).min(time_left / 6)
}

/// Whether a run ended by itself (no timeout, no resource limit).
fn finished(run: &CommandResult) -> bool {
    !run.timed_out && run.limit.is_none()
}

/// The tests a run reports as failed.
fn failed(run: &CommandResult) -> BTreeSet<String> {
    super::spectrum::failed_tests(&format!("{}{}", run.stdout, run.stderr))
}

/// Whether a passing attempt ends the step: it does unless it is doubtful — it changed the
/// tests' own code or harness ([`harness_changed`]) or copied values from the tests
/// ([`super::fitted`]); such a pass is kept as the best candidate (the first one) and undone
/// while the loop looks on, until it stands ([`super::fitted::Fits::stands`]).
fn passed(ctx: &GraphContext, state: &mut RunState, a: &mut Attempts, pass: Pass<'_>) -> bool {
    let (snap, diff, reply) = pass;
    let harness = harness_changed(ctx, &state.goal, snap);
    let doubt = if harness.is_empty() {
        let copied = a.fits.copied(ctx, snap, diff);
        (!copied.is_empty()).then(|| fitted::finding(&copied))
    } else {
        Some(fitted::harness_finding(&harness))
    };
    let Some(doubt) = doubt else {
        state.coder_summary = Some(context::clip(reply.trim(), 400));
        a.best = None;
        return true;
    };
    if a.best.as_ref().is_none_or(|b| b.badness > 0) {
        a.best = Some(candidate(ctx, snap, 0, diff));
        state.coder_summary = Some(context::clip(reply.trim(), 400));
        a.fits.kept(a.made, doubt);
    }
    restore(ctx, snap);
    false
}

/// The files of the tests' own code or harness a pass (in the tree, its files as they were
/// in `snap`) changed, but those the goal names ([`tests_touched::doubted`]).
fn harness_changed(ctx: &GraphContext, goal: &str, snap: &Snapshot) -> Vec<String> {
    snap.iter()
        .filter(|(p, _)| tests_touched::doubted(goal, p))
        .filter(|(p, before)| super::read_now(ctx, p).as_ref() != Some(*before))
        .map(|(p, _)| p.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_neighbours_get_twenty_times_the_passing_runs_time_and_half_a_minute_within_a_sixth_of_whats_left(
    ) {
        let s = Duration::from_secs;
        assert_eq!(neighbours_time(s(1), s(300)), s(50));
        assert_eq!(neighbours_time(s(1), s(60)), s(10));
    }
}
