//! Tool calls a model wrote as text. Small local models (Qwen2.5-Coder on raw llama.cpp, for
//! one) often answer with the call in `content` instead of `tool_calls`; this module finds
//! them, leniently, as pure functions:
//!
//! - `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (Qwen/Hermes),
//! - `<function name="edit_file" arguments='{…}'/>` tags (inside `<tools>` or not),
//! - fenced ```` ```json ```` blocks and bare JSON anywhere in prose: objects
//!   `{"name", "arguments" | "parameters" | "args" | "input"}`, `{"function": {…}}`,
//!   `{"tool_calls": […]}`, `{"TOOL": {…}}`, and arrays of them; arguments may be an object
//!   or a JSON text;
//! - when none of these parse, the same objects with unescaped quotes and raw newlines inside
//!   their strings repaired (`jsonrepair`): a small model writing code into `old`/`new`.
//!
//! Only names of offered tools count, so prose holding a JSON example that is not a call
//! yields nothing. [`expected_call_shape`] renders the exact form a caller can show the model
//! in a corrective message when nothing parses.

use crate::types::{ToolCall, ToolSchema};
use crate::wire::parse_arguments;
use serde_json::{json, Map, Value};
use std::collections::HashSet;

/// Prefix of the ids given to calls parsed from text (`text_call_0`, `text_call_1`, ...).
pub const TEXT_CALL_ID_PREFIX: &str = "text_call_";

/// Objects repaired and retried at most when nothing parsed strictly.
const MAX_REPAIRED_OBJECTS: usize = 16;

/// Start positions a JSON value is tried at before the scan gives up; bounds the work on
/// long replies full of braces.
const MAX_JSON_ATTEMPTS: usize = 2000;

/// The tool calls written in `content`, in the order they appear, each named after one of
/// `offered`. Exact repeats of a call are kept once. Empty when nothing parses.
pub fn parse_text_tool_calls(content: &str, offered: &[&str]) -> Vec<ToolCall> {
    if offered.is_empty() || content.trim().is_empty() {
        return Vec::new();
    }
    let mut found: Vec<(usize, String, Value)> = Vec::new();
    let mut taken: Vec<(usize, usize)> = Vec::new();
    for tag in function_tags(content) {
        taken.push((tag.start, tag.end));
        if let Some(call) = tag
            .call
            .filter(|(name, _)| offered.contains(&name.as_str()))
        {
            found.push((tag.start, call.0, call.1));
        }
    }
    for (start, value) in json_values(content, &taken) {
        let mut calls = Vec::new();
        calls_in_value(&value, offered, &mut calls);
        found.extend(calls.into_iter().map(|(n, a)| (start, n, a)));
    }
    if found.is_empty() {
        // Nothing parsed strictly: code in a value often has unescaped quotes.
        for (start, text) in crate::jsonrepair::repaired_objects(content, MAX_REPAIRED_OBJECTS) {
            if let Ok(value) = serde_json::from_str::<Value>(&text) {
                let mut calls = Vec::new();
                calls_in_value(&value, offered, &mut calls);
                found.extend(calls.into_iter().map(|(n, a)| (start, n, a)));
            }
        }
    }
    found.sort_by_key(|(pos, _, _)| *pos);
    let mut out: Vec<ToolCall> = Vec::new();
    // Calls already kept, by name and arguments' text (object keys are sorted, so equal
    // arguments have equal text): one lookup per call, not a pass over all the calls kept.
    let mut seen: HashSet<(String, String)> = HashSet::new();
    for (_, name, arguments) in found {
        if !seen.insert((name.clone(), arguments.to_string())) {
            continue;
        }
        out.push(ToolCall {
            id: format!("{TEXT_CALL_ID_PREFIX}{}", out.len()),
            name,
            arguments,
        });
    }
    out
}

/// Whether a call's id says it was parsed from text by [`parse_text_tool_calls`].
pub fn is_text_call(call: &ToolCall) -> bool {
    call.id.starts_with(TEXT_CALL_ID_PREFIX)
}

