//! Code edits a model writes as plain text, so code never travels inside a JSON string: a
//! small model cannot escape a docstring or a regex in JSON, but it copies code into a fenced
//! block well. Two forms are read, leniently:
//!
//! - search/replace blocks (the form aider made common), with the file's path on the line
//!   before the opening marker:
//!
//!   ```text
//!   gcd.py
//!   <<<<<<< SEARCH
//!       return gcd(a, b % a)
//!   =======
//!       return gcd(b, a % b)
//!   >>>>>>> REPLACE
//!   ```
//!
//! - a fenced code block holding whole definitions (one function, a class) or a whole file:
//!   each definition replaces the one of the same name in the file; a block that names a file
//!   that does not exist yet creates it.
//!
//! Parsing is pure; a block cut off before its closing marker is dropped, the complete ones
//! before it kept (a reply cut off at the token cap loses only its unfinished part). Applying
//! goes through [`crate::file_tools`], so the lenient matching, the closest-lines hint and the
//! kept definitions of `edit_file` and `write_file` hold here too.

use crate::file_tools::{edit_file, write_file, Written};
use crate::workdir::WorkDir;
use crate::ToolError;

mod classes;
mod cut;
mod definitions;
mod inline;
mod place;
use crate::outline;
pub use cut::complete_cut_definition;
pub use definitions::split_docstrings;
use definitions::*;
pub use inline::inline_change;
pub use place::replace_definitions;

/// One edit read from a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditBlock {
    /// The file the model named, if it named one.
    pub path: Option<String>,
    pub change: Change,
}

/// What an [`EditBlock`] does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Replace `search` (found once, leniently) by `replace`; an empty `search` creates a file.
    Replace { search: String, replace: String },
    /// Whole definitions, or a whole file.
    Code { text: String },
}

fn marker(line: &str, ch: char, word: &str) -> bool {
    let t = line.trim();
    let n = t.chars().take_while(|c| *c == ch).count();
    (5..=9).contains(&n) && t[n..].trim().eq_ignore_ascii_case(word)
}

/// A bare word on a line of its own, as small models write the markers (`SEARCH`,
/// `**REPLACE:**`, `### SEARCH`), or the marker itself.
fn word_line(line: &str, ch: char, word: &str) -> bool {
    let t = line
        .trim()
        .trim_matches(|c: char| matches!(c, '*' | '#' | ':' | '`' | ' ' | '<' | '>'));
    marker(line, ch, word) || t.eq_ignore_ascii_case(word)
}

/// The body of the fenced block opening at or after `from` (blank lines skipped): its lines
/// and the index after its closing fence; `None` when no fence opens there or it never closes.
fn fenced_at<'a>(lines: &[&'a str], from: usize) -> Option<(Vec<&'a str>, usize)> {
    let open = (from..lines.len()).find(|&i| !lines[i].trim().is_empty())?;
    if !is_fence(lines[open]) {
        return None;
    }
    let close = (open + 1..lines.len()).find(|&i| is_fence(lines[i]))?;
    Some((lines[open + 1..close].to_vec(), close + 1))
}

/// A search/replace pair written as two fenced blocks, each after its word:
/// `SEARCH` then a fence, `REPLACE` then a fence. `(search, replace, next line)`.
fn fenced_pair<'a>(lines: &[&'a str], at: usize) -> Option<(Vec<&'a str>, Vec<&'a str>, usize)> {
    let (search, after) = fenced_at(lines, at + 1)?;
    let word = (after..lines.len()).find(|&i| !lines[i].trim().is_empty())?;
    if !(word_line(lines[word], '>', "REPLACE") || marker(lines[word], '=', "")) {
        return None;
    }
    let (replace, next) = fenced_at(lines, word + 1)?;
    Some((search, replace, next))
}

fn is_fence(line: &str) -> bool {
    line.trim_start().starts_with("```")
}

