//! Whether a passing change fits the tests instead of fixing the code: a value it adds (a
//! string of [`MIN_STRING`] or more characters, a number of [`MIN_DIGITS`] or more digits)
//! that is a literal of the tests the command runs and that the project's other code
//! nowhere holds. A small
//! model shown a test that expects `response_status_message(573) == '573 Unknown Status'`
//! may write `return '573 Unknown Status'`: the test passes and nothing is fixed. Such a pass
//! is kept as the best candidate while the loop looks on, [`SEARCH_ON`] attempts more, for
//! a change that passes without them; found none, it stands, and the step's reason names
//! the values it copied. A pass that changed the tests' own code or harness (a `conftest.py`,
//! a `test/helper.py` whose assertion no longer asserts; [`harness_finding`]) is kept the same
//! way: it may pass because the tests no longer test.

use super::Snapshot;
use crate::graph::prompt::context;
use crate::graph::GraphContext;

/// The shortest string literal counted.
pub const MIN_STRING: usize = 3;

/// The fewest digits of a number counted.
pub const MIN_DIGITS: usize = 2;

/// The attempts made after a pass that copied values before it stands.
pub const SEARCH_ON: u32 = 6;

/// The most files read to look for a value in the project's other code.
pub const MAX_SOURCE_FILES: usize = 2000;

