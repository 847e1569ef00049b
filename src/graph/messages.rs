//! The texts the graph sends the model besides the nodes' system prompts: the templates in
//! `prompts/messages.md`, one `## name` section each with `{field}` placeholders, filled here
//! by name. A value is inserted as it is (code with braces in it is never read as a field).

/// The template file, compiled in.
const TEMPLATES: &str = include_str!("../../prompts/messages.md");

/// The coder's task from a failing test: `fix`, `command`, `failure`, `advice`.
pub const FIX_TASK: &str = "fix_task";
/// What to fix when the failure names code files: `what`.
pub const FIX_CODE: &str = "fix_code";
/// What to fix when it names none.
pub const FIX_UNNAMED_CODE: &str = "fix_unnamed_code";
/// The fix for a Python name a module lacks: `name`, `module`.
pub const ADD_MISSING_FUNCTION: &str = "add_missing_function";
/// The advice for a failure that needs something outside the repository: `cause`.
pub const ADVICE_OUTSIDE: &str = "advice_outside";
/// The advice for a failure inside it.
pub const ADVICE_INSIDE: &str = "advice_inside";
/// The task after a change that made the tests worse was undone: `files`, `worse`, `task`.
pub const UNDONE_TASK: &str = "undone_task";
/// The coder's `done` refused while nothing changed and the tests fail: `command`, `failure`.
pub const EMPTY_DONE_REFUSED: &str = "empty_done_refused";
/// The planner's `done` refused before anything was changed or verified.
pub const DONE_REFUSED: &str = "done_refused";

/// The coder's correction after a reply without a tool call: `shape` (a real call's shape).
pub const NO_TOOL_CALL: &str = "no_tool_call";
/// Before the result of a call repeated with nothing changed: `name`.
pub const REPEATED_CALL: &str = "repeated_call";
/// A write or edit of a protected test refused: `path`, `command`.
pub const PROTECTED_TEST_REFUSED: &str = "protected_test_refused";
/// The coder warned after budget reviews in a row: `reviews`.
pub const BUDGET_WARNING: &str = "budget_warning";
/// After a command the profile does not list: `test` (the project's test command).
pub const ALLOWED_COMMAND_HINT: &str = "allowed_command_hint";

/// The repair loop: an attempt whose reply held no code: `n`.
pub const ATTEMPT_UNREADABLE: &str = "attempt_unreadable";
/// An attempt whose blocks could not be placed: `n`, `errors` (a list).
pub const ATTEMPT_NOT_APPLIED: &str = "attempt_not_applied";
/// A tested attempt that did not pass: `n`, `verdict`, `change`, `skipped`, `failure`.
pub const ATTEMPT_TESTED: &str = "attempt_tested";
/// Verdicts of a tested attempt.
pub const VERDICT_PARTLY_FIXED: &str = "verdict_partly_fixed";
pub const VERDICT_WORSE: &str = "verdict_worse";
pub const VERDICT_NOT_FIXED: &str = "verdict_not_fixed";
/// Blocks of a tested attempt that could not be placed: `errors`.
pub const BLOCKS_SKIPPED: &str = "blocks_skipped";
/// A block whose code is the file's own.
pub const SAME_CODE: &str = "same_code";
/// An attempt's change in one line: `new`; `old`; `old`, `new`.
pub const CHANGE_ADDED: &str = "change_added";
pub const CHANGE_REMOVED: &str = "change_removed";
pub const CHANGE_CHANGED: &str = "change_changed";
/// The list of failed attempts after the opening: `list`.
pub const TRIED_LIST: &str = "tried_list";
/// The opening's last line.
pub const REPAIR_ASK: &str = "repair_ask";
/// Above a Python function's docstring shown apart: `name`.
pub const DOCSTRING_INTRO: &str = "docstring_intro";
/// Before the output of tests that did not finish.
pub const TESTS_TIMED_OUT: &str = "tests_timed_out";
/// A file too long to show whole, before its outline: `path`, `lines`.
pub const FILE_OUTLINE: &str = "file_outline";
/// Before one function of a long file: `path`, `first`, `last`, `name`.
pub const FILE_EXCERPT: &str = "file_excerpt";
/// Before one long function of a long file: `path`, `first`, `last`, `name`.
pub const FILE_EXCERPT_LONG: &str = "file_excerpt_long";
/// A file left out of the repair opening for room: `path`, `lines`.
pub const FILE_NAMED: &str = "file_named";
/// The traceback's frames outside the repository: `files`.
pub const OUTSIDE_FRAMES: &str = "outside_frames";
/// Before the lines where the failure raised, when the failing output was clipped.
pub const RAISED_AT: &str = "raised_at";
/// The repair loop moves to other files: `tried`, `names`, `files`.
pub const LOOK_ELSEWHERE: &str = "look_elsewhere";
/// The planner asked again after a malformed reply: `problem`, `shape`.
pub const PLANNER_REASK: &str = "planner_reask";

