//! Mutation fuzzing of what kotef reads from outside: webhook signature checks, event parsing
//! (the edge's decision, and push payloads), the planner's reply and text tool calls. Each
//! target gets `--cases N` inputs made by mutating real seeds (the octokit webhook examples, a
//! planner reply, text tool calls) with a seeded xorshift generator: byte flips, cut and
//! repeated ranges, JSON tokens and markup spliced in, truncation, seeds crossed. A target fails
//! on a panic, on a case slower than `--max-case-ms` (a hang), or on a property it breaks (a
//! mutated signature that verifies). Then `--http-cases` (default a fiftieth) mutated payloads,
//! correctly signed, go to a running server over loopback: no answer may be a 5xx. Prints one
//! line per target; exits non-zero on a failure.
//!
//! `scripts/fuzz-edge.sh [CASES]` runs it (CI runs a short smoke).

use kotef_github::inbound::decide::decide;
use kotef_github::inbound::push::config_push;
use kotef_github::inbound::signature::{sign, verify};
use kotef_github::inbound::trigger::AdmissionConfig;
use kotef_github::secret::Secret;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// A seeded xorshift64* generator: the same seed gives the same cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Tokens spliced into inputs: JSON structure, webhook fields, markup kotef reads.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "null",
    "true",
    "-1",
    "1e999",
    "18446744073709551616",
    "\"action\"",
    "\"labeled\"",
    "\"created\"",
    "\"label\"",
    "\"name\"",
    "\"kotef\"",
    "\"number\"",
    "\"full_name\"",
    "\"a/b\"",
    "\"/\"",
    "\"sender\"",
    "\"type\":\"Bot\"",
    "\\u0000",
    "\\ud800",
    "\\\"",
    "/kotef run",
    "/kotef",
    "<!--",
    "-->",
    "```",
    "```json\n",
    "<function=",
    "</function>",
    "<parameter=",
    "{\"name\":",
    "\"arguments\":",
    "\"next\":",
    "\"done\"",
    "\u{200B}",
    "\u{202E}",
    "\0",
    "\r\n",
    "é",
    "🦀",
];

fn mutate(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut v = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(8) {
        let len = v.len();
        let at = rng.below(len + 1);
        match rng.below(8) {
            0 if len > 0 => v[at.min(len - 1)] ^= 1 << rng.below(8),
            1 => {
                let end = (at + rng.below(64)).min(len);
                v.drain(at..end);
            }
            2 => {
                let end = (at + rng.below(64)).min(len);
                let piece = v[at..end].to_vec();
                for _ in 0..1 + rng.below(4) {
                    v.splice(at..at, piece.iter().copied());
                }
            }
            3 => v.truncate(at),
            4 => {
                let other = &seeds[rng.below(seeds.len())];
                let from = rng.below(other.len() + 1);
                v.truncate(at);
                v.extend_from_slice(&other[from..]);
            }
            5 => {
                let noise: Vec<u8> = (0..rng.below(16)).map(|_| rng.next() as u8).collect();
                v.splice(at..at, noise);
            }
            _ => {
                let t = TOKENS[rng.below(TOKENS.len())].as_bytes();
                v.splice(at..at, t.iter().copied());
            }
        }
    }
    v
}

/// One target's tally.
#[derive(Default)]
struct Tally {
    cases: u64,
    failures: Vec<String>,
    slowest: Duration,
    total: Duration,
}

impl Tally {
    /// Runs one case: a panic, a case over `limit` or a broken property (`Err`) fails it.
    fn case(&mut self, limit: Duration, input: &[u8], f: impl FnOnce() -> Result<(), String>) {
        let start = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(f));
        let failure = match outcome {
            Err(_) => Some("panic".to_string()),
            Ok(r) => r.err(),
        };
        self.observe(limit, start.elapsed(), input, failure);
    }

    /// Counts one case that took `took` and ended with `failure` (if any).
    fn observe(&mut self, limit: Duration, took: Duration, input: &[u8], failure: Option<String>) {
        self.cases += 1;
        self.total += took;
        self.slowest = self.slowest.max(took);
        let failure = failure.or_else(|| (took > limit).then(|| format!("took {took:?}")));
        if let Some(why) = failure {
            if self.failures.len() < 5 {
                let shown = String::from_utf8_lossy(&input[..input.len().min(200)]).into_owned();
                self.failures.push(format!("{why} on {shown:?}"));
            }
        }
    }

    fn report(&self, name: &str) -> bool {
        let mean = self.total.as_secs_f64() * 1e6 / self.cases.max(1) as f64;
        println!(
            "{name:<12} {:>9} cases  {:>3} failures  mean {mean:.1} µs  slowest {:.2} ms",
            self.cases,
            self.failures.len(),
            self.slowest.as_secs_f64() * 1e3
        );
        for f in &self.failures {
            println!("    {f}");
        }
        self.failures.is_empty()
    }
}

