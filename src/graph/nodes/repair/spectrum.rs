//! Spectrum-based localisation, measured and used: which lines of the project the failing
//! test ran that the passing tests beside it did not (the scores are
//! [`crate::graph::memory::spectrum`]'s). A test that fails by assertion says nothing of where the
//! code went wrong; the lines it ran do, and the lines its passing neighbours (the other tests
//! of its class or file) ran too are less likely to be wrong. One run of those tests under a
//! line tracer (`spectrum_tracer.py`, loaded as `sitecustomize` through `PYTHONPATH`) gives
//! each line its Ochiai score, `failed(l) / sqrt(failed * (failed(l) + passed(l)))`
//! ([`Spectrum`]): 1 for a line only the failing tests ran, 0 for one they did not run.
//!
//! Python only, once a repair step, bounded: the traced run has its own time limit
//! ([`trace_time`]), its record is read capped and without following links (the tree is the
//! tests' after they ran), and the tracer's folder is removed from the tree before anything
//! else looks at it. No record, or no failing test in it, is no spectrum: the loop goes on as
//! without one.

use crate::graph::memory::spectrum::{Spectrum, Telling};
use std::collections::BTreeSet;
use std::time::Duration;

/// The tracer the traced run loads.
const TRACER: &str = include_str!("spectrum_tracer.py");
/// The folder of the tree the tracer and its record are in while the traced run lasts.
pub const DIR: &str = ".kotef-spectrum";
/// The tracer's record read at most.
const RECORD_CAP: u64 = 16 * 1024 * 1024;
/// The lines offered at most for their score alone (beside the sweep's).
pub const MAX_SUSPECTS: usize = 12;
/// Files the spectrum may bring into view at most.
pub const MAX_NEW_FILES: usize = 2;
/// The telling functions the code shown is focused on at most.
pub const FOCUS_FUNCTIONS: usize = 3;

/// `shown` with the functions the spectrum tells apart in view ([`Spectrum::telling_near`], in
/// the project's source: not the tests, vendored or installed code; of many functions only the
/// failing test ran, those named like it, [`super::near`]): a shown file where the
/// failing tests ran nothing gives its place (unless it is the first or holds a frame), the
/// files of those functions not shown take the places free (at most [`MAX_NEW_FILES`], up to
/// [`super::REPAIR_FILES`] in all), and the best [`FOCUS_FUNCTIONS`] of them are the trace's
/// focus (shown; their statements offered by [`rank`]). Unchanged without a telling
/// function.
pub(super) fn widen(
    ctx: &crate::graph::GraphContext,
    mut shown: super::Shown,
    s: Option<&Spectrum>,
    protected: &[String],
    near: &super::near::Near,
) -> super::Shown {
    let Some(s) = s else {
        return shown;
    };
    let source = |p: &str| {
        !protected.iter().any(|x| x == p)
            && kotef_tools::locate::rank(p) == 0
            && !crate::graph::prompt::code_view::installed(p)
            && !crate::graph::prompt::context::named_like_a_test(p)
    };
    let telling = s.telling_near(source, |p, first| near.of(p, first));
    if telling.is_empty() {
        return shown;
    }
    // A shown file where the failing tests ran nothing cannot hold the fix (but the first,
    // and a frame's or a look-up's): its place goes to a file the spectrum points at.
    let ran_in = |p: &str| s.of_lines(p, 1, usize::MAX) > 0.0;
    let framed = |p: &str| shown.trace.repo.iter().any(|(f, _)| f == p);
    let mut files: Vec<(String, String)> = Vec::new();
    for (i, f) in shown.files.drain(..).enumerate() {
        if i == 0 || ran_in(&f.0) || framed(&f.0) {
            files.push(f);
        }
    }
    let tree = ctx.tools.workdir().tree();
    let kept = files.len();
    for Telling { path, .. } in &telling {
        let known = files.iter().any(|(p, _)| p == path);
        if known || files.len() - kept == MAX_NEW_FILES || files.len() == super::REPAIR_FILES {
            continue;
        }
        let text = tree.read_text(path, kotef_tools::file_tools::READ_CAP_BYTES as u64);
        if let Ok(text) = text {
            ctx.tools.mark_read(path);
            files.push((path.clone(), text));
        }
    }
    shown.trace.focus = telling
        .iter()
        .filter(|t| files.iter().any(|(f, _)| *f == t.path))
        .take(FOCUS_FUNCTIONS)
        .filter_map(|t| Some((t.path.clone(), *t.lines.first()?)))
        .collect();
    shown.files = files;
    shown
}

