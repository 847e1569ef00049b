//! Line attempts: the statements the failing run's traceback passes through in the project's
//! code, each offered to the model as a search/replace block begun for it (the file's path,
//! `<<<<<<< SEARCH`, the statement as it is, `=======`), so the model writes only the new
//! statement. A small model shown where an error was raised keeps rewriting that line
//! (`startswith(b'Sitemap:')` six times), while the fix is often the caller's line that passed
//! the wrong value (`sitemap_urls_from_robots(response.body)` → `response.text`); begun at
//! that line it writes the fix in a few tokens. The frames are offered from the outermost
//! (the call the test made into the project) inward; only to a server that continues a
//! begun reply ([`kotef_model::Model::continues_replies`]).

use crate::graph::prompt::code_view::Traceback;
use kotef_tools::{Change, EditBlock};
use std::collections::VecDeque;

/// The most lines one statement may span to be offered whole.
pub const MAX_STATEMENT_LINES: usize = 8;

/// The most line attempts one repair step makes.
pub const MAX_TARGETS: usize = 4;

/// One statement to offer: its file, its lines as the file has them, and the lines just
/// before it that make it unique in the file (kept as they are on both sides of the change:
/// a line such as `import sqlalchemy` may be written more than once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub path: String,
    pub text: String,
    pub lead: String,
}

/// The temperatures a statement is offered at: the likeliest new line first; once more,
/// hotter, when the model wrote it back as it was.
pub const TEMPERATURES: [f64; 2] = [0.2, 0.8];

/// One offer of a statement: which, and at what temperature.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    pub target: Target,
    pub temperature: f64,
    tries: usize,
}

/// The statements still to offer, in order; a statement the model left as it was is offered
/// once more, hotter, before the next.
#[derive(Debug, Default)]
pub struct Queue {
    left: VecDeque<Offer>,
}

impl Queue {
    pub fn new(targets: Vec<Target>) -> Self {
        Queue {
            left: targets
                .into_iter()
                .map(|target| Offer {
                    target,
                    temperature: TEMPERATURES[0],
                    tries: 0,
                })
                .collect(),
        }
    }

    /// The next offer, if any is left.
    pub fn next(&mut self) -> Option<Offer> {
        self.left.pop_front()
    }

    /// `offer` changed nothing: it comes again next, hotter, unless it was the last try.
    pub fn unchanged(&mut self, offer: Offer) {
        let tries = offer.tries + 1;
        if let Some(&temperature) = TEMPERATURES.get(tries) {
            self.left.push_front(Offer {
                temperature,
                tries,
                ..offer
            });
        }
    }
}

/// The most lines before a statement taken to make it unique in its file.
pub const MAX_LEAD_LINES: usize = 3;

/// The statements at the traceback's frames in `files` (the code shown; tests are not among
/// them), outermost frame first, the deepest last; each statement once, at most
/// [`MAX_TARGETS`]. A frame whose line is a `def` or `class` header (a decorator's frame)
/// offers nothing.
pub fn targets(trace: &Traceback, files: &[(String, String)]) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for (path, line) in trace.repo.iter().rev() {
        let Some((_, text)) = files.iter().find(|(p, _)| p == path) else {
            continue;
        };
        let Some((start, stmt)) = statement_at(text, *line) else {
            continue;
        };
        let Some(lead) = unique_lead(text, start, &stmt) else {
            continue;
        };
        let t = Target {
            path: path.clone(),
            text: stmt,
            lead,
        };
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out.truncate(MAX_TARGETS);
    out
}

/// The lines before the statement at 0-based `start` that make `lead` + statement occur once
/// in `text` (none when it already does); `None` when [`MAX_LEAD_LINES`] do not.
fn unique_lead(text: &str, start: usize, stmt: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    (0..=MAX_LEAD_LINES.min(start)).find_map(|n| {
        let lead = lines[start - n..start].join("\n");
        let whole = if n == 0 {
            stmt.to_string()
        } else {
            format!("{lead}\n{stmt}")
        };
        (text.matches(whole.as_str()).count() == 1).then_some(lead)
    })
}

