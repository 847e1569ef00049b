//! The room the repair opening's files get, and fitting them into it: the allowance follows
//! what the server can read in the time left (a quarter of it, so the first attempt leaves
//! time for its reply and a second one), and when the files would not fit, each walks down
//! the [`Detail`] ladder, the last (least relevant) first: a shorter outline and docstrings,
//! then the excerpts alone, then one line naming it. The first file and the deepest frame's
//! file never drop below their excerpts, so the code the failure points at is always shown.

use crate::graph::prompt::code_view::{
    long_file_at, points_into, shown_in_part, Detail, Traceback,
};
use crate::graph::prompt::context::clip;
use crate::graph::prompt::messages::{self, DocstringIntro, FileNamed};

/// Characters per token of code and prose, to turn a token allowance into characters.
const CHARS_PER_TOKEN: u64 = 3;

/// Tokens of files when the server's speed is not measured yet (the first call of a run).
pub const UNMEASURED_FILE_TOKENS: u64 = 2_500;

/// The least and the most tokens of files an opening is given.
pub const MIN_FILE_TOKENS: u64 = 1_000;
pub const MAX_FILE_TOKENS: u64 = 12_000;

/// The opening's files allowance in characters, from the prompt tokens the server can read
/// in the time left (`llm::prompt_allowance`; `None` before its speed is measured).
pub fn files_allowance(readable_tokens: Option<u64>) -> usize {
    let tokens = readable_tokens
        .map(|t| (t / 4).clamp(MIN_FILE_TOKENS, MAX_FILE_TOKENS))
        .unwrap_or(UNMEASURED_FILE_TOKENS);
    usize::try_from(tokens * CHARS_PER_TOKEN).unwrap_or(usize::MAX)
}

/// One file's rung: its [`Detail`], or only its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rung {
    Shown(Detail),
    Named,
}

/// The files an opening shows and what decides how much of each.
pub struct Files<'a> {
    /// The files, most relevant first, with their whole text.
    pub files: &'a [(String, String)],
    pub protected: &'a [String],
    /// The failing run's tracebacks: the lines each file is shown around.
    pub trace: &'a Traceback,
    /// Names the failure mentions: a long file's functions of these names are shown.
    pub names: &'a [String],
    /// Characters the files may take; `None` shows them all in full.
    pub allowance: Option<usize>,
}

/// The opening's files, each as much as fits in `o.allowance` (all of them in full when
/// there is no allowance).
pub fn files_section(o: &Files) -> String {
    let mut rungs = vec![Rung::Shown(Detail::Full); o.files.len()];
    let render = |rungs: &[Rung]| -> String {
        o.files
            .iter()
            .zip(rungs)
            .map(|((path, text), rung)| file_text(o, path, text, *rung))
            .collect()
    };
    let Some(allowance) = o.allowance else {
        return render(&rungs);
    };
    let mut text = render(&rungs);
    // The first file and the one the deepest frame is in (after a move to other files it is
    // shown last, see `super::shown::look_elsewhere`) keep at least their excerpts.
    let deepest = o.trace.repo.first().map(|(p, _)| p.as_str());
    let anchored: Vec<bool> = o
        .files
        .iter()
        .enumerate()
        .map(|(i, (p, _))| i == 0 || Some(p.as_str()) == deepest)
        .collect();
    let ladder = [
        Rung::Shown(Detail::Brief),
        Rung::Shown(Detail::Excerpts),
        Rung::Named,
    ];
    for rung in ladder {
        for i in (0..rungs.len()).rev() {
            if text.chars().count() <= allowance {
                return text;
            }
            if anchored[i] && rung == Rung::Named {
                continue;
            }
            rungs[i] = rung;
            text = render(&rungs);
        }
    }
    text
}

/// One file as shown at `rung`: a short file whole (at [`Detail::Excerpts`] only the code a
/// frame or a failing name points into), a long one by [`long_file_at`].
fn file_text(o: &Files, path: &str, text: &str, rung: Rung) -> String {
    let protected = o.protected.contains(&path.to_string());
    let lines = o.trace.lines_in(path);
    let detail = match rung {
        Rung::Named => return named(path, &lines),
        Rung::Shown(d) => d,
    };
    let long = shown_in_part(text);
    if !protected && (long || detail == Detail::Excerpts) {
        // Below full detail, a file nothing points into is named, not shown by its head.
        if detail != Detail::Full && !points_into(text, &lines, o.names) {
            return named(path, &lines);
        }
        return long_file_at(path, text, &lines, o.names, detail);
    }
    let role = if protected {
        messages::RepairTestRole.to_string()
    } else {
        String::new()
    };
    // Python code is shown without its docstrings, each given above it by name: the model
    // copies less when it writes the corrected function, and the docstring is put back when
    // the function is replaced.
    let (code, docs) = if path.ends_with(".py") && !protected {
        kotef_tools::split_docstrings(text)
    } else {
        (text.to_string(), Vec::new())
    };
    let doc_chars = match detail {
        Detail::Full => super::REPAIR_FILE_CHARS / 2,
        _ => crate::graph::prompt::code_view::BRIEF_DOC_CHARS,
    };
    let mut out = String::new();
    for (name, doc) in &docs {
        let docstring = messages::RepairDocstring {
            intro: &DocstringIntro { name }.to_string(),
            docstring: &clip(doc.trim_end(), doc_chars),
        };
        out.push_str(&docstring.to_string());
    }
    let file = messages::RepairFile {
        path,
        role: &role,
        code: &clip(code.trim_end(), super::REPAIR_FILE_CHARS),
    };
    out.push_str(&file.to_string());
    out
}

