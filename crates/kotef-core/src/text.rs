//! Cutting text to a length, the one way every crate does it: counted in characters (never
//! splitting one), with a visible mark where text was left out.

/// `text` unchanged when it has at most `max` characters, otherwise its first `max` followed
/// by `mark` (`"…"`, `"\n[… truncated]"`).
pub fn cut_end(text: &str, max: usize, mark: &str) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}{mark}", &text[..i]),
        None => text.to_string(),
    }
}

/// `text` unchanged when it has at most `max` characters, otherwise its first `head` and last
/// `tail` characters with a line between them saying how many were cut (a test log's start
/// names the command, its end the verdict).
pub fn cut_middle(text: &str, max: usize, head: usize, tail: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let (head, tail) = (head.min(n), tail.min(n.saturating_sub(head)));
    let first: String = text.chars().take(head).collect();
    let last: String = text.chars().skip(n - tail).collect();
    format!(
        "{first}\n[... {} characters cut ...]\n{last}",
        n - head - tail
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_as_it_is() {
        assert_eq!(cut_end("abc", 3, "…"), "abc");
        assert_eq!(cut_middle("abc", 3, 1, 1), "abc");
    }

    #[test]
    fn the_end_is_cut_at_a_character_not_a_byte() {
        assert_eq!(cut_end("ééééé", 2, "…"), "éé…");
    }

    #[test]
    fn the_middle_cut_keeps_both_ends_and_counts_what_it_left_out() {
        assert_eq!(
            cut_middle("0123456789", 4, 2, 2),
            "01\n[... 6 characters cut ...]\n89"
        );
    }
}
