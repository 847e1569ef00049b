//! The OpenAI-compatible Chat Completions client (OpenAI, Ollama, vLLM, llama.cpp,
//! OpenRouter): request building (tools, assistant tool calls, `role: tool` results,
//! `response_format: json_object`, `temperature`, `max_tokens`) and lenient reply parsing
//! (tool calls a model wrote as text included), as pure functions, plus the `Model`
//! implementation that sends them through the shared transport. A server that rejects
//! `response_format` (or `return_progress`) is asked again once without it, and never with it
//! again. Every request to a self-hosted server is streamed and asks for llama.cpp's prompt
//! progress, so a long prompt on a slow machine is timed by its progress ([`crate::pace`]).

use crate::http::{CallShape, ClientOptions, Parsed, Transport};
use crate::retry::{error_for_status, AttemptFailure};
use crate::textcalls::parse_text_tool_calls;
use crate::types::{
    CallRecord, Message, Model, ModelError, ModelReply, ModelRequest, Role, ToolCall, Usage,
};
use crate::wire::{
    arguments_text, complete_usage, not_json, parse_arguments, schema_or_empty, strip_code_fences,
};
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// OpenAI's API base; OpenAI-compatible servers give their own (e.g. `http://localhost:11434/v1`).
pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// An OpenAI-compatible chat model.
pub struct OpenAiModel {
    model: String,
    endpoint: String,
    api_key: Option<String>,
    max_tokens: Option<u32>,
    temperature: Option<f64>,
    /// Set once the server rejected `response_format`; JSON requests then go without it.
    json_mode_rejected: AtomicBool,
    /// Set once the server rejected `return_progress`; requests then go without it.
    progress_rejected: AtomicBool,
    /// Set once the server was asked what it is ([`Model::identify_server`]).
    identified: AtomicBool,
    /// Calls answered 400 for `response_format` and sent again without it, charged as failed.
    dropped_attempts: Mutex<Vec<Usage>>,
    transport: Transport,
}

/// What a request body carries beyond the request itself.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BodyOptions {
    /// `max_tokens`, when set.
    pub max_tokens: Option<u32>,
    /// `temperature`, when set.
    pub temperature: Option<f64>,
    /// Send `response_format: {"type": "json_object"}` for a request with `json_reply`.
    pub json_mode: bool,
    /// Ask for the reply as a stream of events (read as it comes, cut when it degenerates).
    pub stream: bool,
    /// With `stream`: ask for llama.cpp's `prompt_progress` events (`return_progress`).
    pub progress: bool,
}

impl std::fmt::Debug for OpenAiModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiModel")
            .field("model", &self.model)
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

impl OpenAiModel {
    /// Checks the options; no request is made.
    pub fn new(opts: ClientOptions) -> Result<Self, ModelError> {
        let base = opts.checked_base_url()?;
        let transport = Transport::new(format!("openai:{}", opts.model), &opts)?;
        Ok(Self {
            endpoint: format!("{base}/chat/completions"),
            model: opts.model,
            api_key: opts.api_key.filter(|k| !k.trim().is_empty()),
            max_tokens: opts.max_tokens,
            temperature: None,
            json_mode_rejected: AtomicBool::new(false),
            progress_rejected: AtomicBool::new(false),
            identified: AtomicBool::new(false),
            dropped_attempts: Mutex::new(Vec::new()),
            transport,
        })
    }

