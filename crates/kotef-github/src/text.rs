//! Text helpers every layer uses: cutting text to a length with a visible mark.

/// Cuts `text` to at most `max` characters, marking the cut.
pub fn truncate_chars(text: &str, max: usize) -> String {
    kotef_core::text::cut_end(text, max, "\n[… truncated]")
}