/// A corrective message for a model whose reply held no usable tool call: the exact shape of a
/// call, shown with a real call (a tool that needs no arguments when there is one, so there is
/// no placeholder to copy back), and each tool's arguments.
pub fn expected_call_shape(tools: &[ToolSchema]) -> String {
    let example = tools
        .iter()
        .find(|t| required(&t.parameters).is_empty())
        .map(|t| call_text(&t.name, &json!({})))
        .or_else(|| {
            tools.first().map(|t| {
                let args: Map<String, Value> = required(&t.parameters)
                    .into_iter()
                    .map(|k| (k.to_string(), json!("...")))
                    .collect();
                call_text(&t.name, &Value::Object(args))
            })
        })
        .unwrap_or_else(|| call_text("done", &json!({})));
    let signatures: Vec<String> = tools.iter().map(signature).collect();
    format!(
        "Your reply contained no tool call. Reply with exactly one tool call: use the \
         tool-calling interface or, if you cannot, write exactly this form and no other text:\n\
         <tool_call>\n{example}\n</tool_call>\n\
         The tools and their arguments (? = optional): {}.",
        signatures.join(", ")
    )
}

/// `{"name": NAME, "arguments": ARGS}` with the name first, as a model should write it.
pub fn call_text(name: &str, arguments: &Value) -> String {
    format!(
        "{{\"name\": {}, \"arguments\": {}}}",
        json!(name),
        arguments
    )
}

/// The required parameter names of a JSON schema.
fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `name(required, optional?)` from a tool's schema.
fn signature(tool: &ToolSchema) -> String {
    let req = required(&tool.parameters);
    let mut args: Vec<String> = req.iter().map(|k| k.to_string()).collect();
    if let Some(props) = tool.parameters.get("properties").and_then(Value::as_object) {
        args.extend(
            props
                .keys()
                .filter(|k| !req.contains(&k.as_str()))
                .map(|k| format!("{k}?")),
        );
    }
    format!("{}({})", tool.name, args.join(", "))
}

/// One `<function …>` tag: where it is and the call it holds, when it names one.
struct FunctionTag {
    start: usize,
    end: usize,
    call: Option<(String, Value)>,
}

/// `<function name="X" arguments='{…}'/>` (attributes in either quote style, `parameters` as a
/// synonym, the arguments optionally as the element's body before `</function>`), and
/// `<function=X>` with a JSON body or `<parameter=KEY>VALUE</parameter>` pairs (Qwen3-Coder).
fn function_tags(content: &str) -> Vec<FunctionTag> {
    let mut out = Vec::new();
    let mut from = 0;
    let mut closes = NextMatch::new(content, "</function>");
    let mut name_ends = NextMatch::new(content, ">");
    while let Some(rel) = content[from..].find("<function") {
        let start = from + rel;
        let after = &content[start + "<function".len()..];
        if let Some(tag) = function_equals_tag(content, start, &mut name_ends, &mut closes) {
            from = tag.end;
            out.push(tag);
            continue;
        }
        if !after.starts_with(|c: char| c.is_whitespace()) {
            from = start + 1;
            continue;
        }
        let Some((attrs, tag_len, self_closing)) = tag_attributes(after) else {
            from = start + 1;
            continue;
        };
        let mut end = start + "<function".len() + tag_len;
        let name = attr(&attrs, "name");
        let mut arguments = attr(&attrs, "arguments").or_else(|| attr(&attrs, "parameters"));
        if !self_closing {
            if let Some(close) = closes.at_or_after(end) {
                let body = content[end..close].trim();
                if arguments.is_none() && !body.is_empty() {
                    arguments = Some(body.to_string());
                }
                end = close + "</function>".len();
            }
        }
        let call = name.map(|n| {
            let args = arguments.map(|a| Value::String(unescape_xml(&a)));
            (n, parse_arguments(args.as_ref()))
        });
        out.push(FunctionTag { start, end, call });
        from = end;
    }
    out
}

/// The first match of a needle at or after a position, for positions that only grow: each
/// byte of the content is searched once over all the questions, so finding the closing tag
/// of every one of many unclosed tags stays linear in the content.
struct NextMatch<'a> {
    content: &'a str,
    needle: &'a str,
    /// The last search: where it started and what it found.
    last: Option<(usize, Option<usize>)>,
}

impl<'a> NextMatch<'a> {
    fn new(content: &'a str, needle: &'a str) -> Self {
        Self {
            content,
            needle,
            last: None,
        }
    }

