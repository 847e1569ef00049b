//! Builders for the graph's tests: a run ([`run`], so tests stop writing `RunState::new(..)`
//! by hand) and a step of its timeline ([`step`], a `StepRecord` with chainable setters).

use crate::graph::memory::failure::FailureReport;
use crate::graph::memory::state::{CoderEnd, Decision, Redirect, RunState, StepRecord, TestResult};
use kotef_core::{NodeName, Profile};
use kotef_tools::FailureKind;
use std::collections::BTreeMap;

/// A run being built: strict, goal `g`, no files, nothing done yet.
#[derive(Debug, Clone)]
pub struct RunBuilder {
    state: RunState,
}

/// A strict run with goal `g` and no files.
pub fn run() -> RunBuilder {
    RunBuilder {
        state: RunState::new("g", Profile::Strict, BTreeMap::new()),
    }
}

impl RunBuilder {
    pub fn profile(mut self, profile: Profile) -> Self {
        self.state.profile = profile;
        self
    }

    pub fn goal(mut self, goal: &str) -> Self {
        self.state.goal = goal.to_string();
        self
    }

    /// Files at the start of the run (and now): path → content hash.
    pub fn files(mut self, files: &[(&str, &str)]) -> Self {
        let hashes: BTreeMap<String, String> = files
            .iter()
            .map(|(p, h)| (p.to_string(), h.to_string()))
            .collect();
        self.state.initial_hashes = hashes.clone();
        self.state.file_hashes = hashes;
        self
    }

    pub fn test_command(mut self, command: &str) -> Self {
        self.state.test_command = Some(command.to_string());
        self
    }

    /// The last verification's result.
    pub fn tested(mut self, t: TestResult) -> Self {
        self.state.test = Some(t);
        self
    }

    /// Appends `record` to the timeline as the graph loop does after a step: numbered
    /// next, and counted as progress when it was.
    pub fn step(mut self, record: StepRecord) -> Self {
        self.state.total_steps += 1;
        if record.progress {
            self.state.last_progress_step = self.state.total_steps;
        }
        self.state.timeline.push(StepRecord {
            step: self.state.total_steps,
            ..record
        });
        self
    }

    /// `n` steps of `node` without progress.
    pub fn idle(self, node: NodeName, n: u32) -> Self {
        (0..n).fold(self, |b, _| b.step(step(node)))
    }

    pub fn build(self) -> RunState {
        self.state
    }
}

/// A step of `node` without progress, deciding what that node usually decides (the coder:
/// code, ended by `done`; the others: a route to themselves).
pub fn step(node: NodeName) -> StepRecord {
    StepRecord {
        step: 0,
        node,
        decision: match node {
            NodeName::Coder => Decision::Code(CoderEnd::Done),
            _ => Decision::Route(node),
        },
        reason: String::new(),
        progress: false,
        revisit_of: None,
        only_test_edits: false,
        redirect: None,
        refused_empty_done: false,
        off_list_denials: 0,
        explored: false,
    }
}

impl StepRecord {
    pub fn numbered(self, step: u32) -> Self {
        Self { step, ..self }
    }

    pub fn deciding(self, decision: Decision) -> Self {
        Self { decision, ..self }
    }

    pub fn with_progress(self) -> Self {
        Self {
            progress: true,
            ..self
        }
    }

    pub fn revisiting(self, earlier: u32) -> Self {
        Self {
            revisit_of: Some(earlier),
            ..self
        }
    }

    pub fn only_test_edits(self) -> Self {
        Self {
            only_test_edits: true,
            ..self
        }
    }

    pub fn redirected(self, why: Redirect) -> Self {
        Self {
            redirect: Some(why),
            ..self
        }
    }

    pub fn refusing_empty_done(self) -> Self {
        Self {
            refused_empty_done: true,
            ..self
        }
    }

    pub fn off_list_denials(self, n: u32) -> Self {
        Self {
            off_list_denials: n,
            ..self
        }
    }
}

/// A verification of `cargo test` that `passed` (exit 0) or failed (exit 101, signature
/// `sig`), before any code change, with nothing read from its output.
pub fn verification(passed: bool, sig: &str) -> TestResult {
    TestResult {
        command: "cargo test".into(),
        passed,
        exit_code: Some(if passed { 0 } else { 101 }),
        kind: None,
        summary: String::new(),
        error_signature: (!passed).then(|| sig.to_string()),
        same_error_count: 0,
        step: 1,
        after_code_change: false,
        outside_cause: None,
        timed_out: false,
        report: FailureReport::default(),
    }
}

/// A strict run whose opening verification was `t`, failing as tests do with
/// `AssertionError: 1 != 2`.
pub fn opened_with(t: TestResult) -> RunState {
    run()
        .tested(TestResult {
            kind: Some(FailureKind::TestFailure),
            summary: "AssertionError: 1 != 2".into(),
            report: FailureReport::from_summary("AssertionError: 1 != 2"),
            ..t
        })
        .build()
}
