//! `ToolError`: every way a tool call can be refused or fail, with messages written for the
//! model (they are sent back as the tool result) and for humans reading run reports.

/// Why a tool call was refused or failed. Messages name the offending path or argument and, where
/// useful, say what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    #[error("absolute paths are not allowed: `{0}` (use a path relative to the workspace root)")]
    AbsolutePath(String),
    #[error("path `{0}` leaves the workspace")]
    OutsideRoot(String),
    #[error("path `{path}` goes through the symlink `{link}`, which leads outside the workspace")]
    SymlinkEscape { path: String, link: String },
    #[error("path `{path}` goes through the symlink `{link}`, which cannot be resolved")]
    BrokenSymlink { path: String, link: String },
    #[error("refusing to write inside .git/: `{0}`")]
    GitDir(String),
    #[error("invalid path `{0}`: {1}")]
    InvalidPath(String, String),
    #[error("`{0}` does not exist")]
    NotFound(String),
    #[error("`{0}` is a directory, not a file")]
    IsADirectory(String),
    #[error("`{0}` is not a directory")]
    NotADirectory(String),
    #[error("`{path}` is a binary file ({size} bytes); it cannot be shown as text")]
    Binary { path: String, size: u64 },
    #[error("`{path}` is too large ({size} bytes; the limit is {limit} bytes)")]
    TooLarge { path: String, size: u64, limit: u64 },
    #[error("{op} `{path}` failed: {message}")]
    Io {
        op: &'static str,
        path: String,
        message: String,
    },
    #[error("bad arguments for `{tool}`: {message}")]
    BadArguments { tool: String, message: String },
    #[error("unknown tool `{0}`; the valid tools are: {1}")]
    UnknownTool(String, String),
    #[error("tool `{tool}` is not available here (available: {available})")]
    NotInSet { tool: String, available: String },
    #[error("invalid regex `{pattern}`: {message}")]
    InvalidRegex { pattern: String, message: String },
    /// `closest` is a hint with the nearest real lines (see [`crate::closest::closest_hint`]),
    /// or empty.
    #[error("`old` was not found in `{path}` (0 matches); read the file and copy the exact text, including whitespace{closest}")]
    EditNoMatch { path: String, closest: String },
    #[error("`old` matches {count} times in `{path}`; include more surrounding lines so it matches exactly once")]
    EditManyMatches { path: String, count: usize },
    #[error("bad arguments for `edit_file`: `old` must not be empty")]
    EditEmptyOld,
    #[error("bad arguments for `edit_file`: `old` and `new` are the same text, so nothing would change; put the corrected text in `new`")]
    EditNoChange,
    /// `edit_file` / `write_file` on an existing file that was not read in this run.
    #[error("`{tool}` refused: `{path}` exists and has not been read in this run. Call read_file with {{\"path\": \"{path}\"}} first, then copy the exact text to change from what it shows")]
    NotReadYet { tool: &'static str, path: String },
    /// An edit block (see [`crate::blocks`]) that cannot be placed; the message says why.
    #[error("{0}")]
    Block(String),
    /// A symlink or special file met on the host side (see [`crate::Tree`]).
    #[error(transparent)]
    Tree(crate::TreeError),
}

impl From<crate::TreeError> for ToolError {
    fn from(e: crate::TreeError) -> Self {
        use crate::TreeError as T;
        match e {
            T::Outside(p) => ToolError::OutsideRoot(p),
            T::NotFound(p) => ToolError::NotFound(p),
            T::IsADirectory(p) => ToolError::IsADirectory(p),
            other => ToolError::Tree(other),
        }
    }
}

impl ToolError {
    pub(crate) fn io(op: &'static str, path: &str, e: &std::io::Error) -> Self {
        Self::Io {
            op,
            path: path.to_string(),
            message: e.to_string(),
        }
    }
}
