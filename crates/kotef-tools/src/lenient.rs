//! What small models get wrong in file edits, forgiven only where the intent is unambiguous,
//! and what a whole-file write would silently delete. Pure functions over text.
//!
//! - `edit_file`'s `old` copied from a line-numbered listing (`   3 | code`) has the prefixes
//!   taken off; `old` whose only fault is the whitespace around it (a wrong indent on the
//!   first line, a missing or extra newline) matches when its trimmed text occurs exactly once;
//!   `old` whose lines are the file's but with other blank lines between them (one blank line
//!   where the file has PEP 8's two) or trailing spaces matches when those lines occur once;
//!   `old` copied with every line indented by the same amount too little or too much (a
//!   method's lines copied flush left) matches when its lines occur once at one indent, and
//!   `new` is re-indented by the same amount.
//! - a write or edit of an existing file keeps the file's top-level definitions (a small model
//!   adding one function by writing the file anew deletes the others, and the tests that
//!   import them fail): the dropped ones are put back from the old text.

/// A unique place for `old` in `text` after forgiving copy mistakes: the text to replace and
/// its replacement (`new` treated the same way). `None` when nothing unambiguous is found.
pub fn forgiving_match(text: &str, old: &str, new: &str) -> Option<(String, String)> {
    if let (Some(old_plain), new_plain) = (strip_line_numbers(old), strip_line_numbers(new)) {
        let new_plain = new_plain.unwrap_or_else(|| new.to_string());
        if text.matches(old_plain.as_str()).count() == 1 {
            return Some((old_plain, new_plain));
        }
        return trimmed_match(text, &old_plain, &new_plain)
            .or_else(|| blank_line_match(text, &old_plain, &new_plain));
    }
    trimmed_match(text, old, new)
        .or_else(|| blank_line_match(text, old, new))
        .or_else(|| reindented_match(text, old, new))
}

/// How `old`'s lines differ from the file's: the file's have `Add` more indent, or `Drop`
/// less.
#[derive(Debug, Clone, PartialEq)]
enum Shift {
    Add(String),
    Drop(String),
}

impl Shift {
    /// The shift that turns `old_line` into `file_line`, when they differ by indent alone.
    fn between(file_line: &str, old_line: &str) -> Option<Self> {
        let (f, o) = (file_line.trim_start(), old_line.trim_start());
        if f != o || f.is_empty() {
            return None;
        }
        let fi = &file_line[..file_line.len() - f.len()];
        let oi = &old_line[..old_line.len() - o.len()];
        if let Some(add) = fi.strip_suffix(oi) {
            Some(Shift::Add(add.to_string()))
        } else {
            oi.strip_suffix(fi).map(|d| Shift::Drop(d.to_string()))
        }
    }

    /// `line` shifted (a blank line stays blank; a line without the indent to drop is kept).
    fn apply(&self, line: &str) -> String {
        if line.trim().is_empty() {
            return line.trim_end().to_string();
        }
        match self {
            Shift::Add(a) => format!("{a}{line}"),
            Shift::Drop(d) => line.strip_prefix(d.as_str()).unwrap_or(line).to_string(),
        }
    }
}

/// `old`'s lines found exactly once in `text` with one indent shift for all of them (blank
/// lines as blank): the file's lines, and `new` shifted the same way.
fn reindented_match(text: &str, old: &str, new: &str) -> Option<(String, String)> {
    let wanted: Vec<&str> = old.trim_matches('\n').lines().map(str::trim_end).collect();
    if wanted.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    let first = wanted.iter().position(|l| !l.trim().is_empty())?;
    let lines: Vec<&str> = text.lines().collect();
    let mut found: Option<(usize, Shift)> = None;
    for start in 0..lines.len().saturating_sub(wanted.len() - 1) {
        let window = &lines[start..start + wanted.len()];
        let Some(shift) = Shift::between(window[first].trim_end(), wanted[first]) else {
            continue;
        };
        let same = window
            .iter()
            .zip(&wanted)
            .all(|(have, want)| have.trim_end() == shift.apply(want));
        if same {
            if found.is_some() {
                return None;
            }
            found = Some((start, shift));
        }
    }
    let (start, shift) = found?;
    let old_text = lines[start..start + wanted.len()].join("\n");
    let new_text: Vec<String> = new
        .trim_matches('\n')
        .lines()
        .map(|l| shift.apply(l))
        .collect();
    Some((old_text, new_text.join("\n")))
}