/// A path written on a line of its own (`gcd.py`, `` `src/lib.rs` ``, `**a.py**`, `File: a.py`,
/// `# a.py`), or `None` when the line is not one.
pub fn path_on_line(line: &str) -> Option<String> {
    let mut t = line.trim();
    for prefix in ["File:", "file:", "Path:", "path:", "#", "//"] {
        if let Some(rest) = t.strip_prefix(prefix) {
            t = rest.trim();
        }
    }
    let t = t.trim_matches(|c| matches!(c, '`' | '*' | '"' | '\'' | ':' | ' '));
    let t = t.strip_prefix("./").unwrap_or(t);
    let plausible = !t.is_empty()
        && t.len() <= 200
        && !t.contains(char::is_whitespace)
        && t.contains('.')
        && !t.starts_with('.')
        && !t.ends_with('.')
        && t.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'));
    plausible.then(|| t.to_string())
}

/// The path a fence's info string names (```` ```python gcd.py ````, ```` ```gcd.py ````,
/// ```` ```python path=gcd.py ````).
fn fence_path(fence: &str) -> Option<String> {
    let info = fence.trim_start().trim_start_matches('`');
    info.split_whitespace()
        .map(|w| w.trim_start_matches("path=").trim_start_matches("file="))
        .find_map(path_on_line)
}

/// The edits in `reply`, in order. Empty when it holds none.
pub fn parse_edit_blocks(reply: &str) -> Vec<EditBlock> {
    parse_edit_blocks_ignoring(reply, &[])
}

/// A section's lines as the code they stand for: the lines of `ignore` (the prompt's own
/// placeholder text, which a small model copies back) left out, the blank lines around it
/// trimmed, and a fence around all of it (a model fencing the code inside the markers) taken
/// off.
fn clean_section<'a>(lines: &[&'a str], ignore: &[&str]) -> Vec<&'a str> {
    let kept: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| {
            !ignore
                .iter()
                .any(|i| !i.trim().is_empty() && l.trim() == i.trim())
        })
        .collect();
    let first = kept.iter().position(|l| !l.trim().is_empty());
    let last = kept.iter().rposition(|l| !l.trim().is_empty());
    let (Some(mut a), Some(mut b)) = (first, last) else {
        return Vec::new();
    };
    if b > a && is_fence(kept[a]) && is_fence(kept[b]) {
        a += 1;
        b -= 1;
    }
    kept[a..=b].to_vec()
}

/// As [`parse_edit_blocks`], leaving out of every section the lines of `ignore`.
pub fn parse_edit_blocks_ignoring(reply: &str, ignore: &[&str]) -> Vec<EditBlock> {
    let lines: Vec<&str> = reply.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    // The nearest path seen on a line of its own (or a fence's info string).
    let mut last_path: Option<String> = None;
    let mut fence_open: Option<usize> = None;
    // The line that closed the last fenced code block read, if the last block read is it.
    let mut last_fence: Option<usize> = None;
    while i < lines.len() {
        let line = lines[i];
        if word_line(line, '<', "SEARCH") {
            if let Some((search, replace, next)) = fenced_pair(&lines, i) {
                out.push(EditBlock {
                    path: last_path.clone(),
                    change: Change::Replace {
                        search: joined(&search),
                        replace: joined(&replace),
                    },
                });
                last_fence = None;
                i = next;
                continue;
            }
            let mut j = i + 1;
            let mut search = Vec::new();
            while j < lines.len() && !marker(lines[j], '=', "") {
                search.push(lines[j]);
                j += 1;
            }
            let mut k = j + 1;
            let mut replace = Vec::new();
            while k < lines.len() && !word_line(lines[k], '>', "REPLACE") {
                replace.push(lines[k]);
                k += 1;
            }
            if k >= lines.len() {
                break; // cut off: the complete blocks before it stand
            }
            out.push(EditBlock {
                path: last_path.clone(),
                change: Change::Replace {
                    search: joined(&clean_section(&search, ignore)),
                    replace: joined(&clean_section(&replace, ignore)),
                },
            });
            last_fence = None;
            i = k + 1;
            continue;
        }
        if is_fence(line) {
            match fence_open.take() {
                None => {
                    fence_open = Some(i);
                    if let Some(p) = fence_path(line) {
                        last_path = Some(p);
                    }
                }
                Some(start) => {
                    let body = &lines[start + 1..i];
                    let has_markers = body.iter().any(|l| word_line(l, '<', "SEARCH"));
                    let code: Vec<&str> = body
                        .iter()
                        .copied()
                        .filter(|l| !l.trim().is_empty())
                        .collect();
                    // A fence around nothing but a path names the file of what follows.
                    if let [only] = code.as_slice() {
                        if let Some(p) = path_on_line(only) {
                            last_path = Some(p);
                            i += 1;
                            continue;
                        }
                    }
                    if !has_markers && !code.is_empty() {
                        let block = EditBlock {
                            path: last_path.clone(),
                            change: Change::Code { text: joined(body) },
                        };
                        match (last_fence.take(), out.pop()) {
                            (Some(closed), Some(before)) if start <= closed + PAIR_GAP => {
                                out.extend(as_pair(before, block));
                            }
                            (_, before) => out.extend(before.into_iter().chain([block])),
                        }
                        last_fence = Some(i);
                    }
                }
            }
            i += 1;
            continue;
        }
        let before_marker = lines
            .get(i + 1)
            .is_some_and(|n| word_line(n, '<', "SEARCH"));
        if fence_open.is_none() || before_marker {
            if let Some(p) = path_on_line(line) {
                last_path = Some(p);
            }
        }
        i += 1;
    }
    // Search/replace blocks inside a fence were taken already; the fence itself is not code.
    out
}

