//! What kotef's agent may do in a workspace: confined file tools ([`WorkDir`], [`ToolBox`]), the
//! one command runner for tools and the verifier ([`CommandRunner`]), the per-profile command
//! policy ([`check_command`]), failure classification and error signatures
//! ([`Failure`], [`classify_failure`], [`summarize_failure`], [`error_signature`]), test-command detection
//! and repository snapshots.

pub mod blocks;
pub mod classify;
pub mod closest;
mod defs;
pub mod detect;
pub mod egress;
pub mod env;
mod error;
pub mod file_tools;
pub mod job_cache;
pub mod lenient;
pub mod limits;
pub mod locate;
pub mod loopback;
pub mod outline;
pub mod outside;
pub mod policy;
pub mod quota;
pub mod runner;
pub mod sandbox;
mod shell;
pub mod snapshot;
pub mod tool;
pub mod toolbox;
pub mod tree;
pub mod workdir;

pub use blocks::{
    apply_edit_blocks, complete_cut_definition, inline_change, parse_edit_blocks,
    parse_edit_blocks_ignoring, split_docstrings, Change, EditBlock,
};
pub use classify::{
    classify_failure, error_signature, failure_severity, normalize_line, summarize_failure, Ended,
    Failure, FailureKind,
};
pub use detect::detect_test_command;
pub use env::{scrub_env, ENV_ALLOWLIST};
pub use error::ToolError;
pub use job_cache::JobCache;
pub use limits::{CommandLimits, LimitHit};
pub use outside::outside_cause;
pub use policy::{check_command, BadAllowEntry, PolicyDecision, RunPolicy};
pub use quota::DiskLedger;
pub use runner::{CommandResult, CommandRunner, RunnerConfig};
pub use sandbox::bwrap_status;
pub use snapshot::{
    content_hashes, content_hashes_within, is_build_artifact, snapshot, snapshot_within, FileEntry,
    RepoSnapshot,
};
pub use tool::Tool;
pub use toolbox::{ToolBox, ToolEffect, ToolOutcome, ToolSet};
pub use tree::{Kind, Links, Tree, TreeError};
pub use workdir::WorkDir;
