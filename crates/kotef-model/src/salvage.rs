//! A reply cut off by the token cap may still hold a usable tool call. A small model that
//! wrote exactly the right `edit_file` (`"new": "return gcd(b, a % b)"`) and then `\n` until
//! `max_tokens` used to lose the fix: the cut-off JSON never parsed. [`salvage_call`] reads the
//! call's arguments field by field; every field must be complete except, possibly, the last
//! one, and that one only when it ends in a runaway (a long run of whitespace or `\n`
//! escapes), which is cut off. A text cut mid-code is not salvaged: writing half a file is
//! worse than asking again.

use crate::types::{ToolCall, ToolSchema};
use serde_json::{Map, Value};

/// Whitespace characters (or `\n`/`\t`/`\r` escapes) at the end of an unfinished string that
/// count as a runaway.
const RUNAWAY: usize = 8;

/// The tool call a cut-off `content` holds, when its arguments can be recovered whole (see
/// the module doc). Only tools in `tools` are taken.
pub fn salvage_call(content: &str, tools: &[ToolSchema]) -> Option<ToolCall> {
    let (name, rest) = find_call(content, tools)?;
    let schema = tools.iter().find(|t| t.name == name)?;
    let (args, partial) = read_fields(rest)?;
    let required: Vec<&str> = schema.parameters["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if required.iter().any(|r| !args.contains_key(*r)) {
        return None;
    }
    let empty = |p: &String| {
        args.get(p)
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
    };
    if partial.as_ref().is_some_and(empty) {
        return None;
    }
    Some(ToolCall {
        id: "call_salvaged".into(),
        name: name.to_string(),
        arguments: Value::Object(args),
    })
}

/// The last `"name": "<offered tool>", "arguments": {` in `content`, and the text after `{`.
fn find_call<'a>(content: &'a str, tools: &'a [ToolSchema]) -> Option<(&'a str, &'a str)> {
    let mut found = None;
    for (at, _) in content.match_indices("\"name\"") {
        let rest = content[at + 6..]
            .trim_start()
            .strip_prefix(':')?
            .trim_start();
        let Some((Some(name), rest)) = string_literal(rest) else {
            continue;
        };
        let Some(tool) = tools.iter().find(|t| t.name == name) else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(rest) = rest.strip_prefix(',') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("\"arguments\"") else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix(':') else {
            continue;
        };
        if let Some(body) = rest.trim_start().strip_prefix('{') {
            found = Some((tool.name.as_str(), body));
        }
    }
    found
}

/// The fields of an object body (after `{`): complete ones, and at most one unfinished string
/// at the end, kept only when it ends in a runaway (its name is returned).
fn read_fields(body: &str) -> Option<(Map<String, Value>, Option<String>)> {
    let mut out = Map::new();
    let mut rest = body;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if rest.is_empty() || rest.starts_with('}') {
            return Some((out, None));
        }
        let (key, after) = string_literal(rest)?;
        let key = key?;
        let after = after.trim_start().strip_prefix(':')?.trim_start();
        if let Some(unquoted) = after.strip_prefix('"') {
            let (value, tail) = string_literal(after)?;
            match value {
                Some(v) => {
                    out.insert(key.clone(), Value::String(v));
                    rest = tail;
                }
                None => {
                    let v = runaway_prefix(unquoted)?;
                    out.insert(key.clone(), Value::String(v));
                    return Some((out, Some(key)));
                }
            }
        } else {
            let len = scalar_len(after)?;
            out.insert(key, serde_json::from_str(&after[..len]).ok()?);
            rest = &after[len..];
        }
    }
}

/// A JSON string literal at the start of `s`: `(Some(value), rest)` when it is closed,
/// `(None, "")` when the text ends inside it.
fn string_literal(s: &str) -> Option<(Option<String>, &str)> {
    let inner = s.strip_prefix('"')?;
    let mut escaped = false;
    for (i, c) in inner.char_indices() {
        match (escaped, c) {
            (true, _) => escaped = false,
            (false, '\\') => escaped = true,
            (false, '"') => return Some((Some(decode(&inner[..i])?), &inner[i + 1..])),
            _ => {}
        }
    }
    Some((None, ""))
}

