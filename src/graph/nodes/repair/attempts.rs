//! What the repair loop remembers across its attempts, and the decisions made from it alone:
//! the next attempt's request (the opening, the failed attempts so far unless the next one is
//! a fresh sample, and how hot it samples), a reply with no block, the same change again, a
//! change that could not be placed, a tested change (the best candidate so far; the tests
//! the contradiction guards judge), and the step's reason.

use super::feedback::{feedback, tried_message, Outcome};
use super::fitted::Fits;
use super::{
    attempt_request, change_key, Best, LINE_MAX_TOKENS, REPAIR_PROMPT, SAME_CHANGE_LIMIT,
    UNREADABLE_LIMIT,
};
use crate::graph::guards::contradicting_tests::RepairFacts;
use crate::graph::memory::state::CoderEnd;
use crate::graph::prompt::context;
use crate::graph::prompt::messages::SameCode;
use crate::graph::rules::contradiction::TestSet;
use kotef_core::Limits;
use kotef_model::{Message, ModelRequest};
use kotef_tools::EditBlock;
use std::collections::{BTreeMap, BTreeSet};

/// Whether a reply's change was proposed before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Seen {
    /// A change not proposed before: apply and test it.
    New,
    /// Proposed once before: the next attempt is a fresh, hotter sample.
    Again,
    /// Proposed [`SAME_CHANGE_LIMIT`] times: the step ends.
    TooOften,
}

/// The loop's memory.
pub(super) struct Attempts {
    /// How bad the starting run was.
    pub(super) baseline: u32,
    start_tests: TestSet,
    tested: Vec<TestSet>,
    /// One entry per failed attempt, shown to the next.
    history: Vec<String>,
    pub(super) best: Option<Best>,
    seen: BTreeMap<String, u32>,
    /// The changes line attempts proposed, this step and in the run's earlier steps.
    lines_tried: BTreeSet<String>,
    unreadable: u32,
    /// Attempts made (model calls).
    pub(super) made: u32,
    /// How hot the next attempt samples: it rises with every attempt, and jumps after a reply
    /// that repeats an earlier change or changes nothing (a peaked small model at a low
    /// temperature sends the same reply again).
    heat: u32,
    fresh: bool,
    pub(super) notes: Vec<String>,
    /// What the step's reason says first: a kept pass that copied values from the tests.
    pub(super) warning: Option<String>,
    /// What passes are judged by ([`super::fitted`]).
    pub(super) fits: Fits,
}

impl Attempts {
    pub(super) fn new(baseline: u32, start_tests: TestSet) -> Self {
        Attempts {
            baseline,
            start_tests,
            tested: Vec::new(),
            history: Vec::new(),
            best: None,
            seen: BTreeMap::new(),
            lines_tried: BTreeSet::new(),
            unreadable: 0,
            made: 0,
            heat: 0,
            fresh: false,
            notes: Vec::new(),
            warning: None,
            fits: Fits::default(),
        }
    }

    /// The step's end before the next call, if any: its call cap reached, or a kept pass that
    /// copied values from the tests stands ([`Fits::stands`]).
    pub(super) fn end_before_call(&self, limits: &Limits) -> Option<CoderEnd> {
        if crate::graph::rules::breakers::coder_step_cap_reached(self.made, limits) {
            return Some(CoderEnd::CallCap);
        }
        self.fits.stands(self.made).then_some(CoderEnd::Done)
    }

    /// The next attempt's request, counted as made.
    pub(super) fn next_request(&mut self, opening: &str) -> ModelRequest {
        let mut messages = vec![Message::system(REPAIR_PROMPT), Message::user(opening)];
        // After a repeated change the next attempt is a fresh, hot sample of the opening
        // alone: a small model shown what it tried tends to write it again.
        if !std::mem::take(&mut self.fresh) && !self.history.is_empty() {
            messages.push(Message::user(tried_message(&self.history)));
        }
        let request = attempt_request(messages, self.heat);
        self.made += 1;
        self.heat += 1;
        request
    }

