//! The repair loop on repositories of many files, from outside: `kotef run` on a real git
//! repository against a fake self-hosted OpenAI-compatible server on loopback (so the `auto`
//! edit format picks edit blocks). What the model is shown (the traceback's files, a long
//! file's outline and function, installed code named as outside), where a block that names
//! no file goes, and the move to other files when attempts keep failing in one.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use kotef_core::{RunSummary, StopRule, TerminalStatus};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The mark of a scripted reply the fake sends as cut at the token cap.
const CUT: &str = "<cut>";

struct Fake {
    /// What the repair attempts answer, in order; the last one repeats.
    replies: Vec<String>,
    /// llama.cpp's `timings` sent with every reply: the speed kotef measures the server by.
    timings: Option<Value>,
    /// Every repair request's opening (the first user message).
    openings: Vec<String>,
    /// Every repair request's last message (the list of tried attempts, or the opening; a
    /// line attempt's begun reply).
    lasts: Vec<String>,
    /// Every line attempt's opening (the first user message).
    line_openings: Vec<String>,
    /// What a line attempt (a reply begun at one statement) answers: the rest of the reply
    /// after the first begun statement holding the key; none of them, the statement again.
    lines: Vec<(String, String)>,
    /// What a line attempt asking for alternatives answers, begun at the statement holding
    /// the key: the tokens it writes, each with the other tokens likely there (llama.cpp's
    /// `logprobs`).
    ranked: Vec<(String, Vec<Token>)>,
    /// What a line attempt begun further (a branch) answers: the rest after a begun reply
    /// ending with the key.
    branch_rests: Vec<(String, String)>,
    /// Whether `GET /v1/models` lists a model owned by `llamacpp`, as llama.cpp's does (else
    /// 404, as a server without the list answers).
    names_itself: bool,
}

/// A token a fake line attempt writes: its text, log-probability and the likely others.
type Token = (&'static str, f64, Vec<(&'static str, f64)>);

/// A line attempt's answer from [`Fake::ranked`] or [`Fake::branch_rests`], when the request
/// asked for alternatives: its text and its `logprobs`.
fn ranked_answer(f: &Fake, begun: &str) -> Option<(String, Value)> {
    let (statement, after) = begun.split_once("=======\n")?;
    if after.is_empty() {
        let (_, tokens) = f
            .ranked
            .iter()
            .find(|(k, _)| statement.contains(k.as_str()))?;
        let entry = |t: &str, lp: f64| json!({"token": t, "logprob": lp});
        let content: Vec<Value> = tokens
            .iter()
            .map(|(t, lp, others)| {
                let mut e = entry(t, *lp);
                e["top_logprobs"] = others.iter().map(|(o, l)| entry(o, *l)).collect();
                e
            })
            .collect();
        let text: String = tokens.iter().map(|(t, _, _)| *t).collect();
        return Some((text, json!({ "content": content })));
    }
    let (_, rest) = f
        .branch_rests
        .iter()
        .find(|(k, _)| after.ends_with(k.as_str()))?;
    Some((rest.clone(), json!({"content": []})))
}

async fn chat(State(fake): State<Arc<Mutex<Fake>>>, Json(body): Json<Value>) -> Json<Value> {
    let mut f = fake.lock().unwrap();
    let text = |i: usize| {
        body["messages"][i]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let last = body["messages"].as_array().map_or(0, |m| m.len() - 1);
    let begun = (body["messages"][last]["role"] == "assistant").then(|| text(last));
    let ranked = begun
        .as_deref()
        .filter(|_| body.get("top_logprobs").is_some())
        .and_then(|b| ranked_answer(&f, b));
    let mut logprobs = None;
    if begun.is_some() {
        f.line_openings.push(text(1));
    }
    let content = if let Some((text, lp)) = ranked {
        f.lasts.push(begun.unwrap_or_default());
        logprobs = Some(lp);
        text
    } else if let Some(begun) = begun {
        // A line attempt: continue the begun block, as llama.cpp does.
        f.lasts.push(begun.clone());
        let statement = begun
            .split("=======")
            .next()
            .unwrap_or_default()
            .to_string();
        let same = statement
            .rsplit("SEARCH\n")
            .next()
            .unwrap_or_default()
            .to_string();
        let rest = f
            .lines
            .iter()
            .find(|(key, _)| statement.contains(key.as_str()))
            .map_or(same, |(_, rest)| rest.clone());
        format!("{rest}>>>>>>> REPLACE\n```\n")
    } else if text(0).starts_with("You fix a bug.") {
        let n = f.openings.len();
        f.openings.push(text(1));
        let last = body["messages"].as_array().map_or(0, |m| m.len() - 1);
        f.lasts.push(text(last));
        f.replies[n.min(f.replies.len() - 1)].clone()
    } else if text(0).contains("**planner**") {
        json!({"next": "snitch", "reason": "the fix did not work"}).to_string()
    } else {
        "I cannot call tools.".to_string()
    };
    // A reply written as `<cut>…` arrives cut at the token cap.
    let (content, finish) = match content.strip_prefix(CUT) {
        Some(rest) => (rest.to_string(), "length"),
        None => (content, "stop"),
    };
    let mut reply = json!({"id": "x", "object": "chat.completion", "model": "local",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": finish}],
        "usage": {"prompt_tokens": 200, "completion_tokens": 40}});
    if let Some(t) = &f.timings {
        reply["timings"] = t.clone();
    }
    if let Some(lp) = logprobs {
        reply["choices"][0]["logprobs"] = lp;
    }
    Json(reply)
}

async fn models(State(fake): State<Arc<Mutex<Fake>>>) -> Result<Json<Value>, StatusCode> {
    if !fake.lock().unwrap().names_itself {
        return Err(StatusCode::NOT_FOUND);
    }
    Ok(Json(json!({"object": "list",
        "data": [{"id": "local", "object": "model", "owned_by": "llamacpp"}]})))
}

async fn serve(replies: &[String], timings: Option<Value>) -> (String, Arc<Mutex<Fake>>) {
    let state = Arc::new(Mutex::new(Fake {
        replies: replies.to_vec(),
        timings,
        openings: Vec::new(),
        lasts: Vec::new(),
        line_openings: Vec::new(),
        lines: Vec::new(),
        ranked: Vec::new(),
        branch_rests: Vec::new(),
        names_itself: false,
    }));
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/models", get(models))
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/v1"), state)
}

/// `n` filler modules under `pkg/filler/`, so the repository has many files.
fn filler(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            (
                format!("pkg/filler/mod_{i:04}.py"),
                format!("def helper_{i}(x):\n    return x + {i}\n"),
            )
        })
        .collect()
}

struct Run {
    summary: RunSummary,
    repo: tempfile::TempDir,
    fake: Arc<Mutex<Fake>>,
}

impl Run {
    /// The run ended `done_success` (its summary shown otherwise).
    fn assert_success(&self) {
        assert_eq!(
            self.summary.terminal_status,
            TerminalStatus::DoneSuccess,
            "{:?}",
            self.summary
        );
    }
}

/// Runs `kotef run` on a committed repository of `files` against the fake.
async fn run(files: Vec<(String, String)>, goal: &str, test: &str, replies: &[String]) -> Run {
    run_timed(files, goal, test, replies, None).await
}

/// [`run`] against a fake whose replies carry `timings` (its measured speed).
async fn run_timed(
    files: Vec<(String, String)>,
    goal: &str,
    test: &str,
    replies: &[String],
    timings: Option<Value>,
) -> Run {
    run_lines(files, goal, test, replies, timings, &[]).await
}

/// [`run_timed`] against a fake whose line attempts answer as `lines` says ([`Fake::lines`]).
async fn run_lines(
    files: Vec<(String, String)>,
    goal: &str,
    test: &str,
    replies: &[String],
    timings: Option<Value>,
    lines: &[(&str, &str)],
) -> Run {
    let lines = owned(lines);
    run_with(files, goal, test, replies, timings, |f| f.lines = lines).await
}

/// `lines` as the fake keeps them.
fn owned(lines: &[(&str, &str)]) -> Vec<(String, String)> {
    (lines.iter())
        .map(|(k, r)| (k.to_string(), r.to_string()))
        .collect()
}

/// [`run_timed`] against a fake that `configure` set up first.
async fn run_with(
    files: Vec<(String, String)>,
    goal: &str,
    test: &str,
    replies: &[String],
    timings: Option<Value>,
    configure: impl FnOnce(&mut Fake),
) -> Run {
    let fake = (replies, timings, configure);
    run_with_args(files, goal, test, fake, &[]).await
}

/// [`run_with`], `kotef run` given `args` too.
async fn run_with_args(
    files: Vec<(String, String)>,
    goal: &str,
    test: &str,
    (replies, timings, configure): (&[String], Option<Value>, impl FnOnce(&mut Fake)),
    args: &[&str],
) -> Run {
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let repo = kotef_testkit::committed_repo(&refs, &[]);
    let (url, fake) = serve(replies, timings).await;
    configure(&mut fake.lock().unwrap());
    let summary = kotef_testkit::KotefRun::new(env!("CARGO_BIN_EXE_kotef"), repo.path())
        .goal(goal)
        .local_server(&url)
        .test_command(test)
        .args(["--time-budget-s", "120"])
        .args(args)
        .timeout(std::time::Duration::from_secs(240))
        .run()
        .await
        .summary();
    Run {
        summary,
        repo,
        fake,
    }
}

/// The run's transcript (`.sdd/runs/<id>.transcript.jsonl`), empty when there is none.
fn transcript(r: &Run) -> String {
    std::fs::read_dir(r.repo.path().join(".sdd/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".transcript.jsonl"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .unwrap_or_default()
}

/// How often the run's transcript has two test runs of `command` in a row.
fn runs_in_a_row(r: &Run, command: &str) -> usize {
    let runs: Vec<String> = transcript(r)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "verification")
        .map(|e| e["command"].as_str().unwrap_or_default().to_string())
        .collect();
    runs.windows(2)
        .filter(|w| w[0] == command && w[1] == command)
        .count()
}

fn read(repo: &Path, file: &str) -> String {
    std::fs::read_to_string(repo.join(file)).unwrap()
}

fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

/// The section of an opening between `# Files` and the failure.
fn files_section(opening: &str) -> &str {
    let from = opening.find("# Files").unwrap();
    let to = opening
        .find("# The failing test")
        .or_else(|| opening.find("# How the tests fail now"))
        .unwrap();
    &opening[from..to]
}

const TRACER: &str = "def write_all(lines, sink):\n    for line in lines:\n        sink(line)\n\n\ndef trace(lines):\n    out = []\n    write_all(lines, lambda l: out.append(output_path + l))\n    return out\n";
const EXT: &str = "def each(items, f):\n    return [f(i) for i in items]\n";
const TRACER_TEST: &str = "import sys\nimport unittest\n\nsys.path.insert(0, '.venv/lib/python3.11/site-packages')\n\nimport extlib\nfrom pkg.tracer import trace\n\n\nclass T(unittest.TestCase):\n    def test_trace(self):\n        self.assertEqual(extlib.each([['a']], trace), [['a']])\n";

/// A repository whose failure passes through an installed package: the test calls
/// `extlib.each` (under `.venv/…/site-packages`), which calls back into `pkg/tracer.py`.
fn traced_repo() -> Vec<(String, String)> {
    let mut f = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/tracer.py", TRACER),
        (".venv/lib/python3.11/site-packages/extlib.py", EXT),
        ("test_tracer.py", TRACER_TEST),
    ]);
    f.extend(filler(300));
    f
}

