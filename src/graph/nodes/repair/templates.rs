//! Fix templates before the first model call: the bindings of a name no module statement
//! binds (`NameError`, [`super::bindings`]), the templates of Python's type errors at the
//! traceback's frames ([`super::typed`]), then the mutations of the patterns the best-ranked
//! statements write ([`super::patterns`]), and of the conditions they hold
//! ([`super::conditions`]) and the names they read ([`super::names`]), statement by
//! statement ([`by_statement`]); never in the tests' code or harness ([`tests_code`]). Each
//! is applied and judged by the test command as an attempt is, within a share of the time
//! left ([`share`]). The first that passes (copying no value from
//! the tests, [`super::fitted`], and breaking none of the failing test's neighbours,
//! [`super::passes`]) ends the step without a model call; one
//! that fails fewer tests is kept as the best candidate; none is shown to the model (a
//! template's failure says little of the fix, and would crowd the attempts the model learns
//! from); one that moved the failure on is a stepping stone for the model's changes
//! ([`super::stones`]). What they did is one `fix_templates` entry in the transcript.

use super::attempts::Attempts;
use super::passes::{judge, Judged};
use super::placed::Candidate;
use super::stones::Stones;
use super::targets::Targets;
use super::{apply_attempt, badness, candidate, restore, Applied};
use crate::graph::memory::events::RunEvent;
use crate::graph::memory::state::{CoderEnd, RunState};
use crate::graph::prompt::code_view::Traceback;
use crate::graph::prompt::context::tests_code;
use crate::graph::GraphContext;
use kotef_core::NodeName;
use kotef_tools::locate::code_files;
use kotef_tools::CommandResult;
use std::time::{Duration, Instant};

/// The time the templates may take: a sixth of the time left, at most 90 s.
pub fn share(time_left: Duration) -> Duration {
    (time_left / 6).min(Duration::from_secs(90))
}

/// The mutants of conditions and of names, statement by statement in the order the
/// statements are offered (the likeliest place's mutants first), a statement's conditions
/// before its names.
pub fn by_statement(
    conditions: Vec<(usize, Candidate)>,
    names: Vec<(usize, Candidate)>,
) -> Vec<Candidate> {
    let mut all: Vec<(usize, Candidate)> = conditions.into_iter().chain(names).collect();
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, c)| c).collect()
}

/// The statements of `targets` outside the tests' code and harness ([`tests_code`]): the
/// places the mutants may go.
fn outside_tests(targets: &Targets) -> Targets {
    let keep = |list: &[super::targets::Target]| {
        list.iter()
            .filter(|t| !tests_code(&t.path))
            .cloned()
            .collect()
    };
    Targets {
        frames: keep(&targets.frames),
        sweep: keep(&targets.sweep),
        farther: Vec::new(),
    }
}

/// What the templates are tried with: the test command, the files that may not change, the
/// code shown (its files and trace), the failing run, the statements line attempts would be
/// offered and the failing test's code (or the failure quoting it).
pub(super) struct Setting<'a> {
    pub(super) command: &'a str,
    pub(super) protected: &'a [String],
    pub(super) shown: &'a super::Shown,
    pub(super) start: &'a CommandResult,
    pub(super) targets: &'a Targets,
    pub(super) test: &'a str,
}

impl<'a> Setting<'a> {
    pub(super) fn new(
        (command, protected): (&'a str, &'a [String]),
        shown: &'a super::Shown,
        start: &'a CommandResult,
        targets: &'a Targets,
        test: &'a str,
    ) -> Self {
        Setting {
            command,
            protected,
            shown,
            start,
            targets,
            test,
        }
    }
}

/// Tries the templates for the failing run in turn (see the module's doc), within [`share`]
/// of the time left, and records what they did as a `fix_templates` tool call. The step's end
/// when one passed (`Done`) or a test run hit a resource limit (the run stops); `None` when
/// none passed and the model's attempts follow.
pub(super) async fn attempt(
    ctx: &GraphContext,
    state: &mut RunState,
    (a, stones): (&mut Attempts, &mut Stones),
    s: &Setting<'_>,
) -> Option<CoderEnd> {
    let output = format!("{}{}", s.start.stdout, s.start.stderr);
    let (files, trace): (&[(String, String)], &Traceback) = (&s.shown.files, &s.shown.trace);
    let typed: Vec<Candidate> = super::typed::candidates(&output, trace, files)
        .into_iter()
        .filter(|c| !c.block.path.as_deref().is_some_and(tests_code))
        .collect();
    let wd = ctx.tools.workdir();
    let project = std::cell::OnceCell::new();
    let read_project = || project.get_or_init(|| code_files(wd)).clone();
    let bindings = super::bindings::candidates(&output, trace, files, tests_code, read_project);
    let targets = outside_tests(s.targets);
    let patterns = super::patterns::candidates(&targets, s.test);
    let conditions = super::conditions::candidates(&targets);
    let names = super::names::candidates(&targets, files, read_project);
    let counts = serde_json::json!({
        "bindings": bindings.len(),
        "typed": typed.len(),
        "patterns": patterns.len(),
        "conditions": conditions.len(),
        "names": names.len(),
    });
    let found: Vec<Candidate> = bindings
        .into_iter()
        .chain(typed)
        .chain(patterns)
        .chain(by_statement(conditions, names))
        .collect();
    if found.is_empty() {
        return None;
    }
    let allowed = share(ctx.time_left());
    // A test run this slow would leave fewer than four templates their share: none is tried.
    if Duration::from_millis(s.start.duration_ms) * 4 > allowed {
        return None;
    }
    let began = Instant::now();
    let (mut tried, mut ended, mut passing, mut became) = (0, None, None, 0);
    for c in &found {
        if began.elapsed() >= allowed {
            break;
        }
        let blocks = [c.block.clone()];
        if a.seen_as(true, &blocks) != super::attempts::Seen::New {
            continue;
        }
        let Applied { snap, diff, .. } = apply_attempt(ctx, state, &blocks, files, s.protected);
        if diff.is_empty() {
            restore(ctx, &snap);
            continue;
        }
        tried += 1;
        let Some(result) = super::tested(ctx, state, s.command, &snap).await else {
            ended = Some(CoderEnd::RunStopped);
            break;
        };
        let bad = badness(&result);
        a.notes.push(format!(
            "template {}: {}",
            c.why,
            if bad == 0 {
                "the tests pass"
            } else {
                "still failing"
            }
        ));
        if bad == 0 {
            let pass = (&snap, diff.as_str(), c.why.as_str());
            // A pass that breaks a neighbour is undone and, as any template, not shown.
            let took = Duration::from_millis(result.duration_ms);
            if let Judged::Ends = judge(ctx, state, a, (s.command, took), pass).await {
                (ended, passing) = (Some(CoderEnd::Done), Some(c.why.clone()));
                break;
            }
            continue;
        }
        if a.improves(bad) {
            a.best = Some(candidate(ctx, &snap, bad, &diff));
        }
        restore(ctx, &snap);
        if stones.after_template(&blocks, &result, (s.protected, a.baseline)) {
            became += 1;
            a.notes
                .push(format!("template {}: a stepping stone", c.why));
        }
    }
    ctx.record(RunEvent::ToolCall {
        step: state.total_steps + 1,
        node: NodeName::Coder,
        name: "fix_templates".into(),
        arguments: serde_json::json!({ "candidates": counts, "tried": tried, "stones": became }),
        output: passing.map_or_else(
            || format!("{tried} template(s) tried, none passed"),
            |why| format!("passed: {why}"),
        ),
        is_error: false,
    });
    state.count_tool("fix_templates");
    ended
}
