//! kotef's domain vocabulary, shared by every other crate: typed ids, the four terminal
//! statuses, the stop-rule names of the public contract, profiles and limits, the per-repository
//! config file, the `--json` run summary, secret redaction, text clipping, inert Markdown for
//! untrusted text, and the retry engine of the HTTP clients.

pub mod config;
pub mod ids;
pub mod markdown;
pub mod outcome;
pub mod process;
pub mod reaper;
pub mod redact;
pub mod retry;
pub mod settings;
pub mod status;
pub mod summary;
pub mod test_network;
pub mod text;

pub use config::{
    ConfigError, EditFormat, KotefConfig, Limits, LimitsOverride, Profile, SandboxMode,
};
pub use ids::{DeliveryId, IssueNumber, RepoName, RunId};
pub use outcome::{RunOutcome, RunRequest, StepProgress, Verification};
pub use redact::Redactor;
pub use retry::RetryPolicy;
pub use settings::{Ceilings, Clamp, Ignored, Owner, Trust};
pub use status::{Edge, NodeName, StopRule, TerminalStatus};
pub use summary::{LoopCounters, RunSummary};
pub use test_network::{TestConfig, TestNetwork};