/// The whole statement at 1-based `line` of `text`: the line, with the lines before or after
/// it that its brackets span (a call written over several lines is reported at its first or
/// its last line, depending on the Python), at most [`MAX_STATEMENT_LINES`]. With the 0-based index of its first
/// line; `None` for a blank line, a header, or brackets that do not close in reach.
fn statement_at(text: &str, line: usize) -> Option<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let at = line.checked_sub(1)?;
    let first = lines.get(at)?;
    let t = first.trim_start();
    if t.is_empty() || t.starts_with("def ") || t.starts_with("class ") || t.starts_with('@') {
        return None;
    }
    let (mut start, mut end) = (at, at);
    let mut depth = depth_of(first);
    while depth > 0 {
        end += 1;
        if end - start >= MAX_STATEMENT_LINES {
            return None;
        }
        depth += depth_of(lines.get(end)?);
    }
    while depth < 0 {
        start = start.checked_sub(1)?;
        if end - start >= MAX_STATEMENT_LINES {
            return None;
        }
        depth += depth_of(lines.get(start)?);
    }
    Some((start, lines[start..=end].join("\n")))
}

/// Opening minus closing brackets on a line, outside its strings and comment (roughly: a
/// quote toggles, a backslash escapes).
fn depth_of(line: &str) -> i32 {
    let (mut depth, mut quote, mut escaped) = (0, None::<char>, false);
    for c in line.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (_, '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') => break,
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// The reply begun for the model at `t`: the path, a fence, the block's search half.
pub fn begun_reply(t: &Target) -> String {
    let lang = if t.path.ends_with(".py") {
        "python"
    } else {
        ""
    };
    format!(
        "{}\n```{lang}\n<<<<<<< SEARCH\n{}\n=======\n",
        t.path, t.text
    )
}

/// The change a line attempt's reply makes: `t`'s statement replaced by what the model wrote
/// after the begun part, up to the block's end marker, its closing fence, or the reply's end
/// (a reply cut at its cap, or stopped before the marker, still says its new lines). Lines
/// written less indented than the statement are shifted to its indent (a model that writes
/// the new line flush left). `None` when nothing was written, or the statement as it was.
pub fn change(t: &Target, content: &str) -> Option<EditBlock> {
    let rest = content.strip_prefix(begun_reply(t).as_str())?;
    let mut new: Vec<&str> = Vec::new();
    for line in rest.lines() {
        let l = line.trim();
        if l.starts_with(">>>>>>>") || l.starts_with("```") || l.starts_with("=======") {
            break;
        }
        new.push(line);
    }
    while new.last().is_some_and(|l| l.trim().is_empty()) {
        new.pop();
    }
    if new.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    let indent = |l: &str| l.len() - l.trim_start().len();
    let want = t.text.lines().next().map_or(0, indent);
    let least = new
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent(l))
        .min()
        .unwrap_or(0);
    let pad = " ".repeat(want.saturating_sub(least));
    let replace = new
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    if replace.trim_end() == t.text.trim_end() {
        return None;
    }
    let with_lead = |s: &str| {
        if t.lead.is_empty() {
            s.to_string()
        } else {
            format!("{}\n{s}", t.lead)
        }
    };
    Some(EditBlock {
        path: Some(t.path.clone()),
        change: Change::Replace {
            search: with_lead(&t.text),
            replace: with_lead(&replace),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPIDER: &str = "class SitemapSpider:\n    def _parse_sitemap(self, response):\n        if response.url.endswith('/robots.txt'):\n            for url in sitemap_urls_from_robots(response.body):\n                yield Request(url)\n";
    const UTILS: &str = "def sitemap_urls_from_robots(robots_text):\n    for line in robots_text.splitlines():\n        if line.lstrip().startswith('Sitemap:'):\n            yield line\n";

    fn trace() -> Traceback {
        Traceback {
            // Deepest first, as the traceback reader keeps them.
            repo: vec![
                ("utils.py".into(), 3),
                ("spider.py".into(), 4),
                ("tests/test_spider.py".into(), 9),
            ],
            outside: Vec::new(),
        }
    }

    fn files() -> Vec<(String, String)> {
        vec![
            ("utils.py".into(), UTILS.into()),
            ("spider.py".into(), SPIDER.into()),
        ]
    }

    #[test]
    fn the_call_the_test_made_is_offered_before_the_line_that_raised() {
        let t = targets(&trace(), &files());
        let texts: Vec<&str> = t.iter().map(|t| t.text.trim()).collect();
        assert_eq!(
            texts,
            [
                "for url in sitemap_urls_from_robots(response.body):",
                "if line.lstrip().startswith('Sitemap:'):"
            ]
        );
    }

    #[test]
    fn a_call_written_over_several_lines_is_offered_whole_from_either_end() {
        let code = "x = 1\nresult = call(\n    a,\n    b)\ny = 2\n";
        let whole = "result = call(\n    a,\n    b)";
        assert_eq!(
            statement_at(code, 2).map(|(_, s)| s).as_deref(),
            Some(whole)
        );
        assert_eq!(
            statement_at(code, 4).map(|(_, s)| s).as_deref(),
            Some(whole)
        );
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        assert_eq!(
            statement_at("s = ')' + f(x)  # (\n", 1)
                .map(|(_, s)| s)
                .as_deref(),
            Some("s = ')' + f(x)  # (")
        );
    }

    #[test]
    fn a_statement_written_twice_in_its_file_is_changed_at_the_frames_copy() {
        let code = "def a():\n    import x\n\n\ndef b():\n    import x\n";
        let trace = Traceback {
            repo: vec![("m.py".into(), 6)],
            outside: Vec::new(),
        };
        let t = &targets(&trace, &[("m.py".into(), code.into())])[0];
        let reply = format!("{}import y\n>>>>>>> REPLACE\n", begun_reply(t));
        let Some(EditBlock {
            change: Change::Replace { search, replace },
            ..
        }) = change(t, &reply)
        else {
            panic!("no change read from {reply:?}");
        };
        assert_eq!(
            code.replacen(&search, &replace, 1),
            "def a():\n    import x\n\n\ndef b():\n    import y\n"
        );
    }

    #[test]
    fn a_statement_written_back_as_it_was_is_offered_once_more_hotter() {
        let t = targets(&trace(), &files());
        let copied = format!("{}{}\n>>>>>>> REPLACE\n", begun_reply(&t[0]), t[0].text);
        assert_eq!(change(&t[0], &copied), None);
        let mut q = Queue::new(t.clone());
        let first = q.next().unwrap();
        q.unchanged(first);
        let again = q.next().unwrap();
        assert_eq!((&again.target, again.temperature), (&t[0], TEMPERATURES[1]));
        q.unchanged(again);
        assert_eq!(q.next().map(|o| o.target), Some(t[1].clone()));
    }

    #[test]
    fn a_header_line_offers_nothing() {
        assert_eq!(statement_at(SPIDER, 2), None);
    }

    #[test]
    fn the_begun_reply_opens_a_block_at_the_statement() {
        let t = &targets(&trace(), &files())[1];
        assert_eq!(
            begun_reply(t),
            "utils.py\n```python\n<<<<<<< SEARCH\n        if line.lstrip().startswith('Sitemap:'):\n=======\n"
        );
    }

    #[test]
    fn the_model_s_new_line_replaces_the_statement_at_its_indent() {
        let t = &targets(&trace(), &files())[0];
        let reply = format!(
            "{}for url in sitemap_urls_from_robots(response.text):\n>>>>>>> REPLACE\n```\nThis decodes it.",
            begun_reply(t)
        );
        let Some(EditBlock {
            change: Change::Replace { search, replace },
            ..
        }) = change(t, &reply)
        else {
            panic!("no change read from {reply:?}");
        };
        assert_eq!(search, t.text);
        assert_eq!(
            replace,
            "            for url in sitemap_urls_from_robots(response.text):"
        );
    }

    #[test]
    fn a_reply_that_wrote_nothing_after_the_begun_part_makes_no_change() {
        let t = &targets(&trace(), &files())[0];
        assert_eq!(
            change(t, &format!("{}>>>>>>> REPLACE\n", begun_reply(t))),
            None
        );
    }
}
