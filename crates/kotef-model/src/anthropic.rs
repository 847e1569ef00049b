//! The Anthropic Messages API client: request building (system prompt lifted to `system`,
//! `tool_use` / `tool_result` blocks, consecutive same-role messages merged, `max_tokens`
//! always set, `temperature` when configured) and lenient reply parsing, as pure functions,
//! plus the `Model` implementation that sends them through the shared transport.

use crate::http::{CallShape, ClientOptions, Parsed, Transport};
use crate::retry::AttemptFailure;
use crate::types::{
    CallRecord, Message, Model, ModelError, ModelReply, ModelRequest, Role, ToolCall, Usage,
};
use crate::wire::{
    complete_usage, not_json, parse_arguments, provider_message, schema_or_empty, strip_code_fences,
};
use serde_json::{json, Map, Value};

/// Anthropic's API host; requests go to `{base}/v1/messages`.
pub const ANTHROPIC_DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The `anthropic-version` header sent with every request.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Instruction added to `system` when the caller asks for a JSON reply (Anthropic has no
/// JSON mode).
const JSON_INSTRUCTION: &str =
    "Reply with a single JSON object only: no prose before or after it and no code fences.";

/// An Anthropic chat model.
pub struct AnthropicModel {
    model: String,
    endpoint: String,
    api_key: Option<String>,
    max_tokens: u32,
    temperature: Option<f64>,
    transport: Transport,
}

impl std::fmt::Debug for AnthropicModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicModel")
            .field("model", &self.model)
            .field("endpoint", &self.endpoint)
            .field("max_tokens", &self.max_tokens)
            .finish_non_exhaustive()
    }
}

impl AnthropicModel {
    /// Checks the options; no request is made. A base URL ending in `/v1` is accepted too.
    pub fn new(opts: ClientOptions) -> Result<Self, ModelError> {
        let base = opts.checked_base_url()?;
        let base = base.strip_suffix("/v1").unwrap_or(&base).to_string();
        let transport = Transport::new(format!("anthropic:{}", opts.model), &opts)?;
        Ok(Self {
            endpoint: format!("{base}/v1/messages"),
            max_tokens: opts
                .max_tokens
                .filter(|n| *n > 0)
                .unwrap_or_else(|| default_max_tokens(&opts.model)),
            model: opts.model,
            api_key: opts.api_key.filter(|k| !k.trim().is_empty()),
            temperature: None,
            transport,
        })
    }

    /// Sends `temperature` with every request (none is sent by default).
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// `POST {base}/v1/messages`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }
}

/// The `max_tokens` sent when none is configured: 4096 for the Claude 3 generation (its
/// output limit), 8192 for later models.
pub fn default_max_tokens(model: &str) -> u32 {
    let old = [
        "claude-3-opus",
        "claude-3-sonnet",
        "claude-3-haiku",
        "claude-2",
        "claude-instant",
    ];
    if old.iter().any(|p| model.starts_with(p)) {
        4096
    } else {
        8192
    }
}

#[async_trait::async_trait]
impl Model for AnthropicModel {
    fn local_endpoint(&self) -> bool {
        crate::http::is_local_url(&self.endpoint)
    }

    fn name(&self) -> String {
        format!("anthropic:{}", self.model)
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        let temperature = request.temperature.or(self.temperature);
        let max_tokens = request
            .max_tokens
            .map_or(self.max_tokens, |m| m.min(self.max_tokens));
        let body = request_body(&self.model, request, max_tokens, temperature);
        let bytes = serde_json::to_vec(&body)
            .map_err(|e| ModelError::Config(format!("cannot encode the request: {e}")))?;
        let build = || {
            let mut rb = self
                .transport
                .client()
                .post(&self.endpoint)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .header("anthropic-version", ANTHROPIC_VERSION)
                .body(bytes.clone());
            if let Some(k) = &self.api_key {
                rb = rb.header("x-api-key", k);
            }
            rb
        };
        let shape = CallShape {
            streamed: false,
            reply_cap: Some(max_tokens),
        };
        self.transport
            .call(request, shape, build, parse_reply)
            .await
    }

    fn server_speed(&self) -> Option<crate::pace::ServerSpeed> {
        self.transport.speed()
    }

    fn reply_cap(&self) -> Option<u32> {
        Some(self.max_tokens)
    }

    fn take_failed_attempts(&self) -> Vec<Usage> {
        self.transport.take_failed_attempts()
    }

    fn take_call_records(&self) -> Vec<CallRecord> {
        self.transport.take_call_records()
    }
}

/// The Messages API request body for `request`.
pub fn request_body(
    model: &str,
    request: &ModelRequest,
    max_tokens: u32,
    temperature: Option<f64>,
) -> Value {
    let mut system: Vec<&str> = request
        .messages
        .iter()
        .filter(|m| m.role == Role::System && !m.content.trim().is_empty())
        .map(|m| m.content.as_str())
        .collect();
    if request.json_reply {
        system.push(JSON_INSTRUCTION);
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(max_tokens));
    if let Some(t) = temperature {
        body.insert("temperature".into(), json!(t));
    }
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
    }
    body.insert("messages".into(), Value::Array(turns(&request.messages)));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "input_schema": schema_or_empty(&t.parameters),
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    Value::Object(body)
}

