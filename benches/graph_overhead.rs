//! Graph overhead: a 60-step scenario whose model is scripted and which runs no commands, so
//! the time measured is the graph's own (state, rules, snapshots, prompts, reports).
//! `cargo bench --bench graph_overhead` prints the figures.

use kotef::run::{self, RunSetup};
use kotef_core::{KotefConfig, LimitsOverride, Profile, Redactor};
use kotef_model::ScriptedModel;
use serde_json::json;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut times = Vec::new();
    let mut steps = 0;
    for round in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..20 {
            std::fs::write(
                dir.path().join(format!("file{i}.txt")),
                format!("content {i}\n").repeat(50),
            )
            .unwrap();
        }
        Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .status()
            .unwrap();
        let planner: Vec<_> = (0..40)
            .map(|i| json!({"content": json!({"next": "researcher", "reason": "more", "query": format!("question {i}")}).to_string()}))
            .collect();
        let researcher: Vec<_> = (0..40)
            .map(|i| json!({"content": json!({"findings": format!("finding number {i} in round {round}"), "quality": 0.5}).to_string()}))
            .collect();
        let model =
            ScriptedModel::from_model_value(&json!({"planner": planner, "researcher": researcher}))
                .unwrap();
        let started = Instant::now();
        let setup = RunSetup::new(
            dir.path(),
            "benchmark",
            KotefConfig::default(),
            Arc::new(model),
        )
        .model_name("scripted")
        .profile(Some(Profile::Strict))
        .limits(LimitsOverride {
            max_steps: Some(60),
            ..Default::default()
        })
        .test_command(Some("true".into()))
        .redactor(Redactor::new());
        let out = rt.block_on(run::execute(setup)).unwrap();
        times.push(started.elapsed());
        steps = out.summary.total_steps;
        assert_eq!(out.summary.stop_rule, Some(kotef_core::StopRule::MaxSteps));
    }
    times.sort();
    let median = times[times.len() / 2];
    println!("graph_overhead: {steps}-step scenario (scripted model, no commands, 20-file repo)");
    println!(
        "  median {:.1} ms per run, {:.2} ms per step (min {:.1} ms, max {:.1} ms over {} runs)",
        median.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3 / f64::from(steps),
        times[0].as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
        times.len()
    );
}
