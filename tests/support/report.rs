//! Run reports read back as the type kotef writes them ([`ReportJson`]), so a test names a
//! field (`twin.timeline[1].decision`) instead of a JSON path, and a renamed field fails to
//! compile instead of comparing `null`.

use kotef::sdd::report::ReportJson;
use std::path::Path;

/// The JSON twin of the Markdown report at `md` (the path a summary's `report_path` or a
/// `RunOutcome`'s `report_rel_path` names), parsed as a [`ReportJson`].
pub fn twin(md: &Path) -> ReportJson<'static> {
    let path = md.with_extension("json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the report twin {} exists: {e}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("the report twin {} parses: {e}\n{text}", path.display()))
}
