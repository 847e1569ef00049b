//! What small models get wrong in file edits, forgiven only where the intent is unambiguous,
//! and what a whole-file write would silently delete. Pure functions over text.
//!
//! - `edit_file`'s `old` copied from a line-numbered listing (`   3 | code`) has the prefixes
//!   taken off; `old` whose only fault is the whitespace around it (a wrong indent on the
//!   first line, a missing or extra newline) matches when its trimmed text occurs exactly once.
//! - `write_file` over an existing file must not drop the file's top-level definitions (a
//!   small model "fixing" one function by writing the file anew deletes the others, and the
//!   tests that import them fail).

/// A unique place for `old` in `text` after forgiving copy mistakes: the text to replace and
/// its replacement (`new` treated the same way). `None` when nothing unambiguous is found.
pub fn forgiving_match(text: &str, old: &str, new: &str) -> Option<(String, String)> {
    if let (Some(old_plain), new_plain) = (strip_line_numbers(old), strip_line_numbers(new)) {
        let new_plain = new_plain.unwrap_or_else(|| new.to_string());
        if text.matches(old_plain.as_str()).count() == 1 {
            return Some((old_plain, new_plain));
        }
        return trimmed_match(text, &old_plain, &new_plain);
    }
    trimmed_match(text, old, new)
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

fn definitions(path: &str, text: &str) -> Vec<String> {
    let ext = path.rsplit('.').next().unwrap_or("");
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
        _ => return Vec::new(),
    };
    let mut names = Vec::new();
    for line in text.lines() {
        // Top level only: an indented definition is a method or a nested helper.
        if line.starts_with(char::is_whitespace) {
            continue;
        }
        let found = keywords
            .iter()
            .find_map(|k| line.strip_prefix(k))
            .or_else(|| {
                // `name() {` in shell.
                (ext == "sh" || ext == "bash")
                    .then(|| line.split_once("()").map(|(n, _)| n))
                    .flatten()
            });
        if let Some(rest) = found {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

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
