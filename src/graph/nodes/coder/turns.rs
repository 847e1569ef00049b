//! What one coder step has seen so far (its notes, the last turn's messages, the files it
//! wrote, its breakers' counts) and the decisions made from it alone: the budget check before
//! a turn, a reply without tool calls, whether a turn ends the step, and the step's reason.

use crate::graph::memory::state::CoderEnd;
use crate::graph::prompt::context::{self, BUDGET_REVIEW_PROMPT};
use crate::graph::rules::breakers::{BudgetReview, NoToolCall};
use kotef_core::Limits;
use kotef_model::{Message, ModelReply};
use std::collections::{BTreeMap, BTreeSet};

/// One coder step's state across its turns.
#[derive(Debug)]
pub(super) struct Turns {
    /// One line per thing done, shown to the model (the last few).
    pub(super) notes: Vec<String>,
    /// The last turn's assistant message and tool results.
    pub(super) current: Vec<Message>,
    pub(super) written: BTreeSet<String>,
    pub(super) turns_since_review: u32,
    pub(super) review_streak: u32,
    pub(super) pending_review: Option<&'static str>,
    pub(super) warn: bool,
    pub(super) asked_for_done: bool,
    pub(super) empty_turns: u32,
    pub(super) failing_calls: BTreeMap<String, u32>,
    /// Set after a repeated call: the next call samples hotter, so a low-temperature model
    /// does not send the same reply a third time.
    pub(super) resample: bool,
    /// Successful calls since the last file change: the same one again cannot tell anything
    /// new.
    pub(super) unchanged_calls: BTreeMap<String, u32>,
    pub(super) forced_no_progress: bool,
    pub(super) last_turn_changed: bool,
    /// Model calls made in this step.
    pub(super) calls: u32,
    /// Refused changes to the protected tests in this step.
    pub(super) test_edits: u32,
    pub(super) correction: Option<String>,
    /// The files this step changed, as they were before its first change (for the
    /// verifier's undo).
    pub(super) undo: BTreeMap<String, Option<String>>,
    /// Whether this step refused an empty `done` (once per run).
    pub(super) refused_empty_done: bool,
    /// Commands this step had denied as off the strict allow-list.
    pub(super) off_list_denials: u32,
    pub(super) end: CoderEnd,
}

impl Turns {
    pub(super) fn new() -> Self {
        Turns {
            notes: Vec::new(),
            current: Vec::new(),
            written: BTreeSet::new(),
            turns_since_review: 0,
            review_streak: 0,
            pending_review: None,
            warn: false,
            asked_for_done: false,
            empty_turns: 0,
            failing_calls: BTreeMap::new(),
            resample: false,
            unchanged_calls: BTreeMap::new(),
            forced_no_progress: false,
            last_turn_changed: false,
            calls: 0,
            test_edits: 0,
            correction: None,
            undo: BTreeMap::new(),
            refused_empty_done: false,
            off_list_denials: 0,
            end: CoderEnd::TurnsUsed,
        }
    }

    /// Before a turn: whether the step ends at its call cap or its budget review (which may
    /// instead ask for `done` or warn in the next prompt).
    pub(super) fn budget_spent(&mut self, limits: &Limits) -> bool {
        if crate::graph::rules::breakers::coder_step_cap_reached(self.calls, limits) {
            self.end = CoderEnd::CallCap;
            self.forced_no_progress = self.written.is_empty();
            self.notes.push(format!(
                "{} model calls, the step's cap (coder_step_calls): step ended",
                self.calls
            ));
            return true;
        }
        if self.turns_since_review < limits.coder_turns.max(1) {
            return false;
        }
        self.turns_since_review = 0;
        self.review_streak += 1;
        match crate::graph::rules::breakers::budget_review(
            self.review_streak,
            !self.written.is_empty(),
            self.last_turn_changed,
        ) {
            BudgetReview::EndStep => {
                self.end = CoderEnd::ReviewCap;
                self.forced_no_progress = true;
                self.notes.push(format!(
                    "budget review {}: hard cap, step ended",
                    self.review_streak
                ));
                return true;
            }
            BudgetReview::AskForDone => {
                if self.asked_for_done {
                    // Asked once already and it kept going: end the step, keep its work.
                    self.end = CoderEnd::TurnsUsed;
                    return true;
                }
                self.asked_for_done = true;
                self.pending_review = Some(BUDGET_REVIEW_PROMPT);
            }
            BudgetReview::Continue { warn } => {
                self.warn = warn;
                self.pending_review = Some(BUDGET_REVIEW_PROMPT);
            }
        }
        false
    }

    /// A reply with no tool call: whether the step ends; else the next prompt may quote it
    /// with a correction.
    pub(super) fn reply_without_calls(&mut self, content: &str) -> bool {
        self.empty_turns += 1;
        self.notes.push("a reply without tool calls".into());
        match crate::graph::rules::breakers::no_tool_call(self.empty_turns) {
            NoToolCall::EndStep => {
                self.end = CoderEnd::NoToolCalls;
                true
            }
            NoToolCall::Continue => false,
            NoToolCall::Correct => {
                let shown = if content.trim().is_empty() {
                    "(empty)"
                } else {
                    content
                };
                self.correction = Some(context::clip(shown, 600));
                false
            }
        }
    }

