//! The run's transcript through the real binary: `kotef example` writes
//! `.sdd/runs/<id>.transcript.jsonl` (every model request and reply, tool call and
//! verification, secrets redacted), `kotef report --html` turns it into a page, and headless
//! Chromium renders that page (its DOM holds the run, and no script came from the transcript).

mod support;

use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

struct Made {
    transcript: String,
    path: PathBuf,
    html: PathBuf,
    _dir: tempfile::TempDir,
}

/// One example run with its transcript and page, shared by the facts below.
fn made() -> &'static Made {
    static MADE: OnceLock<Made> = OnceLock::new();
    MADE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let keep = dir.path().join("ws");
        let out = Command::new(env!("CARGO_BIN_EXE_kotef"))
            .args(["example", "--keep"])
            .arg(&keep)
            .env_remove("KOTEF_MODEL")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let runs = keep.join(".sdd/runs");
        let path = std::fs::read_dir(&runs)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(".transcript.jsonl"))
            .expect("a transcript beside the report");
        let html = dir.path().join("run.html");
        let out = Command::new(env!("CARGO_BIN_EXE_kotef"))
            .args(["report", "--html"])
            .arg(&path)
            .arg("-o")
            .arg(&html)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Made {
            transcript: std::fs::read_to_string(&path).unwrap(),
            path: path.clone(),
            html,
            _dir: dir,
        }
    })
}

fn types(t: &str) -> Vec<String> {
    t.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["type"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn the_transcript_holds_model_calls_tool_calls_and_verifications() {
    let t = types(&made().transcript);
    for want in ["model_request", "model_reply", "tool_call", "verification"] {
        assert!(t.iter().any(|x| x == want), "no {want} in {t:?}");
    }
}

#[test]
fn every_model_reply_follows_its_request() {
    let t = types(&made().transcript);
    let requests = t.iter().filter(|x| *x == "model_request").count();
    let replies = t
        .iter()
        .filter(|x| *x == "model_reply" || *x == "model_error")
        .count();
    assert_eq!(requests, replies);
}

#[test]
fn the_page_shows_the_run() {
    let page = std::fs::read_to_string(&made().html).unwrap();
    assert!(
        page.contains("model calls") && page.contains("calc.py"),
        "{page}"
    );
}

#[test]
fn report_without_a_format_prints_how_the_run_ended_first() {
    let out = Command::new(env!("CARGO_BIN_EXE_kotef"))
        .arg("report")
        .arg(&made().path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let first: Vec<&str> = text.lines().take(2).collect();
    assert_eq!(
        (
            out.status.code(),
            first.first().copied(),
            first.get(1).is_some_and(|l| l.starts_with("reason: "))
        ),
        (Some(0), Some("done_success (no stop rule)"), true),
        "{text}"
    );
}

#[test]
fn report_into_a_closed_pipe_ends_quietly() {
    use std::os::fd::FromRawFd as _;
    // `kotef report FILE | head -0`: the reader is gone before kotef writes.
    let mut fds = [0; 2];
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    unsafe { libc::close(fds[0]) };
    let write_end = unsafe { std::process::Stdio::from_raw_fd(fds[1]) };
    let out = Command::new(env!("CARGO_BIN_EXE_kotef"))
        .arg("report")
        .arg(&made().path)
        .stdout(write_end)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        (out.status.code(), stderr.contains("panicked")),
        (Some(0), false),
        "{stderr}"
    );
}

#[test]
fn the_transcript_ends_with_how_the_run_ended() {
    let t = types(&made().transcript);
    assert_eq!(t.last().map(String::as_str), Some("ending"), "{t:?}");
}

fn headless(browser: &str, args: &[&str], page: &Path) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
        ])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .env("HOME", home.path())
        .output()
        .unwrap()
}

#[test]
fn headless_chromium_renders_the_page_with_no_script_from_the_transcript() {
    let Some(browser) = kotef_testkit::tools::chromium() else {
        return;
    };
    let m = made();
    let out = headless(&browser, &["--dump-dom"], &m.html);
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(
        dom.contains("verification") && dom.contains("calc.py"),
        "{dom}"
    );
    assert!(
        !dom.contains("<script"),
        "a script element in the rendered page"
    );
}

#[test]
fn headless_chromium_takes_a_screenshot_of_the_page() {
    let Some(browser) = kotef_testkit::tools::chromium() else {
        return;
    };
    let m = made();
    let shot = m.html.with_extension("png");
    let arg = format!("--screenshot={}", shot.display());
    let _ = headless(&browser, &[&arg, "--window-size=1200,1600"], &m.html);
    let png = std::fs::read(&shot).unwrap_or_default();
    assert!(png.starts_with(b"\x89PNG"), "no PNG written");
    if let Ok(dest) = std::env::var("KOTEF_TRANSCRIPT_SCREENSHOT") {
        std::fs::write(dest, &png).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_in_a_tool_output_or_a_message_is_redacted_in_the_transcript() {
    const KEY: &str = "sk-transcript-0123456789abcdef";
    // The repository holds the operator's key (a leaked .env), and the coder reads it.
    let leak = format!("KEY={KEY}\n");
    let dir = kotef_testkit::git::committed_repo(&[("leak.env", &leak)], &[]);
    let read = json!({"name": "read_file", "arguments": {"path": "leak.env"}});
    let model = support::recording_model::RecordingModel::scripted(
        json!({"next": "done", "reason": "stop"}),
        vec![read],
    )
    .await;
    let summary = support::kotef_run(dir.path())
        .model("openai:fake")
        .test_command("false")
        .goal(&format!("Fix leak.env (the key is {KEY})"))
        .env("OPENAI_BASE_URL", model.base_url())
        .env("OPENAI_API_KEY", KEY)
        .run()
        .await
        .summary();
    let path = summary
        .transcript_path
        .expect("a transcript path in the summary");
    let t = std::fs::read_to_string(path).unwrap();
    assert!(t.contains("leak.env") && t.contains("[REDACTED]"), "{t}");
    assert!(!t.contains(KEY));
}