const TRACER_FIX: &str = "The name is wrong.\n\npkg/tracer.py\n```python\ndef trace(lines):\n    out = []\n    write_all(lines, lambda l: out.append(l))\n    return out\n```\n";

#[tokio::test]
async fn the_tracebacks_repository_frames_are_opened_and_installed_code_is_named_outside() {
    let r = run(
        traced_repo(),
        "The tracer fails: make test_tracer.py pass.",
        "python3 -m unittest -q test_tracer",
        &[TRACER_FIX.to_string()],
    )
    .await;
    r.assert_success();
    let f = r.fake.lock().unwrap();
    let opening = &f.openings[0];
    let shown = files_section(opening);
    assert!(
        shown.contains("pkg/tracer.py\n```\ndef write_all(lines, sink):"),
        "{opening}"
    );
    assert!(!shown.contains("def each(items, f)"), "{opening}");
    assert!(
        opening.contains("NameError: name 'output_path' is not defined")
            && opening.contains(
                "files outside the repository (installed packages, the standard library, the virtualenv)"
            )
            && opening.contains(".venv/lib/python3.11/site-packages/extlib.py`"),
        "{opening}"
    );
}

/// A 2,000-line module with a bug in one of its 400 functions.
fn big_module() -> String {
    let mut text = String::from("import math\n\n\n");
    for i in 0..400 {
        let body = if i == 250 {
            "    total = a + b\n    return totl * 2\n".to_string()
        } else {
            format!("    total = a + b + {i}\n    return total * 2\n")
        };
        text.push_str(&format!("def compute_{i}(a, b):\n{body}\n\n"));
    }
    text
}

const BIG_TEST: &str = "import unittest\n\nfrom pkg.big import compute_250\n\n\nclass T(unittest.TestCase):\n    def test_250(self):\n        self.assertEqual(compute_250(1, 2), 6)\n";

#[tokio::test]
async fn one_function_of_a_long_file_is_shown_and_replaced_without_copying_the_file() {
    let big = big_module();
    assert!(big.lines().count() >= 2000);
    let fix = "The name is misspelt.\n\n```python\ndef compute_250(a, b):\n    total = a + b\n    return total * 2\n```\n";
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/big.py", &big),
        ("test_big.py", BIG_TEST),
    ]);
    repo.extend(filler(50));
    let r = run(
        repo,
        "compute_250 fails: make test_big.py pass.",
        "python3 -m unittest -q test_big",
        &[fix.to_string()],
    )
    .await;
    r.assert_success();
    let after = read(r.repo.path(), "pkg/big.py");
    assert_eq!(after, big.replace("return totl * 2", "return total * 2"));
    let f = r.fake.lock().unwrap();
    let opening = &f.openings[0];
    let lines = big.lines().count();
    assert!(
        opening.contains(&format!("pkg/big.py has {lines} lines"))
            && opening.contains("pkg/big.py lines 1254-1256, `compute_250`")
            && !opening.contains("def compute_7(a, b):\n    total"),
        "{opening}"
    );
    assert!(
        opening.len() < big.len() / 5,
        "{} of {}",
        opening.len(),
        big.len()
    );
}

/// `pkg/big.py` ([`big_module`]) among filler modules, against a fake llama.cpp whose line
/// attempt at the misspelt name fixes it and whose free attempt rewrites the function
/// unchanged; `names_itself`: its model list says it is llama.cpp.
async fn run_big_lines(module: &str, names_itself: bool) -> Run {
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/big.py", module),
        ("test_big.py", BIG_TEST),
    ]);
    repo.extend(filler(50));
    let unchanged =
        "```python\ndef compute_250(a, b):\n    total = a + b\n    return totl * 2\n```\n";
    run_with(
        repo,
        "compute_250 fails: make test_big.py pass.",
        "python3 -m unittest -q test_big",
        &[unchanged.to_string()],
        Some(llama_timings()),
        |f| {
            f.lines = vec![("return totl".into(), "    return total * 2\n".into())];
            f.names_itself = names_itself;
        },
    )
    .await
}

/// Whether the fake's first repair request was a line attempt (a reply begun at a statement).
fn first_was_a_line_attempt(f: &Fake) -> bool {
    f.lasts
        .first()
        .is_some_and(|l| l.contains("<<<<<<< SEARCH") && l.ends_with("=======\n"))
}

#[tokio::test]
async fn in_a_long_file_on_llama_cpp_the_first_attempt_is_a_line_attempt() {
    let r = run_big_lines(&big_module(), true).await;
    r.assert_success();
    let f = r.fake.lock().unwrap();
    assert!(first_was_a_line_attempt(&f), "{:?}", f.lasts);
    assert!(f.openings.is_empty(), "a free attempt was made");
}

#[tokio::test]
async fn a_server_that_does_not_name_itself_gets_the_free_attempt_first() {
    let r = run_big_lines(&big_module(), false).await;
    let f = r.fake.lock().unwrap();
    assert!(!first_was_a_line_attempt(&f), "{:?}", f.lasts);
    assert_eq!(f.openings.len(), 1, "{:?}", f.lasts);
}

#[tokio::test]
async fn a_file_shown_whole_gets_the_free_attempt_first_even_on_llama_cpp() {
    let short = "def compute_250(a, b):\n    total = a + b\n    return totl * 2\n";
    let r = run_big_lines(short, true).await;
    let f = r.fake.lock().unwrap();
    assert!(!first_was_a_line_attempt(&f), "{:?}", f.lasts);
    assert_eq!(f.openings.len(), 1, "{:?}", f.lasts);
}

const UTIL: &str = "def normalize(path):\n    return path.lower()\n";
const API: &str = "from pkg.deep.util import normalize\n";
const UTIL_TEST: &str = "import unittest\n\nfrom pkg.api import normalize\n\n\nclass T(unittest.TestCase):\n    def test_strip(self):\n        self.assertEqual(normalize(' A '), 'a')\n";

#[tokio::test]
async fn a_block_that_names_no_file_goes_to_the_one_file_that_defines_its_function() {
    let fix =
        "Strip it.\n\n```python\ndef normalize(path):\n    return path.strip().lower()\n```\n";
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/deep/__init__.py", ""),
        ("pkg/deep/util.py", UTIL),
        ("pkg/api.py", API),
        ("test_util.py", UTIL_TEST),
    ]);
    repo.extend(filler(200));
    let r = run(
        repo,
        "Fix the failing test in test_util.py.",
        "python3 -m unittest -q test_util",
        &[fix.to_string()],
    )
    .await;
    r.assert_success();
    assert_eq!(
        read(r.repo.path(), "pkg/deep/util.py"),
        "def normalize(path):\n    return path.strip().lower()\n"
    );
}

#[tokio::test]
async fn a_block_whose_function_two_files_define_is_refused_listing_both() {
    let ambiguous = "```python\ndef helper(x):\n    return x\n```\n";
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/a/helpers.py", "def helper(x):\n    return x + 1\n"),
        ("pkg/b/helpers.py", "def helper(x):\n    return x + 2\n"),
        ("pkg/deep/__init__.py", ""),
        ("pkg/deep/util.py", UTIL),
        ("pkg/api.py", API),
        ("test_util.py", UTIL_TEST),
    ]);
    repo.extend(filler(20));
    let r = run(
        repo,
        "Fix the failing test in test_util.py.",
        "python3 -m unittest -q test_util",
        &[ambiguous.to_string()],
    )
    .await;
    let f = r.fake.lock().unwrap();
    assert!(f.lasts.len() >= 2, "{:?}", r.summary);
    assert!(
        f.lasts[1].contains("`helper` is in `pkg/a/helpers.py`, `pkg/b/helpers.py`"),
        "{}",
        f.lasts[1]
    );
}

const STATUS: &str = "class ExitStatus:\n    OK = 0\n    ERROR = 1\n    ERROR_TIMEOUT = 2\n    ERROR_TOO_MANY_REDIRECTS = 6\n\n\ndef run(redirects):\n    from pkg.core import main\n    return main(redirects)\n";
const CORE: &str = "from pkg import ExitStatus\n\nMAX_REDIRECTS = 30\n\n\ndef main(redirects):\n    if redirects > MAX_REDIRECTS:\n        return ExitStatus.ERROR\n    return ExitStatus.OK\n";
const CLIENT: &str = "from pkg import ExitStatus\n\n\ndef status_of(code):\n    return ExitStatus.ERROR_TOO_MANY_REDIRECTS if code == 'redirects' else ExitStatus.OK\n";
const REDIRECT_TEST: &str = "import unittest\n\nimport pkg\n\n\nclass T(unittest.TestCase):\n    def test_max_redirects(self):\n        self.assertEqual(pkg.run(31), pkg.ExitStatus.ERROR_TOO_MANY_REDIRECTS)\n";

fn status_edit(old: &str, new: &str) -> String {
    format!("Reorder.\n\npkg/__init__.py\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n")
}

