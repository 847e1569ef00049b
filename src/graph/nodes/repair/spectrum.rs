//! Spectrum-based localisation: which lines of the project the failing test ran that the
//! passing tests beside it did not. A test that fails by assertion says nothing of where the
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

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// The tracer the traced run loads.
const TRACER: &str = include_str!("spectrum_tracer.py");
/// The folder of the tree the tracer and its record are in while the traced run lasts.
pub const DIR: &str = ".kotef-spectrum";
/// The tracer's record read at most.
const RECORD_CAP: u64 = 16 * 1024 * 1024;
/// The lines offered at most for their score alone (beside the sweep's).
pub const MAX_SUSPECTS: usize = 8;
/// The functions that may share a score at least as high as a function's for it to be told
/// apart ([`Spectrum::telling`]).
pub const FUNCTION_POOL: usize = 6;

/// Each function's score and the lines the failing tests ran in it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spectrum {
    /// (path, first line) → Ochiai score in (0, 1], for the functions the failing tests ran.
    functions: BTreeMap<(String, usize), f64>,
    /// (path, 1-based line) → Ochiai score in (0, 1], for the lines the failing tests ran.
    lines: BTreeMap<(String, usize), f64>,
    /// The failing tests traced, and the passing ones.
    pub failing: u32,
    pub passing: u32,
}

/// The tracer's record: test function → file → function (its first line) → lines run.
type Record = BTreeMap<String, BTreeMap<String, BTreeMap<String, Vec<usize>>>>;

