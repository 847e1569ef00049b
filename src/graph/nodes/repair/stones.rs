//! Stepping stones: a fix of a real bug often changes two statements (`except ValueError:`
//! widened *and* the value returned there converted), and neither change alone passes, so
//! attempts that each change one statement never find it. A tested change that moved the
//! failure on is kept as a stone: the starting run raised in the project's code and with the
//! change the test's own code rejects the result (the code now runs through), or fewer tests
//! fail and none newly. Every change tested alone after a stone is tested on top of it as
//! well, and the changes tested before it are, once, when it is found — test runs only, no
//! model call. A combination that passes is judged as any pass is ([`super::passes`]).
//! The fix templates that failed before the first model call count as changes tested alone
//! too ([`Stones::after_template`]): one that moved the failure on is a stone the model's
//! changes are tested on, and the others are tested on a stone the model finds.
//!
//! Bounded: at most [`MAX_STONES`] stones a step from the model's changes and
//! [`MAX_TEMPLATE_STONES`] from the templates, [`MAX_RUNS`] combined runs, and none when
//! the time left would not hold a few more test runs and a model call ([`room_for_a_run`]);
//! two changes to the same statement are never combined. A failed change that became a stone
//! or was tested on one is one `stepping_stones` entry in the transcript.

use super::feedback::badness;
use super::{apply_attempt, passes, restore, tested, Applied, Attempts, Snapshot};
use crate::graph::memory::events::RunEvent;
use crate::graph::memory::state::{CoderEnd, RunState};
use crate::graph::prompt::code_view::Traceback;
use crate::graph::GraphContext;
use kotef_core::NodeName;
use kotef_tools::{Change, CommandResult, EditBlock};
use std::collections::VecDeque;
use std::time::Duration;

/// Stones kept in one repair step at most.
pub const MAX_STONES: usize = 3;
/// Stones from the fix templates at most: templates that drop an exception move many
/// failures on to the test's check, and would otherwise take every stone before the model's
/// first change.
pub const MAX_TEMPLATE_STONES: usize = 1;
/// Combined test runs in one repair step at most.
pub const MAX_RUNS: usize = 40;
/// Changes tested alone remembered, to be tested on a stone found after them.
pub const REMEMBERED: usize = 30;

/// Where a run's failure was raised: its first traceback's deepest frame in the repository.
fn raised_at(run: &CommandResult, root: &str, files: &[String]) -> Option<String> {
    let output = format!("{}{}", run.stdout, run.stderr);
    Traceback::read(&output, root, files)
        .repo
        .into_iter()
        .next()
        .map(|(path, _)| path)
}

/// Whether a change moved the failure on: the start was raised in the project's code (a
/// file that is not one of `tests`), and now in the tests' own code — the code runs through
/// and the test rejects what it returned — without more failing tests (`bad`, `baseline`:
/// [`badness`]); or fewer tests fail than at the start.
pub fn moved_on(
    (start, now): (Option<&str>, Option<&str>),
    tests: &[String],
    (bad, baseline): (u32, u32),
) -> bool {
    let in_tests = |p: Option<&str>| p.is_some_and(|p| tests.iter().any(|t| t == p));
    let through = start.is_some() && !in_tests(start) && in_tests(now);
    bad < baseline || (through && bad <= baseline)
}

/// Whether two changes touch the same code: a block of each in one file whose searched
/// text holds the other's.
pub fn overlap(a: &[EditBlock], b: &[EditBlock]) -> bool {
    let searched = |blocks: &[EditBlock]| -> Vec<(Option<String>, String)> {
        (blocks.iter())
            .map(|x| match &x.change {
                Change::Replace { search, .. } => (x.path.clone(), search.trim().to_string()),
                Change::Code { text } => (x.path.clone(), text.trim().to_string()),
            })
            .collect()
    };
    let (a, b) = (searched(a), searched(b));
    a.iter().any(|(pa, sa)| {
        b.iter().any(|(pb, sb)| {
            (pa == pb || pa.is_none() || pb.is_none()) && (sa.contains(sb) || sb.contains(sa))
        })
    })
}

/// Whether the time left holds a combined run: four runs as long as the start's and half a
/// minute more, so a model call still fits after it.
pub fn room_for_a_run(time_left: Duration, start_took: Duration) -> bool {
    time_left > start_took * 4 + Duration::from_secs(30)
}

/// What a combined run came to.
pub(super) enum Combined {
    /// It passed and ends the step (the tree holds it).
    Ends(CoderEnd),
    /// The run stopped (a test run hit a resource limit).
    Stopped,
    /// Nothing to keep: it failed, could not be applied, or its pass was kept or broke
    /// neighbours.
    No,
}