#[tokio::test]
async fn after_two_failed_attempts_in_one_file_the_loop_moves_to_where_the_failing_names_are_used()
{
    let fix = "The limit returns the wrong status.\n\npkg/core.py\n<<<<<<< SEARCH\n        return ExitStatus.ERROR\n=======\n        return ExitStatus.ERROR_TOO_MANY_REDIRECTS\n>>>>>>> REPLACE\n";
    let replies = [
        status_edit("    ERROR = 1", "    ERROR = 3"),
        status_edit("    ERROR_TIMEOUT = 2", "    ERROR_TIMEOUT = 7"),
        fix.to_string(),
    ];
    let mut repo = files(&[
        ("pkg/__init__.py", STATUS),
        ("pkg/core.py", CORE),
        ("pkg/client.py", CLIENT),
        ("test_redirects.py", REDIRECT_TEST),
    ]);
    repo.extend(filler(100));
    // `-S`: no `sitecustomize`, so no spectrum, which would show `pkg/core.py` first.
    let r = run(
        repo,
        "The exit status for too many redirects is wrong: make test_redirects.py pass.",
        "python3 -S -m unittest -q test_redirects",
        &replies,
    )
    .await;
    r.assert_success();
    let f = r.fake.lock().unwrap();
    assert!(
        files_section(&f.openings[0]).contains("pkg/__init__.py\n```")
            && !files_section(&f.openings[0]).contains("pkg/core.py"),
        "{}",
        f.openings[0]
    );
    let moved = files_section(&f.openings[2]);
    assert!(
        moved.contains("The attempts in `pkg/__init__.py` did not fix it")
            && moved.contains("`ERROR_TOO_MANY_REDIRECTS`")
            && moved.contains("pkg/core.py\n```\nfrom pkg import ExitStatus"),
        "{moved}"
    );
    let transcript = transcript(&r);
    assert!(
        transcript.contains("\"name\":\"locate\"") && transcript.contains("did not fix it"),
        "no locate step in the transcript"
    );
}

const PORTS: &str = "from pkg.config import DEFAULT_PORT\n\n\ndef parse_port(text):\n    host, port = text.split(':')\n    return int(port)\n";
const CONFIG: &str = "DEFAULT_PORT = 80\nTIMEOUT = 5\n";
const PORT_TEST: &str = "import unittest\n\nfrom pkg.util import parse_port\n\n\nclass T(unittest.TestCase):\n    def test_default_port(self):\n        self.assertEqual(parse_port('example.org'), 80)\n";

fn port_edit(old: &str, new: &str) -> String {
    format!("Split once.\n\npkg/util.py\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n")
}

#[tokio::test]
async fn after_a_move_the_file_the_failure_was_raised_in_stays_shown_and_can_still_be_fixed() {
    let replies = [
        port_edit("    return int(port)", "    return int(port or 80)"),
        port_edit("text.split(':')", "text.split(':', 1)"),
        port_edit(
            "    host, port = text.split(':')\n    return int(port)",
            "    host, _, port = text.partition(':')\n    return int(port) if port else 80",
        ),
    ];
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/util.py", PORTS),
        ("pkg/config.py", CONFIG),
        ("test_ports.py", PORT_TEST),
    ]);
    repo.extend(filler(100));
    let r = run(
        repo,
        "parse_port fails for a host without a port (it should be DEFAULT_PORT): make test_ports.py pass.",
        "python3 -m unittest -q test_ports",
        &replies,
    )
    .await;
    r.assert_success();
    let f = r.fake.lock().unwrap();
    let moved = files_section(&f.openings[2]);
    assert!(
        moved.contains("pkg/config.py")
            && moved.contains("`pkg/util.py`, where the failure was raised, is shown after them")
            && moved.contains("def parse_port(text):"),
        "{moved}"
    );
}

#[tokio::test]
async fn line_attempts_failing_in_one_file_keep_the_opening_the_server_has_read() {
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/util.py", PORTS),
        ("pkg/config.py", CONFIG),
        ("test_ports.py", PORT_TEST),
    ]);
    repo.extend(filler(100));
    let lines = [
        ("return int(port)", "    return int(port or 81)\n"),
        (
            "host, port = text.split(':')",
            "    host, port = text.split(':', 2)\n",
        ),
    ];
    let r = run_lines(
        repo,
        "parse_port fails for a host without a port (it should be DEFAULT_PORT): make test_ports.py pass.",
        "python3 -m unittest -q test_ports",
        &[port_edit("    return int(port)", "    return int(port or 80)")],
        Some(llama_timings()),
        &lines,
    )
    .await;
    let f = r.fake.lock().unwrap();
    let first = f.line_openings.first().expect("no line attempt");
    let moved = f.line_openings.iter().position(|o| o != first);
    let n = f.line_openings.len();
    assert!(n >= 3 && moved.is_none(), "{moved:?} of {n}");
}

/// (`test_garbage` keeps the pattern's `$`: without it a pattern mutant would pass before the
/// model is asked.)
const DATES: &str = "import re\n\n\ndef parse_date(text):\n    \"\"\"The date in `text` as YYYYMMDD, or None.\"\"\"\n    text = text.strip(',')\n    formats = [\n        '%Y-%m-%d',\n        '%d.%m.%Y',\n        '%d/%m/%Y',\n        '%Y/%m/%d',\n    ]\n    for f in formats:\n        m = re.match(r'(\\d+)\\D(\\d+)\\D(\\d+)$', text)\n        if m and f.startswith('%Y'):\n            return ''.join(m.groups())\n        if m:\n            d, mo, y = m.groups()\n            return y + mo + d\n    return None\n";
const DATE_TEST: &str = "import unittest\n\nfrom pkg.dates import parse_date\n\n\nclass T(unittest.TestCase):\n    def test_commas(self):\n        self.assertEqual(parse_date('2020-01-02,  '), '20200102')\n\n    def test_garbage(self):\n        self.assertIsNone(parse_date('2020-01-02x'))\n";

#[tokio::test]
async fn a_whole_function_reply_cut_at_the_token_cap_is_completed_from_the_file_and_tested() {
    let cut = format!(
        "{CUT}The strip keeps the spaces.\n\npkg/dates.py\n```python\ndef parse_date(text):\n    text = text.strip(', ')\n    formats = [\n        '%Y-%m-%d',\n        '%d.%m.%Y',\n        '%d/%m"
    );
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/dates.py", DATES),
        ("test_dates.py", DATE_TEST),
    ]);
    repo.extend(filler(100));
    let r = run(
        repo,
        "parse_date fails on a date followed by a comma and spaces: make test_dates.py pass.",
        "python3 -m unittest -q test_dates",
        &[cut],
    )
    .await;
    r.assert_success();
    let fixed = std::fs::read_to_string(r.repo.path().join("pkg/dates.py")).unwrap();
    assert_eq!(
        fixed,
        DATES.replace("text.strip(',')", "text.strip(', ')"),
        "the rest of the function and its docstring are the file's"
    );
}

const JOIN: &str = "def join_url(base, path):\n    if path.startswith('/'):\n        return None\n    return base + path\n";
const JOIN_CALLER: &str =
    "from pkg.util import join_url\n\n\ndef fetch(path):\n    return join_url('http://a', path)\n";
/// (`test_plain` keeps a negated condition, and `test_root` a swapped name, from passing
/// before the model is asked.)
const JOIN_TEST: &str = "import unittest\n\nfrom pkg.util import join_url\n\n\nclass T(unittest.TestCase):\n    def test_join(self):\n        self.assertEqual(join_url('http://a', '/b'), 'http://a/b')\n\n    def test_plain(self):\n        self.assertEqual(join_url('http://a/', 'b'), 'http://a/b')\n\n    def test_root(self):\n        self.assertEqual(join_url('/', 'b'), '/b')\n";

fn join_edit(old: &str, new: &str) -> String {
    format!("Join.\n\npkg/util.py\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n")
}

#[tokio::test]
async fn a_failing_call_to_the_function_attempts_changed_keeps_the_loop_off_its_callers() {
    let replies = [
        join_edit("        return None", "        return ''"),
        join_edit("    return base + path", "    return base + '/' + path"),
        join_edit("        return None", "        return base + path"),
    ];
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/util.py", JOIN),
        ("pkg/client.py", JOIN_CALLER),
        ("test_join.py", JOIN_TEST),
    ]);
    repo.extend(filler(100));
    let r = run(
        repo,
        "join_url drops a path that starts with a slash: make test_join.py pass.",
        "python3 -m unittest -q test_join",
        &replies,
    )
    .await;
    r.assert_success();
    let f = r.fake.lock().unwrap();
    assert!(
        !f.openings[2].contains("pkg/client.py") && f.openings[2].contains("def join_url"),
        "{}",
        f.openings[2]
    );
}

/// (Its message names the value, not its type: no typed repair applies, so the model is asked.)
const BYTES: &str = "def to_bytes(text):\n    if not isinstance(text, str):\n        raise TypeError('to_bytes must receive a str, got %r' % (text,))\n    return text.encode()\n";
const HTTPREPR: &str = "from pkg.util import to_bytes\n\n\ndef httprepr(method, host):\n    return to_bytes(method) + b' ' + to_bytes(host)\n";
const HTTPREPR_TEST: &str = "import unittest\n\nfrom pkg.request import httprepr\n\n\nclass T(unittest.TestCase):\n    def test_no_host(self):\n        got = httprepr(\n            'GET',\n            None,\n        )\n        self.assertEqual(got, b'GET ')\n";
const HTTPREPR_FIX: &str = "The host may be None.\n\npkg/request.py\n```python\ndef httprepr(method, host):\n    return to_bytes(method) + b' ' + to_bytes(host or '')\n```\n";

/// A repository whose failure is raised by a `raise` statement in a helper (`to_bytes`) that
/// was handed `None` by its caller (`httprepr`), called over several lines by the test.
fn httprepr_repo() -> Vec<(String, String)> {
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/util.py", BYTES),
        ("pkg/request.py", HTTPREPR),
        ("test_request.py", HTTPREPR_TEST),
    ]);
    repo.extend(filler(100));
    repo
}

/// [`run`] with one reply, `fix`, which passes the tests (asserted).
async fn run_fixed(files: Vec<(String, String)>, goal: &str, test: &str, fix: &str) -> Run {
    let r = run(files, goal, test, &[fix.to_string()]).await;
    r.assert_success();
    r
}

/// The fix of [`httprepr_repo`] in one attempt; the run succeeded.
async fn run_httprepr() -> Run {
    run_fixed(
        httprepr_repo(),
        "httprepr fails without a host: make test_request.py pass.",
        "python3 -m unittest -q test_request",
        HTTPREPR_FIX,
    )
    .await
}

#[tokio::test]
async fn a_failure_raised_by_a_raise_statement_shows_the_caller_first() {
    let r = run_httprepr().await;
    let f = r.fake.lock().unwrap();
    let shown = files_section(&f.openings[0]);
    let (caller, helper) = (shown.find("pkg/request.py"), shown.find("pkg/util.py"));
    assert!(
        caller.is_some() && helper.is_some() && caller < helper,
        "{shown}"
    );
}

#[tokio::test]
async fn a_unittest_failure_shows_the_failing_test_function_above_the_failure() {
    let r = run_httprepr().await;
    let f = r.fake.lock().unwrap();
    let opening = &f.openings[0];
    let test = opening
        .find("# The failing test: `test_request.py` lines 7-12")
        .unwrap_or_else(|| panic!("{opening}"));
    let failure = opening.find("# How the tests fail now").unwrap();
    assert!(test < failure, "{opening}");
    assert!(
        opening[test..failure].contains("    got = httprepr(\n        'GET',\n        None,\n    )\n    self.assertEqual(got, b'GET ')"),
        "{opening}"
    );
}

