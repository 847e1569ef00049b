//! The `.sdd/` layout kotef writes in a workspace: run reports (`.sdd/runs/<ts>-<id>.md` and
//! its `.json` twin) and snitch entries in `.sdd/issues.md`.

pub mod issues;
pub mod mermaid;
pub mod report;

pub const SDD_DIR: &str = ".sdd";
pub const RUNS_DIR: &str = ".sdd/runs";
pub const ISSUES_MD: &str = ".sdd/issues.md";