    /// A line attempt's request ([`super::lines`]): the opening alone, then the reply begun
    /// for the model at one statement; a short reply at `temperature`, asking for the
    /// likeliest other tokens ([`super::lines::branches`]), counted as made (the free
    /// attempts' heat is left as it is). The failed attempts are left out:
    /// they are about other lines, and a small model shown `.encode('utf-8')` tried
    /// elsewhere writes it here too; the opening alone is also the prefix the server has
    /// cached.
    pub(super) fn line_request(
        &mut self,
        opening: &str,
        begun: &str,
        temperature: f64,
    ) -> ModelRequest {
        let messages = vec![
            Message::system(REPAIR_PROMPT),
            Message::user(opening),
            Message::assistant(begun),
        ];
        let mut request = attempt_request(messages, 0);
        request.max_tokens = Some(LINE_MAX_TOKENS);
        request.temperature = Some(temperature);
        request.alternatives = Some(super::lines::ALTERNATIVES);
        self.made += 1;
        request
    }

    /// A reply with no block that could be read; the step's end after too many in a row. A
    /// reply that was cut (it repeated itself, or copied the list of failed attempts back) is
    /// followed by a fresh, hotter sample of the opening alone.
    pub(super) fn unreadable(&mut self, cut: bool) -> Option<CoderEnd> {
        if cut {
            self.heat = self.heat.max(4);
            self.fresh = true;
        }
        self.unreadable += 1;
        self.notes
            .push(format!("attempt {}: no edit block", self.made));
        self.history
            .push(feedback(self.made, &Outcome::Unreadable, self.baseline));
        (self.unreadable >= UNREADABLE_LIMIT).then_some(CoderEnd::NoToolCalls)
    }

    /// Whether `blocks` were proposed before.
    pub(super) fn seen(&mut self, blocks: &[EditBlock]) -> Seen {
        self.unreadable = 0;
        let times = self.seen.entry(change_key(blocks)).or_insert(0);
        *times += 1;
        if *times >= SAME_CHANGE_LIMIT {
            self.notes.push(format!(
                "attempt {}: the same change {SAME_CHANGE_LIMIT} times",
                self.made
            ));
            return Seen::TooOften;
        }
        if *times > 1 {
            // The earlier attempt's feedback is in the conversation already; a copy of the
            // same reply would only make the next one likelier to copy it again. The next
            // attempt samples the opening alone, hotter (a prefix the server has cached).
            self.notes
                .push(format!("attempt {}: a repeated change", self.made));
            self.heat = self.heat.max(4);
            self.fresh = true;
            return Seen::Again;
        }
        Seen::New
    }

    /// [`Self::tried`] for a line attempt's `blocks`, else [`Self::seen`].
    pub(super) fn seen_as(&mut self, line: bool, blocks: &[EditBlock]) -> Seen {
        if line {
            self.tried(blocks)
        } else {
            self.seen(blocks)
        }
    }

    /// The changes line attempts of the run's earlier steps proposed (`tried`): proposed
    /// again here, they are not tested again.
    pub(super) fn recall(&mut self, tried: &BTreeSet<String>) {
        for key in tried {
            self.seen.entry(key.clone()).or_insert(1);
        }
        self.lines_tried.extend(tried.iter().cloned());
    }

    /// The changes line attempts proposed, this step and before ([`Self::recall`]), for the
    /// run's later steps ([`LineMemory`](crate::graph::memory::line_offers::LineMemory)`::tested`).
    pub(super) fn tested_lines(&self) -> BTreeSet<String> {
        self.lines_tried.clone()
    }

    /// Whether a line attempt's `blocks` were proposed before ([`Seen::Again`], noted): never
    /// [`Seen::TooOften`] (the queue of statements bounds line attempts, so a repeat is no
    /// sign of a loop), and the free attempts' sampling is left as it is.
    fn tried(&mut self, blocks: &[EditBlock]) -> Seen {
        self.unreadable = 0;
        let key = change_key(blocks);
        let times = self.seen.entry(key.clone()).or_insert(0);
        if *times > 0 {
            self.notes
                .push(format!("attempt {}: a line written before", self.made));
            return Seen::Again;
        }
        *times = 1;
        self.lines_tried.insert(key);
        Seen::New
    }

    /// A change that changed nothing: its blocks' errors, or the same code as the file's.
    pub(super) fn not_applied(&mut self, errors: Vec<String>) {
        self.notes
            .push(format!("attempt {}: not applied", self.made));
        self.heat = self.heat.max(3);
        let errors = if errors.is_empty() {
            vec![SameCode.to_string()]
        } else {
            errors
        };
        self.history.push(feedback(
            self.made,
            &Outcome::NotApplied(errors),
            self.baseline,
        ));
    }

