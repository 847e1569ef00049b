//! The run's page as a reader opens it from the Action's artifact: `kotef action` runs a
//! labelled issue (the real binary, the fake GitHub, a bare remote, a scripted model), leaves
//! `<stem>.transcript.jsonl` and `<stem>.transcript.html` where the upload step looks, and
//! headless Chromium renders the page at a laptop's window size: what a reader came for — how
//! the run ended (status, reason) and the diff — is on the first screen, before any step.
//!
//! The measuring is done on a copy of the page with one script appended (the page itself has
//! none): it writes each element's bottom edge and the window's height into the DOM, which
//! `--dump-dom` prints.

mod support;

use kotef_testkit::script::planner;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use support::action_runner::{hello_model, run_labeled, world, Launch, Ran};

/// The window a reader opens the page in.
const WINDOW: (u32, u32) = (1280, 800);

struct Page {
    html: PathBuf,
    ran: Ran,
    _world: support::action_runner::World,
}

/// The page of a run of `model` from the Action's artifact.
async fn run_page(model: serde_json::Value) -> Page {
    let w = world("grep -q hello hello.txt").await;
    let (_, _, ran) = run_labeled(&w, true, &model, &[], Launch::Direct).await;
    let dir = PathBuf::from(
        ran.outputs
            .get("artifact-path")
            .cloned()
            .unwrap_or_default(),
    );
    let html = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".transcript.html"))
        .unwrap_or_else(|| panic!("no page in {dir:?}:\n{}\n{}", ran.stdout, ran.stderr));
    Page {
        html,
        ran,
        _world: w,
    }
}

/// A run that writes hello.txt and passes.
fn page() -> &'static Page {
    static PAGE: OnceLock<Page> = OnceLock::new();
    kotef_testkit::recorded(&PAGE, || {
        run_page(hello_model(
            "hello.txt is missing",
            "Added hello.txt, which says hello.",
        ))
    })
}

/// A run that loops planner → researcher until a stop rule ends it.
fn stuck_page() -> &'static Page {
    static PAGE: OnceLock<Page> = OnceLock::new();
    kotef_testkit::recorded(&PAGE, || {
        run_page(json!({
            "planner": [planner("researcher", "look again", json!({"query": "How is the greeting configured?"}))],
            "researcher": [{"content": "{\"findings\": \"README.md only\", \"quality\": 0.9}"}]
        }))
    })
}

fn headless(browser: &str, args: &[&str], page: &Path) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            &format!("--window-size={},{}", WINDOW.0, WINDOW.1),
        ])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .env("HOME", home.path())
        .output()
        .unwrap()
}

/// What the reader needs, by CSS selector, with the text each must hold.
const FIRST_SCREEN: [(&str, &str); 3] = [
    ("#ending .status", "done_success"),
    ("#ending .reason", "Reason:"),
    ("#diff p", "1 file changed"),
];

/// The same for a run a stop rule ended, which changed no code.
const STUCK_FIRST_SCREEN: [(&str, &str); 3] = [
    ("#ending .status", "aborted_stuck"),
    ("#ending .reason", "Reason:"),
    ("#diff p", "no code changed"),
];

/// The bottom edge of each `probes` element (or -1 when it is missing or its text is not
/// there) and the window's height, measured in Chromium.
fn measured(browser: &str, html: &Path, probes: &[(&str, &str)]) -> (Vec<f64>, f64) {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("measured.html");
    let probes: Vec<String> = probes
        .iter()
        .map(|(sel, text)| {
            format!(
                "(function(){{var e=document.querySelector('{sel}');return e&&e.textContent.indexOf('{text}')>=0?e.getBoundingClientRect().bottom:-1}})()"
            )
        })
        .collect();
    let script = format!(
        "<script>document.body.setAttribute('data-measured',JSON.stringify([[{}],window.innerHeight]));</script>",
        probes.join(",")
    );
    let page = std::fs::read_to_string(html).unwrap();
    std::fs::write(&copy, page.replace("</body>", &format!("{script}</body>"))).unwrap();
    let out = headless(browser, &["--dump-dom"], &copy);
    let dom = String::from_utf8_lossy(&out.stdout);
    let json = dom
        .split("data-measured=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no measurement in the DOM:\n{dom}"))
        .replace("&quot;", "\"");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let bottoms = v[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_f64().unwrap_or(-1.0))
        .collect();
    (bottoms, v[1].as_f64().unwrap_or(0.0))
}

#[test]
fn the_artifact_holds_the_transcript_beside_its_page() {
    let p = page();
    let jsonl = p.html.to_string_lossy().replace(".html", ".jsonl");
    let text = std::fs::read_to_string(&jsonl).unwrap_or_default();
    let last_types: Vec<String> = text
        .lines()
        .rev()
        .take(2)
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["type"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        last_types,
        vec!["diff".to_string(), "ending".to_string()],
        "{}",
        p.ran.stdout
    );
}

/// Whether each of `probes` is inside the first screen of `html`; `None` without Chromium.
fn first_screen(html: &Path, probes: &[(&str, &str)]) -> Option<(Vec<bool>, String)> {
    let browser = kotef_testkit::tools::chromium()?;
    let (bottoms, height) = measured(&browser, html, probes);
    // The visible height is the window's less what the browser keeps for itself.
    let visible = height > 0.0 && height <= f64::from(WINDOW.1);
    let on_screen = bottoms
        .iter()
        .map(|b| visible && *b > 0.0 && *b <= height)
        .collect();
    Some((
        on_screen,
        format!("bottom edges {bottoms:?} in a window {height} high"),
    ))
}

#[test]
fn status_reason_and_diff_are_on_the_first_screen() {
    if let Some((on_screen, why)) = first_screen(&page().html, &FIRST_SCREEN) {
        assert_eq!(on_screen, vec![true; FIRST_SCREEN.len()], "{why}");
    }
}

#[test]
fn a_stopped_run_shows_its_status_and_reason_on_the_first_screen() {
    let p = stuck_page();
    if let Some((on_screen, why)) = first_screen(&p.html, &STUCK_FIRST_SCREEN) {
        assert_eq!(
            on_screen,
            vec![true; STUCK_FIRST_SCREEN.len()],
            "{why}\n{}",
            p.ran.stdout
        );
    }
}

#[test]
fn headless_chromium_takes_the_first_screen() {
    let Some(browser) = kotef_testkit::tools::chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("page.png");
    let _ = headless(
        &browser,
        &[&format!("--screenshot={}", shot.display())],
        &page().html,
    );
    let png = std::fs::read(&shot).unwrap_or_default();
    assert!(png.starts_with(b"\x89PNG"), "no PNG written");
    // `KOTEF_RUN_PAGE_SCREENSHOT=docs/img/run-page.png` refreshes the docs' picture.
    if let Ok(dest) = std::env::var("KOTEF_RUN_PAGE_SCREENSHOT") {
        std::fs::write(dest, &png).unwrap();
    }
}