/// The conversation as Anthropic wants it: user/assistant turns strictly alternating and
/// starting with the user, no empty text blocks, tool results first in their user turn.
fn turns(messages: &[Message]) -> Vec<Value> {
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for m in messages {
        let (role, blocks) = match m.role {
            Role::System => continue,
            Role::User => ("user", text_block(&m.content)),
            Role::Assistant => {
                let mut blocks = text_block(&m.content);
                blocks.extend(m.tool_calls.iter().map(|c| {
                    let input = match &c.arguments {
                        Value::Object(_) => c.arguments.clone(),
                        Value::Null => json!({}),
                        other => json!({"raw_arguments": other}),
                    };
                    json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input})
                }));
                ("assistant", blocks)
            }
            Role::Tool => match &m.tool_call_id {
                Some(id) => {
                    let mut block = json!({"type": "tool_result", "tool_use_id": id});
                    if !m.content.is_empty() {
                        block["content"] = json!(m.content);
                    }
                    ("user", vec![block])
                }
                None => ("user", text_block(&format!("[tool result]\n{}", m.content))),
            },
        };
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    if !matches!(turns.first(), Some((role, _)) if *role == "user") {
        turns.insert(0, ("user", text_block("Continue.")));
    }
    turns
        .into_iter()
        .map(|(role, mut blocks)| {
            if role == "user" {
                // Stable: tool results keep their order, then the text.
                blocks.sort_by_key(|b| b["type"] != "tool_result");
            }
            json!({"role": role, "content": blocks})
        })
        .collect()
}

fn text_block(text: &str) -> Vec<Value> {
    if text.trim().is_empty() {
        Vec::new()
    } else {
        vec![json!({"type": "text", "text": text})]
    }
}