    /// Sends `temperature` with every request (none is sent by default).
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Charges an attempt the server refused for an optional field, asked again without it.
    fn charge_dropped(&self, request: &ModelRequest) {
        self.dropped_attempts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Usage {
                prompt_tokens: request.estimated_prompt_tokens(),
                completion_tokens: 0,
            });
    }

    /// The body options of `request`'s next attempt.
    fn body_options(&self, request: &ModelRequest) -> BodyOptions {
        BodyOptions {
            max_tokens: self.max_tokens,
            temperature: self.temperature,
            json_mode: request.json_reply && !self.json_mode_rejected.load(Ordering::Relaxed),
            // Every reply from a self-hosted model streams: its time limit follows the
            // server's progress (`crate::pace`), and a plain-text one that runs away repeating
            // itself is cut early (`crate::stream`).
            stream: self.self_hosted(),
            progress: self.self_hosted() && !self.progress_rejected.load(Ordering::Relaxed),
        }
    }

    async fn send(
        &self,
        request: &ModelRequest,
        opts: BodyOptions,
    ) -> Result<ModelReply, ModelError> {
        let body = request_body(&self.model, request, &opts);
        let bytes = serde_json::to_vec(&body)
            .map_err(|e| ModelError::Config(format!("cannot encode the request: {e}")))?;
        let build = || {
            let mut rb = self
                .transport
                .client()
                .post(&self.endpoint)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(bytes.clone());
            if let Some(k) = &self.api_key {
                rb = rb.bearer_auth(k);
            }
            rb
        };
        let shape = CallShape {
            streamed: opts.stream,
            reply_cap: reply_cap(opts.max_tokens, request.max_tokens),
        };
        self.transport
            .call(request, shape, build, parse_reply)
            .await
    }

    /// Any server but OpenAI's own (llama.cpp, Ollama, vLLM, a gateway): its plain-text
    /// replies stream, so one that runs away repeating itself is cut early.
    fn self_hosted(&self) -> bool {
        !self.endpoint.starts_with(OPENAI_DEFAULT_BASE_URL)
    }

    /// `POST {base}/chat/completions`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }
}

#[async_trait::async_trait]
impl Model for OpenAiModel {
    fn local_endpoint(&self) -> bool {
        crate::http::is_local_url(&self.endpoint)
    }

    fn name(&self) -> String {
        format!("openai:{}", self.model)
    }

    fn server_speed(&self) -> Option<crate::pace::ServerSpeed> {
        self.transport.speed()
    }

    fn reply_cap(&self) -> Option<u32> {
        self.max_tokens
    }

    fn continues_replies(&self) -> bool {
        self.transport.is_llama_cpp()
    }

    async fn identify_server(&self) {
        // OpenAI's own API never continues a begun reply: nothing to ask it.
        if !self.self_hosted()
            || self.transport.is_llama_cpp()
            || self.identified.swap(true, Ordering::Relaxed)
        {
            return;
        }
        let Some(url) = crate::identify::models_url(&self.endpoint) else {
            return;
        };
        let key = self.api_key.as_deref();
        if crate::identify::names_llama_cpp(self.transport.client(), &url, key).await {
            tracing::debug!(model = %self.name(), "the server names itself llama.cpp");
            self.transport.mark_llama_cpp();
        }
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        let opts = self.body_options(request);
        match self.send(request, opts).await {
            Err(e) if opts.progress && rejects_field(&e, "return_progress") => {
                tracing::warn!(
                    model = %self.name(),
                    "the server rejected return_progress; asking again without it"
                );
                self.progress_rejected.store(true, Ordering::Relaxed);
                self.charge_dropped(request);
                let opts = BodyOptions {
                    progress: false,
                    ..opts
                };
                self.send(request, opts).await
            }
            Err(e) if opts.json_mode && rejects_json_mode(&e) => {
                tracing::warn!(
                    model = %self.name(),
                    "the server rejected response_format; asking again without it"
                );
                self.json_mode_rejected.store(true, Ordering::Relaxed);
                self.charge_dropped(request);
                let opts = BodyOptions {
                    json_mode: false,
                    ..opts
                };
                self.send(request, opts).await
            }
            other => other,
        }
    }

    fn take_failed_attempts(&self) -> Vec<Usage> {
        let mut failed = std::mem::take(
            &mut *self
                .dropped_attempts
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        );
        failed.extend(self.transport.take_failed_attempts());
        failed
    }

    fn take_call_records(&self) -> Vec<CallRecord> {
        self.transport.take_call_records()
    }
}

/// Whether an error is a server's refusal of `response_format` (a 400 naming it).
pub fn rejects_json_mode(e: &ModelError) -> bool {
    rejects_field(e, "response_format")
}

/// Whether an error is a server's refusal of the request field `field` (a 400 or 422 naming it).
pub fn rejects_field(e: &ModelError, field: &str) -> bool {
    matches!(e, ModelError::Rejected { status: 400 | 422, message }
        if message.to_ascii_lowercase().contains(field))
}

