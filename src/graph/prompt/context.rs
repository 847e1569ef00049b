//! Prompt building as snapshot + delta: every call sends the system prompt, the goal and task,
//! a compact repository state and only the current turn's tool results. Earlier results are
//! folded into that state, never replayed as a transcript, so turn 40 costs what turn 2 does.

use crate::graph::memory::state::RunState;
use crate::graph::prompt::messages as m;
use kotef_tools::{file_tools, RepoSnapshot, Tree, TreeError};
use std::fmt::Write as _;

pub const PLANNER_PROMPT: &str = include_str!("../../../prompts/planner.md");
pub const RESEARCHER_PROMPT: &str = include_str!("../../../prompts/researcher.md");
pub const CODER_PROMPT: &str = include_str!("../../../prompts/coder.md");
pub const BUDGET_REVIEW_PROMPT: &str = include_str!("../../../prompts/budget_review.md");

/// Files listed in a prompt's repository state at most.
pub const SNAPSHOT_FILES: usize = 150;
/// Characters of one tool result given back to the model at most.
pub const TOOL_RESULT_CHARS: usize = 6000;
/// One-line notes of earlier turns kept in a step's state at most (the oldest are dropped).
pub const STEP_NOTES: usize = 12;

/// What a maintainer can act on when the run stops stuck: the failure the tests still show, or
/// nothing when they pass or never ran.
pub fn still_failing(state: &RunState) -> String {
    state
        .test
        .as_ref()
        .filter(|t| !t.passed)
        .map(|t| {
            if t.command == NO_TEST_COMMAND {
                return " No test command was configured (`test_command` in kotef.toml) or detected, so nothing could check the change.".to_string();
            }
            format!(
                " {} (see whether it can be fixed inside the repository at all).",
                failure_sentence(&t.command, &t.report.key_line)
            )
        })
        .unwrap_or_default()
}

/// The command the verifier names when a repository has no test command.
pub const NO_TEST_COMMAND: &str = "(no test command)";

/// A failing command and its key line as a reader's sentence: "`pytest -q` still fails with:
/// AssertionError: 1 != 2", or "`make test` still fails: exit code 127" for a key line that is
/// the classifier's headline; the classifier's kind (`tooling_error: ...`) is left out.
pub fn failure_sentence(command: &str, key_line: &str) -> String {
    let line = clip(strip_failure_kind(key_line), 200);
    let quoted = format!("`{command}` ");
    match line.strip_prefix(&quoted) {
        Some(rest) => format!("`{command}` still fails: {rest}"),
        None => format!("`{command}` still fails with: {line}"),
    }
}

/// `line` without a leading failure kind of the classifier (`tooling_error: `).
pub fn strip_failure_kind(line: &str) -> &str {
    [
        "test_failure",
        "lint_failure",
        "runtime_error",
        "tooling_error",
        "unknown",
    ]
    .iter()
    .find_map(|k| line.strip_prefix(k).and_then(|r| r.strip_prefix(": ")))
    .unwrap_or(line)
}

/// Cuts `text` to `max` characters, keeping head and tail.
pub fn clip(text: &str, max: usize) -> String {
    kotef_core::text::cut_middle(text, max, max * 2 / 3, max / 3)
}

/// The repository part of the state: the listing ([`crate::graph::prompt::listing`]: file by file
/// for a small repository, in a bounded summary for a large one) and the files changed in this run.
pub fn repo_state(snapshot: &RepoSnapshot, state: &RunState) -> String {
    let mut s = crate::graph::prompt::listing::listing(snapshot, state, &run_files(state));
    let changed = state.files_changed();
    let _ = write!(s, "{}", m::FilesChangedSection);
    if changed.is_empty() {
        let _ = write!(s, "{}", m::FilesChangedNone);
    }
    for p in changed.iter().take(50) {
        let _ = write!(s, "{}", m::ListItem { item: p });
    }
    s
}

