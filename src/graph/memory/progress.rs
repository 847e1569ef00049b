//! Progress, which resets the loop counters: research with results not seen before
//! ([`research_progress`]), changed file contents ([`files_progress`]), or a verification on
//! changed contents or with a flipped pass/fail ([`verification_progress`]) — and only when
//! the run's world (files + verified outcome, [`world_fingerprint`]) is not one it has been in
//! before ([`revisit_of`], applied by the graph loop after every step). Also the fingerprints
//! the oscillation and repeat guards compare ([`state_fingerprint`], [`decision_key`]).

use crate::graph::memory::state::{PlannerDecision, ResearchState, RunState, TestResult};
use kotef_core::NodeName;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// Research progress: the researcher reached the model (not a repeated query answered from
/// memory) and came back with results never seen before in this run.
pub fn research_progress(before: &ResearchState, after: &ResearchState) -> bool {
    after.attempts > before.attempts
        && after.results_hash.is_some()
        && after.results_hash != before.results_hash
        && !before
            .seen_hashes
            .contains(after.results_hash.as_deref().unwrap_or_default())
}

/// File progress: the set of (path, content hash) changed — not just the number of files.
pub fn files_progress(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> bool {
    before != after
}

/// Verification progress: a first result, another command, a pass/fail flip, or a result on
/// contents that differ from those of the previous verification. Output that changes while
/// nothing else did (timestamps, pids, temp names, seeds) is noise, not progress.
pub fn verification_progress(
    before: Option<&TestResult>,
    after: &TestResult,
    files_changed_since: bool,
) -> bool {
    match before {
        None => true,
        Some(b) => files_changed_since || b.passed != after.passed || b.command != after.command,
    }
}

/// The run's world: file contents plus the outcome of a verification of exactly these
/// contents (none when files changed since). Error text is left out: it is noisy, and the
/// same files failing the same command is the same world.
pub fn world_fingerprint(state: &RunState) -> String {
    let mut h = Sha256::new();
    for (p, c) in &state.file_hashes {
        h.update(p.as_bytes());
        h.update([0]);
        h.update(c.as_bytes());
        h.update([1]);
    }
    let verified_here = state.hashes_at_last_verification.as_ref() == Some(&state.file_hashes);
    match &state.test {
        Some(t) if verified_here => {
            h.update(t.command.as_bytes());
            h.update([2, t.passed as u8]);
        }
        _ => h.update([3]),
    }
    hex::encode(&h.finalize()[..12])
}

/// The step that first reached the state the run is in now, when it has been there before.
pub fn revisit_of(state: &RunState) -> Option<u32> {
    state.seen_states.get(&world_fingerprint(state)).copied()
}

/// A fingerprint of everything a planner decision should depend on: the world, what
/// research found and which changes line attempts ruled out (a repair step that tested new
/// ones leaves the run knowing more, though the files are as they were). Counters and step
/// numbers are left out on purpose, so the same situation gives the same fingerprint
/// however often it comes back.
pub fn state_fingerprint(state: &RunState) -> String {
    let mut h = Sha256::new();
    h.update(world_fingerprint(state).as_bytes());
    h.update([2]);
    h.update(
        state
            .research
            .results_hash
            .as_deref()
            .unwrap_or_default()
            .as_bytes(),
    );
    for tested in state.lines.iter().flat_map(|m| &m.tested) {
        h.update([4]);
        h.update(tested.as_bytes());
    }
    hex::encode(&h.finalize()[..12])
}

/// The identity of a decision for the exact-repeat rule: where to and with what.
pub fn decision_key(d: &PlannerDecision) -> String {
    match d.next {
        NodeName::Researcher => format!("researcher:{}", d.query.as_deref().unwrap_or("").trim()),
        NodeName::Coder => format!("coder:{}", d.task.as_deref().unwrap_or("").trim()),
        other => other.as_str().to_string(),
    }
}