/// The decoded text of an unfinished string whose tail is a runaway (at least [`RUNAWAY`]
/// whitespace characters or escapes), with that tail removed; `None` otherwise.
fn runaway_prefix(raw: &str) -> Option<String> {
    let mut cut = raw;
    let mut run = 0;
    loop {
        let t = cut.trim_end_matches(|c: char| c.is_whitespace());
        run += cut.len() - t.len();
        cut = t;
        // A lone backslash the cap left behind.
        if cut.ends_with('\\') && !cut.ends_with("\\\\") {
            cut = &cut[..cut.len() - 1];
            continue;
        }
        match ["\\n", "\\t", "\\r"].iter().find(|e| cut.ends_with(*e)) {
            Some(e) if !cut[..cut.len() - e.len()].ends_with('\\') => {
                cut = &cut[..cut.len() - e.len()];
                run += 1;
            }
            _ => break,
        }
    }
    if run < RUNAWAY {
        return None;
    }
    decode(cut)
}

/// The value of a JSON string's inside, forgiving raw newlines and tabs (small models write
/// them into strings as they are).
fn decode(inner: &str) -> Option<String> {
    let escaped = inner
        .replace('\n', "\\n")
        .replace('\r', "\\r")
        .replace('\t', "\\t");
    serde_json::from_str::<String>(&format!("\"{escaped}\"")).ok()
}

/// Bytes of a number, `true`/`false`/`null`, array or object at the start of `s` (up to the
/// `,` or `}` that ends it at depth 0); `None` when the text ends first.
fn scalar_len(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut in_str = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '[' | '{' => depth += 1,
            ']' | '}' if depth > 0 => depth -= 1,
            ',' | '}' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<ToolSchema> {
        let schema = |req: &[&str]| json!({"type": "object", "required": req});
        vec![
            ToolSchema {
                name: "edit_file".into(),
                description: String::new(),
                parameters: schema(&["path", "old", "new"]),
            },
            ToolSchema {
                name: "write_file".into(),
                description: String::new(),
                parameters: schema(&["path", "content"]),
            },
        ]
    }

    const GCD: &str = r#"{"name": "edit_file", "arguments": {"path": "gcd.py", "old": "    return gcd(a, a % b)", "new": "    return gcd(b, a % b)"#;

    #[test]
    fn a_right_edit_followed_by_runaway_newlines_is_kept() {
        let content = format!("{GCD}{}", "\\n".repeat(400));
        let call = salvage_call(&content, &tools()).unwrap();
        assert_eq!(call.name, "edit_file");
        assert_eq!(call.arguments["new"], "    return gcd(b, a % b)");
        assert_eq!(call.arguments["path"], "gcd.py");
    }

    #[test]
    fn raw_newlines_count_as_a_runaway_too() {
        let content = format!("<tool_call>\n{GCD}{}", "\n".repeat(50));
        let call = salvage_call(&content, &tools()).unwrap();
        assert_eq!(call.arguments["new"], "    return gcd(b, a % b)");
    }

    #[test]
    fn a_cut_in_the_middle_of_code_is_not_salvaged() {
        let content = r#"{"name": "write_file", "arguments": {"path": "a.py", "content": "def f(x):\n    return x +"#;
        assert_eq!(salvage_call(content, &tools()), None);
    }

    #[test]
    fn a_missing_required_field_is_not_salvaged() {
        let content = format!(
            r#"{{"name": "edit_file", "arguments": {{"path": "gcd.py", "new": "x{}"#,
            "\\n".repeat(20)
        );
        assert_eq!(salvage_call(&content, &tools()), None);
    }

    #[test]
    fn a_tool_that_was_not_offered_is_not_salvaged() {
        let content = format!(
            r#"{{"name": "rm_rf", "arguments": {{"path": "x{}"#,
            "\\n".repeat(20)
        );
        assert_eq!(salvage_call(&content, &tools()), None);
    }

    #[test]
    fn raw_newlines_inside_a_complete_value_are_forgiven() {
        let content = format!(
            "{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a.py\", \"content\": \"def f():\n    return 1\n{}",
            "\n".repeat(30)
        );
        let call = salvage_call(&content, &tools()).unwrap();
        assert_eq!(call.arguments["content"], "def f():\n    return 1");
    }

    #[test]
    fn a_runaway_of_only_a_few_newlines_is_no_runaway() {
        let content = format!("{GCD}\\n\\n");
        assert_eq!(salvage_call(&content, &tools()), None);
    }
}