/// The string literals and numbers on a line diff's added lines (`+`), each once, in order;
/// a comment's are left out.
pub fn added_values(diff: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in diff.lines() {
        let Some(code) = line.strip_prefix('+') else {
            continue;
        };
        for v in line_values(code) {
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// The values of one line of code: its strings' contents (quotes of either kind, on the
/// line) and its numbers outside them, up to a comment.
fn line_values(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '#' {
            break;
        }
        if c == '\'' || c == '"' {
            let mut j = i + 1;
            let mut text = String::new();
            while j < chars.len() && chars[j] != c {
                if chars[j] == '\\' && j + 1 < chars.len() {
                    text.push(chars[j]);
                    j += 1;
                }
                text.push(chars[j]);
                j += 1;
            }
            if text.chars().count() >= MIN_STRING {
                out.push(text);
            }
            i = j + 1;
            continue;
        }
        let starts_word =
            i == 0 || !(chars[i - 1].is_alphanumeric() || "_.".contains(chars[i - 1]));
        if c.is_ascii_digit() && starts_word {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
                j += 1;
            }
            let number: String = chars[i..j].iter().collect();
            let number = number.trim_end_matches('.').to_string();
            if number.chars().filter(char::is_ascii_digit).count() >= MIN_DIGITS {
                out.push(number);
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// The values `diff` adds that `tests` hold whole (a literal of the tests, not part of one:
/// a fix that adds `'Unknown Status'` for a test expecting `'573 Unknown Status'` copies
/// nothing) and none of `sources` (the project's other files, as they were before the
/// change) does. Each source is read once, and none after every value was found in one.
pub fn copied_values(
    diff: &str,
    tests: &str,
    sources: impl IntoIterator<Item = String>,
) -> Vec<String> {
    let held: Vec<String> = tests.lines().flat_map(line_values).collect();
    let mut left: Vec<String> = added_values(diff)
        .into_iter()
        .filter(|v| held.contains(v))
        .collect();
    for text in sources {
        if left.is_empty() {
            break;
        }
        left.retain(|v| !text.contains(v.as_str()));
    }
    left
}

/// What the loop knows to judge passes by: the text of the tests the command runs, and the
/// project's other files of the kinds a change touches (none by default: nothing is copied).
#[derive(Debug, Default)]
pub(super) struct Fits {
    tests: String,
    test_paths: Vec<String>,
    listed: Vec<String>,
    /// The attempt count when a doubtful pass was kept, and what a reviewer must check of it.
    since: Option<(u32, String)>,
}

impl Fits {
    /// The tests `command` runs of the `listed` files, read (capped) from the tree.
    pub(super) fn new(ctx: &GraphContext, command: &str, listed: Vec<String>) -> Self {
        let tree = ctx.tools.workdir().tree();
        let test_paths = context::test_files(command, listed.iter());
        let tests = test_paths
            .iter()
            .filter_map(|p| {
                tree.read_text(p, kotef_tools::file_tools::READ_CAP_BYTES as u64)
                    .ok()
            })
            .collect::<Vec<_>>()
            .join("\n");
        Fits {
            tests,
            test_paths,
            listed,
            since: None,
        }
    }

    /// The values a passing change (`diff`, made over `snap`'s files) copied from the tests.
    pub(super) fn copied(&self, ctx: &GraphContext, snap: &Snapshot, diff: &str) -> Vec<String> {
        if self.tests.is_empty() {
            return Vec::new();
        }
        let tree = ctx.tools.workdir().tree();
        let kinds: Vec<&str> = snap
            .keys()
            .filter_map(|p| p.rsplit_once('.').map(|(_, e)| e))
            .collect();
        let others: Vec<&String> = (self.listed.iter())
            .filter(|p| !self.test_paths.contains(*p) && !context::named_like_a_test(p))
            .filter(|p| p.rsplit_once('.').is_some_and(|(_, e)| kinds.contains(&e)))
            .take(MAX_SOURCE_FILES)
            .collect();
        let before = |p: &str| -> Option<String> {
            match snap.get(p) {
                Some(bytes) => bytes
                    .as_ref()
                    .map(|b| String::from_utf8_lossy(b).into_owned()),
                None => tree
                    .read_text(p, kotef_tools::file_tools::READ_CAP_BYTES as u64)
                    .ok(),
            }
        };
        copied_values(
            diff,
            &self.tests,
            others.iter().filter_map(|p| before(p.as_str())),
        )
    }

    /// A doubtful pass was kept as the best candidate at attempt `made`; `finding` says what
    /// to check of it ([`finding`], [`harness_finding`]).
    pub(super) fn kept(&mut self, made: u32, finding: String) {
        self.since.get_or_insert((made, finding));
    }

    /// Whether the kept pass stands now: [`SEARCH_ON`] attempts were made after it.
    pub(super) fn stands(&self, made: u32) -> bool {
        self.since
            .as_ref()
            .is_some_and(|(s, _)| made >= s + SEARCH_ON)
    }

    /// What a reviewer must check of a kept pass that stands.
    pub(super) fn finding(&self) -> Option<String> {
        self.since.as_ref().map(|(_, found)| found.clone())
    }
}

/// What a kept pass that copied `values` from the tests leaves to check (at most three
/// named, each clipped): short, as the report's timeline cell shows the first 200
/// characters of the step's reason, which it leads as `CHECK: …`.
pub fn finding(values: &[String]) -> String {
    format!(
        "it passes with {} copied from the tests; nothing passed without them",
        first_three(values, 40)
    )
}

/// What a kept pass that changed the tests' own code or harness (`paths`) leaves to check,
/// as [`finding`] does.
pub fn harness_finding(paths: &[String]) -> String {
    format!(
        "it passes only with {} changed ({}); nothing passed without that",
        crate::graph::rules::tests_touched::PHRASE,
        first_three(paths, 80)
    )
}

/// The first three of `items`, each in backticks, clipped to `chars`.
fn first_three(items: &[String], chars: usize) -> String {
    let shown: Vec<String> = (items.iter().take(3))
        .map(|v| format!("`{}`", v.chars().take(chars).collect::<String>()))
        .collect();
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TESTS: &str = "self.assertEqual(status_message(573), '573 Unknown Status')\n";

    #[test]
    fn a_change_that_returns_the_tests_expected_value_copies_it() {
        let diff = "--- status.py\n+    if status == 573:\n+        return '573 Unknown Status'\n";
        assert_eq!(
            copied_values(diff, TESTS, None),
            ["573", "573 Unknown Status"]
        );
    }

    #[test]
    fn a_general_fix_copies_nothing() {
        let diff = "--- status.py\n-    return RESPONSES[status]\n+    return '%s %s' % (status, RESPONSES.get(status, 'Unknown Status'))\n";
        assert_eq!(copied_values(diff, TESTS, None), Vec::<String>::new());
    }

    #[test]
    fn a_value_the_project_already_uses_elsewhere_is_not_copied() {
        let diff = "+        return '573 Unknown Status'\n";
        assert_eq!(
            copied_values(diff, TESTS, ["    '573 Unknown Status': 573,".to_string()]),
            Vec::<String>::new()
        );
    }

    #[test]
    fn removed_lines_comments_short_strings_and_names_with_digits_are_not_values() {
        let diff =
            "-    x = '573 Unknown Status'\n+    y = utf8(v1) + 'ab'  # '573 Unknown Status'\n";
        assert_eq!(added_values(diff), Vec::<String>::new());
    }

    #[test]
    fn numbers_and_escaped_quotes_are_read_whole() {
        assert_eq!(
            added_values("+    t = 3.25 * 60; s = 'it\\'s 5'\n"),
            ["3.25", "60", "it\\'s 5"]
        );
    }

    #[test]
    fn a_kept_pass_stands_after_the_search_on_attempts() {
        let mut f = Fits {
            tests: TESTS.into(),
            test_paths: Vec::new(),
            listed: Vec::new(),
            since: None,
        };
        assert!(!f.stands(100));
        f.kept(4, finding(&["573".into()]));
        f.kept(7, harness_finding(&["conftest.py".into()]));
        assert!(!f.stands(4 + SEARCH_ON - 1));
        assert!(f.stands(4 + SEARCH_ON));
        assert_eq!(
            f.finding().as_deref(),
            Some("it passes with `573` copied from the tests; nothing passed without them")
        );
    }

    #[test]
    fn a_pass_that_changed_the_harness_names_the_files_to_check() {
        assert_eq!(
            harness_finding(&["test/helper.py".into()]),
            "it passes only with the tests' own code changed (`test/helper.py`); nothing passed \
             without that"
        );
    }
}