/// The spectrum of the failing `run` of `command` ([`measure`]), `shown` widened by it
/// ([`widen`]) and the statements line attempts offer of it ([`offers`]): functions of one
/// score told apart by how near their names are to the failing tests the command names or the
/// run reports and to the failure's `names` ([`super::near`], which reads files and is dropped
/// before anything is awaited again).
pub(super) async fn localise(
    ctx: &crate::graph::GraphContext,
    state: &mut crate::graph::memory::state::RunState,
    shown: super::Shown,
    protected: &[String],
    (command, run): (&str, &kotef_tools::CommandResult),
    names: &[String],
) -> (super::Shown, super::targets::Targets) {
    let s = measure(ctx, state, command, run).await;
    let output = format!("{}{}", run.stdout, run.stderr);
    let failed = failed_tests(&output);
    let ids = command
        .split_whitespace()
        .filter(|w| test_id(w).is_some())
        .chain(failed.iter().map(String::as_str));
    let tree = ctx.tools.workdir().tree();
    let read = |p: &str| {
        tree.read_text(p, kotef_tools::file_tools::READ_CAP_BYTES as u64)
            .ok()
    };
    let near = super::near::Near::new(ids, names, read);
    let shown = widen(ctx, shown, s.as_ref(), protected, &near);
    let targets = offers(&shown, names, s.as_ref(), &near);
    (shown, targets)
}

/// The statements line attempts offer of the `shown` code ([`super::targets::targets`]),
/// ordered by the spectrum when there is one ([`rank`]).
pub(super) fn offers(
    shown: &super::Shown,
    names: &[String],
    s: Option<&Spectrum>,
    near: &super::near::Near,
) -> super::targets::Targets {
    let found = super::targets::targets(&shown.trace, &shown.files, names);
    let ranked = rank(found, &shown.files, s, near);
    match s {
        Some(s) => unrun_found_last(ranked, &shown.trace.located, s),
        None => ranked,
    }
}

/// `targets` with the frames' statements at lines a look-up found
/// ([`crate::graph::prompt::code_view::Traceback::located`]) in files where the failing tests
/// ran nothing moved after the sweep: a name found in a script the tests never import (a
/// release bot naming the project) is no place of the fix, while what the tests ran is.
fn unrun_found_last(
    mut targets: super::targets::Targets,
    located: &[(String, usize)],
    s: &Spectrum,
) -> super::targets::Targets {
    let found_unrun = |t: &super::targets::Target| {
        s.of_lines(&t.path, 1, usize::MAX) <= 0.0
            && (located.iter()).any(|(p, l)| *p == t.path && (t.line..=t.last_line()).contains(l))
    };
    let (unrun, frames): (Vec<_>, Vec<_>) = targets.frames.into_iter().partition(found_unrun);
    targets.frames = frames;
    targets.sweep.extend(unrun);
    targets
}