/// `old`'s non-blank lines (trailing spaces ignored) found exactly once as consecutive
/// non-blank lines of `text`, whatever blank lines lie between them: the file's text from the
/// first of those lines to the end of the last, and `new` without its surrounding newlines.
fn blank_line_match(text: &str, old: &str, new: &str) -> Option<(String, String)> {
    let wanted: Vec<&str> = old
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    if wanted.len() < 2 {
        return None;
    }
    // (byte offset of the line's start, the line without its newline), non-blank lines only.
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if !body.trim().is_empty() {
            lines.push((at, body));
        }
        at += line.len();
    }
    let mut found = lines.windows(wanted.len()).filter(|w| {
        w.iter()
            .zip(&wanted)
            .all(|((_, have), want)| have.trim_end() == *want)
    });
    let first = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let (start, _) = first[0];
    let (last_at, last) = first[first.len() - 1];
    Some((
        text[start..last_at + last.len()].to_string(),
        new.trim_matches(['\n', '\r']).to_string(),
    ))
}

/// `old` and `new` trimmed of surrounding whitespace, when trimmed `old` occurs exactly once.
fn trimmed_match(text: &str, old: &str, new: &str) -> Option<(String, String)> {
    let t = old.trim();
    (!t.is_empty() && t != old && text.matches(t).count() == 1)
        .then(|| (t.to_string(), new.trim().to_string()))
}

/// The text without listing prefixes (`  12 | `), when every non-blank line has one.
fn strip_line_numbers(s: &str) -> Option<String> {
    let mut out = Vec::new();
    let mut any = false;
    for line in s.lines() {
        if line.trim().is_empty() {
            out.push(line.to_string());
            continue;
        }
        let rest = line.trim_start();
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let after = &rest[digits..];
        let code = after
            .strip_prefix(" | ")
            .or_else(|| after.strip_prefix(" |"))
            .filter(|_| digits > 0)?;
        out.push(code.to_string());
        any = true;
    }
    any.then(|| out.join("\n") + if s.ends_with('\n') { "\n" } else { "" })
}

/// Top-level definitions (`def`/`class` in Python, `function`/`class` in JavaScript, `fn` in
/// Rust, functions in shell) that `old` has and `new` lacks, in order.
pub fn dropped_definitions(path: &str, old: &str, new: &str) -> Vec<String> {
    let kept = definitions(path, new);
    definitions(path, old)
        .into_iter()
        .filter(|d| !kept.contains(d))
        .collect()
}

/// `new` with every top-level definition it drops from `old` put back (each one's source
/// block from `old`, appended at the end), and the names put back. A small model that writes
/// only the function it adds means to add it, not to delete its neighbours.
pub fn keep_definitions(path: &str, old: &str, new: &str) -> (String, Vec<String>) {
    let dropped = dropped_definitions(path, old, new);
    let blocks: Vec<String> = dropped
        .iter()
        .filter_map(|name| definition_block(path, old, name))
        .collect();
    if blocks.is_empty() {
        return (new.to_string(), Vec::new());
    }
    let gap = if path.ends_with(".py") {
        "\n\n\n"
    } else {
        "\n\n"
    };
    let mut merged = new.trim_end().to_string();
    for b in &blocks {
        if !merged.is_empty() {
            merged.push_str(gap);
        }
        merged.push_str(b);
    }
    merged.push('\n');
    (merged, dropped)
}