    /// A reply with tool calls starts the turn's messages.
    pub(super) fn start_tool_turn(&mut self, reply: &ModelReply) {
        self.empty_turns = 0;
        self.last_turn_changed = false;
        let mut assistant = Message::assistant(reply.content.clone());
        assistant.tool_calls = reply.tool_calls.clone();
        self.current.push(assistant);
    }

    /// Keeps the last [`context::STEP_NOTES`] notes.
    pub(super) fn trim_notes(&mut self) {
        if self.notes.len() > context::STEP_NOTES {
            self.notes.drain(..self.notes.len() - context::STEP_NOTES);
        }
    }

    /// Whether the turn just taken ends the step: `done`, a breaker, or a stopped run.
    pub(super) fn turn_ends_step(&self, run_stopped: bool) -> bool {
        run_stopped
            || matches!(
                self.end,
                CoderEnd::Done | CoderEnd::RepeatedFailingCall | CoderEnd::RepeatedCall
            )
    }
}

/// The step's reason in the timeline: what changed, and what ended it.
pub(super) fn end_reason(end: CoderEnd, changed: bool, written: usize, limits: &Limits) -> String {
    let what = if changed {
        format!("changed {} file(s)", written.max(1))
    } else {
        "no net change".to_string()
    };
    match end {
        CoderEnd::Done => format!("{what} and called done"),
        CoderEnd::TurnsUsed => format!("{what} without calling done"),
        CoderEnd::ReviewCap => format!("{what}; the budget review's hard cap ended the step"),
        CoderEnd::RepeatedFailingCall => format!(
            "{what}; the same failing tool call {} times ended the step",
            crate::graph::rules::breakers::REPEATED_FAILURE_LIMIT
        ),
        CoderEnd::RepeatedCall => format!(
            "{what}; the same tool call {} times with nothing changed ended the step",
            crate::graph::rules::breakers::REPEATED_CALL_LIMIT
        ),
        CoderEnd::NoToolCalls => format!(
            "{what}; {} replies in a row without a tool call ended the step",
            crate::graph::rules::breakers::NO_TOOL_CALL_LIMIT
        ),
        CoderEnd::CallCap => format!(
            "{what}; the step's cap of {} model calls ended it",
            limits.coder_step_calls
        ),
        CoderEnd::RunStopped => what,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_core::Profile;

    fn limits() -> Limits {
        Limits::for_profile(Profile::Strict)
    }

    #[test]
    fn the_call_cap_ends_a_step_that_wrote_nothing_without_progress() {
        let mut t = Turns::new();
        t.calls = limits().coder_step_calls;
        assert!(t.budget_spent(&limits()));
        assert_eq!((t.end, t.forced_no_progress), (CoderEnd::CallCap, true));
    }

    #[test]
    fn a_spent_turn_budget_puts_the_review_in_the_next_prompt() {
        let mut t = Turns::new();
        t.turns_since_review = limits().coder_turns;
        assert!(!t.budget_spent(&limits()));
        assert_eq!(
            (
                t.pending_review.is_some(),
                t.turns_since_review,
                t.review_streak
            ),
            (true, 0, 1)
        );
    }

    #[test]
    fn turns_within_the_budget_go_on_without_a_review() {
        let mut t = Turns::new();
        assert!(!t.budget_spent(&limits()));
        assert_eq!(t.pending_review, None);
    }

    #[test]
    fn replies_without_calls_are_corrected_then_end_the_step() {
        let mut t = Turns::new();
        let ends: Vec<bool> = (0..crate::graph::rules::breakers::NO_TOOL_CALL_LIMIT)
            .map(|_| t.reply_without_calls(""))
            .collect();
        assert_eq!(ends.last(), Some(&true), "{ends:?}");
        assert!(ends[..ends.len() - 1].iter().all(|e| !e), "{ends:?}");
        assert_eq!(t.end, CoderEnd::NoToolCalls);
    }

    #[test]
    fn an_empty_reply_is_quoted_as_empty_in_the_correction() {
        let mut t = Turns::new();
        while t.correction.is_none() && !t.reply_without_calls("  ") {}
        assert_eq!(t.correction.as_deref(), Some("(empty)"));
    }

    #[test]
    fn done_and_the_repeat_breakers_end_the_step_but_turns_used_does_not() {
        let ends = |end| {
            let mut t = Turns::new();
            t.end = end;
            t.turn_ends_step(false)
        };
        assert_eq!(
            [
                CoderEnd::Done,
                CoderEnd::RepeatedCall,
                CoderEnd::RepeatedFailingCall,
                CoderEnd::TurnsUsed
            ]
            .map(ends),
            [true, true, true, false]
        );
        assert!(Turns::new().turn_ends_step(true));
    }

    #[test]
    fn the_reason_names_the_change_and_the_breaker() {
        assert_eq!(
            end_reason(CoderEnd::Done, true, 2, &limits()),
            "changed 2 file(s) and called done"
        );
        assert_eq!(
            end_reason(CoderEnd::CallCap, false, 0, &limits()),
            format!(
                "no net change; the step's cap of {} model calls ended it",
                limits().coder_step_calls
            )
        );
    }

    #[test]
    fn only_the_last_notes_are_kept() {
        let mut t = Turns::new();
        t.notes = (0..context::STEP_NOTES + 3)
            .map(|i| i.to_string())
            .collect();
        t.trim_notes();
        assert_eq!(t.notes.first().map(String::as_str), Some("3"));
    }
}
