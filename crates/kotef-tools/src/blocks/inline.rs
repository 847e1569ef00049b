//! A fix written as a sentence instead of a block. Asked to say which line is wrong and what it
//! must do, a small model often stops there: "The wrong line is `self.fs.mkdir(d)`. It should
//! be `self.mkdir(d)`.", or "`b` instead of `a`". When one of two code spans next to each
//! other is in exactly one line of the files shown and the other, which shares a name with
//! it, is in none, the sentence is that line's change.

use super::{Change, EditBlock};

/// A line of a file shown: its path and its text.
type Line<'a> = (&'a str, &'a str);

/// The change a reply without blocks states in its code spans, as a search/replace block of
/// the one line it changes; `None` when no pair of spans reads as one.
pub fn inline_change(reply: &str, files: &[(String, String)]) -> Option<EditBlock> {
    let spans = code_spans(reply);
    spans.windows(2).find_map(|pair| {
        let (a, b) = (pair[0], pair[1]);
        let (in_a, in_b) = (lines_with(a, files), lines_with(b, files));
        let ((path, line), old, new) = match (in_a.as_slice(), in_b.as_slice()) {
            ([only], []) => (*only, a, b),
            ([], [only]) => (*only, b, a),
            _ => return None,
        };
        if !shares_a_name(old, new) {
            return None;
        }
        Some(EditBlock {
            path: Some(path.to_string()),
            change: Change::Replace {
                search: line.to_string(),
                replace: line.replacen(old, new, 1),
            },
        })
    })
}

/// The reply's inline code spans (`like this`, on one line) that read as code: at least one
/// character that is not part of a name (a call, an attribute, an operator), so a bare name
/// or a path alone is not a change.
fn code_spans(reply: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in reply.lines() {
        let parts: Vec<&str> = line.split('`').collect();
        // Spans are the odd parts of a line with an even number of backticks.
        if parts.len().is_multiple_of(2) {
            continue;
        }
        out.extend(
            parts
                .iter()
                .skip(1)
                .step_by(2)
                .map(|s| s.trim())
                .filter(|s| {
                    s.len() >= 3
                        && s.chars()
                            .any(|c| !(c.is_alphanumeric() || c == '_' || c == '/' || c == '.'))
                }),
        );
    }
    out
}

/// The lines of `files` holding `span`, at most two (two is as good as many: not one line).
fn lines_with<'a>(span: &str, files: &'a [(String, String)]) -> Vec<Line<'a>> {
    files
        .iter()
        .flat_map(|(p, text)| text.lines().map(move |l| (p.as_str(), l)))
        .filter(|(_, l)| l.contains(span))
        .take(2)
        .collect()
}

/// Whether two spans share a name (`self.fs.mkdir(d)` and `self.mkdir(d)` share `mkdir`): a
/// sentence that quotes two unrelated snippets is not one change.
fn shares_a_name(a: &str, b: &str) -> bool {
    let names = |s: &str| -> Vec<String> {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| w.len() >= 2 && !w.chars().all(|c| c.is_ascii_digit()))
            .map(String::from)
            .collect()
    };
    let nb = names(b);
    names(a).iter().any(|n| n != "self" && nb.contains(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Vec<(String, String)> {
        vec![(
            "luigi/file.py".into(),
            "class LocalFileSystem:\n    def move(self, old, new):\n        if d and not os.path.exists(d):\n            self.fs.mkdir(d)\n        os.rename(old, new)\n".into(),
        )]
    }

    fn replace(path: &str, search: &str, replace: &str) -> Option<EditBlock> {
        Some(EditBlock {
            path: Some(path.into()),
            change: Change::Replace {
                search: search.into(),
                replace: replace.into(),
            },
        })
    }

    #[test]
    fn a_wrong_line_and_what_it_should_be_change_that_line() {
        let reply = "The wrong line is `self.fs.mkdir(d)` in the `LocalFileSystem` class. The correct line should be `self.mkdir(d)`.";
        assert_eq!(
            inline_change(reply, &files()),
            replace(
                "luigi/file.py",
                "            self.fs.mkdir(d)",
                "            self.mkdir(d)"
            )
        );
    }

    #[test]
    fn the_new_text_may_come_first() {
        let reply = "It should call `os.replace(old, new)` instead of `os.rename(old, new)`.";
        assert_eq!(
            inline_change(reply, &files()),
            replace(
                "luigi/file.py",
                "        os.rename(old, new)",
                "        os.replace(old, new)"
            )
        );
    }

    #[test]
    fn a_quote_of_the_line_alone_is_no_change() {
        let reply = "The line that is wrong is `self.fs.mkdir(d)`: it raises.";
        assert_eq!(inline_change(reply, &files()), None);
    }

    #[test]
    fn two_unrelated_snippets_are_no_change() {
        let reply = "The line `self.fs.mkdir(d)` is reached when `x == 1`.";
        assert_eq!(inline_change(reply, &files()), None);
    }

    #[test]
    fn a_snippet_on_several_lines_is_no_change() {
        let mut files = files();
        files[0]
            .1
            .push_str("    def copy(self):\n        self.fs.mkdir(d)\n");
        let reply = "`self.fs.mkdir(d)` should be `self.mkdir(d)`.";
        assert_eq!(inline_change(reply, &files), None);
    }
}