/// The one line of a file left out for room.
fn named(path: &str, lines: &[usize]) -> String {
    let lines = if lines.is_empty() {
        "the failure names it".to_string()
    } else {
        let l: Vec<String> = lines.iter().map(|l| format!("line {l}")).collect();
        l.join(", ")
    };
    format!(
        "\n{}\n",
        FileNamed {
            path,
            lines: &lines
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long_module(name: &str, functions: usize) -> String {
        let mut text = format!("\"\"\"The {name} module.\"\"\"\nimport os\n\n");
        for i in 0..functions {
            text.push_str(&format!(
                "def {name}_{i}(a):\n    \"\"\"Adds {i} to a, the long way round, as the docs say.\"\"\"\n    b = a + {i}\n    return b\n\n"
            ));
        }
        text
    }

    fn opening<'a>(
        files: &'a [(String, String)],
        trace: &'a Traceback,
        allowance: Option<usize>,
    ) -> Files<'a> {
        Files {
            files,
            protected: &[],
            trace,
            names: &[],
            allowance,
        }
    }

    fn files() -> (Vec<(String, String)>, Traceback) {
        let files = vec![
            ("pkg/a.py".to_string(), long_module("a", 300)),
            ("pkg/b.py".to_string(), long_module("b", 300)),
            ("pkg/c.py".to_string(), long_module("c", 300)),
        ];
        let trace = Traceback {
            repo: vec![
                ("pkg/a.py".into(), 4 + 5 * 100 + 2),
                ("pkg/b.py".into(), 4 + 5 * 200 + 2),
                ("pkg/c.py".into(), 4 + 5 * 10 + 2),
            ],
            outside: Vec::new(),
            focus: Vec::new(),
            located: Vec::new(),
        };
        (files, trace)
    }

    #[test]
    fn without_an_allowance_every_file_is_shown_in_full() {
        let (files, trace) = files();
        let text = files_section(&opening(&files, &trace, None));
        assert_eq!(text.matches("lines, too many to show whole").count(), 3);
    }

    #[test]
    fn files_that_do_not_fit_lose_detail_from_the_last_one_up() {
        let (files, trace) = files();
        let full = files_section(&opening(&files, &trace, None))
            .chars()
            .count();
        let text = files_section(&opening(&files, &trace, Some(full * 2 / 3)));
        assert!(text.chars().count() <= full * 2 / 3, "{text}");
        assert!(text.contains("def a_100(a):"), "{text}");
        assert!(
            text.contains("pkg/a.py has"),
            "the first file keeps an outline: {text}"
        );
    }

    #[test]
    fn a_tight_allowance_names_the_later_files_and_keeps_the_first_ones_code() {
        let (files, trace) = files();
        let text = files_section(&opening(&files, &trace, Some(10)));
        assert!(text.contains("def a_100(a):"), "{text}");
        assert!(
            text.contains("pkg/b.py is on the failure's path too (line 1006)"),
            "{text}"
        );
        assert!(
            text.contains("pkg/c.py is on the failure's path too (line 56)"),
            "{text}"
        );
        assert!(!text.contains("pkg/b.py has"), "{text}");
    }

    #[test]
    fn the_deepest_frames_file_keeps_its_code_when_shown_last() {
        let (mut files, trace) = files();
        files.rotate_left(1);
        let text = files_section(&opening(&files, &trace, Some(10)));
        assert!(text.contains("def a_100(a):"), "{text}");
        assert!(text.contains("def b_200(a):"), "{text}");
        assert!(
            text.contains("pkg/c.py is on the failure's path too (line 56)"),
            "{text}"
        );
    }

    #[test]
    fn the_allowance_is_a_quarter_of_what_the_server_reads_in_the_time_left() {
        assert_eq!(files_allowance(Some(8_400)), 2_100 * 3);
        assert_eq!(files_allowance(Some(100)), 1_000 * 3);
        assert_eq!(files_allowance(Some(10_000_000)), 12_000 * 3);
        assert_eq!(files_allowance(None), 2_500 * 3);
    }
}
