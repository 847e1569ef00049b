//! Text helpers every layer uses: cutting text to a length with a visible mark.

/// Cuts `text` to at most `max` characters, marking the cut.
pub fn truncate_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push_str("\n[… truncated]");
    out
}