/// The completion-token cap a request is sent with: the smaller of the configured one and the
/// request's own.
pub fn reply_cap(configured: Option<u32>, requested: Option<u32>) -> Option<u32> {
    match (configured, requested) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The Chat Completions request body for `request`.
pub fn request_body(model: &str, request: &ModelRequest, opts: &BodyOptions) -> Value {
    let mut messages: Vec<Value> = Vec::with_capacity(request.messages.len() + 1);
    // OpenAI rejects json_object mode unless a message mentions JSON.
    if request.json_reply
        && !request
            .messages
            .iter()
            .any(|m| m.content.to_ascii_lowercase().contains("json"))
    {
        messages.push(json!({"role": "system", "content": "Reply with a single JSON object."}));
    }
    messages.extend(request.messages.iter().map(message_json));
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": schema_or_empty(&t.parameters),
                    }
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if request.json_reply && opts.json_mode {
        body.insert("response_format".into(), json!({"type": "json_object"}));
    }
    let cap = reply_cap(opts.max_tokens, request.max_tokens);
    // OpenAI's reasoning models take `max_completion_tokens` and only the default temperature.
    let reasoning = crate::replies::openai_reasoning_model(model);
    if let Some(n) = cap {
        let field = if reasoning {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body.insert(field.into(), json!(n));
    }
    if let Some(t) = request.temperature.or(opts.temperature) {
        if !reasoning {
            body.insert("temperature".into(), json!(t));
        }
    }
    if let Some(n) = request.alternatives {
        body.insert("logprobs".into(), json!(true));
        body.insert("top_logprobs".into(), json!(n));
    }
    if opts.stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
        if opts.progress {
            body.insert("return_progress".into(), json!(true));
        }
    }
    Value::Object(body)
}

fn message_json(m: &Message) -> Value {
    match m.role {
        Role::System => json!({"role": "system", "content": m.content}),
        Role::User => json!({"role": "user", "content": m.content}),
        Role::Assistant if m.tool_calls.is_empty() => {
            json!({"role": "assistant", "content": m.content})
        }
        Role::Assistant => {
            let calls: Vec<Value> = m
                .tool_calls
                .iter()
                .map(|c| {
                    json!({
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": arguments_text(&c.arguments)},
                    })
                })
                .collect();
            let content = if m.content.is_empty() {
                Value::Null
            } else {
                json!(m.content)
            };
            json!({"role": "assistant", "content": content, "tool_calls": calls})
        }
        Role::Tool => match &m.tool_call_id {
            Some(id) => json!({"role": "tool", "tool_call_id": id, "content": m.content}),
            // A result that answers no call cannot be a `tool` message; keep it as text.
            None => json!({"role": "user", "content": format!("[tool result]\n{}", m.content)}),
        },
    }
}

