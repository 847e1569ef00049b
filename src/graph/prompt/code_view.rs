//! What the prompts show of the code, as pure functions (the repair loop's opening, the tool
//! loop's named files). The failure comes first:
//! each frame of the failing run's tracebacks is placed (a file of the repository, or outside
//! it: an installed package, the standard library, the virtualenv, named as such and never
//! opened), the repository's frames bring their files (deepest first), and a file is shown
//! whole when short, else as its outline and the functions the failure points at (with their
//! line ranges), so one function of a 2,000-line file is fixed without copying the file. The
//! failing output is clipped so the line that raised and the deepest repository frame
//! survive any clip.

use crate::graph::prompt::messages::{
    DocstringIntro, FileExcerpt, FileExcerptLong, FileLines, FileOutline, OutsideFrames, RaisedAt,
};
use crate::lang::traceback::{exception_line, frames};
use kotef_tools::outline::{defined, outline, Outlined};
use std::collections::BTreeMap;

mod focus;
pub use focus::focus;
use focus::{picks, Picked};

/// `text` within `max` characters, head and tail kept (as `context::clip`, which this
/// module does not use: the tool loop's prompt shows long files through it).
fn clip(text: &str, max: usize) -> String {
    kotef_core::text::cut_middle(text, max, max * 2 / 3, max / 3)
}

/// A file longer than this (in characters) is shown as its outline and excerpts.
pub const WHOLE_FILE_CHARS: usize = 3000;

/// Whether a file of the project is shown in part (its outline and excerpts, not whole): it
/// is longer than [`WHOLE_FILE_CHARS`]. The repair room shows it so and the repair loop
/// orders its attempts by it; one predicate, so the two never disagree.
pub fn shown_in_part(text: &str) -> bool {
    text.chars().count() > WHOLE_FILE_CHARS
}
/// Characters of a docstring shown above a long file's excerpt at full detail.
const FULL_DOC_CHARS: usize = 1500;
/// Outline entries shown of one file at most.
pub const OUTLINE_ENTRIES: usize = 40;
/// Excerpts (functions) shown of one long file at most.
pub const EXCERPTS: usize = 3;
/// Lines of one excerpt at most (a longer function is shown around the line that matters).
pub const EXCERPT_LINES: usize = 120;
/// Characters of the marker a middle cut leaves (`[... 1234 characters cut ...]`).
const MARKER_CHARS: usize = 40;
/// Characters of one kept line of the failing output (the raising line, the deepest frame).
pub const KEPT_LINE_CHARS: usize = 400;

/// Where a traceback's frame is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A file of the repository, by its path in the tree.
    Repo(String),
    /// Anything else (site-packages, the standard library, the virtualenv, `<frozen …>`),
    /// as printed (under the work tree: from its root).
    Outside(String),
}

/// Whether a printed path is installed or interpreter code whatever directory holds it (a
/// virtualenv inside the work tree is still not the project).
pub fn installed(path: &str) -> bool {
    path.starts_with('<')
        || path.contains("/lib/python")
        || path.split('/').any(|c| {
            matches!(
                c,
                "site-packages" | "dist-packages" | ".venv" | "venv" | ".tox" | "lib-dynload"
            )
        })
}

/// Where the frame printed as `printed` is: `root` is the work tree's path, `files` the
/// repository's files. A path under the root, or ending in a repository path (the tree
/// mounted elsewhere), is the repository's; installed code never is.
pub fn place(printed: &str, root: &str, files: &[String]) -> Place {
    let root = format!("{}/", root.trim_end_matches('/'));
    let rel = printed.strip_prefix(&root).unwrap_or(printed);
    let rel = rel.strip_prefix("./").unwrap_or(rel);
    if installed(rel) {
        return Place::Outside(rel.to_string());
    }
    if files.iter().any(|f| f == rel) {
        return Place::Repo(rel.to_string());
    }
    let tail: Vec<&String> = files
        .iter()
        .filter(|f| rel.ends_with(&format!("/{f}")) || f.ends_with(&format!("/{rel}")))
        .collect();
    match tail.as_slice() {
        [one] => Place::Repo((*one).clone()),
        _ => Place::Outside(printed.to_string()),
    }
}

