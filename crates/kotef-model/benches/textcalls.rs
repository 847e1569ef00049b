//! The text tool-call scan on hostile replies: milliseconds per MB of reply for each shape at
//! two sizes. A linear scan shows the same figure at both sizes; a quadratic one doubles it
//! when the reply doubles. `cargo bench -p kotef-model --bench textcalls` prints the table.

use kotef_model::textcalls::{first_json_object, parse_text_tool_calls};
use std::time::Instant;

const OFFERED: [&str; 4] = ["read_file", "edit_file", "run_command", "done"];

/// `unit` repeated up to `bytes` long, then `tail`.
fn reply(unit: &str, bytes: usize, tail: &str) -> String {
    let mut s = unit.repeat(bytes / unit.len().max(1));
    s.push_str(tail);
    s
}

/// Distinct `<function=done>` calls up to `bytes` long (every call kept, none repeated).
fn distinct_tags(bytes: usize) -> String {
    let mut s = String::new();
    let mut n = 0;
    while s.len() < bytes {
        s.push_str(&format!("<function=done>{{\"n\": {n}}}</function>"));
        n += 1;
    }
    s
}

/// The shapes: a name and a reply of about `bytes`.
fn shapes(bytes: usize) -> Vec<(&'static str, String)> {
    let call = "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}";
    vec![
        (
            "prose, then one call",
            reply("I will read the file first. ", bytes, call),
        ),
        ("unclosed braces {{{{", reply("{", bytes, "")),
        ("unclosed {\" pairs", reply("{\"", bytes, "")),
        ("unclosed brackets [[[[", reply("[", bytes, "")),
        (
            "unclosed <function name=..> tags",
            reply("<function name=\"read_file\">", bytes, ""),
        ),
        ("distinct <function=done> calls", distinct_tags(bytes)),
        ("braces, then one call", reply("{", bytes, call)),
    ]
}

/// Milliseconds of the fastest of `runs` scans of `content` (text calls, then the planner's
/// first JSON object).
fn millis(content: &str, runs: usize) -> f64 {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(parse_text_tool_calls(content, &OFFERED));
            std::hint::black_box(first_json_object(content));
            start.elapsed().as_secs_f64() * 1000.0
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    const MB: usize = 1 << 20;
    println!(
        "{:<34} {:>14} {:>14} {:>7}",
        "hostile reply", "ms/MB @256KB", "ms/MB @1MB", "calls"
    );
    let small = shapes(MB / 4);
    let large = shapes(MB);
    for ((name, s), (_, l)) in small.iter().zip(&large) {
        let per_mb_small = millis(s, 3) * MB as f64 / s.len() as f64;
        let per_mb_large = millis(l, 3) * MB as f64 / l.len() as f64;
        let calls = parse_text_tool_calls(l, &OFFERED).len();
        println!("{name:<34} {per_mb_small:>14.1} {per_mb_large:>14.1} {calls:>7}");
    }
}
