//! A reply cut off at the token cap while it rewrote a function whole: the code block never
//! closes, so it holds no edit, and on a small machine the call behind it cost minutes. A
//! small model copies a long function line by line, so the part it wrote lines up with the
//! function as it is; when its last lines are found, once, in the function a shown file
//! defines under the same name, the rest of the function is taken from the file. The result
//! is an ordinary whole-definition block, and the tests judge it like any other attempt. Pure.

use super::{Change, EditBlock};
use crate::defs::{defined_name, indent_of};
use crate::outline;

/// Lines of the cut block's end that must match the function, at least and at most.
const ANCHOR_MIN: usize = 2;
const ANCHOR_MAX: usize = 6;

/// The whole-function block a reply cut off at the token cap was writing, completed from
/// the one function of `files` (`(path, text)`) with its name; `None` when the reply does
/// not end inside a fenced definition, no shown file or more than one defines it, its end
/// cannot be placed in the function once, or it changed nothing before the cut.
pub fn complete_cut_definition(reply: &str, files: &[(String, String)]) -> Option<EditBlock> {
    let written = open_block(reply)?;
    let first = written.iter().position(|l| !l.trim().is_empty())?;
    let def_line = written[first..]
        .iter()
        .find(|l| !l.trim_start().starts_with('@'))?;
    let name = defined_name(def_line)?;
    let mut found = files.iter().flat_map(|(path, text)| {
        outline::defined(text, &name)
            .into_iter()
            .map(move |d| (path, text, d))
    });
    let (path, text, def) = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let original = lines.get(def.first - 1..def.last)?;
    let at = anchor(&written, original)?;
    let shift = original
        .iter()
        .find(|l| defined_name(l).is_some())
        .map_or(0, |l| indent_of(l)) as isize
        - indent_of(def_line) as isize;
    let mut code: Vec<String> = written[first..]
        .iter()
        .map(|l| reindent(l, shift))
        .collect();
    if same_code(&code, &original[..=at]) {
        return None;
    }
    code.extend(original[at + 1..].iter().map(|l| l.to_string()));
    Some(EditBlock {
        path: Some(path.clone()),
        change: Change::Code {
            text: code.join("\n") + "\n",
        },
    })
}

/// The complete lines of the fenced block the reply ends inside (the last, cut line left
/// out), or `None` when every fence closes.
fn open_block(reply: &str) -> Option<Vec<&str>> {
    let mut lines: Vec<&str> = reply.lines().collect();
    if !reply.ends_with('\n') {
        lines.pop();
    }
    let mut open = None;
    for (i, l) in lines.iter().enumerate() {
        if l.trim_start().starts_with("```") {
            open = match open {
                None => Some(i),
                Some(_) => None,
            };
        }
    }
    let start = open?;
    Some(lines[start + 1..].to_vec())
}