/// The step's stones and the changes tested alone.
pub(super) struct Stones {
    root: String,
    listed: Vec<String>,
    start_at: Option<String>,
    start_took: Duration,
    stones: Vec<Vec<EditBlock>>,
    from_templates: usize,
    tried: VecDeque<Vec<EditBlock>>,
    runs: usize,
}

/// What a combined run is judged with: the command, the shown files and the protected ones.
pub(super) type Setting<'a> = (&'a str, &'a [(String, String)], &'a [String]);

impl Stones {
    pub(super) fn new(start: &CommandResult, root: &str, files: &[String]) -> Self {
        Stones {
            root: root.to_string(),
            listed: files.to_vec(),
            start_at: raised_at(start, root, files),
            start_took: Duration::from_millis(start.duration_ms),
            stones: Vec::new(),
            from_templates: 0,
            tried: VecDeque::new(),
            runs: 0,
        }
    }

    /// Whether `run`, a change tested alone, moved the failure on ([`moved_on`]; `tests`:
    /// the files the test command protects, `baseline`: the start's [`badness`]).
    fn moved_on(&self, run: &CommandResult, tests: &[String], baseline: u32) -> bool {
        let now = raised_at(run, &self.root, &self.listed);
        let places = (self.start_at.as_deref(), now.as_deref());
        moved_on(places, tests, (badness(run), baseline))
    }

    /// Remembers a change tested alone, the last [`REMEMBERED`].
    fn remember(&mut self, blocks: &[EditBlock]) {
        self.tried.push_back(blocks.to_vec());
        if self.tried.len() > REMEMBERED {
            self.tried.pop_front();
        }
    }

    /// After a fix template failed with `run` (before the first model call): a stone when it
    /// moved the failure on, else remembered as a change tested alone. No combined run here:
    /// the templates' time is their share ([`super::templates::share`]). Whether it became a
    /// stone.
    pub(super) fn after_template(
        &mut self,
        blocks: &[EditBlock],
        run: &CommandResult,
        (tests, baseline): (&[String], u32),
    ) -> bool {
        let stone =
            self.from_templates < MAX_TEMPLATE_STONES && self.moved_on(run, tests, baseline);
        if stone {
            self.from_templates += 1;
            self.stones.push(blocks.to_vec());
        } else {
            self.remember(blocks);
        }
        stone
    }

    /// After `blocks` failed alone with `run`: a change that moved the failure on
    /// ([`moved_on`]) becomes a stone and the changes tested before it are tested on it; any
    /// other is tested on each stone. The step's end when a combination passed and ends it,
    /// or a run stopped.
    pub(super) async fn after_failure(
        &mut self,
        ctx: &GraphContext,
        state: &mut RunState,
        a: &mut Attempts,
        (blocks, run): (&[EditBlock], &CommandResult),
        setting: Setting<'_>,
    ) -> Option<CoderEnd> {
        let found = self.stones.len() - self.from_templates;
        let stone = found < MAX_STONES && self.moved_on(run, setting.2, a.baseline);
        let mut pairs: Vec<(Vec<EditBlock>, Vec<EditBlock>)> = Vec::new();
        if stone {
            a.notes.push(format!(
                "attempt {}: a stepping stone (the failure moved on)",
                a.made
            ));
            pairs.extend((self.tried.iter().rev()).map(|t| (blocks.to_vec(), t.clone())));
            self.stones.push(blocks.to_vec());
        } else {
            pairs.extend((self.stones.iter()).map(|s| (s.clone(), blocks.to_vec())));
        }
        self.remember(blocks);
        let runs_before = self.runs;
        let mut end = None;
        for (stone, other) in pairs {
            match self.combine(ctx, state, a, (&stone, &other), setting).await {
                Combined::No => {}
                Combined::Ends(e) => end = Some(e),
                Combined::Stopped => end = Some(CoderEnd::RunStopped),
            }
            if end.is_some() {
                break;
            }
        }
        let passed = end == Some(CoderEnd::Done);
        self.record(ctx, state, (stone, self.runs - runs_before, passed));
        end
    }