/// The source of the top-level definition `name` in `text`: its decorators, its first line and
/// every following line that is blank, indented or closes it (`}`), without trailing blanks.
fn definition_block(path: &str, text: &str, name: &str) -> Option<String> {
    let ext = extension(path);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| defined_name(ext, l).as_deref() == Some(name))?;
    let mut first = at;
    while first > 0 && lines[first - 1].starts_with('@') {
        first -= 1;
    }
    let mut end = at + 1;
    while end < lines.len() {
        let l = lines[end];
        if l.trim().is_empty() || l.starts_with(char::is_whitespace) {
            end += 1;
        } else if l.starts_with('}') {
            end += 1;
            break;
        } else {
            break;
        }
    }
    while end > at + 1 && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    Some(lines[first..end].join("\n"))
}

fn extension(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or("")
}

/// The name a top-level line defines, if it is a definition in the file's language.
fn defined_name(ext: &str, line: &str) -> Option<String> {
    let keywords: &[&str] = match ext {
        "py" => &["def ", "async def ", "class "],
        "js" | "mjs" | "cjs" | "ts" => &[
            "function ",
            "async function ",
            "export function ",
            "export async function ",
            "class ",
            "export class ",
        ],
        "rs" => &["fn ", "pub fn ", "pub(crate) fn ", "struct ", "pub struct "],
        "sh" | "bash" => &["function "],
        _ => return None,
    };
    // Top level only: an indented definition is a method or a nested helper.
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = keywords
        .iter()
        .find_map(|k| line.strip_prefix(k))
        .or_else(|| {
            // `name() {` in shell.
            matches!(ext, "sh" | "bash")
                .then(|| line.split_once("()").map(|(n, _)| n))
                .flatten()
        })?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

fn definitions(path: &str, text: &str) -> Vec<String> {
    let ext = extension(path);
    let mut names: Vec<String> = Vec::new();
    for name in text.lines().filter_map(|l| defined_name(ext, l)) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_copied_flush_left_match_at_the_files_indent_and_the_new_ones_follow() {
        let text =
            "def parse(src):\n    if src[-1] != \"\\n\":\n        src += \"\\n\"\n    return src\n";
        let old = "if src[-1] != \"\\n\":\n    src += \"\\n\"";
        let new = "if src and src[-1] != \"\\n\":\n    src += \"\\n\"";
        let (o, n) = forgiving_match(text, old, new).expect("a match");
        assert_eq!(o, "    if src[-1] != \"\\n\":\n        src += \"\\n\"");
        assert_eq!(
            n,
            "    if src and src[-1] != \"\\n\":\n        src += \"\\n\""
        );
    }

    #[test]
    fn lines_copied_with_too_much_indent_match_too() {
        let text = "x = 1\ny = 2\n";
        let (o, n) =
            forgiving_match(text, "    x = 1\n    y = 2", "    x = 3\n    y = 2").expect("a match");
        assert_eq!((o.as_str(), n.as_str()), ("x = 1\ny = 2", "x = 3\ny = 2"));
    }

    #[test]
    fn lines_found_at_two_indents_are_ambiguous() {
        let text = "def a():\n    x = 1\n    y = 2\ndef b():\n        x = 1\n        y = 2\n";
        assert!(reindented_match(text, "x = 1\ny = 2", "x = 3\ny = 2").is_none());
    }

    const PAGER: &str = "def page(items, number, size):\n    start = (number - 1) * size\n    return items[start:start + size - 1]\n";

    #[test]
    fn old_copied_with_line_numbers_matches_without_them() {
        let m = forgiving_match(
            PAGER,
            "   3 |     return items[start:start + size - 1]",
            "   3 |     return items[start:start + size]",
        );
        assert_eq!(
            m,
            Some((
                "    return items[start:start + size - 1]".into(),
                "    return items[start:start + size]".into()
            ))
        );
    }

    #[test]
    fn old_with_a_wrong_indent_matches_its_trimmed_text() {
        let m = forgiving_match(
            PAGER,
            "return items[start:start + size - 1]\n",
            "return items[start:start + size]\n",
        );
        assert_eq!(
            m,
            Some((
                "return items[start:start + size - 1]".into(),
                "return items[start:start + size]".into()
            ))
        );
    }

    #[test]
    fn an_ambiguous_trimmed_match_is_not_forgiven() {
        assert_eq!(forgiving_match("x = 1\nx = 1\n", " x = 1", " x = 2"), None);
    }

    #[test]
    fn old_with_one_blank_line_where_the_file_has_two_matches_its_lines() {
        let file = "import urllib.request\n\nURL = \"u\"\n\n\ndef fetch():\n    return 1\n";
        let m = forgiving_match(
            file,
            "URL = \"u\"\n\ndef fetch():\n    return 1",
            "URL = \"u\"\n\ndef fetch():\n    return 2\n",
        );
        assert_eq!(
            m,
            Some((
                "URL = \"u\"\n\n\ndef fetch():\n    return 1".into(),
                "URL = \"u\"\n\ndef fetch():\n    return 2".into()
            ))
        );
    }

    #[test]
    fn lines_found_twice_apart_from_blank_lines_are_not_forgiven() {
        let file = "a = 1\nb = 2\n\na = 1\n\nb = 2\n";
        assert_eq!(forgiving_match(file, "a = 1\n\n\nb = 2", "x"), None);
    }

    #[test]
    fn invented_text_is_not_forgiven() {
        assert_eq!(forgiving_match(PAGER, "return items[:size]", "x"), None);
    }

    #[test]
    fn a_python_rewrite_that_loses_a_function_names_it() {
        let old = "def mean(xs):\n    return sum(xs) / len(xs)\n\nclass Stats:\n    def helper(self):\n        pass\n";
        let new =
            "def median(xs):\n    return sorted(xs)[len(xs) // 2]\n\nclass Stats:\n    pass\n";
        assert_eq!(dropped_definitions("stats.py", old, new), ["mean"]);
    }

    #[test]
    fn a_rewrite_that_keeps_every_definition_drops_nothing() {
        let old = "function clamp(x, lo, hi) { return x; }\nmodule.exports = { clamp };\n";
        let new = "function clamp(x, lo, hi) {\n  return Math.min(Math.max(x, lo), hi);\n}\nmodule.exports = { clamp };\n";
        assert_eq!(
            dropped_definitions("clamp.js", old, new),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_write_of_only_the_new_function_keeps_the_old_ones() {
        let old =
            "import math\n\n\n@cached\ndef mean(xs):\n    return sum(xs) / len(xs)\n\n\nX = 1\n";
        let new = "def median(xs):\n    return sorted(xs)[len(xs) // 2]\n";
        assert_eq!(
            keep_definitions("stats.py", old, new),
            (
                "def median(xs):\n    return sorted(xs)[len(xs) // 2]\n\n\n@cached\ndef mean(xs):\n    return sum(xs) / len(xs)\n".into(),
                vec!["mean".to_string()]
            )
        );
    }

    #[test]
    fn a_js_function_is_kept_with_its_closing_brace() {
        let old = "function lo(x) {\n  return x;\n}\nfunction hi(x) {\n  return x;\n}\n";
        let (merged, kept) = keep_definitions("m.js", old, "function hi(x) {\n  return 1;\n}\n");
        assert_eq!(
            (merged.as_str(), kept),
            (
                "function hi(x) {\n  return 1;\n}\n\nfunction lo(x) {\n  return x;\n}\n",
                vec!["lo".to_string()]
            )
        );
    }

    #[test]
    fn shell_and_rust_definitions_are_seen() {
        assert_eq!(
            dropped_definitions("lib.sh", "count() {\n  wc -l\n}\n", "echo hi\n"),
            ["count"]
        );
        assert_eq!(
            dropped_definitions("src/lib.rs", "pub fn sum_to(n: u32) -> u32 { 0 }\n", ""),
            ["sum_to"]
        );
    }
}