/// Reads a Chat Completions reply leniently: unknown fields ignored, content as a string, an
/// array of text parts or null, `tool_calls` (or the legacy `function_call`), missing usage
/// estimated. A 200 body holding only an `error` (as some proxies send) is that error. When
/// tools were offered and the reply has no structured call, calls written as text in
/// `content` are taken (`calls_from_text` set; see [`crate::textcalls`]).
pub(crate) fn parse_reply(body: &[u8], request: &ModelRequest) -> Result<Parsed, AttemptFailure> {
    let v: Value = serde_json::from_slice(body).map_err(|e| not_json(body, &e))?;
    if !v.is_object() {
        return Err(ModelError::Malformed("reply is not a JSON object".into()).into());
    }
    let choices = v.get("choices").and_then(Value::as_array);
    let Some(choice) = choices.and_then(|c| c.first()) else {
        if let Some(err) = v.get("error") {
            let status = err
                .get("code")
                .and_then(Value::as_u64)
                .and_then(|c| u16::try_from(c).ok())
                .filter(|c| (400..600).contains(c))
                .unwrap_or(500);
            return Err(error_for_status(status, crate::wire::provider_message(body), None).into());
        }
        return Err(ModelError::Malformed("reply has no choices".into()).into());
    };
    let message = choice.get("message").cloned().unwrap_or(Value::Null);
    let mut content = content_text(message.get("content"));
    let mut tool_calls: Vec<ToolCall> = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let f = c.get("function");
                    ToolCall {
                        id: c
                            .get("id")
                            .and_then(Value::as_str)
                            .filter(|s| !s.is_empty())
                            .map(str::to_string)
                            .unwrap_or_else(|| format!("call_{i}")),
                        name: f
                            .and_then(|f| f.get("name"))
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                        arguments: parse_arguments(f.and_then(|f| f.get("arguments"))),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    if tool_calls.is_empty() {
        if let Some(f) = message.get("function_call").filter(|f| f.is_object()) {
            tool_calls.push(ToolCall {
                id: "call_0".into(),
                name: f
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                arguments: parse_arguments(f.get("arguments")),
            });
        }
    }
    let mut calls_from_text = false;
    if tool_calls.is_empty() && !request.tools.is_empty() {
        let offered: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
        tool_calls = parse_text_tool_calls(&content, &offered);
        calls_from_text = !tool_calls.is_empty();
    }
    let finish_reason = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(str::to_string);
    // A reply cut off at the cap may still hold a whole tool call before a runaway tail.
    if tool_calls.is_empty()
        && !request.tools.is_empty()
        && finish_reason.as_deref().map(crate::FinishReason::parse)
            == Some(crate::FinishReason::Length)
    {
        if let Some(call) = crate::salvage::salvage_call(&content, &request.tools) {
            tool_calls.push(call);
            calls_from_text = true;
        }
    }
    if request.json_reply {
        content = strip_code_fences(&content);
    }
    // A reply begun for the model: llama.cpp's whole body repeats the start, its stream
    // (and other servers) send only the rest.
    if let Some(start) = request.prefill() {
        if !content.starts_with(start) {
            content.insert_str(0, start);
        }
    }
    let usage = v.get("usage");
    let figure = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_u64);
    let (usage, usage_reported) = complete_usage(
        figure("prompt_tokens"),
        figure("completion_tokens"),
        request,
        &content,
        &tool_calls,
    );
    Ok(Parsed {
        reply: ModelReply {
            content,
            tool_calls,
            usage,
            finish_reason,
            calls_from_text,
            timings: crate::types::ServerTimings::from_llama(&v),
            tokens: crate::TokenChoice::from_logprobs(choice.pointer("/logprobs/content")),
        },
        usage_reported,
    })
}

