//! Prompt size against repository size: synthetic Python repositories of 10, 100, 1,000 and
//! 3,000 files (in nested packages, ~40 lines each) with one bug deep inside (a `NameError` in
//! `pkg/sub7/deep/core_bug.py`, reached from the test through `pkg/api.py`), each run through
//! `kotef run` with a scripted model in the repair loop (`edit_format = "blocks"`): a wrong
//! attempt, the fix, then the planner's `done`. Every model request is recorded on its way to
//! the scripted model and its prompt estimated (the client's chars/4 estimate).
//!
//! `cargo bench --bench repo_scale` prints, per repository size, each call's prompt tokens
//! and the largest against log2 of the file count.

use async_trait::async_trait;
use kotef::run::{self, RunSetup};
use kotef_core::{EditFormat, KotefConfig, Profile, Redactor};
use kotef_model::{Model, ModelError, ModelReply, ModelRequest, ScriptedModel};
use serde_json::json;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

/// Records every request on its way to the scripted model.
struct Recording {
    inner: ScriptedModel,
    requests: Mutex<Vec<ModelRequest>>,
}

#[async_trait]
impl Model for Recording {
    fn name(&self) -> String {
        "scripted".into()
    }
    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        self.requests.lock().unwrap().push(request.clone());
        self.inner.complete(request).await
    }
}

const BUG: &str = "\"\"\"Totals of line items.\"\"\"\n\n\ndef compute_total(items):\n    \"\"\"The sum of the items' prices.\"\"\"\n    total = 0\n    for item in items:\n        total += item['price']\n    return totl\n\n\ndef compute_count(items):\n    return len(items)\n";
const FIX: &str = "def compute_total(items):\n    total = 0\n    for item in items:\n        total += item['price']\n    return total\n";
const WRONG: &str = "def compute_total(items):\n    totl = 0\n    for item in items:\n        totl += item['price'] * 2\n    return totl\n";
const API: &str = "from pkg.sub7.deep.core_bug import compute_total\n\n\ndef order_total(order):\n    return compute_total(order['items'])\n";
const TEST: &str = "import unittest\n\nfrom pkg.api import order_total\n\n\nclass T(unittest.TestCase):\n    def test_total(self):\n        self.assertEqual(order_total({'items': [{'price': 2}, {'price': 3}]}), 5)\n";

fn write(root: &Path, path: &str, text: &str) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A filler module of ten small functions.
fn module(i: usize) -> String {
    (0..10)
        .map(|f| format!("def helper_{i}_{f}(value):\n    \"\"\"Helper {f}.\"\"\"\n    return value + {f}\n\n\n"))
        .collect()
}

/// A committed repository of `n` Python files with the bug inside.
fn repo(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let fixed = [
        ("pkg/__init__.py", ""),
        ("pkg/api.py", API),
        ("pkg/sub7/__init__.py", ""),
        ("pkg/sub7/deep/__init__.py", ""),
        (bug_path(), BUG),
        ("tests/test_core.py", TEST),
        ("README.md", "# shop\n"),
    ];
    for (p, t) in fixed {
        write(r, p, t);
    }
    let py_fixed = fixed.iter().filter(|(p, _)| p.ends_with(".py")).count();
    for i in 0..n.saturating_sub(py_fixed) {
        let path = format!("pkg/sub{}/group{}/mod_{i:05}.py", i % 10, (i / 10) % 12);
        write(r, &path, &module(i));
    }
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &[
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "-c",
            "commit.gpgsign=false",
            "commit",
            "-q",
            "-m",
            "start",
        ],
    ] {
        Command::new("git")
            .args(args)
            .current_dir(r)
            .status()
            .unwrap();
    }
    dir
}

fn block(code: &str) -> serde_json::Value {
    json!({"content": format!("The total is returned under a wrong name.\n\npkg/sub7/deep/core_bug.py\n```python\n{code}```\n")})
}

/// How a run goes.
#[derive(Clone, Copy)]
enum Route {
    /// Verification first, then the repair loop (edit blocks): a wrong attempt, the fix.
    Repair,
    /// The planner first: the researcher searches and reads, the coder (tool calls) reads,
    /// edits and is done, the planner ends the run.
    Tools,
}

fn call(name: &str, arguments: serde_json::Value) -> serde_json::Value {
    json!({"tool_calls": [{"name": name, "arguments": arguments}]})
}