/// The tracebacks of a failing run, placed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Traceback {
    /// The repository's frames, `(path, line)`: each traceback's deepest first, the first
    /// traceback's before the next's; no repeats.
    pub repo: Vec<(String, usize)>,
    /// The files outside the repository the frames pass through, as printed, no repeats.
    pub outside: Vec<String>,
    /// Lines of the repository the code shown is focused on beside the frames' (the
    /// spectrum's telling lines): shown like a frame's, never offered as one.
    pub focus: Vec<(String, usize)>,
    /// The entries of `repo` that are no frames but where a look-up found the failure's names
    /// (`kotef_tools::locate::places`), the best place first: shown and kept in view like a
    /// frame's, offered to line attempts best first (a call chain is offered outermost
    /// first), and no sign that the failing tests ran the file.
    pub located: Vec<(String, usize)>,
}

impl Traceback {
    /// Reads `output` (the run's stdout and stderr).
    pub fn read(output: &str, root: &str, files: &[String]) -> Self {
        let raises: Vec<usize> = output
            .lines()
            .enumerate()
            .filter(|(_, l)| exception_line(l).is_some())
            .map(|(i, _)| i)
            .collect();
        // Which traceback a frame is in: the first raising line after it; pytest's deepest
        // frame (`a/b.py:48: ModuleNotFoundError`) is printed after its raising line, so it
        // is in the traceback of the last raising line before it.
        let mut groups: BTreeMap<usize, Vec<(String, usize)>> = BTreeMap::new();
        let mut t = Traceback::default();
        for f in frames(output) {
            match place(&f.path, root, files) {
                Place::Repo(p) => {
                    let first_after = raises.iter().position(|r| *r > f.at);
                    let first_after = first_after.unwrap_or(raises.len());
                    let group = first_after.saturating_sub(usize::from(f.after_error));
                    groups.entry(group).or_default().push((p, f.line));
                }
                Place::Outside(p) => {
                    if !t.outside.contains(&p) {
                        t.outside.push(p);
                    }
                }
            }
        }
        for (_, frames) in groups {
            for frame in frames.into_iter().rev() {
                if !t.repo.contains(&frame) {
                    t.repo.push(frame);
                }
            }
        }
        t
    }

    /// The repository's files the frames are in, deepest first.
    pub fn files(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (p, _) in &self.repo {
            if !out.contains(p) {
                out.push(p.clone());
            }
        }
        out
    }

    /// The lines of each file the frames (and the focus) point at.
    pub fn lines_in(&self, path: &str) -> Vec<usize> {
        self.repo
            .iter()
            .chain(&self.focus)
            .filter(|(p, _)| p == path)
            .map(|(_, l)| *l)
            .collect()
    }

    /// The sentence naming the files outside the repository, or nothing.
    pub fn outside_note(&self) -> String {
        if self.outside.is_empty() {
            return String::new();
        }
        let list: Vec<String> = self
            .outside
            .iter()
            .take(6)
            .map(|p| format!("`{}`", clip(p, 160)))
            .collect();
        format!(
            "{}\n",
            OutsideFrames {
                files: &list.join(", ")
            }
        )
    }
}

/// The lines of (compacted) failing output no clip may lose: the first traceback's deepest
/// repository frame with the source line after it, and the line that raised.
pub fn raise_site(output: &str, root: &str, files: &[String]) -> Vec<String> {
    let lines: Vec<&str> = output.lines().collect();
    let repo: Vec<usize> = frames(output)
        .into_iter()
        .filter(|f| matches!(place(&f.path, root, files), Place::Repo(_)))
        .map(|f| f.at)
        .collect();
    let raises: Vec<usize> = (0..lines.len())
        .filter(|&i| exception_line(lines[i]).is_some())
        .collect();
    let mut prev = 0;
    for &r in &raises {
        // pytest prints the deepest frame (`pkg/a.py:173: NameError`) just after its `E` lines.
        let after = repo.iter().copied().find(|&f| r < f && f <= r + 3);
        let before = repo.iter().copied().rev().find(|&f| prev <= f && f < r);
        if let Some(f) = after.or(before) {
            return site(&lines, Some(f), r);
        }
        prev = r;
    }
    raises
        .first()
        .map_or_else(Vec::new, |&r| site(&lines, None, r))
}