/// The files this run is about: those the goal and the failing run name, then the test files
/// the command runs.
pub fn run_files(state: &RunState) -> Vec<String> {
    let files = state.file_hashes.keys();
    let mut out: Vec<String> = named_files(&state.goal, files.clone());
    let failing = state
        .test
        .as_ref()
        .filter(|t| !t.passed)
        .map(|t| t.report.files_named.clone())
        .unwrap_or_default();
    let tests = state
        .test_command
        .as_deref()
        .map_or_else(Vec::new, |c| test_files(c, files));
    for f in failing.into_iter().chain(tests) {
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// The planner's view of the run.
pub fn run_state_summary(state: &RunState) -> String {
    let mut s = String::new();
    let c = &state.loop_counters;
    let _ = write!(
        s,
        "{}",
        m::RunStateSection {
            step: &state.total_steps.to_string(),
            progress_step: &state.last_progress_step.to_string(),
            to_researcher: &c.planner_to_researcher.to_string(),
            to_coder: &c.planner_to_coder.to_string(),
            to_verifier: &c.planner_to_verifier.to_string(),
            fix_attempts: &state.failures.attempts.to_string(),
            coder_idle: &state.coder_steps_without_progress().to_string(),
        }
    );
    s.push_str(&plan_section(&state.plan, 10));
    let r = &state.research;
    if let Some(q) = &r.last_query {
        let research = m::ResearchSection {
            query: q,
            attempts: &r.attempts.to_string(),
            quality: &format!("{:.2}", r.quality),
            findings: &clip(&r.findings, 1500),
        };
        let _ = write!(s, "{research}");
        for reason in r.reasons.iter().rev().take(2) {
            let _ = write!(s, "{}", m::ResearchNote { note: reason });
        }
    }
    s.push_str(&test_summary(state));
    if !state.failures.entries.is_empty() {
        let _ = write!(s, "{}", m::FailureHistorySection);
        let skip = state.failures.entries.len().saturating_sub(3);
        for e in state.failures.entries.iter().skip(skip) {
            let entry = m::FailureEntry {
                step: &e.step.to_string(),
                command: &e.command,
                exit: &format!("{:?}", e.exit_code),
                kind: e.kind.as_str(),
                summary: &clip(&e.summary, 300),
            };
            let _ = write!(s, "{entry}");
        }
    }
    if let Some(summary) = &state.coder_summary {
        let summary = clip(summary, 500);
        let _ = write!(s, "{}", m::CoderSummary { summary: &summary });
    }
    s
}

/// The open plan items (at most `max`) under their heading; empty for no plan.
pub fn plan_section(plan: &[String], max: usize) -> String {
    if plan.is_empty() {
        return String::new();
    }
    let mut s = m::PlanSection.to_string();
    for p in plan.iter().take(max) {
        let _ = write!(s, "{}", m::ListItem { item: p });
    }
    s
}

pub use crate::graph::memory::failure::key_line;

/// The last test result in a few lines.
pub fn test_summary(state: &RunState) -> String {
    let Some(t) = &state.test else {
        return m::VerificationNone.to_string();
    };
    let (result, repeats, summary) = if t.passed {
        (
            m::VerificationPassed.to_string(),
            String::new(),
            String::new(),
        )
    } else {
        let count = t.same_error_count.to_string();
        (
            m::VerificationFailed.to_string(),
            m::VerificationRepeats { count: &count }.to_string(),
            clip(&t.summary, 800),
        )
    };
    m::Verification {
        step: &t.step.to_string(),
        command: &t.command,
        result: &result,
        repeats: &repeats,
        summary: &summary,
    }
    .to_string()
}

/// A file the task names, as the coder is shown it: its text (capped), or for a link what it
/// points to (kotef never follows it: `notes.txt -> /proc/self/environ` must not put kotef's
/// environment into the prompt); `None` for anything else.
fn named_file(tree: &Tree, path: String) -> Option<(String, String)> {
    match tree.read_text(&path, file_tools::READ_CAP_BYTES as u64) {
        Ok(text) => Some((path, text)),
        Err(TreeError::Symlink { target, .. }) => {
            let note = m::SymlinkNote { target: &target }.to_string();
            Some((path, note))
        }
        Err(_) => None,
    }
}

/// The files a task is about, as they are now (path, text): those the task, the goal and the
/// failing verification name, then the code a named test imports; at most `max`. `tree` is
/// the run's work tree (`ctx.tools.workdir().tree()`).
pub fn task_files(tree: &Tree, state: &RunState, task: &str, max: usize) -> Vec<(String, String)> {
    let failure = state
        .test
        .as_ref()
        .filter(|t| !t.passed)
        .map_or(&[][..], |t| t.report.files_named.as_slice());
    // The task's files first, then the goal's.
    let asked = format!("{task}\n{}", state.goal);
    let read = |p: String| named_file(tree, p);
    let mut named: Vec<(String, String)> = coder_files(&asked, failure, state.file_hashes.keys())
        .into_iter()
        .filter_map(read)
        .collect();
    // A named test brings the code it imports, which is usually what needs the fix.
    let imports: Vec<String> = named
        .iter()
        .flat_map(|(p, text)| imported_files(p, text, state.file_hashes.keys()))
        .collect();
    for f in imports {
        if named.len() < max && !named.iter().any(|(p, _)| *p == f) {
            named.extend(read(f));
        }
    }
    named
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_head_and_tail() {
        let text: String = (0..100)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let c = clip(&text, 30);
        assert!(c.starts_with(&text[..20]));
        assert!(c.ends_with(&text[90..]));
        assert!(c.contains("characters cut"));
        assert_eq!(clip("short", 30), "short");
    }
}

/// Files shown whole to the coder when its task names them.
pub const NAMED_FILES: usize = 2;
/// Longest text of one named file shown to the coder, in characters.
pub const NAMED_FILE_CHARS: usize = 4000;

/// The repository files `task` names, by path or by a file name that is unique in the
/// repository, in the order they appear in the task (at most [`NAMED_FILES`]).
pub fn named_files<'a>(task: &str, files: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    let files: Vec<&String> = files.into_iter().collect();
    let name_of = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let mut found: Vec<(usize, String)> = Vec::new();
    for f in &files {
        let name = name_of(f);
        let unique = files.iter().filter(|g| name_of(g) == name).count() == 1;
        // A lower-case name without an extension (`bin/luigi`, `scripts/black`) is also a
        // word: "Bug in luigi" names the project, not its script. It names the file quoted.
        let word = !name.contains('.') && name.chars().all(|c| !c.is_uppercase());
        let find = |needle: &str| match word && !needle.contains('/') {
            true => find_word(task, &format!("`{needle}`")).map(|at| at + 1),
            false => find_word(task, needle),
        };
        let at = find(f).or_else(|| unique.then(|| find(&name)).flatten());
        if let Some(at) = at {
            found.push((at, f.to_string()));
        }
    }
    found.sort();
    found
        .into_iter()
        .map(|(_, f)| f)
        .take(NAMED_FILES)
        .collect()
}

/// The first place `needle` appears in `text` as a whole path or name: `calc.py` is not found
/// inside `test_calc.py`, but is inside `/ws/src/calc.py`.
fn find_word(text: &str, needle: &str) -> Option<usize> {
    let part_of_name = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    text.match_indices(needle).map(|(at, _)| at).find(|&at| {
        let before = text[..at].chars().next_back();
        let after = text[at + needle.len()..].chars().next();
        !before.is_some_and(part_of_name) && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The repository files a test command runs by name: a path (`sh test.sh`, `node test.js`) or
/// a Python module (`unittest test_calc`, `tests.test_calc`).
pub fn test_files<'a>(command: &str, files: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    let files: Vec<&String> = files.into_iter().collect();
    let mut out: Vec<String> = Vec::new();
    for token in command.split_whitespace() {
        let t = token.trim_matches(|c| c == '"' || c == '\'');
        let t = t.strip_prefix("./").unwrap_or(t);
        // A pytest node id names its file before `::` (`tests/test_x.py::T::test_y`).
        let t = t.split("::").next().unwrap_or(t);
        let modules = dotted_modules(t);
        for f in &files {
            if (f.as_str() == t || modules.contains(f)) && !out.contains(f) {
                out.push(f.to_string());
            }
        }
    }
    out
}

/// The files a dotted unittest id may name: `test.test_utils.TestUtil.test_x` is
/// `test/test_utils/TestUtil/test_x.py`, `test/test_utils/TestUtil.py` or
/// `test/test_utils.py` (a module, then its classes and methods).
fn dotted_modules(id: &str) -> Vec<String> {
    if !id
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        return Vec::new();
    }
    let parts: Vec<&str> = id.split('.').collect();
    (1..=parts.len())
        .rev()
        .map(|n| format!("{}.py", parts[..n].join("/")))
        .collect()
}

/// Whether `path` is the tests' code or their harness (`tests/`, `test_x.py`,
/// `conftest.py`, `tornado/testing.py`): what judges a change (a harness whose decorator no
/// longer runs the test makes every test pass).
pub fn tests_code(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_lowercase();
    kotef_tools::locate::rank(path) == 1 || name.contains("test")
}

/// The tests the run is judged by, which the coder may not change: the files the test command
/// runs by name, unless the goal (the user's own words) names them without asking for them to
/// pass ("test.sh has a typo" unlocks `test.sh`; "make the tests in test_version.py pass"
/// makes it the specification). A goal that reports a failure ("the tests in test_x.py fail")
/// unlocks only the named files that are not tests by their name ("greeting.txt must say
/// hello; the check fails" still unlocks `greeting.txt`).
pub fn protected_tests<'a>(
    command: Option<&str>,
    goal: &str,
    files: impl IntoIterator<Item = &'a String>,
) -> Vec<String> {
    let files: Vec<&String> = files.into_iter().collect();
    let Some(command) = command else {
        return Vec::new();
    };
    let words = goal_words(goal);
    let unlocked: Vec<String> = if words.asks_to_pass {
        Vec::new()
    } else {
        named_files(goal, files.iter().copied())
            .into_iter()
            .filter(|f| !words.reports_failure || !named_like_a_test(f))
            .collect()
    };
    test_files(command, files.iter().copied())
        .into_iter()
        .filter(|f| !unlocked.contains(f))
        .collect()
}

/// What a goal says of the tests: it asks for them to pass ("pass", "passes", "passing",
/// "green"), or it reports that they fail ("fail", "fails", "failing").
struct GoalWords {
    asks_to_pass: bool,
    reports_failure: bool,
}

fn goal_words(goal: &str) -> GoalWords {
    let lower = goal.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).collect();
    let any = |set: &[&str]| words.iter().any(|w| set.contains(w));
    GoalWords {
        asks_to_pass: any(&["pass", "passes", "passing", "green"]),
        reports_failure: any(&["fail", "fails", "failing"]),
    }
}

