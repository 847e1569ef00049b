//! Shared harness for the root crate's end-to-end tests: a recording OpenAI-compatible model
//! server over loopback (the real reqwest client talks to it), `kotef action` run as an
//! Actions runner would against the fake GitHub (`action_runner`), `kotef serve` started and
//! waited for (`serve`), commands run as an unprivileged user (`unprivileged`), and
//! [`kotef_run`], this build's `kotef run` as a `kotef_testkit::KotefRun` builder, and run
//! reports read back typed (`report`).

// Each test binary uses a different part of the harness.
#![allow(dead_code)]

pub mod action_runner;
pub mod recording_model;
pub mod release;
pub mod report;
pub mod serve;
pub mod unprivileged;

/// `kotef run --json --repo REPO` of this build's binary, to finish with the builder's
/// model, goal and environment and then `.run()`.
pub fn kotef_run(repo: &std::path::Path) -> kotef_testkit::KotefRun {
    kotef_testkit::KotefRun::new(env!("CARGO_BIN_EXE_kotef"), repo)
}