const PAGE: &str = "def render_field(name, value):\n    if name == 'title':\n        return '<h1>%s</h1>' % value\n    return '<p>%s</p>' % value\n\n\ndef render_page(fields, skip_empty=False):\n    if skip_empty:\n        fields = {k: v for k, v in fields.items() if k}\n    return ''.join(render_field(k, v) for k, v in fields.items())\n";
const EXTRAS: &str = "def banner(text):\n    return '** %s **' % text\n";
const PAGE_TEST: &str = "import unittest\n\nfrom pkg import render_page\nfrom pkg.extras import banner\n\nPAGE = {'title': 'x', 'body': None}\n\n\nclass T(unittest.TestCase):\n    def assertRendered(self, expected, fields):\n        self.assertEqual(expected, render_page(fields, skip_empty=True))\n\n    def test_skip_empty(self):\n        self.assertRendered('<h1>x</h1>', PAGE)\n\n    def test_banner(self):\n        self.assertEqual(banner('x'), '** x **')\n";
const PAGE_FIX: &str = "Empty values must be left out.\n\npkg/page.py\n```python\ndef render_page(fields, skip_empty=False):\n    if skip_empty:\n        fields = {k: v for k, v in fields.items() if v is not None}\n    return ''.join(render_field(k, v) for k, v in fields.items())\n```\n";

/// A failure raised in the test's own assertion helper: no frame is in the project's code,
/// and the test file imports the package (`pkg/__init__.py`) and a module this test does not
/// use (`pkg/extras.py`); the code it ran, `render_page`, is in `pkg/page.py`.
async fn run_tests_only_trace() -> Run {
    let mut repo = files(&[
        ("pkg/__init__.py", "from pkg.page import render_page\n"),
        ("pkg/page.py", PAGE),
        ("pkg/extras.py", EXTRAS),
        ("test_render.py", PAGE_TEST),
    ]);
    repo.extend(filler(200));
    run_fixed(
        repo,
        "Rendering with skip_empty keeps empty fields: make test_render.T.test_skip_empty pass.",
        "python3 -m unittest -q test_render.T.test_skip_empty",
        PAGE_FIX,
    )
    .await
}

#[tokio::test]
async fn a_traceback_through_the_tests_only_starts_where_the_failing_tests_names_are_defined() {
    let r = run_tests_only_trace().await;
    let f = r.fake.lock().unwrap();
    let shown = files_section(&f.openings[0]);
    assert!(
        shown.contains("def render_page(fields, skip_empty=False):")
            && shown.contains("passes through the tests only")
            && !shown.contains("pkg/extras.py"),
        "{}",
        f.openings[0]
    );
}

/// A release script the tests never import, naming `render_page` in its docstring and in a
/// call: a weaker place than `pkg/page.py`, which defines it.
const RELEASE: &str = "\"\"\"Publishes the demo page.\n\nrender_page renders it.\n\"\"\"\nfrom pkg import render_page\n\nif __name__ == '__main__':\n    print(render_page({'title': 'demo'}))\n";

#[tokio::test]
async fn a_traceback_through_the_tests_only_offers_the_best_places_lines_first() {
    let mut repo = files(&[
        ("pkg/__init__.py", "from pkg.page import render_page\n"),
        ("pkg/page.py", PAGE),
        ("pkg/extras.py", EXTRAS),
        ("scripts/release.py", RELEASE),
        ("test_render.py", PAGE_TEST),
    ]);
    repo.extend(filler(200));
    let free = ["No change.".to_string()];
    let test = "python3 -m unittest -q test_render.T.test_skip_empty";
    let goal =
        "Rendering with skip_empty keeps empty fields: make test_render.T.test_skip_empty pass.";
    let r = run_with(repo, goal, test, &free, Some(llama_timings()), |_| {}).await;
    let f = r.fake.lock().unwrap();
    let begun: Vec<&str> = (f.lasts.iter())
        .filter(|l| l.ends_with("=======\n"))
        .map(|l| l.lines().next().unwrap_or_default())
        .collect();
    assert_eq!(begun.first(), Some(&"pkg/page.py"), "{begun:?}");
}

#[tokio::test]
async fn the_failing_test_shown_is_the_test_function_not_its_assertion_helper() {
    let r = run_tests_only_trace().await;
    let f = r.fake.lock().unwrap();
    let opening = &f.openings[0];
    assert!(
        opening.contains("# The failing test: `test_render.py` lines 13-14")
            && !opening.contains("def assertRendered"),
        "{opening}"
    );
}

/// `n` short functions, to make a module long (shown as its outline and excerpts).
fn padding(prefix: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "def {prefix}_{i}(value, scale=1):\n    \"\"\"Scales value for step {i}.\"\"\"\n    result = value * scale + {i}\n    return result\n\n\n"
            )
        })
        .collect()
}

#[tokio::test]
async fn after_a_move_in_a_tight_room_the_code_the_failure_was_raised_in_stays_shown() {
    let replies = [
        port_edit("    return int(port)", "    return int(port or 80)"),
        port_edit("text.split(':')", "text.split(':', 1)"),
        port_edit(
            "    host, port = text.split(':')\n    return int(port)",
            "    host, _, port = text.partition(':')\n    return int(port) if port else 80",
        ),
    ];
    // Two long files whose functions are long too: their excerpts alone overflow the room.
    let steps: String = (0..30)
        .map(|i| format!("    # step {i}: a port may follow the host after a colon\n"))
        .collect();
    let util = format!(
        "{}from pkg.config import DEFAULT_PORT\n\n\ndef parse_port(text):\n{steps}    host, port = text.split(':')\n    return int(port)\n",
        padding("convert", 60)
    );
    let config = format!(
        "DEFAULT_PORT = 80\nTIMEOUT = 5\n\n\ndef default_address(host):\n{steps}    return '%s:%d' % (host, DEFAULT_PORT)\n\n\n{}",
        padding("setting", 60)
    );
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/util.py", &util),
        ("pkg/config.py", &config),
        ("test_ports.py", PORT_TEST),
    ]);
    repo.extend(filler(100));
    // A server that reads 40 prompt tokens a second: the opening's files get about 1,100
    // tokens, the least the room gives, so two long files do not fit whole.
    let timings =
        json!({"prompt_n": 400, "prompt_ms": 10000.0, "predicted_n": 40, "predicted_ms": 1000.0});
    let r = run_timed(
        repo,
        "parse_port fails for a host without a port (it should be DEFAULT_PORT): make test_ports.py pass.",
        "python3 -m unittest -q test_ports",
        &replies,
        Some(timings),
    )
    .await;
    r.assert_success();
    let f = r.fake.lock().unwrap();
    let moved = files_section(&f.openings[2]);
    assert!(
        moved.contains("pkg/config.py")
            && moved.contains("where the failure was raised, is shown after them")
            && moved.contains("def parse_port(text):"),
        "{moved}"
    );
    assert!(
        moved.contains("pkg/config.py lines 5-36, `default_address`"),
        "{moved}"
    );
}

const STORE: &str = "import abc\nimport os\n\n\nclass Store(abc.ABC):\n    @abc.abstractmethod\n    def exists(self, path):\n        ...\n\n\nclass LocalStore(Store):\n    \"\"\"Files on disk.\"\"\"\n\n    def exists(self, path):\n        return os.path.exists(path)\n\n    def mkdir(self, path):\n        os.makedirs(path, exist_ok=True)\n\n    def move(self, old, new):\n        d = os.path.dirname(new)\n        if d and not self.exists(d):\n            self.fs.mkdir(d)\n        os.rename(old, new)\n";
const STORE_TEST: &str = "import os\nimport tempfile\nimport unittest\n\nfrom pkg.store import LocalStore\n\n\nclass T(unittest.TestCase):\n    def test_move_to_new_dir(self):\n        root = tempfile.mkdtemp()\n        src = os.path.join(root, 'a.txt')\n        open(src, 'w').close()\n        LocalStore().move(src, os.path.join(root, 'new', 'b.txt'))\n        self.assertTrue(os.path.exists(os.path.join(root, 'new', 'b.txt')))\n";

async fn run_store(reply: &str) -> Run {
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/store.py", STORE),
        ("test_store.py", STORE_TEST),
    ]);
    repo.extend(filler(100));
    run(
        repo,
        "Moving a file into a new directory fails: make test_store.py pass.",
        "python3 -m unittest -q test_store",
        &[reply.to_string()],
    )
    .await
}

#[tokio::test]
async fn a_class_written_around_the_one_method_it_fixes_keeps_the_classes_other_methods() {
    let reply = "`self.fs` does not exist.\n\npkg/store.py\n```python\nclass LocalStore(Store):\n    def move(self, old, new):\n        d = os.path.dirname(new)\n        if d and not self.exists(d):\n            self.mkdir(d)\n        os.rename(old, new)\n```\n";
    let r = run_store(reply).await;
    r.assert_success();
    assert_eq!(
        read(r.repo.path(), "pkg/store.py"),
        STORE.replace("self.fs.mkdir(d)", "self.mkdir(d)")
    );
}

#[tokio::test]
async fn a_fix_written_as_a_sentence_changes_the_line_it_quotes() {
    let reply =
        "The wrong line is `self.fs.mkdir(d)` in `LocalStore.move`. It should be `self.mkdir(d)`.";
    let r = run_store(reply).await;
    r.assert_success();
    assert_eq!(
        read(r.repo.path(), "pkg/store.py"),
        STORE.replace("self.fs.mkdir(d)", "self.mkdir(d)")
    );
}

const ROBOTS: &str = "def urls_from_robots(robots_text):\n    for line in robots_text.splitlines():\n        if line.lstrip().startswith('Sitemap:'):\n            yield line.split(':', 1)[1].strip()\n";
const SPIDER: &str = "from pkg.robots import urls_from_robots\n\n\ndef sitemap_urls(body):\n    return [u for u in urls_from_robots(body)]\n";
const SPIDER_TEST: &str = "import unittest\n\nfrom pkg.spider import sitemap_urls\n\n\nclass T(unittest.TestCase):\n    def test_robots(self):\n        self.assertEqual(sitemap_urls(b'Sitemap: http://a/s.xml\\n'), ['http://a/s.xml'])\n";
/// The free attempts' fix, where the error was raised: bytes in, so bytes out (wrong).
const ROBOTS_BYTES: &str = "The line must compare bytes.\n\npkg/robots.py\n```python\ndef urls_from_robots(robots_text):\n    for line in robots_text.splitlines():\n        if line.lstrip().startswith(b'Sitemap:'):\n            yield line.split(b':', 1)[1].strip()\n```\n";