/// `found` ordered by the spectrum: the frames stay first (where it raised is the strongest
/// sign there is); the sweep's statements and the [`MAX_SUSPECTS`] most suspect statements of
/// the shown `files` not offered yet (the lines run in the functions it tells apart, taken
/// from those functions by turns, each function's most suspect first:
/// [`crate::graph::memory::spectrum::suspected`]) come next, most suspect first
/// ([`Spectrum::suspicion`]: a statement that sent the failing tests down lines no passing
/// test ran is as suspect as those lines; the sweep's order among equals), and the
/// statements the failing tests never ran last.
pub(super) fn rank(
    found: super::targets::Targets,
    files: &[(String, String)],
    s: Option<&Spectrum>,
    near: &super::near::Near,
) -> super::targets::Targets {
    use super::targets::Target;
    let Some(s) = s else {
        return found;
    };
    let super::targets::Targets {
        frames,
        sweep,
        mut farther,
    } = found;
    let shown = |p: &str| files.iter().any(|(f, _)| f == p);
    // The told functions' statements by turns, each function's most suspect first.
    let told = s.telling_near(shown, |p, first| near.of(p, first));
    let mut each: Vec<std::vec::IntoIter<(f64, Target)>> = Vec::new();
    for t in &told {
        let Some((_, text)) = files.iter().find(|(f, _)| *f == t.path) else {
            continue;
        };
        let statements: Vec<(f64, Target)> = (t.suspected.iter())
            .filter_map(|&(line, suspicion)| {
                let target = Target::around(&t.path, text, line)?;
                let score = s.suspicion(&target.path, target.line, target.last_line());
                Some((score.max(suspicion), target))
            })
            .collect();
        each.push(statements.into_iter());
    }
    let mut suspects: Vec<(f64, Target)> = Vec::new();
    while !each.is_empty() {
        each.retain_mut(|statements| {
            let Some((score, target)) = statements.next() else {
                return false;
            };
            let known = frames.contains(&target) || sweep.contains(&target);
            if !known && !suspects.iter().any(|(_, o)| *o == target) {
                suspects.push((score, target));
            }
            true
        });
    }
    suspects.sort_by(|a, b| b.0.total_cmp(&a.0));
    suspects.truncate(MAX_SUSPECTS);
    let score = |t: &Target| s.suspicion(&t.path, t.line, t.last_line());
    let mut all: Vec<(f64, Target)> = sweep.into_iter().map(|t| (score(&t), t)).collect();
    all.extend(suspects);
    // Stable: equal scores keep the sweep's order, and the suspects come after its equals.
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    let sweep: Vec<Target> = all.into_iter().map(|(_, t)| t).collect();
    // A statement past the sweep's bounds that the spectrum tells apart is offered with it.
    farther.retain(|t| !sweep.contains(t));
    super::targets::Targets {
        frames,
        sweep,
        farther,
    }
}

/// The tests a command names and the command that runs them with their neighbours: each
/// pytest id (`tests/test_x.py::T::test_y` → `tests/test_x.py::T`, `tests/test_x.py::test_y`
/// → `tests/test_x.py`) or unittest id (`pkg.test_x.T.test_y` → `pkg.test_x.T`) among its
/// words is replaced by its class or file (once). `None` when no word names a test function.
pub fn named_tests(command: &str) -> Option<(String, Vec<String>)> {
    named_with(command, |parent| parent.to_string())
}

/// [`named_tests`] with each test's file in place of its class: `tests/test_x.py::T::test_y`
/// → `tests/test_x.py`, `pkg.test_x.T.test_y` → `pkg.test_x` (the tests a check of a pass
/// runs, as a project's test file is judged).
pub fn named_files(command: &str) -> Option<(String, Vec<String>)> {
    named_with(command, |parent| match parent.split_once("::") {
        Some((file, _)) => file.to_string(),
        None if parent.contains('/') || parent.ends_with(".py") => parent.to_string(),
        None => parent
            .rsplit_once('.')
            .map_or(parent, |(module, _)| module)
            .to_string(),
    })
}

/// The tests `command` names and the command with each named test's word replaced by
/// `widen` of its parent (its class, or the file when there is none), once.
fn named_with(command: &str, widen: impl Fn(&str) -> String) -> Option<(String, Vec<String>)> {
    let mut names: Vec<String> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut parents: Vec<String> = Vec::new();
    for w in command.split_whitespace() {
        let Some((parent, name)) = test_id(w).map(|(p, n)| (widen(&p), n)) else {
            if !parents.iter().any(|p| p == w) {
                words.push(w.to_string());
            }
            continue;
        };
        if !names.contains(&name) {
            names.push(name);
        }
        if !words.contains(&parent) {
            words.push(parent.clone());
            parents.push(parent);
        }
    }
    (!names.is_empty()).then(|| (words.join(" "), names))
}

