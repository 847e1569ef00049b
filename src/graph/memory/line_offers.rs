//! The statements line attempts offer and the offers made of them, as data, and what one
//! repair step leaves the next of them ([`LineMemory`]). The repair loop
//! (`nodes::repair::lines`) makes the offers; a step ends at its call cap with offers still
//! queued, and the next step of the same run begins from the same failure with the same
//! statements: its greedy first offers would write the same lines again (in held-out run 35
//! the second step repeated 46 of the first's 46 offers, reply for reply, in one task, 47 of
//! 47 in another). What the run remembers here keeps a later step to the offers not made yet.

use std::collections::{BTreeMap, BTreeSet};

/// One statement to offer: its file, its lines as the file has them, and the lines just
/// before it that make it unique in the file (kept as they are on both sides of the change:
/// a line such as `import sqlalchemy` may be written more than once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub path: String,
    pub text: String,
    pub lead: String,
    /// Its first line in the file (1-based).
    pub line: usize,
}

impl Target {
    /// Whether `other` is the same statement: the same file, lead and lines, wherever the
    /// lines before it moved it.
    pub fn same_statement(&self, other: &Target) -> bool {
        self.path == other.path && self.lead == other.lead && self.text == other.text
    }

    /// What tells this statement from any other ([`Target::same_statement`]), as a key.
    pub fn statement_key(&self) -> String {
        format!("{}\u{0}{}\u{0}{}", self.path, self.lead, self.text)
    }
}

/// Where a line attempt's new lines go: in place of its statement, before it (a guard), or
/// after it (a follow).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Place {
    #[default]
    Instead,
    Before,
    After,
}

/// One offer of a statement: which, at what temperature, and the start of the new statement
/// written for the model (a branch's; empty for a first offer).
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    pub target: Target,
    pub temperature: f64,
    pub prefix: String,
    /// The log-probability of `prefix` under the model (0 for a first offer).
    pub score: f64,
    pub tries: usize,
    /// The statement's place among the statements offered (0 the first).
    pub order: usize,
    /// Where the lines the model writes go.
    pub place: Place,
}

impl Offer {
    /// What tells this offer from any other: its statement (not its line, which a kept
    /// change above it moves), where the new lines go, the start written for the model and
    /// the temperature. The same key asks the model the same thing.
    pub fn key(&self) -> String {
        format!(
            "{}\u{0}{:?}\u{0}{}\u{0}{}",
            self.target.statement_key(),
            self.place,
            self.prefix,
            self.temperature.to_bits()
        )
    }
}

/// What the repair steps of a run remember of their line attempts, for one test command.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineMemory {
    /// The test command the attempts were judged by: another command starts afresh.
    pub command: String,
    /// Every offer made ([`Offer::key`]): not made again.
    pub made: BTreeSet<String>,
    /// Every change a line attempt proposed (the repair loop's change key; most were tested,
    /// a few could not be applied): not tested again.
    pub tested: BTreeSet<String>,
    /// The branches opened and not offered yet, for a later step to offer.
    pub pending: Vec<Offer>,
    /// Whether the server reported the tokens it passed over (branches come from them).
    pub reported: bool,
    /// Whether the last step ended with offers still to make.
    pub left: bool,
    /// How unsure the model was of each statement's first line, by
    /// [`Target::statement_key`]: the log-probability of the least likely token it chose.
    pub unsure: BTreeMap<String, f64>,
}

impl LineMemory {
    /// A fresh memory for `command`.
    pub fn new(command: &str) -> Self {
        LineMemory {
            command: command.to_string(),
            ..LineMemory::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(line: usize, prefix: &str) -> Offer {
        Offer {
            target: Target {
                path: "a.py".into(),
                text: "    return x".into(),
                lead: String::new(),
                line,
            },
            temperature: 0.0,
            prefix: prefix.into(),
            score: 0.0,
            tries: 0,
            order: 0,
            place: Place::Instead,
        }
    }

    #[test]
    fn an_offer_moved_by_lines_above_it_keeps_its_key() {
        assert_eq!(offer(3, "").key(), offer(9, "").key());
    }

    #[test]
    fn another_start_for_the_model_is_another_offer() {
        assert_ne!(offer(3, "").key(), offer(3, "    return y").key());
    }
}