/// A repository whose failure is raised in a helper (`urls_from_robots`, handed bytes) and
/// fixed in its caller (`sitemap_urls` must decode the body), scrapy-20's shape. The free
/// attempts keep rewriting the helper; a line attempt at the caller's line decodes the body.
async fn run_robots(lines: &[(&str, &str)]) -> Run {
    run_llama(&ROBOTS_REPO, ROBOTS_GOAL, ROBOTS_TEST, ROBOTS_BYTES, lines).await
}

const ROBOTS_REPO: [(&str, &str); 4] = [
    ("pkg/__init__.py", ""),
    ("pkg/robots.py", ROBOTS),
    ("pkg/spider.py", SPIDER),
    ("test_spider.py", SPIDER_TEST),
];
const ROBOTS_GOAL: &str = "sitemap_urls fails on a robots.txt body: make test_spider.py pass.";
const ROBOTS_TEST: &str = "python3 -m unittest -q test_spider";

/// llama.cpp's `timings`, by which kotef knows a server continues a begun reply.
fn llama_timings() -> Value {
    json!({"prompt_n": 400, "prompt_ms": 1000.0, "predicted_n": 40, "predicted_ms": 500.0})
}

/// The robots repository against a fake whose line attempt at the caller writes the line
/// back as it was, finding `body.decode())]` its second choice at one token; the branch
/// begun there ends the block.
async fn run_robots_ranked() -> Run {
    run_robots_answering(|f| {
        let tokens: Vec<Token> = vec![
            ("    return [u for u in urls_from_robots(body", -0.2, vec![]),
            (")]", -0.4, vec![(")]", -0.4), (".decode())]", -1.1)]),
            ("\n>>>>>>> REPLACE\n```\n", -0.01, vec![]),
        ];
        f.ranked = vec![("urls_from_robots(body)]".into(), tokens)];
        f.branch_rests = vec![(".decode())]".into(), "\n>>>>>>> REPLACE\n```\n".into())];
    })
    .await
}

/// The robots repository among 100 filler modules against a fake llama.cpp whose free
/// attempts rewrite the helper (wrong) and whose line attempts answer as `configure` says.
async fn run_robots_answering(configure: impl FnOnce(&mut Fake)) -> Run {
    let mut repo = files(&ROBOTS_REPO);
    repo.extend(filler(100));
    let free = [ROBOTS_BYTES.to_string()];
    run_with(
        repo,
        ROBOTS_GOAL,
        ROBOTS_TEST,
        &free,
        Some(llama_timings()),
        configure,
    )
    .await
}

#[tokio::test]
async fn the_models_second_choice_at_a_token_of_the_callers_line_is_tried_and_fixes_it() {
    let r = run_robots_ranked().await;
    r.assert_success();
    assert_eq!(
        read(r.repo.path(), "pkg/spider.py"),
        SPIDER.replace("robots(body)", "robots(body.decode())")
    );
}

#[tokio::test]
async fn the_branch_is_begun_with_the_line_up_to_the_other_token() {
    let r = run_robots_ranked().await;
    let f = r.fake.lock().unwrap();
    assert!(
        f.lasts.iter().any(
            |l| l.ends_with("=======\n    return [u for u in urls_from_robots(body.decode())]")
        ),
        "{:?}",
        f.lasts
    );
}

/// The robots repository against a fake whose line attempts at the caller's line and at the
/// helper's test write each back as it was: sure of the caller's (its least likely token at
/// -0.1), unsure of the helper's (-2.0), each finding another token a little less likely.
async fn run_robots_unsure() -> Run {
    run_robots_answering(|f| {
        let end = ("\n>>>>>>> REPLACE\n```\n", -0.01, vec![]);
        let caller: Vec<Token> = vec![
            (
                "    return [u for u in urls_from_robots(body",
                -0.05,
                vec![],
            ),
            (")]", -0.1, vec![(")]", -0.1), (".strip())]", -2.5)]),
            end.clone(),
        ];
        let helper: Vec<Token> = vec![
            ("        if line.lstrip().startswith(", -0.1, vec![]),
            (
                "'Sitemap:'",
                -2.0,
                vec![("'Sitemap:'", -2.0), ("b'Sitemap:'", -2.2)],
            ),
            ("):", -0.01, vec![]),
            end,
        ];
        f.ranked = vec![
            ("urls_from_robots(body)]".into(), caller),
            ("startswith('Sitemap:')".into(), helper),
        ];
    })
    .await
}

#[tokio::test]
async fn the_branches_of_the_line_the_model_was_least_sure_of_are_offered_first() {
    let r = run_robots_unsure().await;
    let f = r.fake.lock().unwrap();
    let branch = |l: &&String| {
        l.split_once("=======\n")
            .is_some_and(|(_, b)| !b.is_empty())
    };
    let first = f.lasts.iter().find(branch).map(String::as_str);
    assert!(
        first.is_some_and(|l| l.ends_with("        if line.lstrip().startswith(b'Sitemap:'")),
        "{first:?}"
    );
}

/// Each model reply's `odds` in the run's transcript (none when the reply has none).
fn replies_odds(r: &Run) -> Vec<Option<Value>> {
    transcript(r)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "model_reply")
        .map(|e| e.get("odds").cloned())
        .collect()
}

#[tokio::test]
async fn a_line_attempts_token_odds_are_in_the_transcript_as_numbers_only() {
    let r = run_robots_ranked().await;
    let odds = replies_odds(&r);
    assert!(
        odds.contains(&Some(json!([
            {"chars": 44, "logprob": -0.2, "others": []},
            {"chars": 2, "logprob": -0.4, "others": [-1.1]},
            {"chars": 21, "logprob": -0.01, "others": []},
        ]))),
        "{odds:?}"
    );
}

#[tokio::test]
async fn a_reply_the_server_sent_no_odds_for_has_none_in_the_transcript() {
    let r = run_robots_ranked().await;
    let odds = replies_odds(&r);
    assert!(odds.iter().any(Option::is_none), "{odds:?}");
}

/// `list` among 100 filler modules, run against a fake llama.cpp (its `timings`, so line
/// attempts are made) whose free attempts all answer `free` and whose line attempts answer
/// as `lines` says.
async fn run_llama(
    list: &[(&str, &str)],
    goal: &str,
    test: &str,
    free: &str,
    lines: &[(&str, &str)],
) -> Run {
    let mut repo = files(list);
    repo.extend(filler(100));
    run_lines(
        repo,
        goal,
        test,
        &[free.to_string()],
        Some(llama_timings()),
        lines,
    )
    .await
}

/// The statements the line attempts were offered, in order, each once.
fn begun_statements(f: &Fake) -> Vec<String> {
    let mut begun: Vec<String> = f
        .lasts
        .iter()
        .filter(|l| l.contains("<<<<<<< SEARCH"))
        .map(|l| l.lines().nth(3).unwrap_or_default().trim().to_string())
        .collect();
    // Each is offered again, hotter, when written back as it was.
    begun.dedup();
    begun
}

#[tokio::test]
async fn after_a_failed_attempt_the_callers_line_is_offered_and_its_new_line_fixes_it() {
    let r = run_robots(&[(
        "urls_from_robots(body)",
        "    return [u for u in urls_from_robots(body.decode())]\n",
    )])
    .await;
    r.assert_success();
    assert_eq!(
        read(r.repo.path(), "pkg/spider.py"),
        SPIDER.replace("robots(body)", "robots(body.decode())")
    );
}

#[tokio::test]
async fn the_statements_are_offered_from_the_tests_call_inward() {
    let r = run_robots(&[]).await;
    let f = r.fake.lock().unwrap();
    assert_eq!(
        begun_statements(&f)[..2],
        [
            "return [u for u in urls_from_robots(body)]",
            "if line.lstrip().startswith('Sitemap:'):",
        ],
        "{:?}",
        f.lasts
    );
}

const DAY: &str =
    "def parse_day(text):\n    parts = text.split('-')\n    day = parts[1]\n    return int(day)\n";
const DAY_TEST: &str = "import unittest\n\nfrom pkg.dates import parse_day\n\n\nclass T(unittest.TestCase):\n    def test_day(self):\n        self.assertEqual(parse_day('2020-01-31'), 31)\n";
/// The free attempts' fix: the conversion, not the index (wrong).
const DAY_ROUND: &str = "The day must be rounded.\n\npkg/dates.py\n```python\ndef parse_day(text):\n    parts = text.split('-')\n    day = parts[1]\n    return round(int(day))\n```\n";

/// A failure raised in the test (`1 != 31`): its traceback passes through no project code,
/// so no frame's line is offered; the fix is one statement of the function the failing name
/// defines (`day = parts[1]` → `parts[2]`), which the free attempts miss.
async fn run_day(lines: &[(&str, &str)]) -> Run {
    run_day_with(lines, &[]).await
}

/// [`run_day`], `kotef run` given `args` too.
async fn run_day_with(lines: &[(&str, &str)], args: &[&str]) -> Run {
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/dates.py", DAY),
        ("test_dates.py", DAY_TEST),
    ]);
    repo.extend(filler(100));
    let lines = owned(lines);
    let fake = (
        &[DAY_ROUND.to_string()][..],
        Some(llama_timings()),
        |f: &mut Fake| f.lines = lines,
    );
    let goal = "parse_day returns the month: make test_dates.py pass.";
    run_with_args(repo, goal, "python3 -m unittest -q test_dates", fake, args).await
}

#[tokio::test]
async fn a_failure_raised_in_the_test_has_the_named_functions_statements_offered_and_one_fixes_it()
{
    let r = run_day(&[("day = parts[1]", "    day = parts[2]\n")]).await;
    assert_day_fixed(&r);
}

/// [`run_day`] with two model calls a coder step: the free attempt and one line attempt.
async fn run_day_in_short_steps(lines: &[(&str, &str)]) -> Run {
    run_day_with(lines, &["--coder-step-calls", "2"]).await
}

/// The run fixed `day = parts[1]` and nothing else.
fn assert_day_fixed(r: &Run) {
    r.assert_success();
    assert_eq!(
        read(r.repo.path(), "pkg/dates.py"),
        DAY.replace("parts[1]", "parts[2]")
    );
}

#[tokio::test]
async fn a_repair_step_at_its_call_cap_is_followed_by_one_that_offers_the_next_statement() {
    // The fake's planner ends the run: the second step comes without a planner call.
    let r = run_day_in_short_steps(&[("day = parts[1]", "    day = parts[2]\n")]).await;
    assert_day_fixed(&r);
}