/// Reads a Messages reply leniently: text blocks joined, `tool_use` blocks as tool calls,
/// other block kinds (thinking, ...) and unknown fields ignored, cached input tokens counted
/// as prompt tokens, missing usage estimated. A body of `type: error` is that error.
pub(crate) fn parse_reply(body: &[u8], request: &ModelRequest) -> Result<Parsed, AttemptFailure> {
    let v: Value = serde_json::from_slice(body).map_err(|e| not_json(body, &e))?;
    if !v.is_object() {
        return Err(ModelError::Malformed("reply is not a JSON object".into()).into());
    }
    if v.get("type").and_then(Value::as_str) == Some("error") {
        let kind = v
            .get("error")
            .and_then(|e| e.get("type"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let message = provider_message(body);
        let error = match kind {
            "overloaded_error" | "rate_limit_error" => ModelError::RateLimited {
                message,
                retry_after_ms: None,
            },
            "invalid_request_error"
            | "authentication_error"
            | "permission_error"
            | "not_found_error"
            | "request_too_large" => ModelError::Rejected {
                status: 400,
                message,
            },
            _ => ModelError::Server {
                status: 500,
                message,
            },
        };
        return Err(error.into());
    }
    let Some(blocks) = v.get("content").and_then(Value::as_array) else {
        return Err(ModelError::Malformed("reply has no content array".into()).into());
    };
    let mut texts: Vec<&str> = Vec::new();
    let mut tool_calls = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = b.get("text").and_then(Value::as_str) {
                    if !t.is_empty() {
                        texts.push(t);
                    }
                }
            }
            Some("tool_use") => tool_calls.push(ToolCall {
                id: b
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("toolu_{i}")),
                name: b
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                arguments: parse_arguments(b.get("input")),
            }),
            _ => {}
        }
    }
    let mut content = texts.join("\n");
    if request.json_reply {
        content = strip_code_fences(&content);
    }
    let usage = v.get("usage");
    let figure = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_u64);
    let prompt = figure("input_tokens").map(|n| {
        n + figure("cache_creation_input_tokens").unwrap_or(0)
            + figure("cache_read_input_tokens").unwrap_or(0)
    });
    let (usage, usage_reported) = complete_usage(
        prompt,
        figure("output_tokens"),
        request,
        &content,
        &tool_calls,
    );
    Ok(Parsed {
        reply: ModelReply {
            content,
            tool_calls,
            usage,
            finish_reason: v
                .get("stop_reason")
                .and_then(Value::as_str)
                .map(str::to_string),
            calls_from_text: false,
            timings: None,
            tokens: Vec::new(),
        },
        usage_reported,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ToolSchema;

    fn call(id: &str, name: &str, args: Value) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args,
        }
    }

    fn req(messages: Vec<Message>, json_reply: bool) -> ModelRequest {
        ModelRequest {
            node: kotef_core::NodeName::Coder,
            messages,
            tools: vec![ToolSchema {
                name: "read_file".into(),
                description: "Read".into(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            }],
            json_reply,
            temperature: None,
            max_tokens: None,
            code_reply: false,
            alternatives: None,
        }
    }

    #[test]
    fn system_lifted_tools_mapped_turns_merged() {
        let r = req(
            vec![
                Message::system("Be brief."),
                Message::user("Fix it."),
                Message::user("Please."),
                Message {
                    role: Role::Assistant,
                    content: "Looking.".into(),
                    tool_calls: vec![
                        call("t1", "read_file", json!({"path": "a"})),
                        call("t2", "read_file", Value::String("{bad".into())),
                    ],
                    tool_call_id: None,
                },
                Message::tool_result("t1", "contents"),
                Message::tool_result("t2", ""),
                Message::user("Note this."),
                Message::system("Also be right."),
            ],
            false,
        );
        let b = request_body("claude-sonnet-4", &r, 1000, Some(0.2));
        assert_eq!(b["system"], "Be brief.\n\nAlso be right.");
        assert_eq!(b["max_tokens"], 1000);
        assert_eq!(b["temperature"], 0.2);
        assert_eq!(
            b["tools"][0]["input_schema"]["properties"]["path"]["type"],
            "string"
        );
        let m = b["messages"].as_array().unwrap();
        assert_eq!(m.len(), 3, "{m:#?}");
        assert_eq!(m[0]["role"], "user");
        assert_eq!(m[0]["content"].as_array().unwrap().len(), 2);
        assert_eq!(m[1]["role"], "assistant");
        assert_eq!(
            m[1]["content"][0],
            json!({"type": "text", "text": "Looking."})
        );
        assert_eq!(m[1]["content"][1]["type"], "tool_use");
        assert_eq!(m[1]["content"][1]["input"], json!({"path": "a"}));
        assert_eq!(
            m[1]["content"][2]["input"],
            json!({"raw_arguments": "{bad"})
        );
        assert_eq!(m[2]["role"], "user");
        let blocks = m[2]["content"].as_array().unwrap();
        assert_eq!(blocks[0]["tool_use_id"], "t1");
        assert_eq!(blocks[0]["content"], "contents");
        assert_eq!(blocks[1]["tool_use_id"], "t2");
        assert!(blocks[1].get("content").is_none());
        assert_eq!(blocks[2]["type"], "text");
    }

    #[test]
    fn conversation_starts_with_user_and_json_is_asked() {
        let r = req(vec![Message::assistant("Hi"), Message::user("")], true);
        let b = request_body("claude-3-haiku-20240307", &r, 4096, None);
        let m = b["messages"].as_array().unwrap();
        assert_eq!(m[0]["role"], "user");
        assert_eq!(m[1]["role"], "assistant");
        assert_eq!(m.len(), 2);
        assert!(b["system"].as_str().unwrap().contains("JSON"));
        let b = request_body("x", &req(vec![], false), 10, None);
        assert_eq!(b["messages"][0]["role"], "user");
        assert!(b.get("system").is_none());
    }

    #[test]
    fn default_max_tokens_per_generation() {
        assert_eq!(default_max_tokens("claude-3-haiku-20240307"), 4096);
        assert_eq!(default_max_tokens("claude-3-5-sonnet-latest"), 8192);
        assert_eq!(default_max_tokens("claude-sonnet-4-20250514"), 8192);
    }

    #[test]
    fn parses_blocks_usage_and_errors() {
        let r = req(vec![Message::user("x")], false);
        let p = parse_reply(
            br#"{"id":"m","type":"message","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Reading."},{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"a"}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":7},"extra":1}"#,
            &r,
        )
        .unwrap();
        assert_eq!(p.reply.content, "Reading.");
        assert_eq!(
            p.reply.tool_calls,
            vec![call("toolu_1", "read_file", json!({"path": "a"}))]
        );
        assert_eq!(
            p.reply.usage,
            Usage {
                prompt_tokens: 15,
                completion_tokens: 7
            }
        );
        assert!(p.usage_reported);
        assert_eq!(p.reply.finish_reason.as_deref(), Some("tool_use"));

        let p = parse_reply(br#"{"content":[]}"#, &r).unwrap();
        assert!(p.reply.content.is_empty() && p.reply.tool_calls.is_empty());
        assert!(!p.usage_reported);
        assert_eq!(p.reply.usage.prompt_tokens, r.estimated_prompt_tokens());

        let e = parse_reply(
            br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            &r,
        )
        .unwrap_err();
        assert!(e.error.is_retryable());
        assert!(matches!(
            parse_reply(br#"{"type":"message"}"#, &r).unwrap_err().error,
            ModelError::Malformed(_)
        ));
    }

    #[test]
    fn base_url_forms() {
        let m = AnthropicModel::new(ClientOptions::new("claude-x", "https://api.anthropic.com/"))
            .unwrap();
        assert_eq!(m.endpoint(), "https://api.anthropic.com/v1/messages");
        let m =
            AnthropicModel::new(ClientOptions::new("claude-x", "http://127.0.0.1:9/v1")).unwrap();
        assert_eq!(m.endpoint(), "http://127.0.0.1:9/v1/messages");
        assert_eq!(m.name(), "anthropic:claude-x");
    }
}
