//! What the repair loop's attempts are shown of the repository: the files the failing run's
//! traceback points into (deepest first), then the task's, each counted as read; and, when
//! attempts keep failing in those, the move to the files where the failure's names are
//! defined and used ([`super::locate`]), with its reason in the transcript. A failure whose
//! traceback passes through the tests only starts with the files where the failing test's
//! names are defined and used, unless the test's imports lead there already
//! ([`opening_files`]).

use super::REPAIR_FILES;
use crate::graph::memory::state::RunState;
use crate::graph::prompt::code_view::Traceback;
use crate::graph::prompt::context;
use crate::graph::prompt::messages::{LookElsewhere, LookElsewhereKept, TestsOnlyTrace};
use crate::graph::GraphContext;
use kotef_core::NodeName;

/// The files shown to the model: the code only (the failing output quotes the assertions,
/// and a small model shown a test copies it back as its "fix"), each counted as read; the
/// files the traceback's frames are in first (deepest first, but see [`guard_raised`]), then
/// the task's.
fn repair_files(
    ctx: &GraphContext,
    state: &RunState,
    task: &str,
    protected: &[String],
    trace: &Traceback,
) -> Vec<(String, String)> {
    let tree = ctx.tools.workdir().tree();
    let mut files: Vec<(String, String)> = trace
        .files()
        .iter()
        .filter(|p| !protected.contains(p))
        .filter_map(|p| Some((p.clone(), read_text(tree, p)?)))
        .take(REPAIR_FILES)
        .collect();
    if files.len() > 1 && guard_raised(trace, &files[0]) {
        files.swap(0, 1);
    }
    for (p, text) in context::task_files(
        ctx.tools.workdir().tree(),
        state,
        task,
        REPAIR_FILES + protected.len(),
    ) {
        // Installed code (a virtualenv in the tree) is never the project's to fix, and a
        // link (`maint/.../tornado -> ../../tornado`) holds no code to change; a test helper
        // a test imports (`tests/__init__.py`) is the tests' unless the task names it.
        let asked = state.goal.contains(p.as_str()) || task.contains(p.as_str());
        if files.len() < REPAIR_FILES
            && !protected.contains(&p)
            && (asked || kotef_tools::locate::rank(&p) == 0)
            && !crate::graph::prompt::code_view::installed(&p)
            && !matches!(tree.kind(&p), Ok(kotef_tools::Kind::Symlink { .. }))
            && !files.iter().any(|(f, _)| *f == p)
        {
            files.push((p, text));
        }
    }
    for (p, _) in &files {
        ctx.tools.mark_read(p);
    }
    files
}

/// Whether the deepest frame, in `file`, is a `raise` statement: code that turns away what it
/// was given on purpose (`raise TypeError('to_bytes must receive a unicode, str or bytes
/// object')`) is most often right, and the fix is in its caller, which passed the wrong
/// value; so the caller's file is shown first.
pub(super) fn guard_raised(trace: &Traceback, file: &(String, String)) -> bool {
    let Some((path, line)) = trace.repo.first() else {
        return false;
    };
    *path == file.0
        && line
            .checked_sub(1)
            .and_then(|i| file.1.lines().nth(i))
            .is_some_and(|l| l.trim_start().starts_with("raise "))
}

/// `a`, `b` as the prompt quotes paths and names.
fn quote(list: &[String]) -> String {
    list.iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn read_text(tree: &kotef_tools::Tree, path: &str) -> Option<String> {
    tree.read_text(path, kotef_tools::file_tools::READ_CAP_BYTES as u64)
        .ok()
}

/// What the attempts are shown: the files, the traceback that points into them, and why
/// these files when the loop moved to them.
pub(super) struct Shown {
    pub(super) files: Vec<(String, String)>,
    pub(super) trace: Traceback,
    pub(super) note: Option<String>,
}

impl Shown {
    pub(super) fn paths(&self) -> Vec<String> {
        self.files.iter().map(|(p, _)| p.clone()).collect()
    }
}

/// The loop's move to other files after attempts kept failing in `spent`: the project's
/// source files (not tests, not vendored, none of `avoid`: the files left before) where the
/// failure's `names` are defined or used, best first, shown around those lines, then the
/// shown file the failure was raised in (see [`raised_in`]); `None` when there is no other
/// such file. Either way the look-up and its reason are in the transcript.
/// What a look-up is asked: the files the attempts kept failing in, every file left before,
/// the names to look for, and the failing calls whose definition is in `spent` (no caller
/// elsewhere is a place for them, see [`super::locate::settled`]).
pub(super) struct LookUp<'a> {
    pub(super) spent: &'a [String],
    pub(super) avoid: &'a [String],
    pub(super) names: &'a [String],
    pub(super) settled: &'a [String],
}