/// Every template's name, with the fields it is filled with.
pub const ALL: &[(&str, &[&str])] = &[
    (FIX_TASK, &["fix", "command", "failure", "advice"]),
    (FIX_CODE, &["what"]),
    (FIX_UNNAMED_CODE, &[]),
    (ADD_MISSING_FUNCTION, &["name", "module"]),
    (ADVICE_OUTSIDE, &["cause"]),
    (ADVICE_INSIDE, &[]),
    (UNDONE_TASK, &["files", "worse", "task"]),
    (EMPTY_DONE_REFUSED, &["command", "failure"]),
    (DONE_REFUSED, &[]),
    (NO_TOOL_CALL, &["shape"]),
    (REPEATED_CALL, &["name"]),
    (PROTECTED_TEST_REFUSED, &["path", "command"]),
    (BUDGET_WARNING, &["reviews"]),
    (ALLOWED_COMMAND_HINT, &["test"]),
    (ATTEMPT_UNREADABLE, &["n"]),
    (ATTEMPT_NOT_APPLIED, &["n", "errors"]),
    (
        ATTEMPT_TESTED,
        &["n", "verdict", "change", "skipped", "failure"],
    ),
    (VERDICT_PARTLY_FIXED, &[]),
    (VERDICT_WORSE, &[]),
    (VERDICT_NOT_FIXED, &[]),
    (BLOCKS_SKIPPED, &["errors"]),
    (SAME_CODE, &[]),
    (CHANGE_ADDED, &["new"]),
    (CHANGE_REMOVED, &["old"]),
    (CHANGE_CHANGED, &["old", "new"]),
    (TRIED_LIST, &["list"]),
    (REPAIR_ASK, &[]),
    (DOCSTRING_INTRO, &["name"]),
    (TESTS_TIMED_OUT, &[]),
    (PLANNER_REASK, &["problem", "shape"]),
    (FILE_OUTLINE, &["path", "lines"]),
    (FILE_EXCERPT, &["path", "first", "last", "name"]),
    (FILE_EXCERPT_LONG, &["path", "first", "last", "name"]),
    (FILE_NAMED, &["path", "lines"]),
    (OUTSIDE_FRAMES, &["files"]),
    (RAISED_AT, &[]),
    (LOOK_ELSEWHERE, &["tried", "names", "files"]),
];

/// The text of the section `name` (empty for a name the file lacks; the tests make sure none
/// is).
fn section(name: &str) -> &'static str {
    let head = format!("\n## {name}\n");
    let Some(at) = TEMPLATES.find(&head) else {
        return "";
    };
    let body = &TEMPLATES[at + head.len()..];
    let end = body.find("\n## ").unwrap_or(body.len());
    body[..end].trim()
}

/// Template `name` with each `{field}` replaced by its value; a placeholder without a value
/// stays as it is.
pub fn fill(name: &str, fields: &[(&str, &str)]) -> String {
    let text = section(name);
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let key = &after[..close];
            fields
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| (*v, close))
        });
        match value {
            Some((v, close)) => {
                out.push_str(v);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A template with no fields.
pub fn text(name: &str) -> String {
    fill(name, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_exists_and_is_filled_whole_by_its_fields() {
        for (name, fields) in ALL {
            assert!(
                !section(name).is_empty(),
                "prompts/messages.md has no `## {name}`"
            );
            let values: Vec<(&str, &str)> = fields.iter().map(|f| (*f, "X")).collect();
            let filled = fill(name, &values);
            for f in *fields {
                assert!(
                    section(name).contains(&format!("{{{f}}}")),
                    "{name} lacks {{{f}}}"
                );
            }
            assert!(!filled.contains('{'), "{name} left a field: {filled}");
        }
    }

    #[test]
    fn every_section_of_the_file_is_a_known_template() {
        for line in TEMPLATES.lines().filter_map(|l| l.strip_prefix("## ")) {
            assert!(
                ALL.iter().any(|(n, _)| *n == line),
                "`## {line}` is not used"
            );
        }
    }

    #[test]
    fn a_value_with_braces_is_inserted_as_it_is() {
        assert_eq!(
            fill(FIX_CODE, &[("what", "`f({what})`")]),
            "Fix `f({what})`"
        );
    }
}