fn site(lines: &[&str], frame: Option<usize>, raised: usize) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(f) = frame {
        out.push(lines[f]);
        if f + 1 < raised && !lines[f + 1].trim().is_empty() {
            out.push(lines[f + 1]);
        }
    }
    out.push(lines[raised]);
    out.iter()
        .map(|l| clip(l.trim_end(), KEPT_LINE_CHARS))
        .collect()
}

/// `out` within `max` characters, keeping `keep` (see [`raise_site`]): clipped in the middle
/// as before, then, when the cut took a kept line, those lines after it under their heading.
pub fn clip_keeping(out: &str, max: usize, keep: &[String]) -> String {
    let all_there = keep.iter().all(|l| out.contains(l.as_str()));
    if out.chars().count() <= max && all_there {
        return out.to_string();
    }
    // The cut's own marker (`[... N characters cut ...]`) is counted in.
    let max = max.saturating_sub(MARKER_CHARS);
    let whole = clip(out, max);
    if keep.iter().all(|l| whole.contains(l.as_str())) {
        return whole;
    }
    let kept = keep.join("\n");
    let heading = RaisedAt.to_string();
    let room = max.saturating_sub(kept.chars().count() + heading.chars().count() + 2);
    format!("{}\n{heading}\n{kept}", clip(out, room.max(max / 3)))
}

/// The words of `text` (runs of letters, digits and `_`) with their byte offsets.
fn words_at(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = None;
    text.char_indices()
        .chain(std::iter::once((text.len(), ' ')))
        .filter_map(move |(i, c)| {
            let inside = c.is_alphanumeric() || c == '_';
            match (inside, start) {
                (true, None) => {
                    start = Some(i);
                    None
                }
                (false, Some(s)) => {
                    start = None;
                    Some((s, &text[s..i]))
                }
                _ => None,
            }
        })
}

/// Identifiers of a text that name code: `snake_case`, `CamelCase`, `UPPER_CASE`, dotted
/// attributes (`ExitStatus.ERROR_TOO_MANY_REDIRECTS` gives both parts), quoted names
/// (`name 'output_path' is not defined`), called names (`urljoin(None, url)`); not keywords,
/// builtins, test helpers or exception classes.
pub fn code_names(text: &str) -> Vec<String> {
    const COMMON: &[&str] = &[
        "self",
        "None",
        "True",
        "False",
        "assert",
        "return",
        "import",
        "from",
        "class",
        "def",
        "lambda",
        "print",
        "len",
        "str",
        "int",
        "dict",
        "list",
        "tuple",
        "isinstance",
        "raise",
        "Traceback",
        "File",
        "line",
        "test",
        "tests",
        "main",
        "args",
        "kwargs",
        "object",
        // Builtins and methods a test calls everywhere.
        "range",
        "open",
        "getattr",
        "setattr",
        "hasattr",
        "float",
        "repr",
        "sorted",
        "type",
        "super",
        "format",
        "join",
        "split",
        "strip",
        "encode",
        "decode",
        "append",
        "items",
        "keys",
        "values",
        "bytes",
        "next",
        "iter",
        "filter",
        "enumerate",
        "round",
        // The type of `None`, as an error message names it (`got NoneType`).
        "NoneType",
    ];
    let mut out: Vec<String> = Vec::new();
    for (at, word) in words_at(text) {
        // A plain lower-case word is code when it is called: `urljoin(None, url)`.
        let called = text[at + word.len()..].starts_with('(');
        let codey = word.contains('_')
            || called
            || (word.chars().skip(1).any(char::is_uppercase)
                && word.chars().any(char::is_lowercase));
        let keep = word.len() >= 4
            && word
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
            && codey
            && !COMMON.contains(&word)
            && !word.starts_with("assert")
            && !word.starts_with("test_")
            // A test class (`UtilsRequestTest`, `TestUtil`) is where the failure is seen.
            && !word.starts_with("Test")
            && !word.ends_with("Test")
            && exception_line(word).is_none()
            && !cut_piece(text, at, word)
            && !out.iter().any(|w| w == word);
        if keep {
            out.push(word.to_string());
        }
    }
    out
}