pub(super) fn look_elsewhere(
    ctx: &GraphContext,
    state: &mut RunState,
    look: &LookUp,
    protected: &[String],
    shown: &Shown,
) -> Option<Shown> {
    let LookUp {
        spent,
        avoid,
        names,
        settled,
    } = *look;
    let wd = ctx.tools.workdir();
    let current = shown.paths();
    let places: Vec<kotef_tools::locate::Place> =
        kotef_tools::locate::places(wd, names, 4 * REPAIR_FILES)
            .into_iter()
            .filter(|p| kotef_tools::locate::rank(&p.path) == 0)
            .filter(|p| {
                !protected.contains(&p.path)
                    && !spent.contains(&p.path)
                    && !avoid.contains(&p.path)
                    && !current.contains(&p.path)
            })
            .take(REPAIR_FILES)
            .collect();
    let mut files: Vec<(String, String)> = places
        .iter()
        .filter_map(|p| Some((p.path.clone(), read_text(wd.tree(), &p.path)?)))
        .collect();
    let paths: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
    let kept = raised_in(shown).filter(|_| !paths.is_empty());
    let mut note = if paths.is_empty() && names.is_empty() && !settled.is_empty() {
        format!(
            "attempts in {} kept failing; the failure calls {}, defined there, so the fix stays there",
            quote(spent),
            quote(settled)
        )
    } else if paths.is_empty() {
        format!(
            "attempts in {} kept failing; no other source file defines or uses {}",
            quote(spent),
            quote(names)
        )
    } else {
        LookElsewhere {
            tried: &quote(spent),
            names: &quote(names),
            files: &quote(&paths),
        }
        .to_string()
    };
    if let Some((path, _)) = &kept {
        note = format!(
            "{note} {}",
            LookElsewhereKept {
                file: &format!("`{path}`")
            }
        );
    }
    ctx.record(crate::graph::memory::events::RunEvent::ToolCall {
        step: state.total_steps + 1,
        node: NodeName::Coder,
        name: "locate".into(),
        arguments: serde_json::json!({ "names": names, "tried": spent, "files": paths }),
        output: note.clone(),
        is_error: paths.is_empty(),
    });
    state.count_tool("locate");
    if paths.is_empty() {
        return None;
    }
    for p in &paths {
        ctx.tools.mark_read(p);
    }
    // The kept file's frames stay the deepest (first), so the room keeps its code in view
    // (`super::room`) and a later move keeps it again; its text is shown after the new files.
    let mut repo: Vec<(String, usize)> = Vec::new();
    if let Some((path, text)) = kept {
        repo.extend(shown.trace.repo.iter().filter(|(p, _)| *p == path).cloned());
        files.push((path, text));
    }
    let located: Vec<(String, usize)> = places
        .iter()
        .filter(|p| paths.contains(&p.path))
        .flat_map(|p| p.lines.iter().map(|l| (p.path.clone(), *l)))
        .collect();
    repo.extend(located.iter().cloned());
    Some(Shown {
        files,
        trace: Traceback {
            repo,
            outside: shown.trace.outside.clone(),
            focus: Vec::new(),
            located,
        },
        note: Some(note),
    })
}

/// What the opening shows: [`repair_files`], unless the traceback passes through the tests
/// only (`looked_up` holds the failure's and the failing test's names then). Then those names
/// decide: when the best source file they are defined and used in
/// ([`kotef_tools::locate::places`]) is the one the usual files start with (the test imports
/// the code it runs), the usual files stand, less those that hold none of the names (a module
/// imported for other tests); otherwise the opening starts from those places
/// ([`by_test_names`]).
pub(super) fn opening_files(
    ctx: &GraphContext,
    state: &mut RunState,
    task: &str,
    looked_up: Option<&[String]>,
    protected: &[String],
    trace: Traceback,
) -> Shown {
    let usual = repair_files(ctx, state, task, protected, &trace);
    let Some(names) = looked_up else {
        return Shown {
            files: usual,
            trace,
            note: None,
        };
    };
    let places: Vec<kotef_tools::locate::Place> =
        kotef_tools::locate::places(ctx.tools.workdir(), names, 4 * REPAIR_FILES)
            .into_iter()
            .filter(|p| kotef_tools::locate::rank(&p.path) == 0 && !protected.contains(&p.path))
            .take(REPAIR_FILES)
            .collect();
    let held = |path: &str| places.iter().any(|p| p.path == path);
    match (places.first(), usual.first()) {
        (Some(best), first) if first.map(|(p, _)| p) != Some(&best.path) => {
            by_test_names(ctx, state, names, &places, trace)
        }
        (Some(_), _) => Shown {
            files: usual
                .into_iter()
                .enumerate()
                .filter(|(i, (p, _))| *i == 0 || held(p))
                .map(|(_, f)| f)
                .collect(),
            trace,
            note: None,
        },
        (None, _) => Shown {
            files: usual,
            trace,
            note: None,
        },
    }
}

