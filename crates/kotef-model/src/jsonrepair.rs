//! Repairs the one JSON mistake small models make in tool calls written as text: string values
//! holding code with unescaped double quotes (a Python docstring's `"""`, `print("x")`) and raw
//! newlines or tabs. Pure functions; used only after strict parsing found no call.
//!
//! A `"` inside a string closes it only when what follows could follow a string in an object
//! or array: `:`, `}`, `]`, the end, or a comma then a key (`, "path":`), a value opener or a
//! closing bracket. Every other `"` inside a string is escaped.

/// Characters scanned per character of the content, at most, over all candidates: a reply of
/// unbalanced braces (`{{{{…`) would otherwise be scanned to its end from each of them.
const WORK_PER_CHAR: usize = 8;

/// Candidate objects in `content`: from each `{` outside an earlier candidate, the text up to
/// its balancing `}` with string contents repaired. Bounded by `max` candidates and by
/// [`WORK_PER_CHAR`] steps per character in all (linear in the content's length).
pub fn repaired_objects(content: &str, max: usize) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut work = content.len().saturating_mul(WORK_PER_CHAR).max(1 << 16);
    while let Some(rel) = content[i..].find('{') {
        if out.len() >= max || work == 0 {
            break;
        }
        let start = i + rel;
        match repair_from(&content[start..], &mut work) {
            Some((text, used)) => {
                out.push((start, text));
                i = start + used;
            }
            None => i = start + 1,
        }
    }
    out
}