/// Whether `word` at `at` is a piece of a word unittest cut out of a long value
/// (`[645 chars]tion(`, `lookup_lin[645 chars]`): a name no code holds.
fn cut_piece(text: &str, at: usize, word: &str) -> bool {
    let after = &text[at + word.len()..];
    text[..at].ends_with(" chars]")
        || after.strip_prefix('[').is_some_and(|rest| {
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            digits > 0 && rest[digits..].starts_with(" chars]")
        })
}

/// A long file's text for the prompt: its outline, then the definitions around `lines` (the
/// traceback's frames) and those named in `names`, each with its line range; the outline
/// alone when nothing points into it (its head is a licence and imports, not the fix).
pub fn long_file(path: &str, text: &str, lines: &[usize], names: &[String]) -> String {
    long_file_at(path, text, lines, names, Detail::Full)
}

/// How much of a file a repair prompt shows, from most to least: the rungs the opening
/// walks down when its files would not fit the room it has (`repair::room`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detail {
    /// A short file whole; a long one as its outline and excerpts, with their docstrings.
    Full,
    /// A long file's outline cut to the [`BRIEF_OUTLINE`] entries nearest its excerpts and
    /// its docstrings to [`BRIEF_DOC_CHARS`].
    Brief,
    /// The excerpts alone: no outline, no docstrings.
    Excerpts,
}

/// Outline entries a [`Detail::Brief`] file keeps.
pub const BRIEF_OUTLINE: usize = 8;

/// Lines of an excerpt above which it is changed by a search/replace block, not rewritten.
pub const LONG_FUNCTION_LINES: usize = 40;

/// Lines of a function that hands its work to another (see `follow_wrappers`).
pub const WRAPPER_LINES: usize = 10;

/// Characters of a docstring a [`Detail::Brief`] excerpt keeps.
pub const BRIEF_DOC_CHARS: usize = 300;

/// Whether anything in `text` is pointed at: a frame's line inside it or a definition of
/// one of `names` (what [`long_file_at`] would excerpt).
pub fn points_into(text: &str, lines: &[usize], names: &[String]) -> bool {
    let count = text.lines().count();
    lines.iter().any(|l| (1..=count).contains(l))
        || names
            .iter()
            .any(|n| defined(text, n).into_iter().any(|d| !d.is_class()))
}

/// [`long_file`] at a [`Detail`].
pub fn long_file_at(
    path: &str,
    text: &str,
    lines: &[usize],
    names: &[String],
    detail: Detail,
) -> String {
    let all: Vec<&str> = text.lines().collect();
    let defs = outline(text);
    let picked = picks(text, &all, lines, names);
    let entries = match detail {
        Detail::Full => OUTLINE_ENTRIES,
        Detail::Brief => BRIEF_OUTLINE,
        Detail::Excerpts => 0,
    };
    let mut out = String::new();
    if entries > 0 {
        out = format!(
            "\n{}\n```\n{}```\n",
            FileOutline {
                path,
                lines: &all.len().to_string()
            },
            outline_text(&defs, &picked, entries)
        );
    }
    let doc_chars = match detail {
        Detail::Full => FULL_DOC_CHARS,
        Detail::Brief => BRIEF_DOC_CHARS,
        Detail::Excerpts => 0,
    };
    for (first, last, name) in picked {
        out.push_str(&excerpt(
            path,
            &all,
            (first, last),
            name.as_deref(),
            lines,
            doc_chars,
        ));
    }
    out
}