/// Whether a path is a test by its name: `test_x.py`, `x_test.go`, `x.test.js`, `x.spec.ts`,
/// `tests/…`, `test.sh`.
pub(crate) fn named_like_a_test(path: &str) -> bool {
    let lower = path.to_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let stem = name.split('.').next().unwrap_or(name);
    lower
        .split('/')
        .any(|c| matches!(c, "test" | "tests" | "spec" | "__tests__"))
        || stem == "test"
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_spec")
        || name.contains(".test.")
        || name.contains(".spec.")
}

/// The files the coder is shown: those its task names, then those the failing verification
/// names (a traceback's frames, a compiler's `file:line`), at most [`NAMED_FILES`] + 1. A vague
/// task ("fix the failing test") still puts the code the failure points at in front of it.
pub fn coder_files<'a>(
    task: &str,
    failure_files: &[String],
    files: impl IntoIterator<Item = &'a String>,
) -> Vec<String> {
    let files: Vec<&String> = files.into_iter().collect();
    let mut out = named_files(task, files.iter().copied());
    for f in failure_files {
        if files.contains(&f) && !out.contains(f) {
            out.push(f.clone());
        }
    }
    out.truncate(NAMED_FILES + 1);
    out
}

/// The repository files that `text` (the file at `path`) imports: Python `import a.b` /
/// `from a.b import c` and JavaScript `require("./x")` / `from "./x"`, matched by their path's
/// tail, so a named test brings the code it tests. Unresolvable or ambiguous imports are left
/// out.
pub fn imported_files<'a>(
    path: &str,
    text: &str,
    files: impl IntoIterator<Item = &'a String>,
) -> Vec<String> {
    let files: Vec<&String> = files.into_iter().collect();
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let mut wanted: Vec<Vec<String>> = Vec::new();
    for line in text.lines().map(str::trim) {
        let py = line
            .strip_prefix("from ")
            .and_then(|r| r.split_whitespace().next())
            .or_else(|| {
                line.strip_prefix("import ")
                    .and_then(|r| r.split([',', ' ']).next())
            })
            .filter(|m| {
                !m.starts_with('.')
                    && m.chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            });
        if let Some(m) = py {
            let tail = m.replace('.', "/");
            wanted.push(vec![format!("{tail}.py"), format!("{tail}/__init__.py")]);
        }
        for quote in ['"', '\''] {
            for marker in [format!("require({quote}"), format!("from {quote}")] {
                let Some(rest) = line.split(marker.as_str()).nth(1) else {
                    continue;
                };
                let Some(spec) = rest.split(quote).next().filter(|s| s.starts_with('.')) else {
                    continue;
                };
                let joined = normalize(&format!("{dir}/{spec}"));
                wanted.push(
                    ["", ".js", ".mjs", ".ts", "/index.js"]
                        .iter()
                        .map(|ext| format!("{joined}{ext}"))
                        .collect(),
                );
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    for candidates in wanted {
        let hits: Vec<&String> = files
            .iter()
            .copied()
            .filter(|f| {
                candidates
                    .iter()
                    .any(|c| f.as_str() == c || f.ends_with(&format!("/{c}")))
            })
            .collect();
        if let [one] = hits[..] {
            if one != path && !out.contains(one) {
                out.push(one.clone());
            }
        }
    }
    out
}

/// `a/./b/../c` → `a/c`, without a leading `/`.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// The "files named in the task" section: each file's current text with line numbers,
/// capped, so the coder quotes real text when it edits.
pub fn named_files_section(files: &[(String, String)], names: &[String]) -> String {
    if files.is_empty() {
        return String::new();
    }
    let mut out = m::NamedFilesSection.to_string();
    // Plain text, no line numbers: small models copy a listing's numbers into `old`.
    for (path, text) in files {
        // A long file: its outline and the functions `names` names, each with its lines
        // (read_file reads any other range).
        if text.chars().count() > NAMED_FILE_CHARS {
            out.push_str(&crate::graph::prompt::code_view::long_file(
                path,
                text,
                &[],
                names,
            ));
            continue;
        }
        let file = m::NamedFile {
            path,
            lines: &text.lines().count().to_string(),
            text: &clip(text.trim_end(), NAMED_FILE_CHARS),
        };
        out.push_str(&file.to_string());
    }
    out
}

#[cfg(test)]
mod named_tests {
    use super::*;

    #[test]
    fn no_prompt_holds_placeholder_text_a_model_could_copy_back() {
        let copyable = ["...", "…", "open item", "COMMAND", "0.0-1.0"];
        let found: Vec<(&str, &str)> = [PLANNER_PROMPT, RESEARCHER_PROMPT, CODER_PROMPT]
            .into_iter()
            .flat_map(|p| {
                copyable
                    .iter()
                    .filter(|c| p.contains(**c))
                    .map(move |c| (*c, &p[..40]))
            })
            .collect();
        assert_eq!(found, vec![]);
    }

    fn files() -> Vec<String> {
        [
            "src/calc.py",
            "tests/test_calc.py",
            "README.md",
            "a/util.py",
            "b/util.py",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    #[test]
    fn a_test_command_names_its_script_or_its_python_module() {
        let files: Vec<String> = ["test.sh", "count.sh", "tests/test_calc.py", "calc.py"]
            .map(String::from)
            .to_vec();
        assert_eq!(test_files("sh test.sh", &files), ["test.sh"]);
        assert_eq!(
            test_files("python3 -m unittest -q tests.test_calc", &files),
            ["tests/test_calc.py"]
        );
        assert_eq!(test_files("cargo test", &files), Vec::<String>::new());
    }

    #[test]
    fn the_tests_are_protected_unless_the_goal_names_them() {
        let files: Vec<String> = ["test.sh", "count.sh"].map(String::from).to_vec();
        assert_eq!(
            protected_tests(Some("sh test.sh"), "count.sh counts words", &files),
            ["test.sh"]
        );
        assert_eq!(
            protected_tests(Some("sh test.sh"), "test.sh has a typo", &files),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_goal_asking_the_named_tests_to_pass_keeps_them_protected() {
        let files: Vec<String> = ["test_version.py", "version.py"].map(String::from).to_vec();
        assert_eq!(
            protected_tests(
                Some("python3 -m unittest -q test_version"),
                "Make both tests in test_version.py pass.",
                &files
            ),
            ["test_version.py"]
        );
    }

    #[test]
    fn a_goal_reporting_that_the_named_tests_fail_keeps_them_protected() {
        let files: Vec<String> = ["test_version.py", "version.py"].map(String::from).to_vec();
        assert_eq!(
            protected_tests(
                Some("python3 -m unittest -q test_version"),
                "Fix version.py: the tests in test_version.py fail.",
                &files
            ),
            ["test_version.py"]
        );
    }

    #[test]
    fn a_goal_reporting_a_failing_check_still_unlocks_the_data_file_it_names() {
        let files: Vec<String> = ["greeting.txt"].map(String::from).to_vec();
        assert_eq!(
            protected_tests(
                Some("grep -qx hello greeting.txt"),
                "greeting.txt must say hello; the check fails today.",
                &files
            ),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_dotted_unittest_id_and_a_pytest_node_id_name_their_test_files() {
        let files: Vec<String> = ["test/test_utils.py", "tests/test_x.py", "pkg/mod.py"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            test_files(
                ".venv/bin/python -m unittest -q test.test_utils.TestUtil.test_urljoin",
                &files
            ),
            ["test/test_utils.py"]
        );
        assert_eq!(
            test_files("pytest -q tests/test_x.py::T::test_y", &files),
            ["tests/test_x.py"]
        );
        assert!(test_files("python -m pytest -q pkg", &files).is_empty());
    }

    #[test]
    fn test_files_are_known_by_their_names() {
        let tests = [
            "test_a.py",
            "a_test.go",
            "a.test.js",
            "a.spec.ts",
            "tests/a.rs",
            "test.sh",
        ];
        assert!(tests.iter().all(|p| named_like_a_test(p)));
        assert!(!["greeting.txt", "latest.py", "contest.py"]
            .iter()
            .any(|p| named_like_a_test(p)));
    }

    #[test]
    fn the_run_is_about_the_files_its_goal_names_and_the_tests_its_command_runs() {
        let hashes = ["pkg/core.py", "tests/test_core.py", "pkg/other.py"]
            .map(|p| (p.to_string(), "h".to_string()))
            .into_iter()
            .collect();
        let mut s = RunState::new("Fix pkg/core.py", kotef_core::Profile::Strict, hashes);
        s.test_command = Some("python3 -m unittest tests.test_core".into());
        assert_eq!(run_files(&s), ["pkg/core.py", "tests/test_core.py"]);
    }

    #[test]
    fn a_task_naming_a_path_or_a_unique_file_name_gets_those_files() {
        assert_eq!(
            named_files("Fix add() in calc.py so test_calc.py passes", &files()),
            ["src/calc.py", "tests/test_calc.py"]
        );
    }

    #[test]
    fn the_files_a_failure_names_follow_the_tasks_own() {
        let failure = "Traceback:\n  File \"/ws/tests/test_calc.py\", line 6\n  File \"/ws/src/calc.py\", line 2";
        assert_eq!(
            coder_files(
                "Fix the failing test in calc.py",
                &named_files(failure, &files()),
                &files()
            ),
            ["src/calc.py", "tests/test_calc.py"]
        );
    }

    #[test]
    fn a_vague_task_still_gets_the_failing_files() {
        let failure = "FAIL: test_add (test_calc.AddTest)\n  File \"tests/test_calc.py\", line 6";
        assert_eq!(
            coder_files(
                "Make the tests pass",
                &named_files(failure, &files()),
                &files()
            ),
            ["tests/test_calc.py"]
        );
    }

    #[test]
    fn a_file_name_inside_a_longer_name_is_not_a_mention() {
        assert_eq!(
            named_files("Run test_calc.py", &files()),
            ["tests/test_calc.py"]
        );
    }

    #[test]
    fn a_python_test_brings_the_module_it_imports() {
        let files = ["calc.py", "test_calc.py", "pkg/util.py"].map(String::from);
        let text = "import unittest\nfrom calc import add\nimport pkg.util\n";
        assert_eq!(
            imported_files("test_calc.py", text, &files),
            ["calc.py", "pkg/util.py"]
        );
    }

    #[test]
    fn a_javascript_test_brings_the_file_it_requires() {
        let files = ["src/clamp.js", "src/clamp.test.js"].map(String::from);
        let text = "const { clamp } = require('./clamp');\n";
        assert_eq!(
            imported_files("src/clamp.test.js", text, &files),
            ["src/clamp.js"]
        );
    }

    #[test]
    fn an_ambiguous_file_name_is_not_guessed() {
        assert_eq!(named_files("Fix util.py", &files()), Vec::<String>::new());
    }

    #[test]
    fn a_lower_case_name_without_an_extension_is_a_word_unless_quoted() {
        let files: Vec<String> = ["bin/luigi", "luigi/file.py", "Makefile", "build"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            named_files("Bug in luigi: the build fails", &files),
            Vec::<String>::new()
        );
        assert_eq!(
            named_files("`luigi` crashes; see the Makefile", &files),
            vec!["bin/luigi".to_string(), "Makefile".to_string()]
        );
        assert_eq!(
            named_files("Run `build` after bin/luigi", &files),
            vec!["build".to_string(), "bin/luigi".to_string()]
        );
    }

    #[test]
    fn a_long_named_file_is_its_outline_and_the_function_the_task_names() {
        let text: String = (0..300)
            .map(|i| format!("def part_{i}(x):\n    return x + {i}\n\n"))
            .collect();
        let s = named_files_section(&[("big.py".into(), text)], &["part_120".into()]);
        assert!(
            s.contains("big.py has 900 lines")
                && s.contains("big.py lines 361-362, `part_120`")
                && s.contains("def part_120(x):\n    return x + 120\n```")
                && !s.contains("return x + 7\n"),
            "{s}"
        );
    }

    #[test]
    fn the_section_shows_plain_text_a_model_can_copy_into_old() {
        let s = named_files_section(&[("a.py".into(), "x = 1\ny = 2\n".into())], &[]);
        assert!(
            s.contains("### a.py (2 lines)\n```\nx = 1\ny = 2\n```"),
            "{s}"
        );
    }
}