    /// One `stepping_stones` entry in the transcript for a failed change that became a stone
    /// or was tested on one: whether it became one, the stones, the combined runs it led to
    /// and whether one passed. Nothing for a change that did neither.
    fn record(
        &self,
        ctx: &GraphContext,
        state: &mut RunState,
        (stone, runs, passed): (bool, usize, bool),
    ) {
        if !stone && runs == 0 {
            return;
        }
        let output = if passed {
            "a combination passed".to_string()
        } else {
            format!("{runs} combined run(s), none passed")
        };
        ctx.record(RunEvent::ToolCall {
            step: state.total_steps + 1,
            node: NodeName::Coder,
            name: "stepping_stones".into(),
            arguments: serde_json::json!({
                "stone": stone,
                "stones": self.stones.len(),
                "combined_runs": runs,
                "passed": passed,
            }),
            output,
            is_error: false,
        });
        state.count_tool("stepping_stones");
    }

    /// `other` tested on top of `stone`.
    async fn combine(
        &mut self,
        ctx: &GraphContext,
        state: &mut RunState,
        a: &mut Attempts,
        (stone, other): (&[EditBlock], &[EditBlock]),
        (command, files, protected): Setting<'_>,
    ) -> Combined {
        if self.runs >= MAX_RUNS
            || overlap(stone, other)
            || !room_for_a_run(ctx.time_left(), self.start_took)
        {
            return Combined::No;
        }
        let first = apply_attempt(ctx, state, stone, files, protected);
        let mut snap: Snapshot = first.snap.clone();
        if !first.errors.is_empty() || first.diff.is_empty() {
            restore(ctx, &snap);
            return Combined::No;
        }
        let Applied {
            snap: second,
            diff,
            errors,
        } = apply_attempt(ctx, state, other, files, protected);
        for (path, before) in second {
            snap.entry(path).or_insert(before);
        }
        if !errors.is_empty() || diff.is_empty() {
            restore(ctx, &snap);
            return Combined::No;
        }
        self.runs += 1;
        let Some(run) = tested(ctx, state, command, &snap).await else {
            return Combined::Stopped;
        };
        let bad = badness(&run);
        let both = format!("{}{diff}", first.diff);
        if bad != 0 {
            super::undo_failed(ctx, a, &snap, bad, &both);
            return Combined::No;
        }
        a.notes
            .push(format!("attempt {}: passes on a stepping stone", a.made));
        let took = Duration::from_millis(run.duration_ms);
        let said = format!("Two changes together:\n{both}");
        match passes::settle(ctx, state, a, (command, took), (&snap, &both, &said)).await {
            Some(end) => Combined::Ends(end),
            None => Combined::No,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tests() -> Vec<String> {
        vec!["test/parameter_test.py".to_string()]
    }

    #[test]
    fn a_failure_raised_in_the_code_and_now_rejected_by_the_test_moved_on() {
        let places = (Some("luigi/parameter.py"), Some("test/parameter_test.py"));
        assert!(moved_on(places, &tests(), (1, 1)));
    }

    #[test]
    fn a_failure_still_raised_in_the_code_did_not_move_on() {
        let places = (Some("luigi/parameter.py"), Some("luigi/parameter.py"));
        assert!(!moved_on(places, &tests(), (1, 1)));
    }

    #[test]
    fn a_failure_the_test_rejected_from_the_start_did_not_move_on() {
        let places = (
            Some("test/parameter_test.py"),
            Some("test/parameter_test.py"),
        );
        assert!(!moved_on(places, &tests(), (1, 1)));
    }

    #[test]
    fn reaching_the_test_with_more_failing_tests_did_not_move_on() {
        let places = (Some("luigi/parameter.py"), Some("test/parameter_test.py"));
        assert!(!moved_on(places, &tests(), (3, 1)));
    }

    #[test]
    fn fewer_failing_tests_moved_on() {
        assert!(moved_on((None, None), &tests(), (1, 2)));
    }

    fn block(path: &str, search: &str) -> EditBlock {
        EditBlock {
            path: Some(path.into()),
            change: Change::Replace {
                search: search.into(),
                replace: "x".into(),
            },
        }
    }

    #[test]
    fn changes_to_one_statement_overlap_and_to_two_do_not() {
        let except = [block("a.py", "        except ValueError:")];
        let ret = [block("a.py", "            return literal_eval(x)")];
        let both = [block(
            "a.py",
            "except ValueError:\n            return literal_eval(x)",
        )];
        assert!(!overlap(&except, &ret));
        assert!(overlap(&except, &both));
        assert!(!overlap(&except, &[block("b.py", "except ValueError:")]));
    }

    #[test]
    fn a_combined_run_needs_four_start_runs_and_half_a_minute_left() {
        let s = Duration::from_secs;
        assert!(room_for_a_run(s(60), s(5)));
        assert!(!room_for_a_run(s(49), s(5)));
    }
}
