//! The stop-rule table, generated: every registered guard's row ([`super::guards`]), then the
//! rows of the checks that are not guards ([`other_rows`]: budgets, endings, the undo and the
//! follow-up). The copy in
//! `docs/stop-rules.md` (also the guards' module doc) must match it: a test fails when it
//! differs, and `KOTEF_BLESS=1 cargo test --lib stop_rule_table` writes it anew.

use super::budgets::SOFT_DENIAL_LIMIT;
use super::guards::model_failures::MODEL_FAILURE_LIMIT;
use super::guards::REGISTRIES;
use super::pacing::MIN_REPLY_TOKENS;

/// The generated part of `docs/stop-rules.md` lies between these lines.
pub const TABLE_START: &str = "<!-- generated from src/graph/guards: do not edit by hand -->";
pub const TABLE_END: &str = "<!-- end of the generated table -->";

/// The table as Markdown.
pub fn table() -> String {
    let rows = REGISTRIES
        .iter()
        .flat_map(|(_, guards)| guards.iter().map(|g| g.row().cells()))
        .chain(other_rows());
    let mut out =
        String::from("| rule | where it is checked | threshold | status |\n|---|---|---|---|\n");
    for [rule, checked, threshold, status] in rows {
        out.push_str(&format!(
            "| {rule} | {checked} | {threshold} | {status} |\n"
        ));
    }
    out
}

/// The stop-rule table's rows for the checks that are not guards (budgets and endings, in
/// `super::budgets` and `super::endings`), as cells (rule, where it is checked, threshold,
/// status); the guards' rows come first.
pub fn other_rows() -> Vec<[String; 4]> {
    let row = |rule: &str, checked: &str, threshold: String, status: &str| {
        [rule, checked, &threshold, status].map(String::from)
    };
    let stuck = "`aborted_stuck`";
    vec![
        row("`budget` (tokens)", "graph loop before every step; `llm::call` before every model call", "`token_budget`".into(), stuck),
        row("`budget` (time)", "the same; at the deadline an in-flight model call or command is cancelled", "`time_budget_s`".into(), stuck),
        row("`budget` (model calls)", "the same", "`max_model_calls`".into(), stuck),
        row("`budget` (dollars)", "the same, from the price table or the configured prices", "`cost_budget_usd`".into(), stuck),
        row("`budget` (a call that cannot finish)", "`llm::call` before every model call (`graph::pacing`)", format!("at the server's measured speed, the prompt's uncached tokens and a reply of {MIN_REPLY_TOKENS} tokens need more than the time left (the call is not started; a reply cap that does not fit is lowered instead)"), stuck),
        row("`max_steps`", "graph loop before every step (the last step is kept for the snitch)", "`max_steps`".into(), stuck),
        row("`model_error`", "`llm::call` after a failed call (one call = all its retries)", format!("{MODEL_FAILURE_LIMIT} failed calls in a row, or a rejected request"), stuck),
        row("`model_error` (timed out twice)", "`llm::call` before every model call (`graph::pacing`)", "a request that timed out comes again after it was already sent once more with half its reply cap (a timed-out request is never sent again unchanged)".into(), stuck),
        row("`constraint`", "coder's `run_command`; the planner's `verify` command", format!("under `strict`: a command reaching outside the workspace or on the denylist (at once), or command number {SOFT_DENIAL_LIMIT} merely off the allow-list (earlier ones are tool errors)"), "`aborted_constraint`"),
        row("none (success)", "planner says `done`", "the last verification passed after the last change".into(), "`done_success`"),
        row("none (fixed and done)", "verifier, after a pass", "a verification failed earlier, the coder's latest step changed files and called `done`, and they pass (`fixed_and_done`)".into(), "`done_success` (no planner call)"),
        row("none (success over a stop)", "planner, wherever a rule above fires", "the same verified success: a loop or no-progress rule firing then ends the run in success, naming the rule".into(), "`done_success`"),
        row("(undo)", "verifier, after a failing verification of a coder change", "more failing tests than before, or code that no longer loads (`regression`)".into(), "— (the change is undone; the coder gets the earlier failure and why)"),
        row("(follow-up)", "planner, before asking the model (after its stop rules)", "the coder's step changed the code and the verification still fails as tests do (`follow_up_task`)".into(), "— (the new failure goes to the coder with no planner call)"),
        row("none (partial)", "planner says `done`", "no passing verification after the last change".into(), "`done_partial`"),
        row("none (gave up)", "planner says `snitch`", "—".into(), stuck),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/stop-rules.md");

    fn generated_part(doc: &str) -> Option<&str> {
        let start = doc.find(TABLE_START)? + TABLE_START.len();
        let end = doc.find(TABLE_END)?;
        doc.get(start..end).map(str::trim)
    }

    #[test]
    fn the_stop_rule_table_in_docs_matches_the_registry() {
        let doc = std::fs::read_to_string(DOC).unwrap_or_default();
        let table = table();
        if std::env::var_os("KOTEF_BLESS").is_some() {
            let (head, tail) = match (doc.find(TABLE_START), doc.find(TABLE_END)) {
                (Some(s), Some(e)) => (&doc[..s], &doc[e + TABLE_END.len()..]),
                _ => ("# The stop rules\n\n", "\n"),
            };
            let new = format!("{head}{TABLE_START}\n{table}{TABLE_END}{tail}");
            std::fs::write(DOC, new).expect("docs/stop-rules.md is writable");
            return;
        }
        assert_eq!(
            generated_part(&doc),
            Some(table.trim()),
            "docs/stop-rules.md differs from the guards' registry: run KOTEF_BLESS=1 cargo test --lib stop_rule_table"
        );
    }

    #[test]
    fn every_row_has_four_cells_without_a_pipe() {
        for line in table().lines().skip(2) {
            assert_eq!(line.matches(" | ").count(), 3, "{line}");
        }
    }
}
