//! Pure helpers shared by the provider clients: lenient tool-argument parsing, usage
//! completion with estimates, provider error messages out of error bodies, code-fence
//! stripping of JSON replies, and masking of API-key-looking text.

use crate::types::{ModelError, ModelReply, ModelRequest, ToolCall, Usage};
use kotef_core::Redactor;
use serde_json::Value;

/// Longest provider message kept in an error.
const MAX_MESSAGE_CHARS: usize = 500;

/// Tool-call arguments as the graph wants them: a JSON string is parsed (an empty one is `{}`);
/// text that is not JSON stays `Value::String(raw)` for the tool layer to reject; an object
/// (some OpenAI-compatible servers send one) is kept; null or missing is `{}`.
pub fn parse_arguments(v: Option<&Value>) -> Value {
    match v {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(Value::String(raw)) => {
            if raw.trim().is_empty() {
                Value::Object(Default::default())
            } else {
                serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.clone()))
            }
        }
        Some(other) => other.clone(),
    }
}

/// Arguments as OpenAI's wire wants them: the text of a JSON **object**, always. A model that
/// wrote a string (`{"name": "done", "arguments": "Fixed gcd.py"}`), an array or broken JSON
/// gets it wrapped as `{"raw_arguments": …}`: llama.cpp answers a history whose arguments are
/// not an object with HTTP 500 "Failed to parse tool call arguments as JSON" on every later
/// request.
pub fn arguments_text(v: &Value) -> String {
    match v {
        Value::Object(_) => v.to_string(),
        Value::String(raw) => match serde_json::from_str::<Value>(raw) {
            Ok(parsed @ Value::Object(_)) => parsed.to_string(),
            _ => serde_json::json!({ "raw_arguments": raw }).to_string(),
        },
        Value::Null => "{}".to_string(),
        other => serde_json::json!({ "raw_arguments": other }).to_string(),
    }
}

/// A tool's parameter schema; a missing one is an empty object schema.
pub fn schema_or_empty(v: &Value) -> Value {
    if v.is_null() {
        serde_json::json!({"type": "object", "properties": {}})
    } else {
        v.clone()
    }
}

/// Usage from the provider's figures, each missing one estimated. The flag says whether
/// both figures came from the provider.
pub fn complete_usage(
    prompt: Option<u64>,
    completion: Option<u64>,
    request: &ModelRequest,
    content: &str,
    calls: &[ToolCall],
) -> (Usage, bool) {
    let reported = prompt.is_some() && completion.is_some();
    let usage = Usage {
        prompt_tokens: prompt.unwrap_or_else(|| request.estimated_prompt_tokens()),
        completion_tokens: completion
            .unwrap_or_else(|| ModelReply::estimated_completion_tokens(content, calls)),
    };
    (usage, reported)
}

/// A JSON reply wrapped in a Markdown code fence (```json ... ```) unwrapped; other text as is.
pub fn strip_code_fences(content: &str) -> String {
    let t = content.trim();
    if let Some(rest) = t.strip_prefix("```") {
        if let Some(inner) = rest.strip_suffix("```") {
            let inner = inner
                .strip_prefix("json")
                .or_else(|| inner.strip_prefix("JSON"))
                .unwrap_or(inner);
            return inner.trim().to_string();
        }
    }
    content.to_string()
}

/// The provider's message from an error body: `error.message` (with `error.type` / `code`),
/// `error` as a string, or top-level `message`; otherwise the start of the body.
pub fn provider_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    if let Ok(v) = serde_json::from_str::<Value>(&text) {
        let err = v.get("error");
        let message = err
            .and_then(|e| e.get("message"))
            .and_then(Value::as_str)
            .or_else(|| err.and_then(Value::as_str))
            .or_else(|| v.get("message").and_then(Value::as_str))
            .or_else(|| v.get("detail").and_then(Value::as_str));
        if let Some(m) = message {
            let kind = err
                .and_then(|e| e.get("type").or_else(|| e.get("code")))
                .and_then(|k| match k {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                });
            let m = truncate(m.trim(), MAX_MESSAGE_CHARS);
            return match kind {
                Some(k) if !k.is_empty() => format!("{m} ({k})"),
                _ => m,
            };
        }
    }
    let t = text.trim();
    if t.is_empty() {
        "empty body".into()
    } else {
        truncate(t, MAX_MESSAGE_CHARS)
    }
}

/// The first `max` characters of `s`, with an ellipsis when cut.
pub fn truncate(s: &str, max: usize) -> String {
    kotef_core::text::cut_end(s, max, "…")
}