/// The outline's text: every definition when few, else the `entries` nearest the excerpts
/// (top-level ones first), in file order.
fn outline_text(defs: &[Outlined], picked: &[Picked], entries: usize) -> String {
    let near = |d: &Outlined| picked.iter().any(|(f, l, _)| d.first <= *l && *f <= d.last);
    let anchors: Vec<usize> = (0..defs.len()).filter(|&i| near(&defs[i])).collect();
    let mut order: Vec<usize> = (0..defs.len()).collect();
    order.sort_by_key(|&i| {
        let distance = anchors.iter().map(|&a| a.abs_diff(i)).min().unwrap_or(i);
        (usize::from(defs[i].indent > 0 && !near(&defs[i])), distance)
    });
    order.truncate(entries);
    order.sort_unstable();
    let mut out = String::new();
    let mut last = None;
    for &i in &order {
        if last.is_some_and(|l: usize| i > l + 1) || (last.is_none() && i > 0) {
            out.push_str("      …\n");
        }
        let d = &defs[i];
        out.push_str(&format!(
            "{:>5}: {}{}\n",
            d.first,
            " ".repeat(d.indent),
            d.signature
        ));
        last = Some(i);
    }
    if last.is_some_and(|l| l + 1 < defs.len()) {
        out.push_str("      …\n");
    }
    out
}