impl Spectrum {
    /// The spectrum of a tracer record (`{"tests": {test: {file: {first line: [lines]}}}}`),
    /// the tests of `failed` failing and the others passing; `None` when the record cannot be
    /// read or no failing test is in it. A function's and a line's score is the Ochiai score
    /// over the tests that called or ran it (the passing tests' lines are those of a
    /// function's first call in each); code run outside any test (imports, `<setup>`) is
    /// left out.
    pub fn read(record: &str, failed: &BTreeSet<String>) -> Option<Spectrum> {
        #[derive(serde::Deserialize)]
        struct Root {
            tests: Record,
        }
        let root: Root = serde_json::from_str(record).ok()?;
        let mut called: BTreeMap<(String, usize), (u32, u32)> = BTreeMap::new();
        let mut ran: BTreeMap<(String, usize), (u32, u32)> = BTreeMap::new();
        let (mut failing, mut passing) = (0, 0);
        let count = |e: &mut (u32, u32), fails: bool| {
            if fails {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        };
        for (test, files) in root.tests.iter().filter(|(t, _)| t.starts_with("test")) {
            let fails = failed.contains(test);
            if fails {
                failing += 1;
            } else {
                passing += 1;
            }
            for (path, defs) in files {
                for (first, lines) in defs {
                    let Ok(first) = first.parse::<usize>() else {
                        continue;
                    };
                    count(called.entry((path.clone(), first)).or_default(), fails);
                    for l in lines {
                        count(ran.entry((path.clone(), *l)).or_default(), fails);
                    }
                }
            }
        }
        if failing == 0 {
            return None;
        }
        let ochiai = |counts: BTreeMap<(String, usize), (u32, u32)>| {
            counts
                .into_iter()
                .filter(|(_, (f, _))| *f > 0)
                .map(|(k, (f, p))| {
                    let (f, p) = (f64::from(f), f64::from(p));
                    (k, f / (f64::from(failing) * (f + p)).sqrt())
                })
                .collect::<BTreeMap<_, _>>()
        };
        let (functions, lines) = (ochiai(called), ochiai(ran));
        Some(Spectrum {
            functions,
            lines,
            failing,
            passing,
        })
    }

    /// The best score of lines `first..=last` (1-based) of `path`; 0 when the failing tests
    /// ran none of them.
    pub fn of_lines(&self, path: &str, first: usize, last: usize) -> f64 {
        self.lines
            .range((path.to_string(), first)..=(path.to_string(), last))
            .map(|(_, s)| *s)
            .fold(0.0, f64::max)
    }

    /// The functions of files `source` accepts that the spectrum tells apart, best first, each
    /// with the lines the failing tests ran in it (in file order) and its score: those whose
    /// score at most [`FUNCTION_POOL`] such functions reach (a score shared by many, the
    /// failing test having called what its neighbours called, tells nothing).
    pub fn telling(&self, source: impl Fn(&str) -> bool) -> Vec<Telling> {
        let mut all: Vec<(&(String, usize), f64)> = self
            .functions
            .iter()
            .filter(|((p, _), _)| source(p))
            .map(|(k, s)| (k, *s))
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut out = Vec::new();
        for ((path, first), score) in &all {
            if all.partition_point(|(_, x)| *x >= *score) > FUNCTION_POOL {
                break;
            }
            let end = self.next_function(path, *first);
            let lines: Vec<usize> = self
                .lines
                .range((path.clone(), *first)..(path.clone(), end))
                .map(|((_, l), _)| *l)
                .collect();
            out.push(Telling {
                path: path.clone(),
                lines,
                score: *score,
            });
        }
        out
    }

    /// The first line of the next function of `path` the failing tests ran after the one at
    /// `first` (a bound for that function's lines: a nested function's lines are its own).
    fn next_function(&self, path: &str, first: usize) -> usize {
        self.functions
            .range((path.to_string(), first + 1)..=(path.to_string(), usize::MAX))
            .next()
            .map(|((_, l), _)| *l)
            .unwrap_or(usize::MAX)
    }

    /// The files the failing tests ran, each with its best function's score, best first.
    pub fn files(&self) -> Vec<(String, f64)> {
        let mut best: BTreeMap<&str, f64> = BTreeMap::new();
        for ((p, _), s) in &self.functions {
            let e = best.entry(p.as_str()).or_insert(0.0);
            *e = e.max(*s);
        }
        let mut out: Vec<(String, f64)> = best.into_iter().map(|(p, s)| (p.into(), s)).collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

/// A function the spectrum tells apart ([`Spectrum::telling`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Telling {
    pub path: String,
    /// The lines the failing tests ran in it, in file order.
    pub lines: Vec<usize>,
    pub score: f64,
}

/// Files the spectrum may bring into view at most.
pub const MAX_NEW_FILES: usize = 2;
/// The telling functions the code shown is focused on at most.
pub const FOCUS_FUNCTIONS: usize = 3;

/// `shown` with the functions the spectrum tells apart in view ([`Spectrum::telling`], in the
/// project's source: not the tests, vendored or installed code): a shown file where the
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
    let telling = s.telling(source);
    if telling.is_empty() {
        return shown;
    }
    // A shown file where the failing tests ran nothing cannot hold the fix (but the first,
    // and a frame's): its place goes to a file the spectrum points at.
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

/// The statements line attempts offer of the `shown` code ([`super::targets::targets`]),
/// ordered by the spectrum when there is one ([`rank`]).
pub(super) fn offers(
    shown: &super::Shown,
    names: &[String],
    s: Option<&Spectrum>,
) -> super::targets::Targets {
    let found = super::targets::targets(&shown.trace, &shown.files, names);
    rank(found, &shown.files, s)
}

/// `found` ordered by the spectrum: the frames stay first (where it raised is the strongest
/// sign there is); the sweep's statements and the [`MAX_SUSPECTS`] best-scored statements of
/// the shown `files` not offered yet (the lines run in the functions it tells apart) come
/// next, best score first (the sweep's order among equals), and the statements the failing
/// tests never ran last.
pub fn rank(
    found: super::targets::Targets,
    files: &[(String, String)],
    s: Option<&Spectrum>,
) -> super::targets::Targets {
    use super::targets::Target;
    let Some(s) = s else {
        return found;
    };
    let super::targets::Targets { frames, sweep } = found;
    let shown = |p: &str| files.iter().any(|(f, _)| f == p);
    let mut suspects: Vec<(f64, Target)> = Vec::new();
    for told in s.telling(shown) {
        let Some((_, text)) = files.iter().find(|(f, _)| *f == told.path) else {
            continue;
        };
        for line in told.lines {
            let Some(t) = Target::around(&told.path, text, line) else {
                continue;
            };
            let known = frames.contains(&t) || sweep.contains(&t);
            if !known && !suspects.iter().any(|(_, o)| *o == t) {
                suspects.push((s.of_lines(&t.path, t.line, t.last_line()), t));
            }
        }
    }
    suspects.sort_by(|a, b| b.0.total_cmp(&a.0));
    suspects.truncate(MAX_SUSPECTS);
    let score = |t: &Target| s.of_lines(&t.path, t.line, t.last_line());
    let mut all: Vec<(f64, Target)> = sweep.into_iter().map(|t| (score(&t), t)).collect();
    all.extend(suspects);
    // Stable: equal scores keep the sweep's order, and the suspects come after its equals.
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    super::targets::Targets {
        frames,
        sweep: all.into_iter().map(|(_, t)| t).collect(),
    }
}

/// The test a command names and the command that runs it with its neighbours: a pytest id
/// (`tests/test_x.py::T::test_y` → `tests/test_x.py::T`, `tests/test_x.py::test_y` →
/// `tests/test_x.py`) or a unittest id (`pkg.test_x.T.test_y` → `pkg.test_x.T`) as the last
/// word. `None` when the last word names no single test function (`test_…`).
pub fn named_test(command: &str) -> Option<(String, String)> {
    let last = command.split_whitespace().last()?;
    let (rest, name) = if last.contains("::") {
        last.rsplit_once("::")?
    } else if last.contains('/') || last.ends_with(".py") {
        return None;
    } else {
        last.rsplit_once('.')?
    };
    let name = name.split('[').next().unwrap_or(name);
    let ident = name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !name.starts_with("test") || !ident || rest.is_empty() {
        return None;
    }
    let cut = command.len() - last.len();
    Some((format!("{}{rest}", &command[..cut]), name.to_string()))
}

/// The test functions a run's output reports as failed: unittest's `FAIL: test_x (…)` and
/// `ERROR: test_x (…)`, pytest's `FAILED path::T::test_x` and `path::test_x FAILED`.
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
    let (traced, named) = match named_test(command) {
        Some((siblings, name)) => (siblings, Some(name)),
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
    cfg.extra_env = tracer_env(&cfg.extra_env, &root, named.as_deref());
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
    let failed = match &named {
        Some(n) => BTreeSet::from([n.clone()]),
        None => failed_tests(&output),
    };
    let spectrum = text.and_then(|t| Spectrum::read(&t, &failed));
    let said = match &spectrum {
        Some(s) => format!(
            "traced {} failing and {} passing test(s); most suspect: {}",
            s.failing,
            s.passing,
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
/// `PYTHONPATH`, where its record goes, and the failing test whose lines it records (every
/// test's when `failing` is `None`).
fn tracer_env(
    own: &[(String, String)],
    root: &std::path::Path,
    failing: Option<&str>,
) -> Vec<(String, String)> {
    let dir = root.join(DIR);
    let python_path = match own.iter().find(|(k, _)| k == "PYTHONPATH") {
        Some((_, v)) => format!("{}:{v}", dir.display()),
        None => dir.display().to_string(),
    };
    let mut env: Vec<(String, String)> = own
        .iter()
        .filter(|(k, _)| k != "PYTHONPATH")
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
    if let Some(f) = failing {
        env.push(("SPECTRUM_TRACE_FAILING".to_string(), f.to_string()));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    /// `pkg/a.py`: `f` (line 10) called by all three tests, which all ran its line 11 and only
    /// the failing one its line 12; `g` (line 20) by the failing one only; `h` (line 30) by
    /// the failing one and one other; `<setup>` ran `k` (line 40).
    const RECORD: &str = r#"{"tests": {
        "<setup>": {"pkg/a.py": {"40": [40, 41]}},
        "test_upper": {"pkg/a.py": {"10": [10, 11, 12], "20": [20, 21], "30": [30, 31]}},
        "test_lower": {"pkg/a.py": {"10": [10, 11], "30": [30, 31]}},
        "test_plain": {"pkg/a.py": {"10": [10, 11]}}
    }}"#;

    fn spectrum() -> Spectrum {
        Spectrum::read(RECORD, &failed(&["test_upper"])).unwrap()
    }

    #[test]
    fn a_line_only_the_failing_test_ran_scores_one() {
        let s = spectrum();
        assert_eq!((s.failing, s.passing), (1, 2));
        assert_eq!(s.of_lines("pkg/a.py", 20, 21), 1.0);
        assert_eq!(s.of_lines("pkg/a.py", 12, 12), 1.0);
    }

    #[test]
    fn a_line_the_passing_tests_ran_too_scores_less() {
        let s = spectrum();
        assert!((s.of_lines("pkg/a.py", 31, 31) - 1.0 / 2f64.sqrt()).abs() < 1e-9);
        assert!((s.of_lines("pkg/a.py", 11, 11) - 1.0 / 3f64.sqrt()).abs() < 1e-9);
    }

    #[test]
    fn lines_the_failing_test_did_not_run_and_setup_lines_score_nothing() {
        let s = spectrum();
        assert_eq!(s.of_lines("pkg/a.py", 13, 19), 0.0);
        assert_eq!(s.of_lines("pkg/a.py", 40, 41), 0.0);
    }

    #[test]
    fn the_telling_functions_come_best_first_with_the_lines_run_in_them() {
        let told = spectrum().telling(|p| p == "pkg/a.py");
        let got: Vec<(usize, Vec<usize>)> =
            told.iter().map(|t| (t.lines[0], t.lines.clone())).collect();
        assert_eq!(
            got,
            [
                (20, vec![20, 21]),
                (30, vec![30, 31]),
                (10, vec![10, 11, 12])
            ]
        );
    }

    #[test]
    fn no_failing_test_in_the_record_is_no_spectrum() {
        assert_eq!(Spectrum::read(RECORD, &failed(&["test_other"])), None);
        assert_eq!(Spectrum::read("not json", &failed(&["test_upper"])), None);
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
    fn the_statements_of_the_function_only_the_failing_test_called_are_offered_first() {
        let files = vec![("h.py".to_string(), CODE.to_string())];
        let ranked = rank(
            super::super::targets::Targets::default(),
            &files,
            Some(&code_record()),
        );
        let first: Vec<&str> = ranked.sweep.iter().map(|t| t.text.trim()).collect();
        assert_eq!(
            first,
            [
                "return 'until close'",
                "return until_close()",
                "if headers.get('Transfer-Encoding') == 'chunked':"
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
        };
        let ranked = rank(found, &files, Some(&code_record()));
        assert_eq!(ranked.frames, [at(2)]);
        assert_eq!(ranked.sweep.first(), Some(&at(12)));
        assert_eq!(ranked.sweep.last(), Some(&at(3)));
    }

    #[test]
    fn a_score_many_functions_share_tells_nothing() {
        let defs: Vec<String> = (1..=8).map(|i| format!(r#""{i}": [{i}]"#)).collect();
        let record = format!(
            r#"{{"tests": {{"test_a": {{"m.py": {{{}}}}}}}}}"#,
            defs.join(",")
        );
        let s = Spectrum::read(&record, &failed(&["test_a"])).unwrap();
        assert!(s.telling(|_| true).is_empty());
    }

    #[test]
    fn a_named_test_runs_with_its_class_or_file() {
        assert_eq!(
            named_test(".venv/bin/python -m unittest -q pkg.test_x.T.test_y"),
            Some((
                ".venv/bin/python -m unittest -q pkg.test_x.T".into(),
                "test_y".into()
            ))
        );
        assert_eq!(
            named_test("python -m pytest -q tests/test_x.py::T::test_y[a-1]"),
            Some((
                "python -m pytest -q tests/test_x.py::T".into(),
                "test_y".into()
            ))
        );
        assert_eq!(
            named_test("pytest tests/test_x.py::test_y"),
            Some(("pytest tests/test_x.py".into(), "test_y".into()))
        );
    }

    #[test]
    fn a_command_naming_no_single_test_names_none() {
        assert_eq!(named_test("python -m pytest -q tests/test_x.py"), None);
        assert_eq!(named_test("python -m unittest -q pkg.test_x.T"), None);
        assert_eq!(named_test("cargo test"), None);
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
    fn the_traced_run_gets_ten_times_the_failing_runs_time_and_half_a_minute_within_an_eighth_of_whats_left(
    ) {
        let s = Duration::from_secs;
        assert_eq!(trace_time(s(1), s(800)), s(40));
        assert_eq!(trace_time(s(1), s(240)), s(30));
        assert_eq!(trace_time(s(60), s(800)), s(100));
    }

    #[test]
    fn the_traced_run_finds_the_tracer_first_and_records_the_failing_tests_lines() {
        let own = vec![("PYTHONPATH".to_string(), "src".to_string())];
        let env = tracer_env(&own, std::path::Path::new("/ws"), Some("test_y"));
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("PYTHONPATH"), Some("/ws/.kotef-spectrum:src"));
        assert_eq!(get("SPECTRUM_TRACE_FAILING"), Some("test_y"));
        assert_eq!(
            get("SPECTRUM_TRACE_OUT"),
            Some("/ws/.kotef-spectrum/trace.json")
        );
    }
}