/// A word that names one test function: its class or file, and the function's name. A
/// dotted id must name a class before it (`pkg.test_x.T.test_y`): `tests.test_x` is a module.
fn test_id(word: &str) -> Option<(String, String)> {
    let (rest, name) = if word.contains("::") {
        word.rsplit_once("::")?
    } else if word.contains('/') || word.ends_with(".py") {
        return None;
    } else {
        let (rest, name) = word.rsplit_once('.')?;
        let class = rest.rsplit('.').next().unwrap_or(rest);
        if !class.starts_with(|c: char| c.is_ascii_uppercase()) {
            return None;
        }
        (rest, name)
    };
    let name = name.split('[').next().unwrap_or(name);
    let ident = name.chars().all(|c| c.is_alphanumeric() || c == '_');
    (name.starts_with("test") && ident && !rest.is_empty())
        .then(|| (rest.to_string(), name.to_string()))
}

/// The test functions a run's output reports as failed: unittest's `FAIL: test_x (…)` and
/// `ERROR: test_x (…)`, pytest's `FAILED path::T::test_x` and `path::test_x FAILED`, and the
/// headers of pytest's failure reports (`_____ T.test_x _____`; its short summary is off in
/// older versions).
pub fn failed_tests(output: &str) -> BTreeSet<String> {
    let name_of = |id: &str| -> Option<String> {
        let id = id.split('[').next().unwrap_or(id);
        let name = id.rsplit("::").next().unwrap_or(id);
        (name.starts_with("test") && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
            .then(|| name.to_string())
    };
    let mut out = BTreeSet::new();
    for line in output.lines() {
        let l = line.trim();
        let id = if let Some(r) = l
            .strip_prefix("FAIL: ")
            .or_else(|| l.strip_prefix("ERROR: "))
        {
            r.split_whitespace().next()
        } else if let Some(r) = l.strip_prefix("FAILED ") {
            r.split_whitespace().next()
        } else if let Some(r) = l.strip_suffix(" FAILED") {
            r.split_whitespace().last()
        } else if l.starts_with("___") && l.ends_with("___") {
            let header = l.trim_matches('_').trim();
            (!header.contains(' ')).then(|| header.rsplit('.').next().unwrap_or(header))
        } else {
            None
        };
        if let Some(n) = id.and_then(name_of) {
            out.insert(n);
        }
    }
    out
}

/// The traced run's time: ten times the failing run's (it runs the test's neighbours too,
/// and tracing slows Python down) plus thirty seconds, at most an eighth of the time left.
pub fn trace_time(failing_run: Duration, time_left: Duration) -> Duration {
    (failing_run * 10 + Duration::from_secs(30)).min(time_left / 8)
}

/// Whether a command runs Python's tests (the tracer is Python's).
pub fn runs_python(command: &str) -> bool {
    command
        .split_whitespace()
        .any(|w| w.contains("python") || w.contains("pytest"))
}

/// The spectrum of the failing test `command` runs (whose run was `failing_run`): measured
/// once a run ([`trace`]) and kept in the run's state for its later repair steps (the files
/// have changed little, and the traced run is slow).
pub(super) async fn measure(
    ctx: &crate::graph::GraphContext,
    state: &mut crate::graph::memory::state::RunState,
    command: &str,
    failing_run: &kotef_tools::CommandResult,
) -> Option<Spectrum> {
    if let Some((c, s)) = &state.spectrum {
        if c == command {
            return s.clone();
        }
    }
    let s = trace(ctx, state, command, failing_run).await;
    state.spectrum = Some((command.to_string(), s.clone()));
    s
}

/// One traced run of the failing test's neighbours (or of `command` itself when it names no
/// single test) within [`trace_time`], read into a [`Spectrum`]; `None` when it cannot be
/// had. Records what it did in the transcript.
async fn trace(
    ctx: &crate::graph::GraphContext,
    state: &mut crate::graph::memory::state::RunState,
    command: &str,
    failing_run: &kotef_tools::CommandResult,
) -> Option<Spectrum> {
    let time = trace_time(
        Duration::from_millis(failing_run.duration_ms),
        ctx.time_left(),
    );
    if !runs_python(command) || time < Duration::from_secs(2) {
        return None;
    }
    let (traced, named) = match named_tests(command) {
        Some((siblings, names)) => (siblings, Some(names)),
        None => (command.to_string(), None),
    };
    let wd = ctx.tools.workdir();
    let tree = wd.tree();
    let root = wd.root().to_path_buf();
    let tracer = format!("{DIR}/sitecustomize.py");
    let record = format!("{DIR}/trace.json");
    // Nothing of the project's may sit where kotef writes: a folder of that name is left as
    // it is, untraced.
    if !matches!(tree.kind(DIR), Ok(kotef_tools::Kind::Missing)) {
        return None;
    }
    if tree
        .write(&tracer, TRACER.as_bytes(), kotef_tools::Links::Replace)
        .is_err()
    {
        return None;
    }
    let dir = root.join(DIR);
    let mut cfg = ctx.test_runner().config().clone();
    cfg.timeout = time;
    cfg.extra_env = tracer_env(
        &cfg.extra_env,
        &root,
        named.as_deref().unwrap_or_default(),
        time / 2,
    );
    let result = kotef_tools::CommandRunner::new(cfg)
        .run(&traced, &root)
        .await;
    let text = tree.read_text(&record, RECORD_CAP).ok();
    for p in [&record, &tracer] {
        let _ = tree.remove_file(p);
    }
    if let Err(e) = tree.remove_empty_dir(DIR) {
        tracing::warn!(error = %e, path = %dir.display(), "the tracer's folder could not be removed");
    }
    let output = format!("{}{}", result.stdout, result.stderr);
    // The named tests that failed (a command may name passing ones too); all of them when the
    // output says none did.
    let reported = failed_tests(&output);
    let failed: BTreeSet<String> = match &named {
        Some(names) => {
            let both: BTreeSet<String> = names
                .iter()
                .filter(|n| reported.contains(*n))
                .cloned()
                .collect();
            if both.is_empty() {
                names.iter().cloned().collect()
            } else {
                both
            }
        }
        None => reported,
    };
    let spectrum = text.and_then(|t| Spectrum::read(&t, &failed));
    let said = match &spectrum {
        Some(s) => format!(
            "traced {} failing and {} passing test(s){}; most suspect: {}",
            s.failing,
            s.passing,
            if s.cut {
                format!(
                    " (ended once the failing tests had run, past {} s)",
                    (time / 2).as_secs()
                )
            } else {
                String::new()
            },
            s.files()
                .iter()
                .take(3)
                .map(|(p, sc)| format!("{p} ({sc:.2})"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None if result.timed_out => {
            format!("no spectrum: the traced run took over {} s", time.as_secs())
        }
        None => "no spectrum: the traced run left no record of a failing test".into(),
    };
    ctx.record(crate::graph::memory::events::RunEvent::ToolCall {
        step: state.total_steps + 1,
        node: kotef_core::NodeName::Coder,
        name: "spectrum".into(),
        arguments: serde_json::json!({ "command": traced, "time_s": time.as_secs() }),
        output: said,
        is_error: spectrum.is_none(),
    });
    state.count_tool("spectrum");
    spectrum
}

/// The traced run's variables: the command's own, with the tracer's folder first on
/// `PYTHONPATH`, where its record goes, the failing tests whose lines it records in full
/// (every test's when `failing` is empty) and, with them, the `deadline` past which it traces
/// only them and ends the run once they have run (a slow suite's spectrum from the tests
/// before the deadline rather than none), and the tracer as a pytest plugin (which runs the
/// failing tests first).
fn tracer_env(
    own: &[(String, String)],
    root: &std::path::Path,
    failing: &[String],
    deadline: Duration,
) -> Vec<(String, String)> {
    let dir = root.join(DIR);
    let python_path = match own.iter().find(|(k, _)| k == "PYTHONPATH") {
        Some((_, v)) => format!("{}:{v}", dir.display()),
        None => dir.display().to_string(),
    };
    let plugins = match own.iter().find(|(k, _)| k == "PYTEST_PLUGINS") {
        Some((_, v)) if !v.is_empty() => format!("{v},sitecustomize"),
        _ => "sitecustomize".to_string(),
    };
    let mut env: Vec<(String, String)> = own
        .iter()
        .filter(|(k, _)| k != "PYTHONPATH" && (failing.is_empty() || k != "PYTEST_PLUGINS"))
        .cloned()
        .collect();
    env.extend([
        ("PYTHONPATH".to_string(), python_path),
        ("PYTHONDONTWRITEBYTECODE".to_string(), "1".to_string()),
        (
            "SPECTRUM_TRACE_ROOT".to_string(),
            root.display().to_string(),
        ),
        (
            "SPECTRUM_TRACE_OUT".to_string(),
            dir.join("trace.json").display().to_string(),
        ),
    ]);
    if !failing.is_empty() {
        env.push(("SPECTRUM_TRACE_FAILING".to_string(), failing.join(",")));
        env.push((
            "SPECTRUM_TRACE_DEADLINE".to_string(),
            format!("{:.1}", deadline.as_secs_f64()),
        ));
        env.push(("PYTEST_PLUGINS".to_string(), plugins));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    const CODE: &str = "def read_body(headers):\n    if headers.get('Transfer-Encoding') == 'chunked':\n        return chunked()\n    return until_close()\n\n\ndef chunked():\n    return 'chunked'\n\n\ndef until_close():\n    return 'until close'\n";

    /// `read_body` called by both tests (its last line run by the failing one only), `chunked`
    /// by the passing one, `until_close` by the failing one only.
    fn code_record() -> Spectrum {
        let record = r#"{"tests": {
            "test_upper": {"h.py": {"1": [1, 2, 4], "11": [11, 12]}},
            "test_lower": {"h.py": {"1": [1, 2, 3], "7": [7, 8]}}
        }}"#;
        Spectrum::read(record, &failed(&["test_upper"])).unwrap()
    }

    #[test]
    fn the_told_functions_give_their_statements_by_turns_a_condition_before_the_line_it_led_to() {
        let files = vec![("h.py".to_string(), CODE.to_string())];
        let ranked = rank(
            super::super::targets::Targets::default(),
            &files,
            Some(&code_record()),
            &super::super::near::Near::nothing(),
        );
        let first: Vec<&str> = ranked.sweep.iter().map(|t| t.text.trim()).collect();
        assert_eq!(
            first,
            [
                "return 'until close'",
                "if headers.get('Transfer-Encoding') == 'chunked':",
                "return until_close()"
            ]
        );
    }

    #[test]
    fn the_frames_stay_first_and_unrun_statements_go_last() {
        let files = vec![("h.py".to_string(), CODE.to_string())];
        let at = |line| super::super::targets::Target::around("h.py", CODE, line).unwrap();
        let found = super::super::targets::Targets {
            frames: vec![at(2)],
            sweep: vec![at(3), at(12)],
            ..Default::default()
        };
        let ranked = rank(
            found,
            &files,
            Some(&code_record()),
            &super::super::near::Near::nothing(),
        );
        assert_eq!(ranked.frames, [at(2)]);
        assert_eq!(ranked.sweep.first(), Some(&at(12)));
        assert_eq!(ranked.sweep.last(), Some(&at(3)));
    }

    #[test]
    fn a_found_line_in_a_file_the_failing_tests_never_ran_goes_after_the_sweep() {
        let bot = "ROOM = 'h'  # read_body\n";
        let t = |path, text, line| super::super::targets::Target::around(path, text, line).unwrap();
        let found = super::super::targets::Targets {
            frames: vec![t("bot.py", bot, 1), t("h.py", CODE, 2)],
            sweep: vec![t("h.py", CODE, 12)],
            ..Default::default()
        };
        let located = [("bot.py".to_string(), 1), ("h.py".to_string(), 2)];
        let ranked = unrun_found_last(found, &located, &code_record());
        assert_eq!(ranked.frames, [t("h.py", CODE, 2)]);
        assert_eq!(ranked.sweep, [t("h.py", CODE, 12), t("bot.py", bot, 1)]);
    }

    fn named(command: &str) -> Option<(String, Vec<String>)> {
        named_tests(command)
    }

    #[test]
    fn a_named_test_runs_with_its_class_or_file() {
        assert_eq!(
            named(".venv/bin/python -m unittest -q pkg.test_x.T.test_y"),
            Some((
                ".venv/bin/python -m unittest -q pkg.test_x.T".into(),
                vec!["test_y".into()]
            ))
        );
        assert_eq!(
            named("python -m pytest -q tests/test_x.py::T::test_y[a-1]"),
            Some((
                "python -m pytest -q tests/test_x.py::T".into(),
                vec!["test_y".into()]
            ))
        );
        assert_eq!(
            named("pytest tests/test_x.py::test_y"),
            Some(("pytest tests/test_x.py".into(), vec!["test_y".into()]))
        );
    }

    #[test]
    fn a_named_tests_file_is_what_a_pass_is_checked_by() {
        let files = |c: &str| named_files(c).map(|(c, _)| c);
        assert_eq!(
            files("python -m unittest -q pkg.test_x.T.test_y").as_deref(),
            Some("python -m unittest -q pkg.test_x")
        );
        assert_eq!(
            files("pytest tests/test_x.py::T::test_y tests/test_x.py::test_z").as_deref(),
            Some("pytest tests/test_x.py")
        );
        assert_eq!(files("pytest tests/test_x.py"), None);
    }

    #[test]
    fn every_test_a_command_names_is_traced_with_its_class_once() {
        assert_eq!(
            named("pytest t/x.py::A::test_a t/x.py::B::test_b t/x.py::B::test_c t/x.py::B"),
            Some((
                "pytest t/x.py::A t/x.py::B".into(),
                vec!["test_a".into(), "test_b".into(), "test_c".into()]
            ))
        );
    }

    #[test]
    fn a_command_naming_no_single_test_names_none() {
        assert_eq!(named("python -m pytest -q tests/test_x.py"), None);
        assert_eq!(named("python -m unittest -q pkg.test_x.T"), None);
        assert_eq!(named("python -m unittest -q tests.test_x"), None);
        assert_eq!(named("cargo test"), None);
    }

    #[test]
    fn failed_tests_are_read_from_unittest_and_pytest_output() {
        let out = "FAIL: test_a (pkg.test_x.T)\nERROR: test_b (pkg.test_x.T.test_b)\nFAILED tests/test_x.py::T::test_c - AssertionError\ntests/test_x.py::test_d[1] FAILED\nok test_e\n";
        assert_eq!(
            failed_tests(out),
            failed(&["test_a", "test_b", "test_c", "test_d"])
        );
    }

    #[test]
    fn failed_tests_are_read_from_the_headers_of_pytests_failure_reports() {
        let out =
            "_______ T.test_a _______\n___ test_b[x] ___\n____ ERROR at setup of test_c ____\n";
        assert_eq!(failed_tests(out), failed(&["test_a", "test_b"]));
    }

    #[test]
    fn the_traced_run_gets_ten_times_the_failing_runs_time_and_half_a_minute_within_an_eighth_of_whats_left(
    ) {
        let s = Duration::from_secs;
        assert_eq!(trace_time(s(1), s(800)), s(40));
        assert_eq!(trace_time(s(1), s(240)), s(30));
        assert_eq!(trace_time(s(60), s(800)), s(100));
    }

    #[test]
    fn the_traced_run_finds_the_tracer_first_and_records_the_failing_tests_lines() {
        let own = vec![
            ("PYTHONPATH".to_string(), "src".to_string()),
            ("PYTEST_PLUGINS".to_string(), "xdist".to_string()),
        ];
        let failing = ["test_y".to_string(), "test_z".to_string()];
        let env = tracer_env(
            &own,
            std::path::Path::new("/ws"),
            &failing,
            Duration::from_secs(9),
        );
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("PYTHONPATH"), Some("/ws/.kotef-spectrum:src"));
        assert_eq!(get("SPECTRUM_TRACE_FAILING"), Some("test_y,test_z"));
        assert_eq!(get("SPECTRUM_TRACE_DEADLINE"), Some("9.0"));
        assert_eq!(get("PYTEST_PLUGINS"), Some("xdist,sitecustomize"));
        assert_eq!(
            get("SPECTRUM_TRACE_OUT"),
            Some("/ws/.kotef-spectrum/trace.json")
        );
    }

    /// Runs the tracer on a two-test module whose first test by name leaves a mark when it runs
    /// and whose second fails; the tracer's record and whether the mark was left.
    fn traced_module(deadline: Option<&str>) -> (serde_json::Value, bool) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join(DIR)).unwrap();
        std::fs::write(root.join(DIR).join("sitecustomize.py"), TRACER).unwrap();
        std::fs::write(
            root.join("test_m.py"),
            "import os, unittest\n\ndef twice(x):\n    return x + x\n\n\nclass T(unittest.TestCase):\n    def test_a_marks(self):\n        open(os.path.join(os.path.dirname(__file__), 'mark'), 'w').close()\n\n    def test_b_fails(self):\n        self.assertEqual(twice(2), 5)\n",
        )
        .unwrap();
        let failing = ["test_b_fails".to_string()];
        let env = tracer_env(&[], root, &failing, Duration::ZERO);
        let mut cmd = std::process::Command::new("python3");
        cmd.args(["-m", "unittest", "-q", "test_m"])
            .current_dir(root);
        for (k, v) in env.iter().filter(|(k, _)| k != "SPECTRUM_TRACE_DEADLINE") {
            cmd.env(k, v);
        }
        if let Some(d) = deadline {
            cmd.env("SPECTRUM_TRACE_DEADLINE", d);
        }
        cmd.output().unwrap();
        let record = std::fs::read_to_string(root.join(DIR).join("trace.json")).unwrap();
        (
            serde_json::from_str(&record).unwrap(),
            root.join("mark").exists(),
        )
    }

    #[test]
    fn the_failing_test_runs_first_and_past_the_deadline_the_run_ends_once_it_has() {
        let (record, marked) = traced_module(Some("0.001"));
        assert!(!marked, "the test before the failing one in its class ran");
        assert_eq!(record["cut"], true);
        assert_eq!(
            record["tests"]["test_b_fails"]["test_m.py"]["3"],
            serde_json::json!([3, 4])
        );
    }

    #[test]
    fn without_a_deadline_the_tracer_lets_every_test_run() {
        let (record, marked) = traced_module(None);
        assert!(marked);
        assert_eq!(record["cut"], false);
        assert!(record["tests"]["test_a_marks"].is_object());
    }

    #[test]
    fn as_a_pytest_plugin_the_tracer_puts_the_failing_tests_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join(DIR)).unwrap();
        std::fs::write(root.join(DIR).join("sitecustomize.py"), TRACER).unwrap();
        let failing = ["test_c".to_string()];
        let env = tracer_env(&[], root, &failing, Duration::from_secs(60));
        let script = "import sitecustomize, types\n\
            items = [types.SimpleNamespace(name=n) for n in ['test_a', 'test_c[1]', 'test_b', 'test_c[2]']]\n\
            sitecustomize.pytest_collection_modifyitems(None, None, items)\n\
            print(' '.join(i.name for i in items))";
        let mut cmd = std::process::Command::new("python3");
        cmd.args(["-c", script]).current_dir(root).envs(env);
        let out = cmd.output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "test_c[1] test_c[2] test_a test_b"
        );
    }
}