#[tokio::test]
async fn a_statement_offered_in_one_repair_step_is_not_offered_again_in_the_next() {
    let r = run_day_in_short_steps(&[]).await;
    let f = r.fake.lock().unwrap();
    let offers_of = |s: &str| {
        (f.lasts.iter())
            .filter(|l| {
                l.contains("<<<<<<< SEARCH") && l.lines().nth(3).is_some_and(|x| x.trim() == s)
            })
            .count()
    };
    assert_eq!(
        (offers_of("return int(day)"), offers_of("day = parts[1]")),
        (1, 1),
        "{:?}",
        f.lasts
    );
}

#[tokio::test]
async fn the_named_functions_statements_are_offered_from_its_return_upward() {
    let r = run_day(&[]).await;
    let f = r.fake.lock().unwrap();
    assert_eq!(
        begun_statements(&f)[..3],
        [
            "return int(day)",
            "day = parts[1]",
            "parts = text.split('-')"
        ],
        "{:?}",
        f.lasts
    );
}

const UNIFIED: &str = "def unified(text):\n    result = None\n    if text:\n        result = text.strip()\n    return str(result)\n";
const UNIFIED_TEST: &str = "import unittest\n\nfrom pkg.dates import unified\n\n\nclass T(unittest.TestCase):\n    def test_empty(self):\n        self.assertIsNone(unified(''))\n\n    def test_text(self):\n        self.assertEqual(unified(' 2020 '), '2020')\n";
/// The free attempts' fix: an empty string for no date (wrong: the test wants `None`).
const UNIFIED_EMPTY: &str = "No date gives an empty string.\n\npkg/dates.py\n```python\ndef unified(text):\n    result = None\n    if text:\n        result = text.strip()\n    return str(result or '')\n```\n";

/// youtube-dl-29's shape: `return str(result)` turns no date into `'None'`; the fix wraps
/// the return in `if result is not None:`. The fake's line attempts write every statement
/// back as it was, and its guard offers (begun `if`) write only the condition.
#[tokio::test]
async fn a_guard_written_as_a_bare_condition_wraps_the_statement_and_fixes_it() {
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/dates.py", UNIFIED),
        ("test_dates.py", UNIFIED_TEST),
    ]);
    repo.extend(filler(100));
    let r = run_with(
        repo,
        "unified turns no date into the text 'None': make test_dates.T.test_empty pass.",
        "python3 -m unittest -q test_dates.T.test_empty",
        &[UNIFIED_EMPTY.to_string()],
        Some(llama_timings()),
        |f| {
            f.branch_rests = vec![(
                "    if".into(),
                " result is not None:\n>>>>>>> REPLACE\n```\n".into(),
            )]
        },
    )
    .await;
    r.assert_success();
    assert_eq!(
        read(r.repo.path(), "pkg/dates.py"),
        UNIFIED.replace(
            "    return str(result)",
            "    if result is not None:\n        return str(result)"
        )
    );
}

/// The failing assertion written over three lines, the function's name on its second only:
/// the traceback quotes another of its lines, and the goal names nothing.
const DAY_TEST_WRAPPED: &str = "import unittest\n\nfrom pkg.dates import parse_day\n\n\nclass T(unittest.TestCase):\n    def test_day(self):\n        self.assertEqual(\n            parse_day('2020-01-31'),\n            31)\n";

#[tokio::test]
async fn a_failing_assertion_written_over_several_lines_has_its_functions_statements_offered() {
    let r = run_llama(
        &[
            ("pkg/__init__.py", ""),
            ("pkg/dates.py", DAY),
            ("test_dates.py", DAY_TEST_WRAPPED),
        ],
        "The day of a date comes out wrong: make test_dates.py pass.",
        "python3 -m unittest -q test_dates",
        DAY_ROUND,
        &[("day = parts[1]", "    day = parts[2]\n")],
    )
    .await;
    r.assert_success();
    assert_eq!(
        read(r.repo.path(), "pkg/dates.py"),
        DAY.replace("parts[1]", "parts[2]")
    );
}

const MESSAGE: &str = "RESPONSES = {200: 'OK', 404: 'Not Found'}\n\n\ndef status_message(status):\n    return '%s %s' % (status, RESPONSES.get(status))\n";
const MESSAGE_TEST: &str = "import unittest\n\nfrom pkg.status import status_message\n\n\nclass T(unittest.TestCase):\n    def test_unknown(self):\n        self.assertEqual(status_message(573), '573 Unknown Status')\n";
/// The free attempts' change: the test's expected value, returned for the test's case.
const MESSAGE_COPIED: &str = "An unknown status.\n\npkg/status.py\n```python\ndef status_message(status):\n    if status == 573:\n        return '573 Unknown Status'\n    return '%s %s' % (status, RESPONSES.get(status))\n```\n";

/// A test that expects `'573 Unknown Status'`, scrapy-17's shape: the free attempts pass it
/// by returning that value for 573; the line attempts answer as `lines` says.
async fn run_status(lines: &[(&str, &str)]) -> Run {
    run_llama(
        &[
            ("pkg/__init__.py", ""),
            ("pkg/status.py", MESSAGE),
            ("test_status.py", MESSAGE_TEST),
        ],
        "status_message fails on an unknown status: make test_status.py pass.",
        "python3 -m unittest -q test_status",
        MESSAGE_COPIED,
        lines,
    )
    .await
}

#[tokio::test]
async fn a_pass_that_returns_the_tests_expected_value_gives_way_to_a_fix_found_after_it() {
    let r = run_status(&[(
        "RESPONSES.get(status))",
        "    return '%s %s' % (status, RESPONSES.get(status, 'Unknown Status'))\n",
    )])
    .await;
    r.assert_success();
    assert_eq!(
        read(r.repo.path(), "pkg/status.py"),
        MESSAGE.replace("get(status))", "get(status, 'Unknown Status'))")
    );
}

#[tokio::test]
async fn a_pass_that_copies_the_tests_value_stands_when_nothing_else_passes_and_says_so() {
    let r = run_status(&[]).await;
    r.assert_success();
    assert!(read(r.repo.path(), "pkg/status.py").contains("return '573 Unknown Status'"));
    let report = std::fs::read_to_string(r.repo.path().join(&r.summary.report_path)).unwrap();
    assert!(
        report.contains(
            "- ⚠️ Check before merging: it passes with `573`, `573 Unknown Status` copied from the tests"
        ),
        "{report}"
    );
}

const MEAN: &str = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n";
const CHECKS: &str = "def check(case, got, want):\n    case.assertEqual(got, want)\n";
const MEAN_TEST: &str = "import unittest\n\nfrom pkg.stats import mean\nfrom testutil import check\n\n\nclass T(unittest.TestCase):\n    def test_mean(self):\n        check(self, mean([1, 2, 3]), 2)\n";
/// The free attempts' change: the tests' assertion helper made to assert nothing.
const CHECKS_EMPTIED: &str = "The check is too strict.\n\ntestutil.py\n```python\ndef check(case, got, want):\n    pass\n```\n";

/// A test that asserts through a helper of the tests (`testutil.py`, which the command does
/// not name): the free attempts pass it by making the helper assert nothing; the line
/// attempts answer as `lines` says.
async fn run_mean(lines: &[(&str, &str)]) -> Run {
    run_llama(
        &[
            ("pkg/__init__.py", ""),
            ("pkg/stats.py", MEAN),
            ("testutil.py", CHECKS),
            ("test_stats.py", MEAN_TEST),
        ],
        "mean() is wrong: make test_stats.py pass.",
        "python3 -m unittest -q test_stats",
        CHECKS_EMPTIED,
        lines,
    )
    .await
}

#[tokio::test]
async fn a_pass_that_empties_the_tests_helper_gives_way_to_a_fix_found_after_it() {
    let r = run_mean(&[("(len(xs) + 1)", "    return sum(xs) / len(xs)\n")]).await;
    r.assert_success();
    assert_eq!(
        (
            read(r.repo.path(), "pkg/stats.py"),
            read(r.repo.path(), "testutil.py")
        ),
        (MEAN.replace("(len(xs) + 1)", "len(xs)"), CHECKS.to_string())
    );
}

#[tokio::test]
async fn a_pass_that_empties_the_tests_helper_stands_when_nothing_else_passes_and_says_so() {
    let r = run_mean(&[]).await;
    let report = std::fs::read_to_string(r.repo.path().join(&r.summary.report_path)).unwrap();
    assert!(
        report.contains(
            "- ⚠️ Check before merging: it passes only with the tests' own code changed \
             (`testutil.py`); nothing passed without that"
        ),
        "{report}"
    );
}

const KIND: &str = "def body_kind(headers):\n    length = headers.get('Content-Length')\n    if length is not None:\n        return 'fixed'\n    if headers.get('Transfer-Encoding') == 'chunked':\n        return 'chunked'\n    if headers.get('Connection') == 'close':\n        return 'until-close'\n    return 'none'\n";
const KIND_TEST: &str = "import unittest\n\nfrom pkg.body import body_kind\n\n\nclass T(unittest.TestCase):\n    def test_fixed(self):\n        self.assertEqual(body_kind({'Content-Length': '3'}), 'fixed')\n\n    def test_chunked(self):\n        self.assertEqual(body_kind({'Transfer-Encoding': 'chunked'}), 'chunked')\n\n    def test_close(self):\n        self.assertEqual(body_kind({'Connection': 'close'}), 'until-close')\n\n    def test_chunked_in_capitals(self):\n        self.assertEqual(body_kind({'Transfer-Encoding': 'Chunked'}), 'chunked')\n";

/// The free attempts' change: the default (wrong).
const KIND_DEFAULT: &str = "The default is wrong.\n\npkg/body.py\n```python\ndef body_kind(headers):\n    length = headers.get('Content-Length')\n    if length is not None:\n        return 'fixed'\n    if headers.get('Transfer-Encoding') == 'chunked':\n        return 'chunked'\n    if headers.get('Connection') == 'close':\n        return 'until-close'\n    return ''\n```\n";

/// tornado-11's shape: the failing test and three passing ones beside it call one function;
/// the traceback passes through the test only. The line attempts answer as `lines` says.
async fn run_body_kind(lines: &[(&str, &str)]) -> Run {
    run_llama(
        &[
            ("pkg/__init__.py", ""),
            ("pkg/body.py", KIND),
            ("test_body.py", KIND_TEST),
        ],
        "A chunked body is not recognised when its header is written in capitals.",
        "python3 -m unittest -q test_body.T.test_chunked_in_capitals",
        KIND_DEFAULT,
        lines,
    )
    .await
}

/// The line attempt that fixes [`KIND`]: the header compared in lower case.
const KIND_FIX: (&str, &str) = (
    "== 'chunked'",
    "    if headers.get('Transfer-Encoding', '').lower() == 'chunked':\n",
);