fn content_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.as_str()),
                _ => p.get("text").and_then(Value::as_str),
            })
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ToolSchema;

    fn req(json_reply: bool) -> ModelRequest {
        ModelRequest {
            node: kotef_core::NodeName::Coder,
            messages: vec![
                Message::system("You are kotef."),
                Message::user("Fix the bug."),
                Message {
                    role: Role::Assistant,
                    content: String::new(),
                    tool_calls: vec![
                        ToolCall {
                            id: "c1".into(),
                            name: "read_file".into(),
                            arguments: json!({"path": "a.rs"}),
                        },
                        ToolCall {
                            id: "c2".into(),
                            name: "write_file".into(),
                            arguments: Value::String("{broken".into()),
                        },
                    ],
                    tool_call_id: None,
                },
                Message::tool_result("c1", "fn main() {}"),
                Message {
                    role: Role::Tool,
                    content: "orphan".into(),
                    tool_calls: vec![],
                    tool_call_id: None,
                },
            ],
            tools: vec![ToolSchema {
                name: "read_file".into(),
                description: "Read a file".into(),
                parameters: Value::Null,
            }],
            json_reply,
            temperature: None,
            max_tokens: None,
            code_reply: false,
            alternatives: None,
        }
    }

    #[test]
    fn body_carries_tools_calls_and_results() {
        let b = request_body("gpt-4o", &req(false), &BodyOptions::default());
        assert_eq!(b["model"], "gpt-4o");
        assert_eq!(b["tools"][0]["type"], "function");
        assert_eq!(b["tools"][0]["function"]["name"], "read_file");
        assert_eq!(b["tools"][0]["function"]["parameters"]["type"], "object");
        let m = b["messages"].as_array().unwrap();
        assert_eq!(m.len(), 5);
        assert_eq!(m[2]["content"], Value::Null);
        assert_eq!(
            m[2]["tool_calls"][0]["function"]["arguments"],
            "{\"path\":\"a.rs\"}"
        );
        assert_eq!(
            m[2]["tool_calls"][1]["function"]["arguments"], "{\"raw_arguments\":\"{broken\"}",
            "arguments in the history are always a JSON object"
        );
        assert_eq!(
            m[3],
            json!({"role": "tool", "tool_call_id": "c1", "content": "fn main() {}"})
        );
        assert_eq!(m[4]["role"], "user");
        assert!(b.get("response_format").is_none());
        assert!(b.get("max_tokens").is_none());
        assert!(b.get("temperature").is_none());
    }

    #[test]
    fn alternatives_are_asked_for_as_top_logprobs_only_when_wanted() {
        let mut r = req(false);
        assert!(request_body("local", &r, &BodyOptions::default())
            .get("logprobs")
            .is_none());
        r.alternatives = Some(5);
        let b = request_body("local", &r, &BodyOptions::default());
        assert_eq!(
            (&b["logprobs"], &b["top_logprobs"]),
            (&json!(true), &json!(5))
        );
    }

    #[test]
    fn a_replys_logprobs_are_read_as_tokens_with_the_likeliest_others() {
        let body = json!({"choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": " is not"},
            "logprobs": {"content": [
                {"token": " is", "logprob": -0.01, "top_logprobs": [{"token": " is", "logprob": -0.01}]},
                {"token": " not", "logprob": -0.9, "top_logprobs": [
                    {"token": " not", "logprob": -0.9}, {"token": " None", "logprob": -1.2}]},
                {"logprob": -1.0}]}}]});
        let reply = parse_reply(body.to_string().as_bytes(), &req(false))
            .unwrap()
            .reply;
        assert_eq!(
            reply.tokens,
            [
                crate::TokenChoice {
                    text: " is".into(),
                    logprob: -0.01,
                    others: vec![(" is".into(), -0.01)]
                },
                crate::TokenChoice {
                    text: " not".into(),
                    logprob: -0.9,
                    others: vec![(" not".into(), -0.9), (" None".into(), -1.2)]
                },
            ]
        );
    }

    #[test]
    fn temperature_and_max_tokens_are_sent_when_set() {
        let opts = BodyOptions {
            max_tokens: Some(2048),
            temperature: Some(0.25),
            json_mode: false,
            stream: false,
            progress: false,
        };
        let b = request_body("m", &req(false), &opts);
        assert_eq!(b["max_tokens"], 2048);
        assert_eq!(b["temperature"], 0.25);
    }

    #[test]
    fn json_reply_without_json_mode_sends_no_response_format() {
        let b = request_body("m", &req(true), &BodyOptions::default());
        assert!(b.get("response_format").is_none());
    }

    #[test]
    fn a_400_naming_response_format_is_a_json_mode_refusal() {
        let e = |status, message: &str| ModelError::Rejected {
            status,
            message: message.into(),
        };
        assert!(rejects_json_mode(&e(
            400,
            "Unsupported param: response_format"
        )));
        assert!(!rejects_json_mode(&e(400, "messages is empty")));
        assert!(!rejects_json_mode(&e(401, "response_format")));
        assert!(!rejects_json_mode(&ModelError::Timeout(1)));
    }

    /// A reply body whose message is `message`.
    fn body(message: Value) -> Vec<u8> {
        json!({"choices": [{"message": message}]})
            .to_string()
            .into_bytes()
    }

    /// A code request whose reply is begun for the model with `begun`.
    fn begun_req(begun: &str) -> ModelRequest {
        ModelRequest {
            node: kotef_core::NodeName::Coder,
            messages: vec![Message::user("Fix the bug."), Message::assistant(begun)],
            tools: Vec::new(),
            json_reply: false,
            temperature: None,
            max_tokens: None,
            code_reply: true,
            alternatives: None,
        }
    }

    #[test]
    fn a_begun_reply_starts_with_its_beginning_whether_or_not_the_server_repeats_it() {
        let begun = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\n";
        let whole = format!("{begun}x = 2\n>>>>>>> REPLACE\n");
        for content in ["x = 2\n>>>>>>> REPLACE\n", whole.as_str()] {
            let p = parse_reply(&body(json!({"content": content})), &begun_req(begun)).unwrap();
            assert_eq!(p.reply.content, whole);
        }
    }

    #[test]
    fn text_tool_calls_are_taken_when_tools_were_offered() {
        let content =
            r#"<tool_call>{"name": "read_file", "arguments": {"path": "a.rs"}}</tool_call>"#;
        let p = parse_reply(&body(json!({"content": content})), &req(false)).unwrap();
        assert_eq!(p.reply.tool_calls.len(), 1);
        assert_eq!(p.reply.tool_calls[0].arguments, json!({"path": "a.rs"}));
        assert!(p.reply.calls_from_text);
    }

    #[test]
    fn text_tool_calls_are_ignored_when_no_tools_were_offered() {
        let mut r = req(false);
        r.tools.clear();
        let content = r#"{"name": "read_file", "arguments": {}}"#;
        let p = parse_reply(&body(json!({"content": content})), &r).unwrap();
        assert!(p.reply.tool_calls.is_empty());
        assert!(!p.reply.calls_from_text);
    }

    #[test]
    fn structured_tool_calls_are_not_flagged_as_text() {
        let message = json!({
            "content": r#"{"name": "read_file", "arguments": {"path": "b"}}"#,
            "tool_calls": [{"id": "x", "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}}],
        });
        let p = parse_reply(&body(message), &req(false)).unwrap();
        assert_eq!(p.reply.tool_calls.len(), 1);
        assert_eq!(p.reply.tool_calls[0].id, "x");
        assert!(!p.reply.calls_from_text);
    }

    #[test]
    fn json_mode_mentions_json() {
        let opts = BodyOptions {
            max_tokens: Some(100),
            temperature: None,
            json_mode: true,
            stream: false,
            progress: false,
        };
        let b = request_body("m", &req(true), &opts);
        assert_eq!(b["response_format"], json!({"type": "json_object"}));
        assert_eq!(b["max_tokens"], 100);
        assert!(b["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("JSON"));
        let mut r = req(true);
        r.messages[0].content = "Answer in json.".into();
        let b = request_body("m", &r, &BodyOptions::default());
        assert_eq!(b["messages"][0]["content"], "Answer in json.");
    }

    #[test]
    fn parses_content_parts_legacy_function_call_and_error_bodies() {
        let r = req(false);
        let p = parse_reply(
            br#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}"#,
            &r,
        )
        .unwrap();
        assert_eq!(p.reply.content, "ab");
        assert!(!p.usage_reported);
        assert_eq!(p.reply.finish_reason, None);

        let p = parse_reply(
            br#"{"choices":[{"message":{"content":null,"function_call":{"name":"done","arguments":"{}"}}}],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#,
            &r,
        )
        .unwrap();
        assert_eq!(p.reply.tool_calls[0].name, "done");
        assert_eq!(
            p.reply.usage,
            Usage {
                prompt_tokens: 3,
                completion_tokens: 4
            }
        );
        assert!(p.usage_reported);

        let e = parse_reply(br#"{"error":{"message":"busy","code":429}}"#, &r).unwrap_err();
        assert!(matches!(e.error, ModelError::RateLimited { .. }));
        let e = parse_reply(br#"{"error":{"message":"bad"}}"#, &r).unwrap_err();
        assert!(matches!(e.error, ModelError::Server { status: 500, .. }));
        let e = parse_reply(br#"{"choices":[]}"#, &r).unwrap_err();
        assert!(matches!(e.error, ModelError::Malformed(_)));
        let e = parse_reply(b"[1]", &r).unwrap_err();
        assert!(matches!(e.error, ModelError::Malformed(_)));
    }

    #[test]
    fn json_reply_is_unfenced() {
        let p = parse_reply(
            br#"{"choices":[{"message":{"content":"```json\n{\"a\":1}\n```"},"finish_reason":"stop"}]}"#,
            &req(true),
        )
        .unwrap();
        assert_eq!(p.reply.content, "{\"a\":1}");
        assert_eq!(p.reply.finish_reason.as_deref(), Some("stop"));
    }

    #[test]
    fn options_are_checked() {
        assert!(OpenAiModel::new(ClientOptions::new("m", "ftp://x")).is_err());
        assert!(OpenAiModel::new(ClientOptions::new("m", "not a url")).is_err());
        assert!(OpenAiModel::new(ClientOptions::new("", "http://x")).is_err());
        let m = OpenAiModel::new(ClientOptions::new("m", "http://localhost:11434/v1/")).unwrap();
        assert_eq!(m.endpoint(), "http://localhost:11434/v1/chat/completions");
        assert_eq!(m.name(), "openai:m");
    }
}
