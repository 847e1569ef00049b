//! The stop-rule table and `docs/stop-rules.md`, generated whole from the guards: every
//! registry's rows in the order a run meets its checkpoints ([`registries`]),
//! the registry runner's row last. A guard asked at two checkpoints (the budgets) is one row.
//! The file must match [`document`]: a test fails when it differs, and
//! `KOTEF_BLESS=1 cargo test --lib stop_rule_table` writes it anew.

use crate::graph::guards::{self, Checkpoint, Row, StopGuard};

/// What the document says before the table.
const INTRO: &str = "# The stop rules

Every run ends in exactly one of the four statuses, and every loop has a rule that ends it.
Nodes report facts (a reply, a tool result, a test result, the timeline of steps); guards
decide. Progress — what resets the streaks — means the world changed: new research results,
new file contents, or a verification on changed contents or with a flipped result, and never
a state the run has already been in.

Every decision that ends, redirects or succeeds a run is a guard: one file under
`src/graph/guards/` with its threshold, its check, the text it gives, its row below and its
tests, listed in the registry of the checkpoint where it is asked (the graph loop, a model
call, a command, the planner, the verifier, the repair loop). The registry runner
(`src/graph/guards/runner.rs`) is the one place a stop ends the run, and where a verified
success wins over a stop at the planner's checkpoints. The pure rules the guards apply are in
`src/graph/rules/budgets.rs`, `src/graph/rules/endings.rs` and `src/graph/rules/tasks.rs`; the coder's in-step
breakers, which end a step and not the run, are in `src/graph/rules/breakers.rs`, progress and
fingerprints in `src/graph/memory/progress.rs`.

This file is generated from the guards (`src/graph/stop_table.rs`): a test fails when it
differs, and `KOTEF_BLESS=1 cargo test --lib stop_rule_table` writes it anew.

";

/// Every registry's rows with its checkpoint, in the order a run meets them (the table's
/// order), and last the registry runner's own row (success over a stop).
pub fn registries() -> Vec<(&'static str, Vec<Row>)> {
    fn rows<C: Checkpoint>(guards: &[&dyn StopGuard<C>]) -> (&'static str, Vec<Row>) {
        (C::CHECKED, guards.iter().map(|g| g.row()).collect())
    }
    vec![
        rows(guards::budget::BEFORE_STEP),
        rows(guards::budget::BEFORE_CALL),
        rows(guards::calls::CALL_PACED),
        rows(guards::calls::AFTER_FAILED_CALL),
        rows(guards::calls::AT_DEADLINE),
        rows(guards::commands::ON_COMMAND),
        rows(guards::BEFORE_PLANNER),
        (
            guards::ON_PROPOSAL_CHECKED,
            guards::ON_PROPOSAL.iter().map(|g| g.row()).collect(),
        ),
        rows(guards::ON_HOP),
        (
            guards::after_verify::AFTER_VERIFY_CHECKED,
            guards::after_verify::AFTER_VERIFY
                .iter()
                .map(|g| g.row())
                .collect(),
        ),
        rows(crate::graph::guards::contradicting_tests::IN_REPAIR),
        (guards::runner::RUNNER_CHECKED, vec![guards::runner::row()]),
    ]
}

/// The table as Markdown.
pub fn table() -> String {
    let mut rows: Vec<[String; 4]> = Vec::new();
    for (_, registry) in registries() {
        for row in registry {
            let cells = row.cells();
            if !rows.contains(&cells) {
                rows.push(cells);
            }
        }
    }
    let mut out =
        String::from("| rule | where it is checked | threshold | status |\n|---|---|---|---|\n");
    for [rule, checked, threshold, status] in rows {
        out.push_str(&format!(
            "| {rule} | {checked} | {threshold} | {status} |\n"
        ));
    }
    out
}

/// `docs/stop-rules.md`, whole.
pub fn document() -> String {
    format!("{INTRO}{}", table())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_guard_is_checked_where_its_registry_says_and_listed_once_there() {
        for (checked, rows) in registries() {
            let mut seen: Vec<[String; 4]> = Vec::new();
            for r in rows {
                assert!(r.checked.contains(checked), "{r:?}");
                let cells = r.cells();
                assert!(!seen.contains(&cells), "listed twice: {cells:?}");
                seen.push(cells);
            }
        }
    }

    const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/stop-rules.md");

    #[test]
    fn the_stop_rule_table_in_docs_matches_the_registry() {
        let doc = std::fs::read_to_string(DOC).unwrap_or_default();
        let generated = document();
        if std::env::var_os("KOTEF_BLESS").is_some() {
            std::fs::write(DOC, &generated).expect("docs/stop-rules.md is writable");
            return;
        }
        assert!(
            doc == generated,
            "docs/stop-rules.md differs from the guards' registries: run KOTEF_BLESS=1 cargo test --lib stop_rule_table"
        );
    }

    #[test]
    fn every_row_has_four_cells_without_a_pipe() {
        for line in table().lines().skip(2) {
            assert_eq!(line.matches(" | ").count(), 3, "{line}");
        }
    }

    #[test]
    fn the_table_lists_the_contradiction_and_resource_limit_stops() {
        let t = table();
        for row in [
            "(contradicting tests)",
            "(mirrored tests)",
            "(resource limit)",
        ] {
            assert!(t.contains(row), "{row} missing:\n{t}");
        }
    }
}
