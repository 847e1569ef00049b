//! Untrusted text (anything a model, an issue or a run wrote) made inert in GitHub Markdown,
//! as pure functions: [`inert`] for one line of prose, [`code`] for a literal in a code span.
//!
//! Inert means: nothing it contains renders as markup or acts on GitHub. No HTML (`<`, `>`,
//! `&` become entities), no emphasis, links, images, headings or lists (`*`, `_` outside a word,
//! `](`, `][`, `![`, `#`, `~`, `\` and a leading `-`, `+`, `=`, `[` or `1.` are
//! backslash-escaped), no autolinks
//! (a word holding `://` or `www.` becomes a code span), no mentions or issue references (a
//! word joiner follows every `@`, and a `#` before a letter or digit: GitHub finds those in the
//! rendered text, where a backslash no longer is), one line, and a bounded length. A code
//! span the text already had is kept (inside one nothing renders). Table cells need nothing
//! more: `|` is escaped too.

/// The invisible character that breaks a mention (`@user`) or an issue reference (`#12`).
pub const WORD_JOINER: char = '\u{2060}';

/// Characters [`inert`] keeps at most by default.
pub const INERT_CAP: usize = 600;

/// `text` as one line of inert Markdown of at most `max` characters of the original (then
/// `…`); see the module documentation.
pub fn inert(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.trim();
    let capped: String = if flat.chars().count() > max {
        let mut cut: String = flat.chars().take(max).collect();
        cut.push('…');
        cut
    } else {
        flat.to_string()
    };
    let chars: Vec<char> = capped.chars().collect();
    let mut out = String::with_capacity(capped.len() + 16);
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '`' {
            if let Some((span, next)) = code_span_at(&chars, i) {
                out.push_str(&span.replace('|', "\\|"));
                i = next;
                continue;
            }
        }
        // A word starts after a space or a backtick (an escaped one, or the end of a span).
        let word_start = i == 0 || matches!(chars[i - 1], ' ' | '`');
        if word_start && chars[i] != ' ' {
            let end = chars[i..]
                .iter()
                .position(|c| *c == ' ')
                .map_or(chars.len(), |p| i + p);
            let word: String = chars[i..end].iter().collect();
            if is_link_like(&word) {
                out.push_str(&code(&word).replace('|', "\\|"));
                i = end;
                continue;
            }
        }
        push_escaped(&mut out, &chars, i);
        i += 1;
    }
    out
}

/// Whether GitHub could turn `word` into a link by itself.
fn is_link_like(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    lower.contains("://") || lower.contains("www.") || lower.contains("mailto:")
}

/// The code span that opens at `chars[at]` (a run of backticks closed by a run of the same
/// length), rendered again by [`code`], and the index after it.
fn code_span_at(chars: &[char], at: usize) -> Option<(String, usize)> {
    let run = |from: usize| chars[from..].iter().take_while(|c| **c == '`').count();
    let n = run(at);
    let mut j = at + n;
    while j < chars.len() {
        if chars[j] == '`' {
            let m = run(j);
            if m == n {
                let inner: String = chars[at + n..j].iter().collect();
                return Some((code(inner.trim()), j + m));
            }
            j += m;
        } else {
            j += 1;
        }
    }
    None
}

fn push_escaped(out: &mut String, chars: &[char], i: usize) {
    let c = chars[i];
    let next = chars.get(i + 1).copied();
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        // Inside a word (`test_answer.py`) `_` is never emphasis: left as it is.
        '_' if i > 0
            && chars[i - 1].is_alphanumeric()
            && next.is_some_and(char::is_alphanumeric) =>
        {
            out.push(c)
        }
        // A `]` ends a link only before `(` or `[` (a `[x]: url` definition needs the `[` at
        // the start, escaped below); a lone `[tag]` stays as it is.
        ']' if !matches!(next, Some('(' | '[')) => out.push(c),
        '|' | '\\' | '*' | '_' | ']' | '~' | '`' => {
            out.push('\\');
            out.push(c);
        }
        '!' if next == Some('[') => {
            out.push('\\');
            out.push(c);
        }
        '@' => {
            out.push('@');
            out.push(WORD_JOINER);
        }
        '#' => {
            out.push_str("\\#");
            if next.is_some_and(char::is_alphanumeric) {
                out.push(WORD_JOINER);
            }
        }
        '-' | '+' | '=' | '[' if i == 0 => {
            out.push('\\');
            out.push(c);
        }
        '.' | ')' if chars[..i].iter().all(char::is_ascii_digit) && i > 0 => {
            out.push('\\');
            out.push(c);
        }
        _ => out.push(c),
    }
}

