//! Test support for kotef (a dev-dependency): a stateful fake GitHub REST API (repositories,
//! issues, comments, reactions, collaborator permissions, pulls, App installation tokens,
//! workflow dispatches checked against the workflow's declared inputs) with
//! fault injection, served by axum on loopback for the real octocrab client; bare git
//! repositories on disk, also served as a private smart-HTTP remote; signed webhook payloads;
//! and a fake `RunExecutor`.
//!
//! A typical end-to-end test:
//!
//! ```text
//! let gh = FakeGitHub::start().await;
//! gh.add_repo("acme/widgets", "main");
//! gh.set_permission("acme/widgets", "alice", "admin");
//! let root = tempfile::tempdir()?;
//! init_bare_repo(root.path(), "acme/widgets", &[("README.md", "hi\n")]);
//! let cfg = gh.serve_config(&["s"], root.path(), data_dir);
//! let server = kotef_github::start(cfg, executor).await?;
//! let n = gh.add_issue("acme/widgets", "Title", "Body");
//! send_webhook(&client, &format!("http://{}/webhook", server.addr()), "s", "issues", "d1",
//!     &issues_labeled("acme/widgets", n, "Title", "Body", "kotef", "alice")).await?;
//! let comment = gh.wait_final_comment("acme/widgets", n, Duration::from_secs(30)).await;
//! ```
//!
//! Modules: [`state`] (what the fake holds, faults), `routes` (its REST endpoints),
//! [`github`] (the [`FakeGitHub`] handle), [`payloads`] (signed webhooks), [`git`] (bare
//! repositories), [`smart_http`] (a private git remote over loopback that refuses anonymous
//! requests), [`executor`] (a fake `RunExecutor`), [`recorded`] (one recorded run that many
//! one-fact tests read), [`slow_model`] (a self-hosted model server that reads prompts at a set
//! speed and reports its progress as llama.cpp does), [`script`] (scripted models as builders),
//! [`kotef_run`] (`kotef run` invocations as builders, summaries read back typed), [`tools`]
//! (host tools a test needs: missing fails under `CI`, skips elsewhere saying so).

pub mod executor;
pub mod git;
pub mod github;
pub mod kotef_run;
pub mod payloads;
pub mod recorded;
mod routes;
pub mod script;
pub mod slow_model;
pub mod smart_http;
pub mod state;
pub mod tools;

pub use executor::{sample_outcome, FakeBehavior, FakeExecutor};
pub use git::{committed_repo, file_base_url, git, git_output, init_bare_repo, push_branch};
pub use github::FakeGitHub;
pub use kotef_run::{KotefRun, Ran};
pub use payloads::*;
pub use recorded::recorded;
pub use script::Script;
pub use slow_model::{SlowModel, SlowModelConfig, Turn};
pub use smart_http::{basic_auth, SeenRequest, SmartHttp};
pub use state::{
    FakeComment, FakeDispatch, FakePull, FakeReaction, FakeState, FaultKind, LoggedRequest,
    FAKE_BOT_LOGIN, FAKE_TOKEN,
};
pub use tools::{found_tool, require_tool};

/// Redacts volatile parts of a comment for snapshots: run ids, file paths, timestamps.
pub fn redact_volatile(text: &str, run_id: &str, extra: &[(&str, &str)]) -> String {
    let mut out = text.replace(run_id, "[RUN_ID]");
    for (from, to) in extra {
        out = out.replace(from, to);
    }
    out
}
