//! Shared harness for the root crate's end-to-end tests: a recording OpenAI-compatible model
//! server over loopback (the real reqwest client talks to it).

// Each test binary uses a different part of the harness.
#![allow(dead_code)]

pub mod recording_model;
pub mod release;
