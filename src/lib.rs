//! kotef: a bounded coding agent for GitHub issues and pull requests.
//!
//! The root crate owns the agent graph (`graph`), the `.sdd/` reports (`sdd`), one run from
//! start to report (`run`), offline scenarios (`scenario`) and the command line (`cli`).
//! Domain types live in `kotef-core`, models in `kotef-model`, tools in `kotef-tools` and the
//! GitHub edge in `kotef-github`.

pub mod action;
pub mod cli;
pub mod executor;
pub mod graph;
pub mod run;
pub mod scenario;
pub mod sdd;

pub use kotef_core as core;
