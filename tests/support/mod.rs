//! Shared harness for the root crate's end-to-end tests: a recording OpenAI-compatible model
//! server over loopback (the real reqwest client talks to it), `kotef action` run as an
//! Actions runner would against the fake GitHub (`action_runner`), `kotef serve` started and
//! waited for (`serve`), and commands run as an unprivileged user (`unprivileged`).

// Each test binary uses a different part of the harness.
#![allow(dead_code)]

pub mod action_runner;
pub mod recording_model;
pub mod release;
pub mod serve;
pub mod unprivileged;