fn plan(text: serde_json::Value) -> serde_json::Value {
    json!({"content": text.to_string()})
}

/// The scripted model of a route and whether the route edits in blocks.
fn script(route: Route) -> (serde_json::Value, bool) {
    let bug = "pkg/sub7/deep/core_bug.py";
    match route {
        Route::Repair => (
            json!({
                "planner": [plan(json!({"next": "done", "reason": "the tests pass"}))],
                "coder": [block(WRONG), block(FIX)]
            }),
            true,
        ),
        Route::Tools => (
            json!({
                "planner": [
                    plan(json!({"next": "researcher", "reason": "find the total", "query": "Where is the order total computed?"})),
                    plan(json!({"next": "coder", "reason": "fix it", "task": format!("In {bug}, compute_total returns `totl`: return `total`.")})),
                    plan(json!({"next": "done", "reason": "the tests pass"}))
                ],
                "researcher": [
                    call("search", json!({"pattern": "def compute_total"})),
                    call("read_file", json!({"path": bug})),
                    {"content": json!({"findings": format!("{bug} returns totl"), "quality": 0.9}).to_string()}
                ],
                "coder": [
                    call("read_file", json!({"path": bug})),
                    call("edit_file", json!({"path": bug, "old": "    return totl\n", "new": "    return total\n"})),
                    call("done", json!({"summary": "fixed"}))
                ]
            }),
            false,
        ),
    }
}

/// Runs kotef on a repository of `n` files along `route`; every request it made.
fn measure(n: usize, route: Route) -> Vec<ModelRequest> {
    let dir = repo(n);
    let (script, blocks) = script(route);
    let model = Arc::new(Recording {
        inner: ScriptedModel::from_model_value(&script).unwrap(),
        requests: Mutex::new(Vec::new()),
    });
    let config = KotefConfig {
        edit_format: Some(if blocks {
            EditFormat::Blocks
        } else {
            EditFormat::Tools
        }),
        ..KotefConfig::default()
    };
    let setup = RunSetup::new(
        dir.path(),
        "order_total() fails on a simple order: make tests/test_core.py pass.",
        config,
        model.clone(),
    )
    .model_name("scripted")
    .verify_first(Some(blocks))
    .profile(Some(Profile::Strict))
    .test_command(Some("python3 -m unittest -q tests.test_core".into()))
    .redactor(Redactor::new());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let summary = rt.block_on(run::execute(setup)).unwrap();
    let fixed = std::fs::read_to_string(dir.path().join(bug_path())).unwrap();
    eprintln!(
        "{n} files: {:?}, bug fixed: {}",
        summary.summary.terminal_status,
        fixed.contains("return total\n")
    );
    let requests = model.requests.lock().unwrap().clone();
    requests
}

fn bug_path() -> &'static str {
    "pkg/sub7/deep/core_bug.py"
}

fn main() {
    println!("repo_scale: prompt tokens per model call against the repository's file count");
    println!(
        "{:>6} {:>7} {:>6} {:>10} {:>14} {:>8}",
        "files", "route", "call", "node", "prompt tokens", "chars"
    );
    let mut largest: Vec<(usize, u64, u64)> = Vec::new();
    for n in [10, 100, 1000, 3000] {
        let mut max = [0u64; 2];
        for (k, (route, name)) in [(Route::Repair, "repair"), (Route::Tools, "tools")]
            .into_iter()
            .enumerate()
        {
            for (i, r) in measure(n, route).iter().enumerate() {
                let chars: usize = r.messages.iter().map(|m| m.content.len()).sum();
                let tokens = r.estimated_prompt_tokens();
                max[k] = max[k].max(tokens);
                println!(
                    "{n:>6} {name:>7} {:>6} {:>10} {tokens:>14} {chars:>8}",
                    i + 1,
                    r.node.as_str()
                );
            }
        }
        largest.push((n, max[0], max[1]));
    }
    println!("\nlargest prompt per repository size (tokens):");
    println!(
        "{:>6} {:>8} {:>8} {:>8} {:>14}",
        "files", "repair", "tools", "log2(n)", "tools vs 10"
    );
    let base = largest[0].2 as f64;
    for (n, repair, tools) in &largest {
        println!(
            "{n:>6} {repair:>8} {tools:>8} {:>8.2} {:>13.2}x",
            (*n as f64).log2(),
            *tools as f64 / base
        );
    }
}