/// The run succeeded with [`KIND_FIX`] in the tree.
fn assert_kind_fixed(r: &Run) {
    r.assert_success();
    let fixed = KIND.replace(
        "get('Transfer-Encoding') ==",
        "get('Transfer-Encoding', '').lower() ==",
    );
    assert_eq!(read(r.repo.path(), "pkg/body.py"), fixed);
}

#[tokio::test]
async fn the_statements_the_failing_test_alone_ran_or_went_its_own_way_at_are_offered_first() {
    let r = run_body_kind(&[]).await;
    let f = r.fake.lock().unwrap();
    // The condition that sent only the failing test to `return 'none'` comes before it; the
    // one before sent it on where fewer neighbours went.
    assert_eq!(
        begun_statements(&f)[..3],
        [
            "if headers.get('Connection') == 'close':",
            "return 'none'",
            "if headers.get('Transfer-Encoding') == 'chunked':",
        ],
        "{:?}",
        f.lasts
    );
}

#[tokio::test]
async fn the_line_the_spectrum_points_at_is_fixed_and_the_tracer_leaves_nothing_behind() {
    let r = run_body_kind(&[KIND_FIX]).await;
    assert_kind_fixed(&r);
    assert!(!r.repo.path().join(".kotef-spectrum").exists());
}

/// `pkg/parts.py`: eight helpers the failing test runs through `render` and its neighbour
/// does not (so all eight score alike, too many for the spectrum alone to tell apart); one is
/// named like the failing test (`slug`, `test_slug_keeps_every_word`) and drops a word.
const PARTS: &str = "def header(title):\n    return '<h1>' + title + '</h1>'\n\n\ndef slug(title):\n    words = title.lower().split()\n    return '-'.join(words[1:])\n\n\ndef paragraph(body):\n    return '<p>' + body + '</p>'\n\n\ndef footer():\n    return '<hr>'\n\n\ndef escape(text):\n    return text.replace('<', '&lt;')\n\n\ndef strip(text):\n    return text.strip()\n\n\ndef wrap(text):\n    return '[' + text + ']'\n\n\ndef join_all(parts):\n    return '|'.join(parts)\n";
const SLUG_PAGE: &str = "from pkg import parts\n\n\ndef render(title, body):\n    if not title:\n        return ''\n    body = parts.escape(parts.strip(body))\n    return parts.join_all([parts.header(title), parts.slug(title), parts.paragraph(body), parts.wrap(parts.footer())])\n";
const SLUG_PAGE_TEST: &str = "import unittest\n\nfrom pkg.page import render\n\n\nclass T(unittest.TestCase):\n    def test_empty_title(self):\n        self.assertEqual(render('', 'x'), '')\n\n    def test_slug_keeps_every_word(self):\n        self.assertEqual(render('Big News', 'x'), '<h1>Big News</h1>|big-news|<p>x</p>|[<hr>]')\n";

#[tokio::test]
async fn of_many_functions_only_the_failing_test_ran_the_one_named_like_it_is_shown_and_fixed() {
    let r = run_llama(
        &[
            ("pkg/__init__.py", ""),
            ("pkg/page.py", SLUG_PAGE),
            ("pkg/parts.py", PARTS),
            ("test_page.py", SLUG_PAGE_TEST),
        ],
        "A page's slug loses its first word.",
        "python3 -m unittest -q test_page.T.test_slug_keeps_every_word",
        "No change.\n",
        &[("words[1:]", "    return '-'.join(words)\n")],
    )
    .await;
    r.assert_success();
    assert_eq!(
        read(r.repo.path(), "pkg/parts.py"),
        PARTS.replace("words[1:]", "words")
    );
}

/// A run in package `pkg` whose fix a template finds: it succeeds before any repair call (both
/// asserted); the model's free attempts would write the wrong default.
async fn run_templates(list: &[(&str, &str)], goal: &str, test: &str) -> Run {
    let mut all = vec![("pkg/__init__.py", "")];
    all.extend_from_slice(list);
    let r = run_llama(&all, goal, test, KIND_DEFAULT, &[]).await;
    r.assert_success();
    assert!(r.fake.lock().unwrap().openings.is_empty(), "no repair call");
    r
}

/// scrapy-29's shape: a helper that refuses `None` on purpose, and a caller that passes it a
/// host that may be `None`.
const TO_BYTES: &str = "def to_bytes(text):\n    if not isinstance(text, (str, bytes)):\n        raise TypeError('to_bytes must receive a unicode, str or bytes object, got %s' % type(text).__name__)\n    return text.encode() if isinstance(text, str) else text\n";
const HOST_REPR: &str = "from pkg.util import to_bytes\n\n\ndef httprepr(method, host):\n    s = to_bytes(method) + b' / HTTP/1.1\\r\\n'\n    s += b'Host: ' + to_bytes(host) + b'\\r\\n'\n    return s\n";
const HOST_REPR_TEST: &str = "import unittest\n\nfrom pkg.request import httprepr\n\n\nclass T(unittest.TestCase):\n    def test_host(self):\n        self.assertEqual(httprepr('GET', 'a.org'), b'GET / HTTP/1.1\\r\\nHost: a.org\\r\\n')\n\n    def test_no_host(self):\n        self.assertEqual(httprepr('GET', None), b'GET / HTTP/1.1\\r\\nHost: \\r\\n')\n";

#[tokio::test]
async fn a_none_refused_on_purpose_is_fixed_in_its_caller_by_a_template_before_any_model_call() {
    let r = run_templates(
        &[
            ("pkg/util.py", TO_BYTES),
            ("pkg/request.py", HOST_REPR),
            ("test_request.py", HOST_REPR_TEST),
        ],
        "A request without a host cannot be printed.",
        "python3 -m unittest -q test_request.T.test_no_host",
    )
    .await;
    assert_eq!(
        read(r.repo.path(), "pkg/request.py"),
        HOST_REPR.replace("to_bytes(host)", "to_bytes(host or '')")
    );
    assert_eq!(read(r.repo.path(), "pkg/util.py"), TO_BYTES);
}

/// youtube-dl-43's shape: a pattern whose class excludes a character the input needs.
const BASENAME: &str = "import re\n\n\ndef url_basename(url):\n    m = re.match(r'(?:https?:|)//[^/]+/(?:[^/?#]+/)?([^/?#]+)/?(?:[?#]|$)', url)\n    if not m:\n        return ''\n    return m.group(1)\n";
const BASENAME_TEST: &str = "import unittest\n\nfrom pkg.utils import url_basename\n\n\nclass T(unittest.TestCase):\n    def test_short(self):\n        self.assertEqual(url_basename('http://a.org/b/c.mp4'), 'c.mp4')\n\n    def test_deep(self):\n        self.assertEqual(url_basename('http://a.org/x/y/z/c.mp4'), 'c.mp4')\n";

#[tokio::test]
async fn a_pattern_that_excludes_too_much_is_fixed_by_a_mutant_before_any_model_call() {
    let r = run_templates(
        &[("pkg/utils.py", BASENAME), ("test_utils.py", BASENAME_TEST)],
        "The base name of a URL with a deep path is empty.",
        "python3 -m unittest -q test_utils.T.test_deep",
    )
    .await;
    assert_eq!(
        read(r.repo.path(), "pkg/utils.py"),
        BASENAME.replace("(?:[^/?#]+/)?", "(?:[^?#]+/)?")
    );
}

/// scrapy-20's shape: bytes read where the project reads text everywhere else.
const RESPONSE: &str = "class Response:\n    def __init__(self, url, body, encoding='utf-8'):\n        self.url = url\n        self.body = body\n        self.encoding = encoding\n\n    @property\n    def text(self):\n        return self.body.decode(self.encoding)\n";
const LENGTH: &str = "def title(response):\n    return response.text.split('<title>')[1].split('</title>')[0]\n\n\ndef heading(response):\n    return response.text.split('<h1>')[1].split('</h1>')[0]\n\n\ndef length(response):\n    return len(response.body)\n";
const LENGTH_TEST: &str = "import unittest\n\nfrom pkg.http import Response\nfrom pkg.page import length\n\n\nclass T(unittest.TestCase):\n    def test_ascii(self):\n        self.assertEqual(length(Response('http://a.org/', b'abc')), 3)\n\n    def test_accents(self):\n        self.assertEqual(length(Response('http://a.org/', 'd\\u00e9j\\u00e0'.encode())), 4)\n";

#[tokio::test]
async fn an_attribute_read_where_the_project_reads_another_is_swapped_before_any_model_call() {
    let r = run_templates(
        &[
            ("pkg/http.py", RESPONSE),
            ("pkg/page.py", LENGTH),
            ("test_page.py", LENGTH_TEST),
        ],
        "The length of a page with accents counts bytes, not characters.",
        "python3 -m unittest -q test_page.T.test_accents",
    )
    .await;
    assert_eq!(
        read(r.repo.path(), "pkg/page.py"),
        LENGTH.replace("len(response.body)", "len(response.text)")
    );
}

/// luigi-32's shape: a module that logs through a `logger` it never binds, in a project
/// whose other modules bind it at their top level.
const NOTIFY: &str =
    "def notify(user):\n    logger.info('notify %s', user)\n    return 'sent to ' + user\n";
const MAIL: &str = "import logging\n\nlogger = logging.getLogger('pkg')\n\n\ndef send(to):\n    logger.info('mail to %s', to)\n    return to\n";
const NOTIFY_TEST: &str = "import unittest\n\nfrom pkg.notify import notify\n\n\nclass T(unittest.TestCase):\n    def test_notify(self):\n        self.assertEqual(notify('ann'), 'sent to ann')\n";

#[tokio::test]
async fn a_name_no_module_statement_binds_is_bound_as_the_project_binds_it_before_any_model_call() {
    let r = run_templates(
        &[
            ("pkg/mail.py", MAIL),
            ("pkg/notify.py", NOTIFY),
            ("test_notify.py", NOTIFY_TEST),
        ],
        "Notifying a user fails.",
        "python3 -m unittest -q test_notify.T.test_notify",
    )
    .await;
    assert_eq!(
        read(r.repo.path(), "pkg/notify.py"),
        format!("import logging\nlogger = logging.getLogger('pkg')\n\n\n{NOTIFY}")
    );
}

/// A test harness in the project's code (as `tornado/testing.py`): a decorator that runs the
/// test through a runner, and one that skips it; `runner.skip(` is read in the project, so a
/// name mutant of the runner's call would pass the failing test without running it.
const HARNESS: &str = "class Runner:\n    def run(self, f, case):\n        return f(case)\n\n    def skip(self, f, case):\n        return None\n\n\ndef with_runner(f):\n    def wrapper(self):\n        runner = Runner()\n        return runner.run(f, self)\n    return wrapper\n\n\ndef skipped(f):\n    def wrapper(self):\n        runner = Runner()\n        return runner.skip(f, self)\n    return wrapper\n";
const DOUBLE: &str = "def double(x):\n    return x + x + 1\n";
const DOUBLE_TEST: &str = "import unittest\n\nfrom pkg.calc import double\nfrom pkg.testing import with_runner\n\n\nclass T(unittest.TestCase):\n    @with_runner\n    def test_double(self):\n        self.assertEqual(double(2), 4)\n";