    /// The start of the first match at or after `from` (`from` at least the last one asked).
    fn at_or_after(&mut self, from: usize) -> Option<usize> {
        match self.last {
            // Nothing from an earlier position on: nothing from a later one either.
            Some((searched, None)) if searched <= from => return None,
            Some((searched, Some(at))) if searched <= from && at >= from => return Some(at),
            _ => {}
        }
        let found = self
            .content
            .get(from..)
            .and_then(|rest| rest.find(self.needle))
            .map(|at| from + at);
        self.last = Some((from, found));
        found
    }
}

/// `<function=NAME>BODY</function>` at `start` (the closing tag may be missing at the end).
fn function_equals_tag(
    content: &str,
    start: usize,
    name_ends: &mut NextMatch,
    closes: &mut NextMatch,
) -> Option<FunctionTag> {
    let head_start = start + "<function=".len();
    let head = content[start..].strip_prefix("<function=")?;
    let close = name_ends.at_or_after(head_start)? - head_start;
    let name = head[..close].trim().trim_matches(['"', '\'']);
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    let body_start = head_start + close + 1;
    let (body, end) = match closes.at_or_after(body_start) {
        Some(at) => (&content[body_start..at], at + "</function>".len()),
        None => (&content[body_start..], content.len()),
    };
    let body = body.trim();
    let arguments = if body.starts_with('{') {
        parse_arguments(Some(&Value::String(body.to_string())))
    } else {
        Value::Object(parameter_tags(body))
    };
    Some(FunctionTag {
        start,
        end,
        call: Some((name.to_string(), arguments)),
    })
}

/// `<parameter=KEY>VALUE</parameter>` pairs; a value that is a JSON number or boolean becomes
/// one, anything else stays text (one surrounding newline trimmed).
fn parameter_tags(body: &str) -> Map<String, Value> {
    let mut out = Map::new();
    let mut rest = body;
    while let Some(pos) = rest.find("<parameter=") {
        let after = &rest[pos + "<parameter=".len()..];
        let Some(close) = after.find('>') else { break };
        let key = after[..close].trim().to_string();
        let value_and_rest = &after[close + 1..];
        let (raw, next) = match value_and_rest.find("</parameter>") {
            Some(n) => (
                &value_and_rest[..n],
                &value_and_rest[n + "</parameter>".len()..],
            ),
            None => (value_and_rest, ""),
        };
        let raw = raw.strip_prefix('\n').unwrap_or(raw);
        let raw = raw.strip_suffix('\n').unwrap_or(raw);
        let value = match serde_json::from_str::<Value>(raw.trim()) {
            Ok(v @ (Value::Number(_) | Value::Bool(_))) => v,
            _ => Value::String(raw.to_string()),
        };
        if !key.is_empty() {
            out.insert(key, value);
        }
        rest = next;
    }
    out
}

/// A tag's attributes as (key, value) pairs.
type Attributes = Vec<(String, String)>;

/// The attributes of a tag whose text starts just after its name: `(attributes, length up to
/// and including '>', self-closing)`. Quoted values may hold `>` and the other quote.
fn tag_attributes(s: &str) -> Option<(Attributes, usize, bool)> {
    let mut attrs = Vec::new();
    let bytes = s.as_bytes();
    let mut i = 0;
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        match bytes.get(i)? {
            b'>' => return Some((attrs, i + 1, false)),
            b'/' if bytes.get(i + 1) == Some(&b'>') => return Some((attrs, i + 2, true)),
            _ => {}
        }
        let key_start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        if i == key_start {
            return None;
        }
        let key = s[key_start..i].to_string();
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if bytes.get(i) != Some(&b'=') {
            return None;
        }
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let quote = *bytes.get(i)?;
        if quote != b'"' && quote != b'\'' {
            return None;
        }
        let value_start = i + 1;
        let len = s[value_start..].find(quote as char)?;
        attrs.push((key, s[value_start..value_start + len].to_string()));
        i = value_start + len + 1;
    }
}