/// One excerpt: lines `first..=last` (1-based) of the file under their heading, cut around
/// the frame's line when the definition is longer than [`EXCERPT_LINES`]; a Python
/// excerpt's docstrings shown above it by name (clipped to `doc_chars`; none at 0), as for
/// a whole file.
fn excerpt(
    path: &str,
    all: &[&str],
    (first, last): (usize, usize),
    name: Option<&str>,
    lines: &[usize],
    doc_chars: usize,
) -> String {
    let (mut a, mut b) = (first.max(1), last.min(all.len()));
    if b + 1 - a > EXCERPT_LINES {
        let at = lines
            .iter()
            .copied()
            .find(|l| a <= *l && *l <= b)
            .unwrap_or(a);
        a = at.saturating_sub(EXCERPT_LINES / 2).max(a);
        b = (a + EXCERPT_LINES - 1).min(b);
    }
    let text: String = all[a - 1..b].iter().map(|l| format!("{l}\n")).collect();
    let (code, docs) = if path.ends_with(".py") {
        kotef_tools::split_docstrings(&text)
    } else {
        (text, Vec::new())
    };
    let mut out = String::new();
    for (doc_name, doc) in docs.iter().filter(|_| doc_chars > 0) {
        out.push_str(&format!(
            "\n{}\n{}\n",
            DocstringIntro { name: doc_name },
            clip(doc.trim_end(), doc_chars)
        ));
    }
    let whole = b + 1 - a <= LONG_FUNCTION_LINES && (a, b) == (first.max(1), last.min(all.len()));
    let (first, last) = (&a.to_string(), &b.to_string());
    // Rewriting a long function whole costs minutes of generation on a small machine (and
    // cannot be done from a cut excerpt), and lines outside any function are no function to
    // write: both are changed by a search/replace block instead.
    let intro = match name {
        Some(name) if whole => FileExcerpt {
            path,
            first,
            last,
            name,
        }
        .to_string(),
        Some(name) => FileExcerptLong {
            path,
            first,
            last,
            name,
        }
        .to_string(),
        None => FileLines { path, first, last }.to_string(),
    };
    out.push_str(&format!("\n{intro}\n```\n{}\n```\n", code.trim_end()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Vec<String> {
        [
            "pysnooper/pysnooper.py",
            "pysnooper/tracer.py",
            "tests/test_x.py",
        ]
        .map(String::from)
        .to_vec()
    }

    const OUT: &str = "ERROR: test_output (tests.test_x.T)\n  File \"/w/tests/test_x.py\", line 12, in test_output\n    snoop(output=path)(f)()\n  File \"/w/pysnooper/pysnooper.py\", line 72, in snoop\n    return Tracer(output)\n  File \"/w/.venv/lib/python3.11/site-packages/six.py\", line 3, in wrap\n    return f()\n  File \"/usr/lib/python3.11/functools.py\", line 9, in inner\n    return g()\n  File \"/w/pysnooper/tracer.py\", line 173, in __init__\n    self.write(output_path)\nNameError: name 'output_path' is not defined\n";

    #[test]
    fn repository_frames_are_files_of_the_tree_and_installed_code_is_outside() {
        assert_eq!(
            place("/w/pysnooper/tracer.py", "/w", &files()),
            Place::Repo("pysnooper/tracer.py".into())
        );
        assert_eq!(
            place("/elsewhere/mount/pysnooper/tracer.py", "/w", &files()),
            Place::Repo("pysnooper/tracer.py".into())
        );
        assert_eq!(
            place(
                "/w/.venv/lib/python3.11/site-packages/pysnooper/tracer.py",
                "/w",
                &files()
            ),
            Place::Outside(".venv/lib/python3.11/site-packages/pysnooper/tracer.py".into())
        );
        assert_eq!(
            place("<frozen importlib._bootstrap>", "/w", &files()),
            Place::Outside("<frozen importlib._bootstrap>".into())
        );
    }

    #[test]
    fn pytests_deepest_frame_printed_after_its_error_line_is_the_deepest() {
        let out = "    def test_history(self):\n>       ls = create_local_scheduler()\n\ntest/scheduler_test.py:81: \n_ _ _ _\nluigi/interface.py:134: in create_local_scheduler\n    return CentralPlannerScheduler()\nluigi/scheduler.py:533: in __init__\n    from luigi import db_task_history\n_ _ _ _\n>   import sqlalchemy\nE   ModuleNotFoundError: No module named 'sqlalchemy'\n\nluigi/db_task_history.py:48: ModuleNotFoundError\n";
        let files = ["interface", "scheduler", "db_task_history"].map(|m| format!("luigi/{m}.py"));
        let t = Traceback::read(
            out,
            "/w",
            &[&files[..], &["test/scheduler_test.py".into()]].concat(),
        );
        assert_eq!(
            t.repo.iter().map(|(_, l)| *l).collect::<Vec<_>>(),
            [48, 533, 134, 81]
        );
    }

    #[test]
    fn a_traceback_opens_its_repository_files_deepest_first_and_names_the_rest() {
        let t = Traceback::read(OUT, "/w", &files());
        assert_eq!(
            t.repo,
            [
                ("pysnooper/tracer.py".to_string(), 173),
                ("pysnooper/pysnooper.py".to_string(), 72),
                ("tests/test_x.py".to_string(), 12)
            ]
        );
        assert_eq!(
            t.outside,
            [
                ".venv/lib/python3.11/site-packages/six.py",
                "/usr/lib/python3.11/functools.py"
            ]
        );
        assert!(t
            .outside_note()
            .contains("`/usr/lib/python3.11/functools.py`"));
    }

    #[test]
    fn no_clip_cuts_the_line_that_raised_or_the_deepest_repository_frame() {
        let compacted = OUT.replace("/w/", "");
        let keep = raise_site(&compacted, "/w", &files());
        assert_eq!(
            keep,
            [
                "  File \"pysnooper/tracer.py\", line 173, in __init__",
                "    self.write(output_path)",
                "NameError: name 'output_path' is not defined"
            ]
        );
        let noisy = format!("{}{}{}", "x".repeat(3000), compacted, "y".repeat(600));
        let clipped = clip_keeping(&noisy, 1800, &keep);
        assert!(clipped.chars().count() <= 1800, "{}", clipped.len());
        assert!(
            keep.iter().all(|k| clipped.contains(k.as_str())),
            "{clipped}"
        );
        assert_eq!(clip_keeping("short", 1800, &[]), "short");
    }

    #[test]
    fn pytests_short_form_keeps_its_error_and_deepest_frame() {
        let out = "tests/test_x.py:12: in test_output\n    snoop()\nE   NameError: name 'output_path' is not defined\npysnooper/tracer.py:173: NameError\n";
        assert_eq!(
            raise_site(out, "/w", &files()),
            [
                "pysnooper/tracer.py:173: NameError",
                "E   NameError: name 'output_path' is not defined"
            ]
        );
    }

    #[test]
    fn a_long_function_is_changed_by_a_search_replace_block_not_rewritten() {
        let mut text = String::from("def long(a):\n");
        for i in 0..50 {
            text.push_str(&format!("    a = a + {i}\n"));
        }
        text.push_str("    return a\n\n");
        for i in 0..300 {
            text.push_str(&format!("def f{i}(a):\n    return a\n\n"));
        }
        let shown = long_file("m.py", &text, &[20], &["f7".to_string()]);
        assert!(
            shown.contains("m.py lines 1-52, `long` (a long function: to change it, write a search/replace block"),
            "{shown}"
        );
        assert!(
            shown.contains("`f7` (to change it, write the whole corrected `f7`"),
            "{shown}"
        );
    }

    #[test]
    fn lines_outside_any_function_are_changed_by_a_search_replace_block() {
        let mut text = String::new();
        for i in 0..400 {
            text.push_str(&format!("LIMIT_{i} = {i}\n"));
        }
        text.push_str("def f(a):\n    return a\n");
        let shown = long_file("settings.py", &text, &[200], &[]);
        assert!(
            shown.contains("settings.py lines 190-210 (code outside any function: to change them, write a search/replace block"),
            "{shown}"
        );
        assert!(!shown.contains("`line 200`"), "{shown}");
    }

    #[test]
    fn an_attribute_the_failure_names_is_shown_where_it_is_set() {
        let mut text = String::from("import time\n\nclass Worker:\n    def __init__(self, worker_id, last_active=None):\n        self.id = worker_id\n        self.last_active = last_active\n\n");
        for i in 0..300 {
            text.push_str(&format!("    def f{i}(self):\n        return {i}\n\n"));
        }
        text.push_str("    def prune(self, config):\n        if self.last_active + 1 < time.time():\n            return True\n");
        let at = text.lines().count() - 1;
        let shown = long_file("s.py", &text, &[at], &["last_active".to_string()]);
        assert!(shown.contains("`prune`"), "{shown}");
        assert!(shown.contains("lines 4-6, `__init__`"), "{shown}");
    }

    #[test]
    fn a_short_function_brings_the_function_of_its_file_it_hands_its_work_to() {
        let mut text = String::from("import re\n\n");
        for i in 0..300 {
            text.push_str(&format!("def f{i}(a):\n    b = a + {i}\n    return b\n\n"));
        }
        text.push_str("def get_element(attr, html):\n    return get_elements(attr, html)[0]\n\n");
        text.push_str("def get_elements(attr, html):\n    return re.findall(attr, html)\n");
        let shown = long_file("utils.py", &text, &[], &["get_element".to_string()]);
        assert!(shown.contains("`get_element`"), "{shown}");
        assert!(shown.contains("`get_elements`"), "{shown}");
        assert!(!shown.contains("`findall`"), "{shown}");
    }

    #[test]
    fn a_long_file_is_shown_as_its_outline_and_the_function_the_frame_is_in() {
        let mut text = String::from("import os\n\n");
        for i in 0..400 {
            text.push_str(&format!("def f{i}(a):\n    b = a + {i}\n    return b\n\n"));
        }
        let shown = long_file("big.py", &text, &[3 + 4 * 250 + 1], &[]);
        assert!(shown.contains("big.py has 1602 lines"), "{shown}");
        assert!(shown.contains(" 1003: def f250(a):"), "{shown}");
        assert!(
            shown.contains("big.py lines 1003-1005, `f250`")
                && shown.contains("```\ndef f250(a):\n    b = a + 250\n    return b\n```"),
            "{shown}"
        );
        assert!(!shown.contains("def f7(a):\n"), "{shown}");
        assert!(shown.len() < 4000, "{}", shown.len());
    }

    #[test]
    fn code_names_are_identifiers_that_look_like_code() {
        assert_eq!(
            code_names("assert r.exit_status == ExitStatus.ERROR_TOO_MANY_REDIRECTS in the ERROR case; self.assertEqual(test_x)"),
            ["exit_status", "ExitStatus", "ERROR_TOO_MANY_REDIRECTS"]
        );
    }

    #[test]
    fn the_pieces_of_words_unittest_cut_out_of_a_long_value_are_not_names() {
        let failure = "AssertionError: 'Page [1024 chars]ndex(\\n' != 'Page [1024 chars]ndex(page_size=page_cou[1024 chars]'";
        assert_eq!(code_names(failure), ["page_size"]);
    }

    #[test]
    fn a_plain_name_is_code_when_it_is_called_and_not_a_builtin() {
        assert_eq!(
            code_names("    self.assertEqual(urljoin(None, 'rtmp://foo.de'), sorted(list(x)))"),
            ["urljoin"]
        );
        assert!(code_names("the urljoin case fails").is_empty());
    }
}
