//! kotef: a bounded coding agent for GitHub issues and pull requests.
//!
//! The root crate's library owns the agent graph (`graph`), the `.sdd/` reports (`sdd`), one
//! run from start to report (`run`), the bridge that runs GitHub jobs through it (`executor`), the run streamed into an Actions log (`actions_log`),
//! offline scenarios (`scenario`) and what it knows of particular languages' tools (`lang`).
//! The command line, the Action step and the server's flags are the binary's
//! (`src/bin/kotef/`).
//! Domain types live in `kotef-core`, models in `kotef-model`, tools in `kotef-tools` and the
//! GitHub edge in `kotef-github`.

pub mod actions_log;
pub mod executor;
pub mod graph;
pub mod lang;
pub mod run;
pub mod scenario;
pub mod sdd;
pub mod setup;

pub use kotef_core as core;