/// Replaces words that look like API keys (`sk-...`, including partially starred echoes such
/// as OpenAI's "Incorrect API key provided: sk-abc***xyz") with `[REDACTED]`.
pub fn mask_key_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find("sk-") {
        let boundary = !matches!(
            rest[..pos].chars().next_back(),
            Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == '-'
        );
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || "-_*".contains(c)))
            .unwrap_or(tail.len());
        if boundary && end > 3 {
            out.push_str("[REDACTED]");
        } else {
            out.push_str(&tail[..end.max(3)]);
        }
        rest = &tail[end.max(3)..];
    }
    out.push_str(rest);
    out
}

/// `text` with known secrets and key-looking words removed.
pub fn scrub(redactor: &Redactor, text: &str) -> String {
    mask_key_like(&redactor.redact(text))
}

/// The same error with its message scrubbed.
pub fn scrub_error(redactor: &Redactor, e: ModelError) -> ModelError {
    let s = |m: String| scrub(redactor, &m);
    match e {
        ModelError::RateLimited {
            message,
            retry_after_ms,
        } => ModelError::RateLimited {
            message: s(message),
            retry_after_ms,
        },
        ModelError::Server { status, message } => ModelError::Server {
            status,
            message: s(message),
        },
        ModelError::Connection(m) => ModelError::Connection(s(m)),
        ModelError::Timeout(ms) => ModelError::Timeout(ms),
        ModelError::Rejected { status, message } => ModelError::Rejected {
            status,
            message: s(message),
        },
        ModelError::Malformed(m) => ModelError::Malformed(s(m)),
        ModelError::Scripted(m) => ModelError::Scripted(s(m)),
        ModelError::Config(m) => ModelError::Config(s(m)),
    }
}

/// A body that should have been JSON but is not.
pub fn not_json(body: &[u8], e: &serde_json::Error) -> ModelError {
    let text = String::from_utf8_lossy(body);
    ModelError::Malformed(format!(
        "reply is not JSON ({e}); body starts: {:?}",
        truncate(text.trim(), 200)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_in_the_history_are_always_a_json_object() {
        let text = |v: Value| arguments_text(&v);
        assert_eq!(text(json!({"path": "a"})), r#"{"path":"a"}"#);
        assert_eq!(text(json!(r#"{"path": "a"}"#)), r#"{"path":"a"}"#);
        assert_eq!(
            text(json!("Fixed gcd.py")),
            r#"{"raw_arguments":"Fixed gcd.py"}"#
        );
        assert_eq!(text(json!([1, 2])), r#"{"raw_arguments":[1,2]}"#);
        assert_eq!(text(json!("[1]")), r#"{"raw_arguments":"[1]"}"#);
        assert_eq!(text(Value::Null), "{}");
    }
    use serde_json::json;

    #[test]
    fn arguments_are_parsed_leniently() {
        assert_eq!(parse_arguments(Some(&json!("{\"a\":1}"))), json!({"a": 1}));
        assert_eq!(parse_arguments(Some(&json!(""))), json!({}));
        assert_eq!(parse_arguments(None), json!({}));
        assert_eq!(parse_arguments(Some(&json!({"b": 2}))), json!({"b": 2}));
        assert_eq!(
            parse_arguments(Some(&json!("{\"a\": 1,"))),
            Value::String("{\"a\": 1,".into())
        );
    }

    #[test]
    fn provider_messages() {
        assert_eq!(
            provider_message(br#"{"error":{"message":"Bad key","type":"invalid_request_error"}}"#),
            "Bad key (invalid_request_error)"
        );
        assert_eq!(provider_message(br#"{"error":"nope"}"#), "nope");
        assert_eq!(provider_message(br#"{"message":"m"}"#), "m");
        assert_eq!(provider_message(b"<html>502</html>"), "<html>502</html>");
        assert_eq!(provider_message(b"  "), "empty body");
        assert_eq!(
            provider_message("x".repeat(900).as_bytes()).chars().count(),
            501
        );
    }

    #[test]
    fn key_like_words_are_masked() {
        assert_eq!(
            mask_key_like("Incorrect API key provided: sk-abc***wxyz. See docs"),
            "Incorrect API key provided: [REDACTED]. See docs"
        );
        assert_eq!(mask_key_like("key sk-ant-api03-XYZ_1"), "key [REDACTED]");
        assert_eq!(
            mask_key_like("task-sk-1 and risk-free sk-"),
            "task-sk-1 and risk-free sk-"
        );
        assert_eq!(mask_key_like("plain"), "plain");
        let mut r = Redactor::new();
        r.add("secret-value-123");
        assert_eq!(scrub(&r, "got secret-value-123"), "got [REDACTED]");
    }

    #[test]
    fn fences_are_stripped() {
        assert_eq!(strip_code_fences("```json\n{\"a\":1}\n```"), "{\"a\":1}");
        assert_eq!(strip_code_fences("```\n{}\n```"), "{}");
        assert_eq!(strip_code_fences("{\"a\":1}"), "{\"a\":1}");
        assert_eq!(strip_code_fences("``` only"), "``` only");
    }
}