/// Repairs one object starting at `s[0] == '{'`: the repaired text and the bytes of `s` used.
/// Each step spends one unit of `work`; none left ends the scan without an object.
fn repair_from(s: &str, work: &mut usize) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut at = 0;
    while let Some(c) = s[at..].chars().next() {
        *work = work.checked_sub(1)?;
        let next = s[at + c.len_utf8()..].chars().next();
        if in_string {
            match c {
                '\\' => match next {
                    // A valid escape is kept as it is.
                    Some(n @ ('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u')) => {
                        out.push(c);
                        out.push(n);
                        at += 1 + n.len_utf8();
                        continue;
                    }
                    // `\s` in a regex: the backslash itself was meant.
                    _ => out.push_str("\\\\"),
                },
                '"' if closes_string(&s[at + 1..]) => {
                    in_string = false;
                    out.push(c);
                }
                '"' => out.push_str("\\\""),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                _ => out.push(c),
            }
            at += c.len_utf8();
            continue;
        }
        // A Python triple-quoted string written as a value: `"content": """…"""`.
        if s[at..].starts_with("\"\"\"") {
            // The search is paid for whether it finds the close or not.
            let Some(close) = s[at + 3..].find("\"\"\"").map(|c| c + at + 3) else {
                *work = work.saturating_sub(s.len() - at);
                return None;
            };
            *work = work.checked_sub(close - at)?;
            let body = &s[at + 3..close];
            let body = body.strip_prefix('\n').unwrap_or(body);
            out.push_str(&serde_json::to_string(body).ok()?);
            at = close + 3;
            continue;
        }
        out.push(c);
        at += c.len_utf8();
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some((out, at));
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether a `"` followed by `rest` ends a string value or key.
fn closes_string(rest: &str) -> bool {
    let r = rest.trim_start_matches([' ', '\t', '\r', '\n']);
    let Some(first) = r.chars().next() else {
        return true;
    };
    match first {
        ':' | '}' | ']' => true,
        ',' => {
            let after = r[1..].trim_start_matches([' ', '\t', '\r', '\n']);
            match after.chars().next() {
                None => true,
                Some('{' | '[' | '}' | ']') => true,
                Some('"') => is_key(&after[1..]),
                Some(c) => {
                    c.is_ascii_digit()
                        || after.starts_with("true")
                        || after.starts_with("false")
                        || after.starts_with("null")
                }
            }
        }
        _ => false,
    }
}

/// Longest key [`is_key`] accepts, in bytes.
const MAX_KEY: usize = 40;

/// Whether `rest` (after an opening quote) is a short identifier key followed by `":`. Only
/// the first bytes are searched for the closing quote: a longer key is no key.
fn is_key(rest: &str) -> bool {
    let window = &rest.as_bytes()[..rest.len().min(MAX_KEY + 1)];
    let Some(end) = window.iter().position(|&b| b == b'"') else {
        return false;
    };
    let key = &rest[..end];
    !key.is_empty()
        && key.len() <= MAX_KEY
        && key.chars().all(|c| c.is_alphanumeric() || c == '_')
        && rest[end + 1..].trim_start().starts_with(':')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn parsed(content: &str) -> Vec<Value> {
        repaired_objects(content, 8)
            .into_iter()
            .filter_map(|(_, t)| serde_json::from_str(&t).ok())
            .collect()
    }

    /// A real Qwen2.5-Coder-1.5B reply (py-off-by-one): the right fix, in invalid JSON.
    const DOCSTRING_EDIT: &str = "```json\n{\n  \"name\": \"edit_file\",\n  \"arguments\": {\n    \"old\": \"def page(items, number, size):\\n    \"\"\"Items of the page.\"\"\"\\n    return items[start:start + size - 1]\\n\",\n    \"new\": \"def page(items, number, size):\\n    \"\"\"Items of the page.\"\"\"\\n    return items[start:start + size]\\n\",\n    \"path\": \"pager.py\"\n  }\n}\n```";

    #[test]
    fn unescaped_docstring_quotes_in_a_value_are_escaped() {
        assert_eq!(
            parsed(DOCSTRING_EDIT),
            [json!({"name": "edit_file", "arguments": {
                "old": "def page(items, number, size):\n    \"\"\"Items of the page.\"\"\"\n    return items[start:start + size - 1]\n",
                "new": "def page(items, number, size):\n    \"\"\"Items of the page.\"\"\"\n    return items[start:start + size]\n",
                "path": "pager.py"}})]
        );
    }

    #[test]
    fn a_call_in_code_with_quotes_and_a_comma_stays_inside_the_string() {
        let text =
            r#"{"name": "write_file", "arguments": {"path": "a.py", "content": "print("a", b)"}}"#;
        assert_eq!(
            parsed(text),
            [
                json!({"name": "write_file", "arguments": {"path": "a.py", "content": "print(\"a\", b)"}})
            ]
        );
    }

    #[test]
    fn raw_newlines_in_a_value_become_escapes() {
        let text = "{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.sh\", \"content\": \"wc -l\n\"}}";
        assert_eq!(
            parsed(text),
            [json!({"name": "write_file", "arguments": {"path": "a.sh", "content": "wc -l\n"}})]
        );
    }

    #[test]
    fn a_regex_escape_that_json_lacks_keeps_its_backslash() {
        let text = r#"{"name": "search", "arguments": {"pattern": "^\s*wc\s"}}"#;
        assert_eq!(
            parsed(text),
            [json!({"name": "search", "arguments": {"pattern": "^\\s*wc\\s"}})]
        );
    }

    #[test]
    fn a_triple_quoted_value_becomes_a_json_string() {
        let text = "{\"name\": \"write_file\", \"arguments\": {\"content\": \"\"\"\ndef median(v):\n    return v[0]\n\"\"\", \"path\": \"stats.py\"}}";
        assert_eq!(
            parsed(text),
            [
                json!({"name": "write_file", "arguments": {"content": "def median(v):\n    return v[0]\n", "path": "stats.py"}})
            ]
        );
    }

    #[test]
    fn valid_json_comes_back_unchanged() {
        let text = r#"prose {"name": "done", "arguments": {"summary": "say \"hi\""}} more"#;
        assert_eq!(
            repaired_objects(text, 8),
            [(
                6,
                r#"{"name": "done", "arguments": {"summary": "say \"hi\""}}"#.to_string()
            )]
        );
    }

    #[test]
    fn an_unbalanced_object_yields_nothing() {
        assert_eq!(
            repaired_objects(r#"{"name": "done", "arguments": {"#, 8),
            []
        );
    }

    /// Linear in the content (`cargo bench -p kotef-model --bench textcalls` holds the
    /// figure); here, what the bounded scan still finds.
    #[test]
    fn unbalanced_braces_yield_nothing_and_an_object_before_them_is_kept() {
        let hostile = "{\"".repeat(20_000);
        assert!(repaired_objects(&hostile, 16).is_empty());
        let object = r#"{"name": "done", "arguments": {"summary": "x"}}"#;
        assert_eq!(
            repaired_objects(&format!("{object}{hostile}"), 16),
            [(0, object.to_string())]
        );
    }

    #[test]
    fn an_unclosed_triple_quote_yields_nothing() {
        assert_eq!(repaired_objects(r#"{"content": """never closed"#, 8), []);
    }

    #[test]
    fn a_key_of_forty_bytes_closes_the_string_before_it_and_one_of_forty_one_does_not() {
        let object = |key: &str| format!(r#"{{"a": "x", "{key}": 1}}"#);
        let (forty, forty_one) = ("k".repeat(40), "k".repeat(41));
        assert_eq!(
            (parsed(&object(&forty)), parsed(&object(&forty_one))),
            (vec![json!({"a": "x", forty.as_str(): 1})], vec![])
        );
    }
}
