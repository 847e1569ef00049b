//! The lines of a file nearest to a text the model quoted, for `edit_file`'s "0 matches"
//! error: small models often quote code they have not seen exactly (wrong indentation, an
//! invented line); showing the real lines lets the next call copy them. Pure functions.

/// File lines compared at most (a window starts within them).
const MAX_FILE_LINES: usize = 5000;
/// Lines of `old` compared at most.
const MAX_OLD_LINES: usize = 20;
/// Below this mean similarity nothing is close enough to show.
const MIN_SCORE: f64 = 0.3;

/// The window of `text` whose lines are most like `old`'s, line by line: its 1-based first and
/// last line numbers and its lines (joined with `\n`). `None` when `old` has no non-blank line
/// or nothing is similar enough.
pub fn closest_lines(text: &str, old: &str) -> Option<(usize, usize, String)> {
    let old_lines: Vec<&str> = trim_blank_edges(old.lines().collect())
        .into_iter()
        .take(MAX_OLD_LINES)
        .collect();
    if old_lines.is_empty() {
        return None;
    }
    let file: Vec<&str> = text.lines().collect();
    if file.is_empty() {
        return None;
    }
    let k = old_lines.len().min(file.len());
    let last_start = (file.len() - k).min(MAX_FILE_LINES);
    let mut best: Option<(f64, usize)> = None;
    for start in 0..=last_start {
        let score = old_lines
            .iter()
            .zip(&file[start..start + k])
            .map(|(a, b)| line_similarity(a, b))
            .sum::<f64>()
            / old_lines.len() as f64;
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, start));
        }
    }
    let (score, start) = best?;
    if score < MIN_SCORE {
        return None;
    }
    Some((start + 1, start + k, file[start..start + k].join("\n")))
}

/// Similarity of two lines in 0..=1, ignoring leading and trailing whitespace (bigram Dice).
fn line_similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (a.trim(), b.trim());
    if a == b {
        return 1.0;
    }
    strsim::sorensen_dice(a, b)
}

fn trim_blank_edges(mut lines: Vec<&str>) -> Vec<&str> {
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    let first = lines
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(lines.len());
    lines.split_off(first)
}

/// The hint appended to an `edit_file` "0 matches" error: the closest real lines in a code
/// fence, or nothing.
pub fn closest_hint(text: &str, old: &str) -> String {
    match closest_lines(text, old) {
        Some((first, last, lines)) => {
            let range = if first == last {
                format!("line {first}")
            } else {
                format!("lines {first}-{last}")
            };
            format!("\nThe closest text in the file ({range}) is:\n```\n{lines}\n```")
        }
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALC: &str = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";

    #[test]
    fn an_invented_line_finds_the_real_one() {
        let got = closest_lines(CALC, "return a-b");
        assert_eq!(got, Some((2, 2, "    return a - b".into())));
    }

    #[test]
    fn wrong_indentation_finds_the_same_lines() {
        let got = closest_lines(CALC, "def mul(a, b):\nreturn a * b");
        assert_eq!(got, Some((5, 6, "def mul(a, b):\n    return a * b".into())));
    }

    #[test]
    fn blank_lines_around_old_are_ignored() {
        let got = closest_lines(CALC, "\n\ndef add(a,b):\n\n");
        assert_eq!(got.map(|g| g.0), Some(1));
    }

    #[test]
    fn nothing_similar_is_nothing() {
        assert_eq!(closest_lines(CALC, "zzzzqqqq xxxx"), None);
    }

    #[test]
    fn blank_old_or_empty_file_is_nothing() {
        assert_eq!(closest_lines(CALC, "  \n"), None);
        assert_eq!(closest_lines("", "return a"), None);
    }

    #[test]
    fn old_longer_than_the_file_compares_what_there_is() {
        let got = closest_lines("x = 1\n", "x = 1\ny = 2\nz = 3");
        assert_eq!(got, Some((1, 1, "x = 1".into())));
    }

    #[test]
    fn the_hint_fences_the_lines_and_names_the_range() {
        let hint = closest_hint(CALC, "return a-b");
        assert_eq!(
            hint,
            "\nThe closest text in the file (line 2) is:\n```\n    return a - b\n```"
        );
        assert_eq!(closest_hint(CALC, "qqqq"), "");
    }

    #[test]
    fn a_huge_file_is_searched_within_bounds() {
        let text = "let x = 1;\n".repeat(200_000);
        assert!(closest_lines(&text, "let x = 2;").is_some());
    }
}