/// Lines from the close of one fenced block to the open of the next for the two to be read
/// as a pair: "changed from: ```a``` to: ```b```" has one line of words between them.
const PAIR_GAP: usize = 3;

/// Two fenced blocks in a row, neither defining a function or class, with at most a line or
/// two of words between them ("It should be changed from … to …"), read as the lines to find
/// and the lines to put instead; any other two stay two blocks.
fn as_pair(before: EditBlock, block: EditBlock) -> Vec<EditBlock> {
    let plain = |b: &EditBlock| match &b.change {
        Change::Code { text } => {
            let lines: Vec<&str> = text.lines().collect();
            definitions(&lines).is_empty().then(|| text.clone())
        }
        Change::Replace { .. } => None,
    };
    match (plain(&before), plain(&block)) {
        (Some(search), Some(replace)) if search.trim() != replace.trim() => vec![EditBlock {
            path: block.path.or(before.path),
            change: Change::Replace { search, replace },
        }],
        _ => vec![before, block],
    }
}

fn joined(lines: &[&str]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

/// What applying one block did.
#[derive(Debug)]
pub struct Applied {
    pub block: usize,
    pub result: Result<Written, ToolError>,
}

/// The file a block is for: the path it names (matched against `known` by its last
/// components when the model shortened it), else the only file of `known` whose text holds
/// the search text or one of the block's definitions.
fn target(
    block: &EditBlock,
    known: &[(String, String)],
    protected: &[String],
    wd: &WorkDir,
) -> Result<String, ToolError> {
    if let Some(p) = &block.path {
        if let Some((k, _)) = known
            .iter()
            .find(|(k, _)| k == p || k.ends_with(&format!("/{p}")))
        {
            return Ok(k.clone());
        }
        if wd.resolve(p, true).is_ok() {
            return Ok(p.clone());
        }
    }
    let names = block_names(block);
    let holds = |text: &str| match &block.change {
        Change::Replace { search, .. } => {
            let s = search.trim();
            !s.is_empty() && (text.contains(s) || text.contains(search.as_str()))
        }
        Change::Code { text: code } if names.is_empty() => quotes(text, code),
        Change::Code { .. } => names.iter().any(|n| outline::defines(text, n)),
    };
    let editable: Vec<&(String, String)> = known
        .iter()
        .filter(|(k, _)| !protected.contains(k))
        .collect();
    let found: Vec<&String> = editable
        .iter()
        .filter(|(_, t)| holds(t))
        .map(|(k, _)| k)
        .collect();
    if let [one] = found.as_slice() {
        return Ok((*one).clone());
    }
    // Beyond the files shown: the repository's files that define the block's function or
    // class (or hold its SEARCH text); a unique one wins.
    let in_tree: Vec<String> = if found.is_empty() {
        match &block.change {
            Change::Code { .. } => crate::locate::files_defining(wd, &names, CANDIDATES + 1),
            Change::Replace { search, .. } => {
                crate::locate::files_holding(wd, search, CANDIDATES + 1)
            }
        }
        .into_iter()
        .filter(|p| !protected.contains(p))
        .collect()
    } else {
        Vec::new()
    };
    match (found.as_slice(), in_tree.as_slice(), editable.as_slice()) {
        ([], [one], _) => Ok(one.clone()),
        ([], [], [(only, _)]) => Ok(only.clone()),
        _ => Err(ToolError::Block(unnamed_file_error(
            &names,
            &found.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            &in_tree,
            &editable.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(),
        ))),
    }
}

/// Candidate files a refusal lists at most.
const CANDIDATES: usize = 8;

/// The names a block defines (a code block's functions and classes; none for search/replace).
fn block_names(block: &EditBlock) -> Vec<String> {
    match &block.change {
        Change::Code { text } => {
            let lines: Vec<&str> = text.lines().collect();
            definitions(&lines).into_iter().map(|d| d.name).collect()
        }
        Change::Replace { .. } => Vec::new(),
    }
}

/// Why a block's file could not be told, with the files it could be for: those that define
/// (or hold) what it changes, else the files shown.
fn unnamed_file_error(
    names: &[String],
    shown_matches: &[String],
    tree_matches: &[String],
    shown: &[String],
) -> String {
    let list = |files: &[String]| {
        let mut l: Vec<String> = files
            .iter()
            .take(CANDIDATES)
            .map(|f| format!("`{f}`"))
            .collect();
        if files.len() > CANDIDATES {
            l.push("…".into());
        }
        l.join(", ")
    };
    let what = if names.is_empty() {
        "its SEARCH text".to_string()
    } else {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let candidates: Vec<String> = shown_matches.iter().chain(tree_matches).cloned().collect();
    if !candidates.is_empty() {
        return format!(
            "name the file on the line before the block: {what} is in {}",
            list(&candidates)
        );
    }
    if shown.is_empty() {
        return format!(
            "name the file on the line before the block: no file of the repository holds {what}"
        );
    }
    format!(
        "name the file on the line before the block: no file holds {what}; the files shown are {}",
        list(shown)
    )
}

/// Applies `blocks` in order to the work tree; `known` are the files the model was shown
/// (path, text), used to find the file of a block that names none; a block for one of the
/// `protected` files (the tests) is refused.
pub fn apply_edit_blocks(
    wd: &WorkDir,
    blocks: &[EditBlock],
    known: &[(String, String)],
    protected: &[String],
) -> Vec<Applied> {
    blocks
        .iter()
        .enumerate()
        .map(|(i, b)| Applied {
            block: i,
            result: apply_one(wd, b, known, protected),
        })
        .collect()
}

fn apply_one(
    wd: &WorkDir,
    block: &EditBlock,
    known: &[(String, String)],
    protected: &[String],
) -> Result<Written, ToolError> {
    let path = target(block, known, protected, wd)?;
    if protected.contains(&path) {
        return Err(ToolError::Block(format!(
            "`{path}` is a test: it says what the code must do, so it is not changed; change the code it tests"
        )));
    }
    let current = || -> Result<Option<String>, ToolError> {
        let tree = wd.tree();
        match tree.kind(&path) {
            Ok(crate::Kind::Missing) => Ok(None),
            _ => tree
                .read_text(&path, crate::file_tools::WRITE_LIMIT_BYTES as u64)
                .map(Some)
                .map_err(ToolError::from),
        }
    };
    match &block.change {
        Change::Replace { search, replace } if search.trim().is_empty() => match current()? {
            None => write_file(wd, &path, replace),
            Some(_) => Err(ToolError::Block(format!(
                "the SEARCH part for `{path}` is empty: copy the lines to change from the file"
            ))),
        },
        Change::Replace { search, replace } => edit_file(wd, &path, search, replace),
        Change::Code { text } => match current()? {
            None => write_file(wd, &path, text),
            Some(file) => match replace_definitions(&file, text) {
                Some(updated) => write_file(wd, &path, &updated),
                None if looks_like_whole_file(&file, text) => write_file(wd, &path, text),
                None if quotes(&file, text) => Err(ToolError::Block(format!(
                    "the block copies lines of `{path}` as they are, so nothing changed: write the lines as they must be, in a SEARCH/REPLACE block"
                ))),
                None => Err(ToolError::Block(format!(
                    "the code block names no function or class of `{path}`: write a SEARCH/REPLACE block instead"
                ))),
            },
        },
    }
}

/// Whether `code` (a block without a definition) is lines of `file` as they are: a quote of
/// the wrong line, not a change to it.
fn quotes(file: &str, code: &str) -> bool {
    let lines: Vec<&str> = code
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let file: Vec<&str> = file.lines().map(str::trim).collect();
    !lines.is_empty() && file.windows(lines.len()).any(|w| w == lines.as_slice())
}

/// Whether `code` reads as a new version of the whole of `file`: it shares the file's first
/// non-blank line or most of its lines.
fn looks_like_whole_file(file: &str, code: &str) -> bool {
    let first = |s: &str| {
        s.lines()
            .find(|l| !l.trim().is_empty())
            .map(str::trim)
            .map(String::from)
    };
    if first(file).is_some() && first(file) == first(code) {
        return true;
    }
    let lines: Vec<&str> = file.lines().filter(|l| !l.trim().is_empty()).collect();
    let shared = lines.iter().filter(|l| code.contains(l.trim())).count();
    !lines.is_empty() && shared * 2 >= lines.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replace(path: Option<&str>, search: &str, replace: &str) -> EditBlock {
        EditBlock {
            path: path.map(String::from),
            change: Change::Replace {
                search: search.into(),
                replace: replace.into(),
            },
        }
    }

    #[test]
    fn a_search_replace_block_is_read_with_the_path_before_it() {
        let reply = "The bug is the order.\n\ngcd.py\n```python\n<<<<<<< SEARCH\n    return gcd(a, b % a)\n=======\n    return gcd(b, a % b)\n>>>>>>> REPLACE\n```\n";
        assert_eq!(
            parse_edit_blocks(reply),
            vec![replace(
                Some("gcd.py"),
                "    return gcd(a, b % a)\n",
                "    return gcd(b, a % b)\n"
            )]
        );
    }

    #[test]
    fn a_block_cut_off_before_its_end_is_dropped_and_the_complete_ones_kept() {
        let reply = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\na.py\n<<<<<<< SEARCH\ny = 1\n=======\ny = 2\n\n\n\n\n";
        assert_eq!(
            parse_edit_blocks(reply),
            vec![replace(Some("a.py"), "x = 1\n", "x = 2\n")]
        );
    }

    #[test]
    fn a_fenced_function_is_a_code_block_named_by_its_fence() {
        let reply = "```python gcd.py\ndef gcd(a, b):\n    return a\n```\n";
        assert_eq!(
            parse_edit_blocks(reply),
            vec![EditBlock {
                path: Some("gcd.py".into()),
                change: Change::Code {
                    text: "def gcd(a, b):\n    return a\n".into()
                }
            }]
        );
    }

    #[test]
    fn search_and_replace_may_come_as_two_fenced_blocks_after_their_words() {
        let reply = "The loop is wrong.\n\nSEARCH\n```\nfor i in reversed(range(n)):\n```\n\nREPLACE\n```\nfor i in range(1, n):\n```\n";
        assert_eq!(
            parse_edit_blocks(reply),
            vec![replace(
                None,
                "for i in reversed(range(n)):\n",
                "for i in range(1, n):\n"
            )]
        );
    }

    #[test]
    fn a_bare_search_word_opens_a_block_that_the_markers_close() {
        let reply = "a.py\nSEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n";
        assert_eq!(
            parse_edit_blocks(reply),
            vec![replace(Some("a.py"), "x = 1\n", "x = 2\n")]
        );
    }

    #[test]
    fn copied_placeholders_and_fences_inside_the_markers_are_left_out() {
        let reply = "the path of the file\n```\na.py\n```\n\n<<<<<<< SEARCH\nthe lines to change\n```\nx = 1\n```\n\n=======\nthe new lines\n```\nx = 2\n```\n>>>>>>> REPLACE\n";
        assert_eq!(
            parse_edit_blocks_ignoring(
                reply,
                &[
                    "the path of the file",
                    "the lines to change",
                    "the new lines"
                ]
            ),
            vec![replace(Some("a.py"), "x = 1\n", "x = 2\n")]
        );
    }

    #[test]
    fn prose_is_not_a_path() {
        assert_eq!(
            [
                "Here is the fix.",
                "`src/lib.rs`",
                "**gcd.py**",
                "File: a/b.py",
                "e.g."
            ]
            .map(path_on_line),
            [
                None,
                Some("src/lib.rs".into()),
                Some("gcd.py".into()),
                Some("a/b.py".into()),
                None
            ]
        );
    }

    #[test]
    fn a_python_function_replaces_the_one_of_the_same_name() {
        let file = "import math\n\n\ndef f(x):\n    \"\"\"Doc.\"\"\"\n    return x\n\n\ndef g(y):\n    return y\n";
        let code = "def f(x):\n    \"\"\"Doc.\"\"\"\n    return x + 1\n";
        assert_eq!(
            replace_definitions(file, code).unwrap(),
            "import math\n\n\ndef f(x):\n    \"\"\"Doc.\"\"\"\n    return x + 1\n\n\ndef g(y):\n    return y\n"
        );
    }

    #[test]
    fn a_function_written_without_its_docstring_keeps_the_files_docstring() {
        let file = "def f(x):\n    \"\"\"Doc\n    >>> f(1)\n    1\n    \"\"\"\n    return x\n";
        let code = "def f(x):\n    return x + 1\n";
        assert_eq!(
            replace_definitions(file, code).unwrap(),
            "def f(x):\n    \"\"\"Doc\n    >>> f(1)\n    1\n    \"\"\"\n    return x + 1\n"
        );
    }

    #[test]
    fn docstrings_are_taken_out_of_the_code_shown_and_named() {
        let file = "import x\n\n\ndef f(a):\n    \"\"\" Add one.\n    >>> f(1)\n    2\n    \"\"\"\n    return a\n\n\nclass C:\n    '''A thing.'''\n    def m(self):\n        return 1\n";
        let (code, docs) = split_docstrings(file);
        assert_eq!(
            code,
            "import x\n\n\ndef f(a):\n    return a\n\n\nclass C:\n    def m(self):\n        return 1\n"
        );
        assert_eq!(
            docs,
            vec![
                (
                    "f".to_string(),
                    "\"\"\" Add one.\n>>> f(1)\n2\n\"\"\"".to_string()
                ),
                ("C".to_string(), "'''A thing.'''".to_string()),
            ]
        );
        // The corrected function written from the code shown gets its docstring back.
        let fixed = replace_definitions(file, "def f(a):\n    return a + 1\n").unwrap();
        assert!(fixed.contains("    >>> f(1)\n    2\n    \"\"\"\n    return a + 1\n"));
    }

    #[test]
    fn code_without_docstrings_is_shown_as_it_is() {
        let file = "def f(a):\n    return a\n";
        assert_eq!(split_docstrings(file), (file.to_string(), vec![]));
    }

    #[test]
    fn a_function_written_with_a_docstring_keeps_its_own() {
        let file = "def f(x):\n    '''Old.'''\n    return x\n";
        let code = "def f(x):\n    '''New.'''\n    return x + 1\n";
        assert_eq!(
            replace_definitions(file, code).unwrap(),
            "def f(x):\n    '''New.'''\n    return x + 1\n"
        );
    }

    #[test]
    fn a_method_is_reindented_to_its_class() {
        let file =
            "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n";
        let code = "def f(self):\n    return 3\n";
        assert_eq!(
            replace_definitions(file, code).unwrap(),
            "class A:\n    def f(self):\n        return 3\n\n    def g(self):\n        return 2\n"
        );
    }

    #[test]
    fn a_rust_function_is_replaced_to_its_closing_brace() {
        let file = "pub fn a() -> u32 {\n    1\n}\n\npub fn b() -> u32 {\n    2\n}\n";
        let code = "pub fn a() -> u32 {\n    if true { 5 } else { 6 }\n}\n";
        assert_eq!(
            replace_definitions(file, code).unwrap(),
            "pub fn a() -> u32 {\n    if true { 5 } else { 6 }\n}\n\npub fn b() -> u32 {\n    2\n}\n"
        );
    }

    #[test]
    fn an_import_the_new_function_needs_is_added_after_the_files_imports() {
        let file = "import os\n\n\ndef f(s):\n    return s\n";
        let code = "import re\n\ndef f(s):\n    return re.sub('a', 'b', s)\n";
        assert_eq!(
            replace_definitions(file, code).unwrap(),
            "import os\nimport re\n\n\ndef f(s):\n    return re.sub('a', 'b', s)\n"
        );
    }

    /// Two classes with a `parse` each, as a real module has.
    const TWO_PARSES: &str = "class Parameter:\n    def parse(self, x):\n        return x  # default impl\n\n\nclass TupleParameter(Parameter):\n    def parse(self, x):\n        try:\n            return tuple(json.loads(x))\n        except ValueError:\n            return literal_eval(x)\n";

    #[test]
    fn a_method_replaces_the_one_of_its_name_it_was_copied_from_not_the_first() {
        let code = "def parse(self, x):\n    try:\n        return tuple(json.loads(x))\n    except (ValueError, TypeError):\n        return tuple(literal_eval(x))\n";
        let out = replace_definitions(TWO_PARSES, code).unwrap();
        assert!(out.contains("return x  # default impl"), "{out}");
        assert!(
            out.ends_with(
                "    except (ValueError, TypeError):\n            return tuple(literal_eval(x))\n"
            ),
            "{out}"
        );
    }

    #[test]
    fn a_class_that_only_a_docstring_example_defines_is_not_replaced() {
        let file = "class TupleParameter:\n    \"\"\"\n    Example::\n\n        class MyTask(luigi.Task):\n            foo = luigi.Parameter()\n    \"\"\"\n\n    def parse(self, x):\n        return x\n";
        let code = "class MyTask(luigi.Task):\n    foo = 1\n";
        assert_eq!(replace_definitions(file, code), None);
    }

    #[test]
    fn an_import_of_the_files_own_definitions_is_not_added() {
        let file =
            "import json\n\n\nclass TupleParameter:\n    def parse(self, x):\n        return x\n";
        let code = "from luigi.parameter import TupleParameter\nimport ast\n\ndef parse(self, x):\n    return ast.literal_eval(x)\n";
        assert_eq!(
            replace_definitions(file, code).unwrap(),
            "import json\nimport ast\n\n\nclass TupleParameter:\n    def parse(self, x):\n        return ast.literal_eval(x)\n"
        );
    }

    #[test]
    fn two_plain_fenced_blocks_said_to_be_from_and_to_are_a_search_and_replace() {
        let reply = "1. The line of `tornado/httputil.py` needs to be changed from:\n```python\n        parsed_query.extend(args)\n```\nto:\n```python\n        parsed_query.extend(list(args))\n```\n";
        assert_eq!(
            parse_edit_blocks(reply),
            vec![EditBlock {
                path: None,
                change: Change::Replace {
                    search: "        parsed_query.extend(args)\n".into(),
                    replace: "        parsed_query.extend(list(args))\n".into(),
                },
            }]
        );
    }

    #[test]
    fn two_fenced_functions_in_a_row_stay_two_blocks() {
        let reply =
            "```python\ndef f():\n    return 1\n```\nand\n```python\ndef g():\n    return 2\n```\n";
        assert_eq!(parse_edit_blocks(reply).len(), 2);
    }

    #[test]
    fn code_naming_no_definition_of_the_file_places_nothing() {
        assert_eq!(replace_definitions("def f():\n    pass\n", "x = 1\n"), None);
    }

    use crate::workdir::with_files as workdir;

    #[test]
    fn a_block_without_a_path_goes_to_the_one_shown_file_that_holds_its_search_text() {
        let (dir, wd) = workdir(&[("a.py", "x = 1\n"), ("b.py", "y = 1\n")]);
        let known = vec![
            ("a.py".to_string(), "x = 1\n".to_string()),
            ("b.py".to_string(), "y = 1\n".to_string()),
        ];
        let applied = apply_edit_blocks(&wd, &[replace(None, "y = 1\n", "y = 2\n")], &known, &[]);
        assert!(applied[0].result.is_ok(), "{applied:?}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("b.py")).unwrap(),
            "y = 2\n"
        );
    }

    #[test]
    fn a_block_that_only_quotes_a_line_of_a_shown_file_is_told_it_changed_nothing() {
        let text = "def f(x):\n    if x + 1 < 2:\n        return x\n";
        let (_dir, wd) = workdir(&[("a.py", text), ("b.py", "y = 1\n")]);
        let known = vec![
            ("a.py".to_string(), text.to_string()),
            ("b.py".to_string(), "y = 1\n".to_string()),
        ];
        let quote = EditBlock {
            path: None,
            change: Change::Code {
                text: "if x + 1 < 2:\n".into(),
            },
        };
        let applied = apply_edit_blocks(&wd, &[quote], &known, &[]);
        let Err(ToolError::Block(why)) = &applied[0].result else {
            panic!("{applied:?}");
        };
        assert!(
            why.starts_with("the block copies lines of `a.py` as they are, so nothing changed"),
            "{why}"
        );
    }

    #[test]
    fn a_block_for_a_protected_test_is_refused() {
        let (dir, wd) = workdir(&[("test_a.py", "assert f() == 1\n")]);
        let applied = apply_edit_blocks(
            &wd,
            &[replace(
                Some("test_a.py"),
                "assert f() == 1\n",
                "assert True\n",
            )],
            &[],
            &["test_a.py".to_string()],
        );
        assert!(applied[0].result.is_err());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("test_a.py")).unwrap(),
            "assert f() == 1\n"
        );
    }

    #[test]
    fn a_search_text_that_is_not_in_the_file_is_refused_with_its_closest_lines() {
        let (_dir, wd) = workdir(&[("a.py", "def f(x):\n    return x * 2\n")]);
        let known = vec![(
            "a.py".to_string(),
            "def f(x):\n    return x * 2\n".to_string(),
        )];
        let applied = apply_edit_blocks(
            &wd,
            &[replace(
                Some("a.py"),
                "    return x * 3\n",
                "    return x\n",
            )],
            &known,
            &[],
        );
        let err = applied[0].result.as_ref().unwrap_err().to_string();
        assert!(err.contains("return x * 2"), "{err}");
    }

    fn code(text: &str) -> EditBlock {
        EditBlock {
            path: None,
            change: Change::Code { text: text.into() },
        }
    }

    #[test]
    fn a_function_without_a_path_goes_to_the_one_file_of_the_tree_that_defines_it() {
        let (dir, wd) = workdir(&[
            ("pkg/a.py", "def f():\n    return 1\n"),
            ("pkg/deep/b.py", "def g():\n    return 1\n"),
            ("pkg/c.py", "def h():\n    return 1\n"),
        ]);
        let known = vec![(
            "pkg/a.py".to_string(),
            "def f():\n    return 1\n".to_string(),
        )];
        let applied = apply_edit_blocks(&wd, &[code("def g():\n    return 2\n")], &known, &[]);
        assert!(applied[0].result.is_ok(), "{applied:?}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("pkg/deep/b.py")).unwrap(),
            "def g():\n    return 2\n"
        );
    }

    #[test]
    fn a_function_defined_in_two_files_is_refused_naming_both() {
        let (_dir, wd) = workdir(&[
            ("a/util.py", "def g():\n    return 1\n"),
            ("b/util.py", "def g():\n    return 1\n"),
            ("c.py", "x = 1\n"),
        ]);
        let known = vec![("c.py".to_string(), "x = 1\n".to_string())];
        let applied = apply_edit_blocks(&wd, &[code("def g():\n    return 2\n")], &known, &[]);
        let err = applied[0].result.as_ref().unwrap_err().to_string();
        assert_eq!(
            err,
            "name the file on the line before the block: `g` is in `a/util.py`, `b/util.py`"
        );
    }

    #[test]
    fn a_function_no_file_defines_is_refused_naming_the_files_shown() {
        let (_dir, wd) = workdir(&[("a.py", "x = 1\n"), ("b.py", "y = 1\n")]);
        let known = vec![
            ("a.py".to_string(), "x = 1\n".to_string()),
            ("b.py".to_string(), "y = 1\n".to_string()),
        ];
        let applied = apply_edit_blocks(&wd, &[code("def g():\n    return 2\n")], &known, &[]);
        let err = applied[0].result.as_ref().unwrap_err().to_string();
        assert_eq!(
            err,
            "name the file on the line before the block: no file holds `g`; the files shown are `a.py`, `b.py`"
        );
    }
}
