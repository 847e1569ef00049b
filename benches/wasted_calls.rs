//! Model calls wasted on loops: runs every pathological example scenario through the real
//! graph and prints, from each run's JSON report, the model calls spent after the loop
//! became provable — after the first complete planner cycle without progress that follows
//! the last progress. The slow-progress examples must still succeed (no false abort).
//! `cargo bench --bench wasted_calls` prints the table.

use serde_json::Value;
use std::path::Path;

/// (example, whether it must succeed).
const EXAMPLES: &[(&str, bool)] = &[
    ("noisy-verifier", false),
    ("verifier-loop", false),
    ("unknown-tool", false),
    ("prose-coder", false),
    ("coder-noop", false),
    ("oscillation", false),
    ("researcher-loop", false),
    ("no-progress", false),
    ("fix-attempts-strict", false),
    ("model-error", false),
    ("slow-progress", true),
    ("slow-progress-noisy", true),
    ("provider-blip", true),
    ("planner-verify", true),
];

/// What one run's report says about its loop.
struct Waste {
    calls: usize,
    /// The step after which the loop was provable (`None`: the run never looped).
    provable_after: Option<u64>,
    wasted_calls: usize,
    wasted_cycles: usize,
}

/// The step ending the first planner cycle without progress after the last progress, and
/// what was spent after it.
fn waste(report: &Value) -> Waste {
    let empty = Vec::new();
    let timeline = report["timeline"].as_array().unwrap_or(&empty);
    let calls = report["calls"].as_array().unwrap_or(&empty);
    let last_progress = timeline
        .iter()
        .filter(|s| s["progress"] == true)
        .filter_map(|s| s["step"].as_u64())
        .max()
        .unwrap_or(0);
    let planner_steps: Vec<u64> = timeline
        .iter()
        .filter(|s| s["node"] == "planner")
        .filter_map(|s| s["step"].as_u64())
        .filter(|&step| step > last_progress)
        .collect();
    // The cycle from the first planner step after the last progress ends where the next
    // planner step begins.
    let provable_after = planner_steps.get(1).map(|next| next - 1);
    let wasted_calls = provable_after.map_or(0, |p| {
        calls
            .iter()
            .filter(|c| c["step"].as_u64().is_some_and(|s| s > p))
            .count()
    });
    let wasted_cycles = provable_after.map_or(0, |p| {
        timeline
            .iter()
            .filter(|s| s["node"] == "planner" && s["step"].as_u64().is_some_and(|st| st > p))
            .filter(|s| {
                !s["decision"]
                    .as_object()
                    .is_some_and(|d| d.contains_key("stop") || d.contains_key("refused"))
            })
            .count()
    });
    Waste {
        calls: calls.len(),
        provable_after,
        wasted_calls,
        wasted_cycles,
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    println!("wasted_calls: model calls spent after the loop became provable, per example");
    println!(
        "{:<22} {:<14} {:<22} {:>5} {:>5} {:>9} {:>6} {:>6}",
        "example", "status", "stop rule", "steps", "calls", "provable", "wasted", "cycles"
    );
    let mut false_aborts = 0;
    for (name, must_succeed) in EXAMPLES {
        let path = dir.join(format!("{name}.json"));
        let scenario = kotef::scenario::load(&path).expect("a valid example");
        let ws = tempfile::tempdir().expect("a temp dir");
        let result = rt
            .block_on(kotef::scenario::run_in(&scenario, &dir, ws.path(), None))
            .expect("the scenario runs");
        let s = &result.summary;
        let twin = Path::new(&s.report_path).with_extension("json");
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(&twin).expect("the JSON report"))
                .expect("JSON");
        let w = waste(&report);
        let success = s.terminal_status == kotef_core::TerminalStatus::DoneSuccess;
        if *must_succeed && !success {
            false_aborts += 1;
        }
        println!(
            "{:<22} {:<14} {:<22} {:>5} {:>5} {:>9} {:>6} {:>6}",
            name,
            s.terminal_status.as_str(),
            s.stop_rule.map(|r| r.as_str()).unwrap_or("-"),
            s.total_steps,
            w.calls,
            w.provable_after
                .map(|p| format!("step {p}"))
                .unwrap_or_else(|| "-".into()),
            w.wasted_calls,
            w.wasted_cycles
        );
    }
    println!("false aborts on the slow-progress examples: {false_aborts}");
}