#[tokio::test]
async fn no_template_changes_the_tests_harness_and_the_code_is_fixed_instead() {
    let r = run_llama(
        &[
            ("pkg/__init__.py", ""),
            ("pkg/testing.py", HARNESS),
            ("pkg/calc.py", DOUBLE),
            ("test_calc.py", DOUBLE_TEST),
        ],
        "double(2) is 5.",
        "python3 -m unittest -q test_calc.T.test_double",
        KIND_DEFAULT,
        &[("return x + x + 1", "    return x + x\n")],
    )
    .await;
    r.assert_success();
    assert_eq!(read(r.repo.path(), "pkg/testing.py"), HARNESS);
    assert_eq!(
        read(r.repo.path(), "pkg/calc.py"),
        DOUBLE.replace(" + 1", "")
    );
}

/// [`KIND_TEST`] with a neighbour that reaches the function's last line.
fn kind_test_with_none() -> String {
    format!("{KIND_TEST}\n    def test_none(self):\n        self.assertEqual(body_kind({{}}), 'none')\n")
}

/// tornado-11's shape with [`kind_test_with_none`], and `extra` files: the line attempts write
/// passes that break tests beside the failing one (`test_none` where the spectrum leads,
/// `test_fixed` where the sweep from the top does) before the fix; the run succeeded with the
/// fix (asserted).
async fn run_breaking_pass(extra: &[(&str, &str)]) -> Run {
    let test = kind_test_with_none();
    let mut list = vec![
        ("pkg/__init__.py", ""),
        ("pkg/body.py", KIND),
        ("test_body.py", test.as_str()),
    ];
    list.extend_from_slice(extra);
    let r = run_llama(
        &list,
        "A chunked body is not recognised when its header is written in capitals.",
        "python3 -m unittest -q test_body.T.test_chunked_in_capitals",
        KIND_DEFAULT,
        &[
            ("return 'none'", "    return 'chunked'\n"),
            (
                "length = headers",
                "    length = headers.get('Content-Length')\n    if headers:\n        return 'chunked'\n",
            ),
            KIND_FIX,
        ],
    )
    .await;
    assert_kind_fixed(&r);
    r
}

/// The command that runs the failing test of [`run_breaking_pass`] with its neighbours.
const BODY_FILE: &str = "python3 -m unittest -q test_body";

#[tokio::test]
async fn a_pass_that_breaks_a_test_beside_it_is_undone_and_a_later_fix_stands() {
    let r = run_breaking_pass(&[]).await;
    // At the first pass, the neighbours' run with it, then the start's with it undone; once.
    assert_eq!(runs_in_a_row(&r, BODY_FILE), 1);
}

#[tokio::test]
async fn a_project_folder_named_like_the_tracers_is_left_alone() {
    let r = run_breaking_pass(&[(".kotef-spectrum/notes.txt", "ours\n")]).await;
    assert_eq!(read(r.repo.path(), ".kotef-spectrum/notes.txt"), "ours\n");
}

const LABEL: &str = "NAMES = {200: 'OK'}\n\n\ndef message(code):\n    name = NAMES[code]\n    return '%s-%s' % (code, name)\n";
const LABEL_TEST: &str = "import unittest\n\nfrom pkg.status import message\n\n\nclass T(unittest.TestCase):\n    def test_unknown(self):\n        self.assertEqual(message(573), '573 ?')\n";
/// The change that moves [`LABEL`]'s failure on (the `KeyError` raised in the project gone,
/// the test now rejects `'573-?'`), and the one that passes only with it.
const LABEL_LOOKUP: (&str, &str) = ("NAMES[code]", "    name = NAMES.get(code, '?')\n");
const LABEL_FORMAT: (&str, &str) = ("'%s-%s'", "    return '%s %s' % (code, name)\n");

/// `kotef run` on [`LABEL`], whose fix changes two statements, against a fake llama.cpp
/// whose free attempts answer `free` and whose line attempts answer as `lines` says.
async fn run_two_statements(free: &str, lines: &[(&str, &str)]) -> Run {
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/status.py", LABEL),
        ("test_status.py", LABEL_TEST),
    ]);
    repo.extend(filler(20));
    let lines = owned(lines);
    run_with(
        repo,
        "message(573) fails: make test_status.py pass.",
        "python3 -m unittest -q test_status",
        &[free.to_string()],
        Some(llama_timings()),
        |f| {
            f.lines = lines;
            f.names_itself = true;
        },
    )
    .await
}

/// A free attempt that writes [`LABEL`]'s function back as it was.
fn label_unchanged() -> String {
    let function = &LABEL[LABEL.find("def").unwrap_or(0)..];
    format!("```python\n{function}```\n")
}

const LABEL_FIXED: &str = "NAMES = {200: 'OK'}\n\n\ndef message(code):\n    name = NAMES.get(code, '?')\n    return '%s %s' % (code, name)\n";

#[tokio::test]
async fn a_change_that_moved_the_failure_on_is_a_stone_the_next_change_passes_on() {
    let unchanged = label_unchanged();
    let r = run_two_statements(&unchanged, &[LABEL_LOOKUP, LABEL_FORMAT]).await;
    r.assert_success();
    assert_eq!(read(r.repo.path(), "pkg/status.py"), LABEL_FIXED);
}

#[tokio::test]
async fn a_change_tested_before_the_stone_was_found_is_tested_on_it() {
    // The free attempt fixes the format alone (still the KeyError); the lookup comes after.
    let format_only = "pkg/status.py\n```python\n<<<<<<< SEARCH\n    return '%s-%s' % (code, name)\n=======\n    return '%s %s' % (code, name)\n>>>>>>> REPLACE\n```\n";
    let r = run_two_statements(format_only, &[LABEL_LOOKUP]).await;
    r.assert_success();
    assert_eq!(read(r.repo.path(), "pkg/status.py"), LABEL_FIXED);
}

#[tokio::test]
async fn a_combination_that_passed_is_a_stepping_stones_entry_in_the_transcript() {
    let unchanged = label_unchanged();
    let r = run_two_statements(&unchanged, &[LABEL_LOOKUP, LABEL_FORMAT]).await;
    let path = r.summary.transcript_path.clone().unwrap_or_default();
    let transcript = std::fs::read_to_string(&path).unwrap_or_default();
    let entries: Vec<Value> = (transcript.lines())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["name"] == "stepping_stones")
        .collect();
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert_eq!(entries[0]["arguments"]["stone"], true);
    assert_eq!(entries[1]["arguments"]["passed"], true);
}

const DESCRIBE: &str =
    "def describe(count):\n    text = 'items: ' + count\n    return text.upper()\n";
const DESCRIBE_TEST: &str = "import unittest\n\nfrom pkg.items import describe\n\n\nclass T(unittest.TestCase):\n    def test_count(self):\n        self.assertEqual(describe(3), 'items: 3')\n";

/// `kotef run` on [`DESCRIBE`], whose fix is a type template (`str(count)`, which moves the
/// `TypeError` on to the test's check) and a second statement the model writes.
async fn run_template_and_model() -> Run {
    let mut repo = files(&[
        ("pkg/__init__.py", ""),
        ("pkg/items.py", DESCRIBE),
        ("test_items.py", DESCRIBE_TEST),
    ]);
    repo.extend(filler(20));
    let function = &DESCRIBE[DESCRIBE.find("def").unwrap_or(0)..];
    run_with(
        repo,
        "describe(3) fails: make test_items.py pass.",
        "python3 -m unittest -q test_items",
        &[format!("```python\n{function}```\n")],
        Some(llama_timings()),
        |f| {
            f.lines = vec![("text.upper()".into(), "    return text\n".into())];
            f.names_itself = true;
        },
    )
    .await
}

#[tokio::test]
async fn a_template_that_moved_the_failure_on_is_a_stone_the_models_change_passes_on() {
    let r = run_template_and_model().await;
    r.assert_success();
    let fixed = "def describe(count):\n    text = 'items: ' + str(count)\n    return text\n";
    assert_eq!(read(r.repo.path(), "pkg/items.py"), fixed);
}

#[tokio::test]
async fn a_template_stone_is_counted_in_the_fix_templates_entry() {
    let r = run_template_and_model().await;
    let path = r.summary.transcript_path.clone().unwrap_or_default();
    let transcript = std::fs::read_to_string(&path).unwrap_or_default();
    let entry = (transcript.lines())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["name"] == "fix_templates");
    assert_eq!(
        entry.map(|e| e["arguments"]["stones"].clone()),
        Some(1.into())
    );
}

/// The steps of `node` the run's transcript records.
fn steps_of(r: &Run, node: &str) -> usize {
    (transcript(r).lines())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "step" && e["node"] == node)
        .count()
}

/// The robots repository against a fake whose line attempts write each statement wrong a new
/// way, in repair steps of two calls: every step tests changes no step tested before.
async fn run_robots_exploring() -> Run {
    let free = [ROBOTS_BYTES.to_string()];
    let wrong = |f: &mut Fake| {
        f.lines = [
            (
                "urls_from_robots(body)]",
                "    return list(urls_from_robots(body))\n",
            ),
            (
                "startswith(b'Sitemap:')",
                "        if line.startswith(b'sitemap:'):\n",
            ),
            ("yield line", "            yield line.split(b':')[-1]\n"),
            ("splitlines", "    for line in robots_text.split(b'\\n'):\n"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .to_vec();
    };
    let fake = (&free[..], Some(llama_timings()), wrong);
    let args = ["--coder-step-calls", "2"];
    run_with_args(files(&ROBOTS_REPO), ROBOTS_GOAL, ROBOTS_TEST, fake, &args).await
}

#[tokio::test]
async fn repair_steps_that_each_test_new_line_attempts_are_not_stopped_as_a_loop_after_three() {
    let r = run_robots_exploring().await;
    assert!(steps_of(&r, "coder") > 3, "{:?}", r.summary);
}

#[tokio::test]
async fn once_the_repair_steps_test_nothing_new_the_run_stops_as_a_loop_saying_so() {
    let s = run_robots_exploring().await.summary;
    assert_eq!(s.stop_rule, Some(StopRule::PlannerToCoder), "{s:?}");
    assert!(
        s.stop_reason.contains("of them tested nothing new"),
        "{s:?}"
    );
}
