//! The stop-rule table, generated: every registered guard's row ([`super::guards`]), then the
//! rows of the rules not yet moved into a guard ([`super::rules::pending_rows`]). The copy in
//! `docs/stop-rules.md` (also the guards' module doc) must match it: a test fails when it
//! differs, and `KOTEF_BLESS=1 cargo test --lib stop_rule_table` writes it anew.

use super::guards::REGISTRIES;
use super::rules::pending_rows;

/// The generated part of `docs/stop-rules.md` lies between these lines.
pub const TABLE_START: &str = "<!-- generated from src/graph/guards: do not edit by hand -->";
pub const TABLE_END: &str = "<!-- end of the generated table -->";

/// The table as Markdown.
pub fn table() -> String {
    let rows = REGISTRIES
        .iter()
        .flat_map(|(_, guards)| guards.iter().map(|g| g.row().cells()))
        .chain(pending_rows());
    let mut out =
        String::from("| rule | where it is checked | threshold | status |\n|---|---|---|---|\n");
    for [rule, checked, threshold, status] in rows {
        out.push_str(&format!(
            "| {rule} | {checked} | {threshold} | {status} |\n"
        ));
    }
    out
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
