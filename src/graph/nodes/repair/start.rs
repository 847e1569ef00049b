//! Where the repair loop's attempts start: the names the failure is about, the failing test
//! as shown ([`super::spec`]) and the files shown first ([`super::shown::opening_files`]),
//! from the failing run's output.

use super::{locate, shown, spec, Shown};
use crate::graph::memory::state::RunState;
use crate::graph::prompt::code_view::Traceback;
use crate::graph::GraphContext;

/// What the attempts start from: the names the failure is about, the failing test as shown
/// (when the failure does not quote it) and the files shown.
pub(super) struct Start {
    pub(super) names: Vec<String>,
    pub(super) test_view: Option<String>,
    pub(super) shown: Shown,
}

/// The [`Start`] for a failure: its names, and, when its traceback passes through the tests
/// only, the files where the failure's and the failing test's names are defined and used (a
/// traceback through the tests says nothing of where the code it ran is; the test's names
/// do: `fs = partial(black.format_str)`, a route's `response_model_skip_defaults=True`).
pub(super) fn start_from(
    ctx: &GraphContext,
    state: &mut RunState,
    task: &str,
    protected: &[String],
    run: &kotef_tools::CommandResult,
    failure: &str,
) -> Start {
    let output = &format!("{}{}", run.stdout, run.stderr);
    let root = ctx.tools.workdir().root().display().to_string();
    let listed: Vec<String> = state.file_hashes.keys().cloned().collect();
    let trace = Traceback::read(output, &root, &listed);
    let printed = spec::Printed::read(output, &root, &listed);
    let test = spec::in_tree(ctx, &trace, protected);
    let statement = test.as_ref().and_then(spec::failing_statement);
    let names = locate::failing_names(failure, statement.as_deref(), &state.goal);
    let test_view = test.as_ref().and_then(|t| spec::failing_test(t, failure));
    let tests_only = test
        .as_ref()
        .is_some_and(|t| spec::runs_no_source(t, &printed, protected));
    // The test's names choose the files; within them, the failure's names still choose the
    // functions shown (the test's would crowd out the wrapper the failing call goes through).
    let looked_up: Option<Vec<String>> = test.as_ref().filter(|_| tests_only).map(|t| {
        let mut all = names.clone();
        for n in spec::test_names(t) {
            if !all.contains(&n) {
                all.push(n);
            }
        }
        all
    });
    let shown = shown::opening_files(ctx, state, task, looked_up.as_deref(), protected, trace);
    Start {
        names,
        test_view,
        shown,
    }
}
