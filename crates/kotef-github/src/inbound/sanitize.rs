//! Text that reaches the agent from GitHub: only what a reader sees. Bodies are rendered from
//! Markdown to their visible text (see [`crate::inbound::visible`]), titles lose invisible characters
//! (zero-width, bidi controls, tag characters), so nothing hidden from a human reviewer can
//! steer a run. Also finds the `/kotef run` command outside code blocks and quotes.

/// Whether `c` is invisible or reorders text: zero-width characters, bidi controls, tag
/// characters, variation selectors and similar format characters.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}'
        | '\u{3164}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{FEFF}'
        | '\u{FFA0}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{E0000}'..='\u{E007F}'
        | '\u{E0100}'..='\u{E01EF}')
}

/// A title or other plain (unrendered) text without invisible characters. GitHub shows such
/// text literally, so everything else in it is visible.
pub fn plain_text(text: &str) -> String {
    text.chars().filter(|c| !is_invisible(*c)).collect()
}

/// What a reader sees of a GitHub Markdown body, as plain Markdown-ish text: paragraphs,
/// headings, lists, quotes (`> `), code (fenced), link text and tables are kept; raw HTML
/// blocks and inline HTML (comments, tags and their attributes), link reference definitions,
/// link URLs and titles, image alt text and invisible characters are dropped.
pub fn visible_text(markdown: &str) -> String {
    crate::inbound::visible::render(&plain_text(markdown))
}

/// A `/kotef` command found in a comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `/kotef run [more goal text]`.
    Run { extra: String },
    /// `/kotef <something else>`.
    Unknown(String),
}

/// Finds the first `/kotef` command line in a comment's visible text, ignoring fenced
/// code blocks (```` ``` ```` or `~~~`), indented code (4 spaces or a tab) and `>` quotes.
pub fn find_command(body: &str) -> Option<Command> {
    let mut fence: Option<(char, usize)> = None;
    for line in body.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let trimmed = line.trim();
        if let Some((ch, len)) = fence {
            let run = trimmed.chars().take_while(|c| *c == ch).count();
            if run >= len && trimmed[run * ch.len_utf8()..].trim().is_empty() {
                fence = None;
            }
            continue;
        }
        if indent >= 4 || line.starts_with('\t') {
            continue;
        }
        for ch in ['`', '~'] {
            let run = trimmed.chars().take_while(|c| *c == ch).count();
            if run >= 3 {
                fence = Some((ch, run));
            }
        }
        if fence.is_some() || trimmed.starts_with('>') {
            continue;
        }
        let Some(rest) = trimmed.strip_prefix("/kotef") else {
            continue;
        };
        if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
            continue;
        }
        let rest = rest.trim();
        let (word, extra) = rest
            .split_once(char::is_whitespace)
            .map(|(w, e)| (w, e.trim()))
            .unwrap_or((rest, ""));
        return Some(if word == "run" {
            Command::Run {
                extra: extra.to_string(),
            }
        } else {
            Command::Unknown(word.to_string())
        });
    }
    None
}

pub use crate::text::truncate_chars;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_loses_only_invisible_characters() {
        assert_eq!(plain_text("a<b>\u{200B}c\u{202E}d\u{E0041}"), "a<b>cd");
        assert_eq!(plain_text("emoji 👀 stays"), "emoji 👀 stays");
    }

    #[test]
    fn finds_run_command_with_extra_goal() {
        assert_eq!(
            find_command("please\n/kotef run also fix the docs\nthanks"),
            Some(Command::Run {
                extra: "also fix the docs".into()
            })
        );
        assert_eq!(
            find_command("/kotef run"),
            Some(Command::Run { extra: "".into() })
        );
        assert_eq!(
            find_command("  /kotef   run  x "),
            Some(Command::Run { extra: "x".into() })
        );
        assert_eq!(
            find_command("/kotef help"),
            Some(Command::Unknown("help".into()))
        );
    }

    #[test]
    fn ignores_commands_in_code_quotes_and_lookalikes() {
        assert_eq!(find_command("```\n/kotef run\n```"), None);
        assert_eq!(find_command("~~~~sh\n/kotef run\n~~~~\n"), None);
        assert_eq!(find_command("    /kotef run"), None);
        assert_eq!(find_command("\t/kotef run"), None);
        assert_eq!(find_command("> /kotef run"), None);
        assert_eq!(find_command("/kotefrun"), None);
        assert_eq!(find_command("run /kotef run"), None);
        assert_eq!(
            find_command("```\nx\n```\n/kotef run after"),
            Some(Command::Run {
                extra: "after".into()
            })
        );
        // A hidden command only counts when a reader would see it (they would not).
        assert_eq!(find_command(&visible_text("<!-- /kotef run -->")), None);
        assert_eq!(
            find_command(&visible_text("[//]: # (\n/kotef run\n)")),
            None
        );
        assert_eq!(
            find_command(&visible_text("```\n/kotef run\n```")),
            None,
            "code stays code after rendering"
        );
    }

    #[test]
    fn truncation_marks_the_cut() {
        assert_eq!(truncate_chars("abc", 5), "abc");
        assert_eq!(truncate_chars("abcdef", 3), "abc\n[… truncated]");
    }
}