fn webhook_seeds() -> Vec<(String, Vec<u8>)> {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/kotef-github/tests/fixtures/octokit-webhooks-examples"
    );
    let mut seeds: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("the webhook examples")
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let event = name
                .strip_suffix(".payload.json")?
                .split('.')
                .next()?
                .to_string();
            Some((event, std::fs::read(e.path()).ok()?))
        })
        .collect();
    seeds.sort();
    seeds
}

const EVENTS: &[&str] = &[
    "issues",
    "issue_comment",
    "pull_request",
    "pull_request_review",
    "pull_request_review_comment",
    "ping",
    "push",
    "star",
];

fn fuzz_events(rng: &mut Rng, cases: u64, limit: Duration) -> bool {
    let seeds = webhook_seeds();
    let bodies: Vec<Vec<u8>> = seeds.iter().map(|(_, b)| b.clone()).collect();
    let cfg = AdmissionConfig {
        bot_login: Some("kotef-bot".into()),
        app_id: Some(1),
        repository_labels: true,
        ..AdmissionConfig::default()
    };
    let mut t = Tally::default();
    for _ in 0..cases {
        let body = mutate(rng, &bodies);
        let event = match rng.below(4) {
            0 => EVENTS[rng.below(EVENTS.len())],
            _ => seeds[rng.below(seeds.len())].0.as_str(),
        };
        t.case(limit, &body, || {
            if event == "push" {
                let _ = config_push(&body);
            } else {
                let _ = decide(event, &body, &cfg);
            }
            Ok(())
        });
    }
    t.report("events")
}

fn fuzz_signature(rng: &mut Rng, cases: u64, limit: Duration) -> bool {
    let secrets = [Secret::from("s3cret"), Secret::from("rotated")];
    let bodies: Vec<Vec<u8>> = webhook_seeds().into_iter().map(|(_, b)| b).collect();
    let mut t = Tally::default();
    for _ in 0..cases {
        let body = mutate(rng, &bodies);
        let good = sign("s3cret", &body);
        let header = match rng.below(3) {
            0 => good.clone(),
            _ => String::from_utf8_lossy(&mutate(rng, &[good.clone().into_bytes()])).into_owned(),
        };
        t.case(limit, header.as_bytes(), || {
            let ok = verify(&secrets, Some(&header), &body);
            let same = header.trim().eq_ignore_ascii_case(&good);
            match (ok, same) {
                (true, false) => Err(format!("a mutated signature verified: {header}")),
                (false, true) if header.trim() == good => Err("a good signature failed".into()),
                _ => Ok(()),
            }
        });
    }
    t.report("signature")
}

const PLANNER_SEEDS: &[&str] = &[
    "{\"next\": \"coder\", \"reason\": \"write it\", \"plan\": [\"a\", \"b\"]}",
    "Sure.\n```json\n{\"next\":\"verifier\",\"reason\":\"check\",\"plan\":\"run tests\"}\n```\n",
    "{\"next\": \"done\", \"reason\": \"all green\", \"done\": {\"summary\": \"ok\"}}",
];

const TEXTCALL_SEEDS: &[&str] = &[
    "{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"hi\"}}",
    "<function=run_command>\n<parameter=command>cargo test</parameter>\n</function>",
    "```json\n[{\"name\":\"read_file\",\"arguments\":{\"path\":\"src/lib.rs\"}}]\n```",
    "{\"tool\": \"apply_patch\", \"args\": {\"patch\": \"--- a\\n+++ b\\n\"}} and {\"name\":\"list_dir\"}",
];