/// The opening of a failure whose traceback passes through the tests only, when the test's
/// names point elsewhere than its imports: the `places` (source files, best first) shown
/// around their weightiest lines, with the reason in the prompt and the transcript.
fn by_test_names(
    ctx: &GraphContext,
    state: &mut RunState,
    names: &[String],
    places: &[kotef_tools::locate::Place],
    trace: Traceback,
) -> Shown {
    let wd = ctx.tools.workdir();
    let files: Vec<(String, String)> = places
        .iter()
        .filter_map(|p| Some((p.path.clone(), read_text(wd.tree(), &p.path)?)))
        .collect();
    let paths: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
    let held: Vec<String> = names
        .iter()
        .filter(|n| places.iter().any(|p| p.names.contains(n)))
        .take(6)
        .cloned()
        .collect();
    let note = TestsOnlyTrace {
        names: &quote(&held),
        files: &quote(&paths),
    }
    .to_string();
    ctx.record(crate::graph::memory::events::RunEvent::ToolCall {
        step: state.total_steps + 1,
        node: NodeName::Coder,
        name: "locate".into(),
        arguments: serde_json::json!({ "names": names, "tried": [], "files": paths }),
        output: note.clone(),
        is_error: false,
    });
    state.count_tool("locate");
    for p in &paths {
        ctx.tools.mark_read(p);
    }
    // The places' lines come first, so the room keeps the best file's code in view; the
    // test's own frames stay behind them (not shown: the test is protected). Two lines a
    // file, so the next files' code fits beside the first's.
    let located: Vec<(String, usize)> = places
        .iter()
        .filter(|p| paths.contains(&p.path))
        .flat_map(|p| p.lines.iter().take(2).map(|l| (p.path.clone(), *l)))
        .collect();
    let mut repo = located.clone();
    repo.extend(trace.repo.iter().cloned());
    Shown {
        files,
        trace: Traceback {
            repo,
            outside: trace.outside,
            focus: Vec::new(),
            located,
        },
        note: Some(note),
    }
}

/// The shown file the failure was raised in (its deepest frame in the repository), with its
/// text: kept in view when the loop looks elsewhere, since attempts there may have changed
/// the right line the wrong way.
fn raised_in(shown: &Shown) -> Option<(String, String)> {
    shown
        .trace
        .repo
        .iter()
        .find_map(|(path, _)| shown.files.iter().find(|(p, _)| p == path))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace_at(path: &str, line: usize) -> Traceback {
        Traceback {
            repo: vec![
                (path.to_string(), line),
                ("scrapy/utils/request.py".into(), 82),
            ],
            outside: Vec::new(),
            focus: Vec::new(),
            located: Vec::new(),
        }
    }

    const TO_BYTES: &str = "def to_bytes(text):\n    if not isinstance(text, str):\n        raise TypeError('to_bytes must receive a str, got %s' % type(text).__name__)\n    return text.encode()\n";

    #[test]
    fn a_failure_raised_by_a_raise_statement_shows_the_caller_first() {
        let file = ("scrapy/utils/python.py".to_string(), TO_BYTES.to_string());
        assert!(guard_raised(&trace_at("scrapy/utils/python.py", 3), &file));
    }

    #[test]
    fn a_failure_raised_by_any_other_line_keeps_the_deepest_frame_first() {
        let file = ("scrapy/utils/python.py".to_string(), TO_BYTES.to_string());
        assert!(!guard_raised(&trace_at("scrapy/utils/python.py", 4), &file));
        assert!(!guard_raised(&trace_at("scrapy/other.py", 3), &file));
    }
}