/// Untrusted text (a file name, a command, a branch) as one CommonMark code span that nothing
/// inside can end early: the fence is one backtick longer than the longest run of backticks in
/// the text (padded with spaces when the text starts or ends with a backtick or a space), and
/// line breaks and other control characters become spaces, so the span stays on its line. Inside
/// a code span `<img>`, `@someone`, `#1` and `&amp;` are plain text: no markup, no mention.
/// In a table cell, escape `|` afterwards.
pub fn code(text: &str) -> String {
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = text.is_empty()
        || text.starts_with('`')
        || text.ends_with('`')
        || (text.starts_with(' ') && text.ends_with(' '));
    let pad = if pad { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`inert`] with the word joiner shown as `⁠` → `{WJ}` so snapshots are readable.
    fn shown(text: &str) -> String {
        inert(text, INERT_CAP).replace(WORD_JOINER, "{WJ}")
    }

    #[test]
    fn a_mention_is_broken_by_a_word_joiner() {
        insta::assert_snapshot!(shown("ping @mallory"), @"ping @{WJ}mallory");
    }

    #[test]
    fn a_team_mention_is_broken_too() {
        insta::assert_snapshot!(shown("@org/team"), @"@{WJ}org/team");
    }

    #[test]
    fn an_issue_reference_is_broken() {
        insta::assert_snapshot!(shown("see other/repo#12"), @r"see other/repo\#{WJ}12");
    }

    #[test]
    fn a_markdown_link_shows_its_target_as_code() {
        insta::assert_snapshot!(shown("[click here](https://evil.example/login)"), @r"\[click `here](https://evil.example/login)`");
    }

    #[test]
    fn an_image_is_not_rendered() {
        insta::assert_snapshot!(shown("![x](https://evil.example/a.png)"), @"`![x](https://evil.example/a.png)`");
    }

    #[test]
    fn a_bare_url_is_a_code_span() {
        insta::assert_snapshot!(shown("go to https://evil.example now"), @"go to `https://evil.example` now");
    }

    #[test]
    fn a_www_address_is_a_code_span() {
        insta::assert_snapshot!(shown("visit www.evil.example"), @"visit `www.evil.example`");
    }

    #[test]
    fn emphasis_is_escaped() {
        insta::assert_snapshot!(shown("**bold** _it_ ~~gone~~"), @r"\*\*bold\*\* \_it\_ \~\~gone\~\~");
    }

    #[test]
    fn html_is_escaped() {
        insta::assert_snapshot!(shown("<img src=x> & <!-- kotef:run -->"), @"&lt;img src=x&gt; &amp; &lt;!-- kotef:run --&gt;");
    }

    #[test]
    fn a_heading_or_list_marker_at_the_start_is_escaped() {
        assert_eq!(
            [shown("# Title"), shown("- item"), shown("1. first")],
            [r"\# Title", r"\- item", r"1\. first"]
        );
    }

    #[test]
    fn an_underscore_inside_a_word_is_left_alone() {
        insta::assert_snapshot!(shown("fix test_answer.py _now_"), @r"fix test_answer.py \_now\_");
    }

    #[test]
    fn a_link_without_a_url_scheme_is_broken_at_its_bracket() {
        insta::assert_snapshot!(shown("[settings](/settings/tokens) [a][b]"), @r"\[settings\](/settings/tokens) [a\][b]");
    }

    #[test]
    fn a_link_definition_at_the_start_is_broken() {
        insta::assert_snapshot!(shown("[x]: /settings"), @r"\[x]: /settings");
    }

    #[test]
    fn a_bracketed_tag_is_left_alone() {
        insta::assert_snapshot!(shown("failed [tooling_error]"), @"failed [tooling_error]");
    }

    #[test]
    fn a_code_span_is_kept() {
        insta::assert_snapshot!(shown("Fixed `add()` to return a + b"), @"Fixed `add()` to return a + b");
    }

    #[test]
    fn a_mention_inside_a_code_span_stays_literal_code() {
        insta::assert_snapshot!(shown("ran `echo @x <b>`"), @"ran `echo @x <b>`");
    }

    #[test]
    fn an_unclosed_backtick_is_escaped() {
        insta::assert_snapshot!(shown("a ` b"), @r"a \` b");
    }

    #[test]
    fn lines_become_one() {
        insta::assert_snapshot!(shown("one\n\n# two\r\nthree"), @r"one  \# two  three");
    }

    #[test]
    fn pipes_are_escaped_for_table_cells() {
        insta::assert_snapshot!(shown("a | b `c|d`"), @r"a \| b `c\|d`");
    }

    #[test]
    fn long_text_is_capped() {
        assert_eq!(inert(&"a".repeat(50), 10), format!("{}…", "a".repeat(10)));
    }

    #[test]
    fn a_url_right_after_a_code_span_is_a_code_span() {
        insta::assert_snapshot!(shown("`x`https://evil.example"), @"`x``https://evil.example`");
    }

    #[test]
    fn an_email_address_is_not_linked() {
        insta::assert_snapshot!(shown("mail a@evil.example"), @"mail a@{WJ}evil.example");
    }
}