    /// Notes how a tested attempt did (`bad` 0: the tests pass).
    pub(super) fn note_tested(&mut self, bad: u32, failure: &str) {
        let how = if bad == 0 {
            "the tests pass".to_string()
        } else {
            format!("still failing ({})", context::key_line(failure))
        };
        self.notes.push(format!("attempt {}: {how}", self.made));
    }

    /// Whether a failing attempt this bad is the best candidate so far.
    pub(super) fn improves(&self, bad: u32) -> bool {
        bad < self.baseline && self.best.as_ref().is_none_or(|b| bad < b.badness)
    }

    /// Remembers a failed, tested attempt for the next.
    pub(super) fn failed(&mut self, outcome: Outcome, tests: TestSet) {
        self.history
            .push(feedback(self.made, &outcome, self.baseline));
        self.tested.push(tests);
    }

    /// What the repair loop's guards judge (`graph::guards::contradicting_tests`): the tests at the
    /// start and of every tested attempt.
    pub(super) fn facts<'a>(&'a self, command: &'a str) -> RepairFacts<'a> {
        RepairFacts {
            start: &self.start_tests,
            tested: &self.tested,
            command,
        }
    }

    /// The step's reason in the timeline: attempts, whether the code changed, the last notes.
    pub(super) fn reason(&self, changed: bool) -> String {
        let what = if changed {
            "changed the code"
        } else {
            "no net change"
        };
        let mut last: Vec<String> = self.notes.iter().rev().take(4).rev().cloned().collect();
        last.splice(0..0, self.warning.clone());
        format!(
            "repair loop: {} attempt(s), {what}; {}",
            self.made,
            last.join("; ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_tools::Change;

    fn attempts() -> Attempts {
        Attempts::new(2, TestSet::default())
    }

    fn block(code: &str) -> Vec<EditBlock> {
        vec![EditBlock {
            path: Some("a.py".into()),
            change: Change::Code { text: code.into() },
        }]
    }

    #[test]
    fn the_same_change_is_sampled_afresh_then_ends_the_step() {
        let mut a = attempts();
        let seen: Vec<Seen> = (0..SAME_CHANGE_LIMIT)
            .map(|_| a.seen(&block("x")))
            .collect();
        assert_eq!(seen.first(), Some(&Seen::New));
        assert_eq!(seen.get(1), Some(&Seen::Again));
        assert_eq!(seen.last(), Some(&Seen::TooOften));
    }

    #[test]
    fn after_a_repeated_change_the_next_request_is_the_opening_alone() {
        let mut a = attempts();
        a.next_request("open");
        a.not_applied(vec![]);
        a.seen(&block("x"));
        a.seen(&block("x"));
        assert_eq!(a.next_request("open").messages.len(), 2);
        assert_eq!(a.next_request("open").messages.len(), 3);
    }

    #[test]
    fn replies_without_a_block_end_the_step_at_the_limit() {
        let mut a = attempts();
        let ends: Vec<Option<CoderEnd>> =
            (0..UNREADABLE_LIMIT).map(|_| a.unreadable(false)).collect();
        assert_eq!(ends.last(), Some(&Some(CoderEnd::NoToolCalls)));
        assert!(ends[..ends.len() - 1].iter().all(Option::is_none));
    }

    #[test]
    fn after_a_cut_reply_the_next_request_is_the_opening_alone() {
        let mut a = attempts();
        a.next_request("open");
        a.not_applied(vec![]);
        a.unreadable(true);
        assert_eq!(a.next_request("open").messages.len(), 2);
    }

    #[test]
    fn only_an_attempt_better_than_the_start_and_the_best_is_kept() {
        let mut a = attempts();
        assert!(!a.improves(2));
        assert!(a.improves(1));
        a.best = Some(Best {
            badness: 1,
            files: BTreeMap::new(),
            diff: String::new(),
        });
        assert!(!a.improves(1));
    }

    #[test]
    fn the_reason_counts_the_attempts_and_quotes_the_last_notes() {
        let mut a = attempts();
        a.next_request("open");
        a.note_tested(1, "AssertionError: 1 != 2");
        assert_eq!(
            a.reason(false),
            "repair loop: 1 attempt(s), no net change; attempt 1: still failing (AssertionError: 1 != 2)"
        );
    }
}