fn attr(attrs: &[(String, String)], key: &str) -> Option<String> {
    attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

fn unescape_xml(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Every JSON object or array in `content` outside the `skip` spans, with its start, read
/// with serde_json's streaming deserializer from each `{` or `[` not inside a value already
/// read.
fn json_values(content: &str, skip: &[(usize, usize)]) -> Vec<(usize, Value)> {
    let mut out = Vec::new();
    let mut attempts = 0;
    let mut i = 0;
    // The spans come in order and do not overlap, and `i` only grows: the spans before `i`
    // are passed once, so each position is checked against one span, not all of them.
    let mut spans = skip.iter().peekable();
    let mut skipped = |at: usize| {
        while spans.next_if(|(_, e)| *e <= at).is_some() {}
        spans.peek().filter(|(s, _)| *s <= at).map(|(_, e)| *e)
    };
    while i < content.len() && attempts < MAX_JSON_ATTEMPTS {
        if let Some(end) = skipped(i) {
            i = end;
            continue;
        }
        let rest = &content[i..];
        let Some(rel) = rest.find(['{', '[']) else {
            break;
        };
        let start = i + rel;
        if skipped(start).is_some() {
            i = start;
            continue;
        }
        attempts += 1;
        let mut stream = serde_json::Deserializer::from_str(&content[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(v)) if v.is_object() || v.is_array() => {
                i = start + stream.byte_offset();
                out.push((start, v));
            }
            _ => i = start + 1,
        }
    }
    out
}

/// The first JSON object in a reply (fenced, bare or with prose around it), read with
/// serde_json's streaming deserializer at each `{`; braces in prose that do not start valid
/// JSON are skipped. Planner and researcher replies are read with it.
pub fn first_json_object(content: &str) -> Option<Map<String, Value>> {
    json_values(content, &[])
        .into_iter()
        .find_map(|(_, v)| match v {
            Value::Object(o) => Some(o),
            _ => None,
        })
}

/// The arguments of a `{"name": …}` call object: its `arguments` (or `parameters`, `args`,
/// `input`), else its other keys (`{"name": "done", "summary": "…"}`).
fn arguments_beside_name(o: &Map<String, Value>) -> Value {
    if let Some(args) = ["arguments", "parameters", "args", "input"]
        .iter()
        .find_map(|k| o.get(*k))
    {
        return parse_arguments(Some(args));
    }
    let rest: Map<String, Value> = o
        .iter()
        .filter(|(k, _)| !["name", "tool", "tool_name", "type", "id"].contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Value::Object(rest)
}

/// The calls a JSON value stands for, appended to `out`.
fn calls_in_value(v: &Value, offered: &[&str], out: &mut Vec<(String, Value)>) {
    match v {
        Value::Array(items) => {
            for item in items {
                if item.is_object() {
                    calls_in_value(item, offered, out);
                }
            }
        }
        Value::Object(o) => {
            if let Some(calls) = o.get("tool_calls").and_then(Value::as_array) {
                for c in calls {
                    calls_in_value(c, offered, out);
                }
                return;
            }
            if let Some(f) = o.get("function").filter(|f| f.is_object()) {
                calls_in_value(f, offered, out);
                return;
            }
            let name = o
                .get("name")
                .or_else(|| o.get("tool"))
                .or_else(|| o.get("tool_name"))
                .and_then(Value::as_str);
            if let Some(name) = name {
                if offered.contains(&name) {
                    out.push((name.to_string(), arguments_beside_name(o)));
                }
                return;
            }
            // `{"read_file": {"path": "a.py"}}`: a single key naming a tool.
            if o.len() == 1 {
                if let Some((k, args)) = o.iter().next() {
                    if offered.contains(&k.as_str()) && (args.is_object() || args.is_null()) {
                        out.push((k.clone(), parse_arguments(Some(args))));
                    }
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OFFERED: [&str; 4] = ["read_file", "edit_file", "run_command", "done"];

    /// (name, arguments) of each call.
    type Calls = Vec<(String, Value)>;

    /// (name, arguments) of each call parsed from `content`.
    fn parsed(content: &str) -> Calls {
        parse_text_tool_calls(content, &OFFERED)
            .into_iter()
            .map(|c| (c.name, c.arguments))
            .collect()
    }

    fn call(name: &str, args: Value) -> Calls {
        vec![(name.to_string(), args)]
    }

    #[test]
    fn forms_table() {
        let read = || call("read_file", json!({"path": "calc.py"}));
        let table: Vec<(&str, &str, Calls)> = vec![
            (
                "fenced json block",
                "I will read it.\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"calc.py\"}}\n```",
                read(),
            ),
            (
                "parameters instead of arguments",
                "{\"name\": \"read_file\", \"parameters\": {\"path\": \"calc.py\"}}",
                read(),
            ),
            (
                "openai function shape",
                "{\"type\": \"function\", \"function\": {\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"calc.py\\\"}\"}}",
                read(),
            ),
            (
                "arguments as a json string",
                "{\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"calc.py\\\"}\"}",
                read(),
            ),
            (
                "hermes tool_call tag",
                "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"calc.py\"}}\n</tool_call>",
                read(),
            ),
            (
                "function tag with single-quoted arguments",
                "<tools><function name=\"read_file\" arguments='{\"path\": \"calc.py\"}'/></tools>",
                read(),
            ),
            (
                "function tag with escaped double-quoted arguments",
                "<function name='read_file' arguments=\"{&quot;path&quot;: &quot;calc.py&quot;}\"/>",
                read(),
            ),
            (
                "function tag with a json body",
                "<function name=\"read_file\">{\"path\": \"calc.py\"}</function>",
                read(),
            ),
            (
                "bare json in prose",
                "Let me look first: {\"name\": \"read_file\", \"arguments\": {\"path\": \"calc.py\"}} and then fix it.",
                read(),
            ),
            (
                "tool key holding the arguments",
                "{\"read_file\": {\"path\": \"calc.py\"}}",
                read(),
            ),
            (
                "tool_calls wrapper",
                "{\"tool_calls\": [{\"function\": {\"name\": \"read_file\", \"arguments\": {\"path\": \"calc.py\"}}}]}",
                read(),
            ),
            (
                "qwen3 function= tag with parameters",
                "<tool_call>\n<function=read_file>\n<parameter=path>\ncalc.py\n</parameter>\n</function>\n</tool_call>",
                read(),
            ),
            (
                "function= tag with a json body",
                "<function=read_file>{\"path\": \"calc.py\"}</function>",
                read(),
            ),
            (
                "arguments beside the name",
                "{\"name\": \"read_file\", \"path\": \"calc.py\"}",
                read(),
            ),
            (
                "call without arguments",
                "{\"name\": \"done\"}",
                call("done", json!({})),
            ),
        ];
        for (what, content, want) in table {
            assert_eq!(parsed(content), want, "{what}");
        }
    }

    #[test]
    fn function_equals_parameters_keep_text_and_numbers() {
        let content = "<function=edit_file>\n<parameter=path>a.py</parameter>\n\
             <parameter=old>\n    return 1\n</parameter>\n<parameter=new>    return 2</parameter>\n</function>";
        assert_eq!(
            parsed(content),
            call(
                "edit_file",
                json!({"path": "a.py", "old": "    return 1", "new": "    return 2"})
            )
        );
        let content = "<function=read_file><parameter=path>a</parameter><parameter=start_line>3</parameter></function>";
        assert_eq!(
            parsed(content),
            call("read_file", json!({"path": "a", "start_line": 3}))
        );
    }

    #[test]
    fn several_calls_in_one_reply_keep_their_order() {
        let content = "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>\n\
             <tool_call>{\"name\": \"run_command\", \"arguments\": {\"command\": \"make\"}}</tool_call>";
        let names: Vec<String> = parsed(content).into_iter().map(|c| c.0).collect();
        assert_eq!(names, ["read_file", "run_command"]);
    }

    #[test]
    fn a_json_array_of_calls_is_every_call() {
        let content = "[{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}, {\"name\": \"done\", \"arguments\": {}}]";
        assert_eq!(parsed(content).len(), 2);
    }

    #[test]
    fn tag_and_json_forms_mixed_are_ordered_by_position() {
        let content =
            "```json\n{\"name\": \"run_command\", \"arguments\": {\"command\": \"ls\"}}\n```\n\
             <function name=\"done\" arguments='{}'/>";
        let names: Vec<String> = parsed(content).into_iter().map(|c| c.0).collect();
        assert_eq!(names, ["run_command", "done"]);
    }

    #[test]
    fn repeated_identical_calls_count_once() {
        let c = "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}";
        assert_eq!(parsed(&format!("{c}\nagain: {c}")).len(), 1);
    }

    #[test]
    fn ids_say_the_call_came_from_text() {
        let calls = parse_text_tool_calls(
            "{\"name\": \"done\"} {\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}",
            &OFFERED,
        );
        let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["text_call_0", "text_call_1"]);
        assert!(calls.iter().all(is_text_call));
    }

    #[test]
    fn prose_with_a_json_example_that_is_not_a_call_yields_nothing() {
        assert!(
            parsed("The config looks like {\"name\": \"Alice\", \"age\": 3} and [1, 2].")
                .is_empty()
        );
    }

    #[test]
    fn unknown_tool_names_are_ignored() {
        assert!(parsed("{\"name\": \"delete_repo\", \"arguments\": {}}").is_empty());
        assert!(parsed("<function name=\"shell\" arguments='{}'/>").is_empty());
    }

    #[test]
    fn malformed_json_yields_nothing() {
        assert!(parsed("{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"").is_empty());
        assert!(parsed("{'name': 'read_file'}").is_empty());
        assert!(parsed("<function name=\"read_file").is_empty());
    }

    #[test]
    fn unparseable_arguments_stay_raw_text_for_the_tool_layer() {
        let got = parsed("<function name=\"read_file\" arguments='{path: a}'/>");
        assert_eq!(got, call("read_file", Value::String("{path: a}".into())));
    }

    #[test]
    fn a_valid_call_after_a_broken_one_is_found() {
        let content = "{\"name\": \"read_file\", oops}\n{\"name\": \"done\", \"arguments\": {}}";
        assert_eq!(parsed(content), call("done", json!({})));
    }

    #[test]
    fn nothing_is_offered_nothing_is_parsed() {
        assert!(parse_text_tool_calls("{\"name\": \"done\"}", &[]).is_empty());
    }

    /// The scan is linear in the reply (`cargo bench -p kotef-model --bench textcalls` holds
    /// the figure); here, what it finds around hostile text.
    #[test]
    fn many_unclosed_braces_end_quickly() {
        let braces = "{".repeat(50_000);
        assert!(parsed(&braces).is_empty());
        let done = "{\"name\": \"done\", \"arguments\": {}}";
        assert_eq!(
            parsed(&format!("{done}{braces}")),
            call("done", json!({})),
            "a call before the braces is still found"
        );
    }

    #[test]
    fn a_call_after_many_unclosed_function_tags_is_found() {
        let tags = "<function name=\"shell\">".repeat(20_000);
        let content = format!("{tags}\n{{\"name\": \"done\", \"arguments\": {{}}}}");
        assert_eq!(parsed(&content), call("done", json!({})));
    }

    #[test]
    fn many_distinct_tag_calls_are_each_kept_once_in_order() {
        let content: String = (0..3000)
            .map(|n| format!("<function=done>{{\"n\": {n}}}</function><function=done>{{\"n\": {n}}}</function>"))
            .collect();
        let kept: Vec<Value> = parsed(&content).into_iter().map(|c| c.1).collect();
        let want: Vec<Value> = (0..3000).map(|n| json!({"n": n})).collect();
        assert_eq!(kept, want);
    }

    #[test]
    fn a_function_tag_closes_at_the_first_close_after_it() {
        let content = "<function name=\"read_file\">{\"path\": \"a\"}</function>\n\
             <function name=\"done\">{}</function>";
        let names: Vec<String> = parsed(content).into_iter().map(|c| c.0).collect();
        assert_eq!(names, ["read_file", "done"]);
    }

    fn tools() -> Vec<ToolSchema> {
        vec![
            ToolSchema {
                name: "read_file".into(),
                description: String::new(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}, "start_line": {"type": "integer"}}, "required": ["path"]}),
            },
            ToolSchema {
                name: "done".into(),
                description: String::new(),
                parameters: json!({"type": "object", "properties": {"summary": {"type": "string"}}}),
            },
        ]
    }

    #[test]
    fn the_expected_shape_shows_a_real_call_without_placeholders() {
        let msg = expected_call_shape(&tools());
        assert!(
            msg.contains("<tool_call>\n{\"name\": \"done\", \"arguments\": {}}\n</tool_call>"),
            "{msg}"
        );
        assert!(!msg.contains("<path>"), "{msg}");
    }

    #[test]
    fn the_expected_shape_lists_each_tools_arguments() {
        let msg = expected_call_shape(&tools());
        assert!(
            msg.contains("read_file(path, start_line?), done(summary?)."),
            "{msg}"
        );
    }

    #[test]
    fn the_expected_shape_parses_back_as_a_call() {
        let calls = parse_text_tool_calls(&expected_call_shape(&tools()), &["read_file", "done"]);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "done");
    }
}