/// The index in `original` of the line the written block's last line stands for: its last
/// non-blank lines (trimmed) found once, in order, among the function's non-blank lines,
/// taking more of them (up to [`ANCHOR_MAX`]) while the place is not unique.
fn anchor(written: &[&str], original: &[&str]) -> Option<usize> {
    let w: Vec<&str> = written
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    let o: Vec<(usize, &str)> = original
        .iter()
        .enumerate()
        .map(|(i, l)| (i, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    for k in ANCHOR_MIN..=ANCHOR_MAX.min(w.len()) {
        let tail = &w[w.len() - k..];
        let places: Vec<usize> = o
            .windows(k)
            .filter(|win| win.iter().map(|(_, l)| *l).eq(tail.iter().copied()))
            .map(|win| win[k - 1].0)
            .collect();
        match places.as_slice() {
            [one] => return Some(*one),
            [] => return None,
            _ => continue,
        }
    }
    None
}

/// Whether the written lines say what the function's lines say, blank lines and docstrings
/// aside (a small model leaves the docstring out, as it was shown).
fn same_code(written: &[String], original: &[&str]) -> bool {
    let (code, _) = super::split_docstrings(&(original.join("\n") + "\n"));
    let norm = |l: &str| l.trim().to_string();
    let a: Vec<String> = written
        .iter()
        .map(|l| norm(l))
        .filter(|l| !l.is_empty())
        .collect();
    let b: Vec<String> = code.lines().map(norm).filter(|l| !l.is_empty()).collect();
    a == b
}

fn reindent(line: &str, shift: isize) -> String {
    if line.trim().is_empty() {
        return String::new();
    }
    if shift >= 0 {
        format!("{}{line}", " ".repeat(shift as usize))
    } else {
        let drop = (-shift as usize).min(indent_of(line));
        line[drop..].to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "import re\n\n\nclass Dates:\n    def parse(self, text):\n        \"\"\"Reads a date.\"\"\"\n        text = text.strip()\n        if not text:\n            return None\n        formats = [\n            '%Y-%m-%d',\n            '%d.%m.%Y',\n            '%m/%d/%Y',\n        ]\n        for f in formats:\n            try:\n                return f\n            except ValueError:\n                pass\n        return None\n\n\ndef other():\n    return 1\n";

    fn files() -> Vec<(String, String)> {
        vec![("pkg/dates.py".to_string(), FILE.to_string())]
    }

    fn code(block: &EditBlock) -> &str {
        match &block.change {
            Change::Code { text } => text,
            Change::Replace { .. } => "",
        }
    }

    #[test]
    fn a_changed_function_cut_mid_list_is_completed_from_the_file() {
        let reply = "The strip is wrong.\n```python\ndef parse(self, text):\n    text = text.strip().lower()\n    if not text:\n        return None\n    formats = [\n        '%Y-%m-%d',\n        '%d.%m.%Y',\n        '%m/%d";
        let block = complete_cut_definition(reply, &files()).expect("completed");
        assert_eq!(block.path.as_deref(), Some("pkg/dates.py"));
        assert_eq!(
            code(&block),
            "    def parse(self, text):\n        text = text.strip().lower()\n        if not text:\n            return None\n        formats = [\n            '%Y-%m-%d',\n            '%d.%m.%Y',\n            '%m/%d/%Y',\n        ]\n        for f in formats:\n            try:\n                return f\n            except ValueError:\n                pass\n        return None\n"
        );
    }

    #[test]
    fn a_cut_copy_that_changed_nothing_yet_is_no_edit() {
        let reply = "```python\ndef parse(self, text):\n    text = text.strip()\n    if not text:\n        return None\n    formats = [\n        '%Y-%m-";
        assert_eq!(complete_cut_definition(reply, &files()), None);
    }

    #[test]
    fn a_closed_block_is_left_to_the_parser() {
        let reply = "```python\ndef parse(self, text):\n    return text\n```\n";
        assert_eq!(complete_cut_definition(reply, &files()), None);
    }

    #[test]
    fn an_end_that_is_not_in_the_function_is_no_edit() {
        let reply = "```python\ndef parse(self, text):\n    for x in range(3):\n        yield x\n    while True:\n        break\n    again";
        assert_eq!(complete_cut_definition(reply, &files()), None);
    }

    #[test]
    fn a_name_two_shown_files_define_is_no_edit() {
        let mut two = files();
        two.push(("pkg/other.py".to_string(), FILE.to_string()));
        let reply = "```python\ndef parse(self, text):\n    text = text.strip().lower()\n    if not text:\n        return None\n    formats = [\n        '%Y-%m-%d',\n        '%d.%m.%Y',\n        '%m";
        assert_eq!(complete_cut_definition(reply, &two), None);
    }

    #[test]
    fn an_end_found_twice_takes_more_lines_until_it_is_found_once() {
        let file = "def f(x):\n    a = 1\n    return a\n    if x:\n        a = 1\n        return a\n    return 0\n";
        let files = vec![("f.py".to_string(), file.to_string())];
        let reply = "```\ndef f(x):\n    a = 2\n    return a\n    if x:\n        a = 1\n        return a\n    ret";
        let block = complete_cut_definition(reply, &files).expect("completed");
        assert_eq!(
            code(&block),
            "def f(x):\n    a = 2\n    return a\n    if x:\n        a = 1\n        return a\n    return 0\n"
        );
    }
}
