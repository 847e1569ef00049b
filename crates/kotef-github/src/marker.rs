//! The hidden marker that starts every comment kotef writes on GitHub: written by the
//! renderer (`outbound::render`) and read by the trigger (`inbound::trigger`), which ignores
//! kotef's own comments, and by the client, which finds its sticky comment again.

use serde::{Deserialize, Serialize};

/// The hidden marker that starts every comment kotef writes (its own comments are recognised,
/// and ignored as triggers, by it).
pub const MARKER_PREFIX: &str = "<!-- kotef:";

/// The JSON inside `<!-- kotef:run {...} -->`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarkerData {
    pub run_id: String,
    pub number: u64,
    /// Whether the comment shows the run ended (finished, failed, refused); written only
    /// then, so a comment without it shows the run going (started, progress, waiting, handed
    /// to a workflow), as every comment of a kotef before this field did.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ended: bool,
}

/// The hidden first line of a status comment.
pub fn marker(data: &MarkerData) -> String {
    format!(
        "{MARKER_PREFIX}run {} -->",
        serde_json::to_string(data).unwrap_or_default()
    )
}

/// The marker data of a status comment, if `body` starts with one.
pub fn parse_marker(body: &str) -> Option<MarkerData> {
    let rest = body.trim_start().strip_prefix(MARKER_PREFIX)?;
    let rest = rest.strip_prefix("run ")?;
    let end = rest.find("-->")?;
    serde_json::from_str(rest[..end].trim()).ok()
}
