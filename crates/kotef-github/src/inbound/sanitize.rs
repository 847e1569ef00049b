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

/// The phrase that starts a run when no other is configured.
pub const DEFAULT_TRIGGER_PHRASE: &str = "/kotef run";

/// A trigger phrase's command found in a comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// The phrase (`/kotef run`), then more goal text.
    Run { extra: String },
    /// The phrase's first word followed by something else (`/kotef help`).
    Unknown(String),
}

/// Finds the first `/kotef run` line in a comment's visible text (see [`find_phrase`]).
pub fn find_command(body: &str) -> Option<Command> {
    find_phrase(body, DEFAULT_TRIGGER_PHRASE)
}

/// Finds the first line of a comment's visible text that starts with `phrase` (its words, as
/// words: `/kotef run` does not match `/kotefrun`), ignoring fenced code blocks (```` ``` ````
/// or `~~~`), indented code (4 spaces or a tab) and `>` quotes. A line that starts with the
/// phrase's first word but goes on differently is an [`Command::Unknown`] command. A blank
/// phrase matches nothing.
pub fn find_phrase(body: &str, phrase: &str) -> Option<Command> {
    let words: Vec<&str> = phrase.split_whitespace().collect();
    let (first, more) = words.split_first()?;
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
        let Some(mut rest) = strip_word(trimmed, first) else {
            continue;
        };
        let mut unknown = None;
        for word in more {
            match strip_word(rest.trim_start(), word) {
                Some(r) => rest = r,
                None => {
                    let next = rest.split_whitespace().next().unwrap_or_default();
                    unknown = Some(Command::Unknown(next.to_string()));
                    break;
                }
            }
        }
        return Some(unknown.unwrap_or_else(|| Command::Run {
            extra: rest.trim().to_string(),
        }));
    }
    None
}

/// `text` after its leading `word`, when the word ends there (at whitespace or the end).
fn strip_word<'t>(text: &'t str, word: &str) -> Option<&'t str> {
    let rest = text.strip_prefix(word)?;
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then_some(rest)
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
    fn a_configured_phrase_starts_a_run_and_the_default_then_does_not() {
        assert_eq!(
            find_phrase("hi\n@kotef please fix it", "@kotef"),
            Some(Command::Run {
                extra: "please fix it".into()
            })
        );
        assert_eq!(find_phrase("/kotef run", "@kotef"), None);
        assert_eq!(find_phrase("@kotefbot go", "@kotef"), None);
        assert_eq!(find_phrase("> @kotef go", "@kotef"), None);
        assert_eq!(
            find_phrase("/ai  fix now", "/ai fix"),
            Some(Command::Run {
                extra: "now".into()
            })
        );
        assert_eq!(
            find_phrase("/ai help", "/ai fix"),
            Some(Command::Unknown("help".into()))
        );
        assert_eq!(find_phrase("/kotef run", "  "), None);
    }

    #[test]
    fn truncation_marks_the_cut() {
        assert_eq!(truncate_chars("abc", 5), "abc");
        assert_eq!(truncate_chars("abcdef", 3), "abc\n[… truncated]");
    }
}
