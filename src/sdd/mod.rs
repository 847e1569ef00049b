//! The `.sdd/` layout kotef writes in a workspace: run reports (`.sdd/runs/<ts>-<id>.md` and
//! its `.json` twin), the run's transcript (`.sdd/runs/<ts>-<id>.transcript.jsonl`) and its
//! HTML view, and snitch entries in `.sdd/issues.md`.

pub mod issues;
pub mod mermaid;
pub mod report;
pub mod transcript;
pub mod transcript_html;
pub mod transcript_read;
pub mod transcript_text;

pub const SDD_DIR: &str = ".sdd";
pub const RUNS_DIR: &str = ".sdd/runs";
pub const ISSUES_MD: &str = ".sdd/issues.md";