fn fuzz_model_text(rng: &mut Rng, cases: u64, limit: Duration) -> bool {
    let planner: Vec<Vec<u8>> = PLANNER_SEEDS
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let calls: Vec<Vec<u8>> = TEXTCALL_SEEDS
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let offered = [
        "write_file",
        "run_command",
        "read_file",
        "apply_patch",
        "list_dir",
    ];
    let (mut p, mut c) = (Tally::default(), Tally::default());
    for _ in 0..cases {
        let text = String::from_utf8_lossy(&mutate(rng, &planner)).into_owned();
        p.case(limit, text.as_bytes(), || {
            let _ = kotef::graph::nodes::planner::parse_decision(&text);
            Ok(())
        });
        let text = String::from_utf8_lossy(&mutate(rng, &calls)).into_owned();
        c.case(limit, text.as_bytes(), || {
            let _ = kotef_model::textcalls::parse_text_tool_calls(&text, &offered);
            Ok(())
        });
    }
    // The worst shapes the mutations rarely reach: long runs of openers.
    for shape in ["{", "[", "{\"", "<function=", "{\"name\":"] {
        let text = shape.repeat(50_000 / shape.len().max(1));
        p.case(limit * 2, shape.as_bytes(), || {
            let _ = kotef::graph::nodes::planner::parse_decision(&text);
            Ok(())
        });
        c.case(limit * 2, shape.as_bytes(), || {
            let _ = kotef_model::textcalls::parse_text_tool_calls(&text, &offered);
            Ok(())
        });
    }
    let a = p.report("planner");
    c.report("textcalls") && a
}

/// Mutated payloads, correctly signed, posted at a running `kotef serve` (in-process, with the
/// fake GitHub on loopback): every answer is below 500.
fn fuzz_http(rng: &mut Rng, cases: u64, limit: Duration) -> bool {
    let seeds = webhook_seeds();
    let bodies: Vec<Vec<u8>> = seeds.iter().map(|(_, b)| b.clone()).collect();
    let inputs: Vec<(String, Vec<u8>)> = (0..cases)
        .map(|_| {
            let event = seeds[rng.below(seeds.len())].0.clone();
            (event, mutate(rng, &bodies))
        })
        .collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let t = rt.block_on(async move {
        let gh = kotef_testkit::FakeGitHub::start().await;
        gh.add_repo("Codertocat/Hello-World", "master");
        let dirs = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut cfg = gh.serve_config(&["s3cret"], dirs.0.path(), dirs.1.path());
        cfg.executor = kotef_github::config::ExecutorMode::Actions;
        let exec = kotef_testkit::FakeExecutor::new(kotef_testkit::FakeBehavior::Succeed);
        let server = kotef_github::start(cfg, std::sync::Arc::new(exec))
            .await
            .expect("the server starts");
        let url = format!("http://{}/webhook", server.addr());
        let client = reqwest::Client::new();
        let mut t = Tally::default();
        for (i, (event, body)) in inputs.iter().enumerate() {
            let start = Instant::now();
            let sent = kotef_testkit::send_webhook(
                &client,
                &url,
                "s3cret",
                event,
                &format!("fuzz-{i}"),
                body,
            )
            .await;
            let status = sent.map(|r| r.status().as_u16()).unwrap_or(0);
            let failure = match status {
                0 => Some("no answer".to_string()),
                s if s >= 500 => Some(format!("answered {s}")),
                _ => None,
            };
            t.observe(limit, start.elapsed(), body, failure);
        }
        server.shutdown().await;
        t
    });
    t.report("http")
}

fn arg(args: &[String], name: &str) -> Option<u64> {
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1)?.parse().ok()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cases = arg(&args, "--cases").unwrap_or(10_000);
    let seed = arg(&args, "--seed").unwrap_or(0x6b6f_7465_6621);
    let limit = Duration::from_millis(arg(&args, "--max-case-ms").unwrap_or(2000));
    // Over HTTP each case is a request: a fiftieth of the cases by default.
    let http_cases = arg(&args, "--http-cases").unwrap_or(cases / 50);
    // A panic is counted, not printed a million times.
    std::panic::set_hook(Box::new(|_| {}));
    println!("fuzz: {cases} cases per target, seed {seed:#x}, a case over {limit:?} fails");
    let mut rng = Rng(seed.max(1));
    let start = Instant::now();
    let ok = [
        fuzz_signature(&mut rng, cases, limit),
        fuzz_events(&mut rng, cases, limit),
        fuzz_model_text(&mut rng, cases, limit),
        fuzz_http(&mut rng, http_cases, limit),
    ]
    .iter()
    .all(|ok| *ok);
    println!("fuzz: {:.1}s", start.elapsed().as_secs_f64());
    if !ok {
        std::process::exit(1);
    }
}
