//! Provider-neutral request and reply types, the `Model` trait and its typed errors.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
    /// The result of one tool call, answering `tool_call_id`.
    Tool,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// Tool calls the assistant made in this message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For `Role::Tool`: the call this message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Self::plain(Role::System, content)
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self::plain(Role::User, content)
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::plain(Role::Assistant, content)
    }
    pub fn tool_result(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            role: Role::Tool,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: Some(call_id.into()),
        }
    }
    fn plain(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
}

/// A tool the model may call: name, description and JSON-schema parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSchema {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// One tool call made by the model. `arguments` is the parsed JSON object (a provider that
/// sends unparseable arguments yields `Value::String` with the raw text, for the tool layer
/// to reject with a clear error).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// One model call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelRequest {
    /// The graph node making the call; the scripted model answers per node, real providers
    /// ignore it.
    pub node: kotef_core::NodeName,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSchema>,
    /// Ask the provider for a JSON object reply (planner, researcher's final answer). The
    /// OpenAI-compatible client sends `response_format: {"type": "json_object"}` (a server that
    /// answers 400 naming `response_format` is asked once more without it, and not sent it
    /// again) and unwraps a fenced reply; Anthropic gets a system instruction instead.
    pub json_reply: bool,
    /// A sampling temperature for this call only (the configured one otherwise): the coder
    /// raises it for the call after a repeated failing call, so a small model at a low
    /// temperature does not send the same reply again.
    pub temperature: Option<f64>,
    /// A lower cap on this reply's completion tokens than the configured one (the repair
    /// loop's short replies): the smaller of the two is sent.
    pub max_tokens: Option<u32>,
    /// The reply is code in fenced blocks after an explanation (the repair loop's): it is
    /// complete once its last fenced or search/replace block closes, so a streamed reply is
    /// ended at the first line of prose after a block that followed the explanation, instead
    /// of being waited for (`crate::stream::prose_after_code`).
    pub code_reply: bool,
    /// Ask for the likeliest other tokens at each generated token, this many (OpenAI's and
    /// llama.cpp's `logprobs` with `top_logprobs`): the repair loop's line attempts read the
    /// model's next-likeliest lines from them ([`ModelReply::tokens`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternatives: Option<u8>,
}

impl ModelRequest {
    /// A request of `messages` offering `tools`, with the defaults: any reply, the configured
    /// temperature and token cap, no alternatives.
    pub fn plain(
        node: kotef_core::NodeName,
        messages: Vec<Message>,
        tools: Vec<ToolSchema>,
    ) -> Self {
        ModelRequest {
            node,
            messages,
            tools,
            json_reply: false,
            temperature: None,
            max_tokens: None,
            code_reply: false,
            alternatives: None,
        }
    }

    /// The start of the reply written for the model to continue: a last assistant message
    /// with text and no tool calls. A server that continues it (llama.cpp does, see
    /// [`Model::continues_replies`]) answers with the rest; the reply's content begins with it
    /// either way.
    pub fn prefill(&self) -> Option<&str> {
        self.messages
            .last()
            .filter(|m| m.role == Role::Assistant && m.tool_calls.is_empty())
            .map(|m| m.content.as_str())
            .filter(|c| !c.is_empty())
    }

    /// Estimated prompt tokens: ceil(characters of all messages and tool schemas / 4).
    pub fn estimated_prompt_tokens(&self) -> u64 {
        let mut chars = 0usize;
        for m in &self.messages {
            chars += m.content.chars().count();
            for c in &m.tool_calls {
                chars += c.name.chars().count() + c.arguments.to_string().chars().count();
            }
        }
        for t in &self.tools {
            chars += t.name.chars().count()
                + t.description.chars().count()
                + t.parameters.to_string().chars().count();
        }
        div_ceil4(chars)
    }
}

/// Token usage of one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// The model's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelReply {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    /// The provider's finish reason, when it gave one (may be empty).
    pub finish_reason: Option<String>,
    /// Whether `tool_calls` were parsed from the text of `content` because the model wrote
    /// them as text instead of using the tool-calling interface (see [`crate::textcalls`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub calls_from_text: bool,
    /// The server's own timing of the call, when it reports one (llama.cpp's `timings`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings: Option<ServerTimings>,
    /// The generated tokens with their log-probabilities and the likeliest others, when the
    /// request asked for them ([`ModelRequest::alternatives`]) and the server sent them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<TokenChoice>,
}

/// One generated token: its text, its log-probability, and the likeliest tokens the model
/// could have written there instead (each with its log-probability; the token itself may be
/// among them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenChoice {
    pub text: String,
    pub logprob: f64,
    pub others: Vec<(String, f64)>,
}

impl TokenChoice {
    /// The tokens of a Chat Completions choice's `logprobs.content` (OpenAI's and llama.cpp's
    /// shape); entries without a token or a log-probability are skipped.
    pub fn from_logprobs(content: Option<&Value>) -> Vec<TokenChoice> {
        let entry = |e: &Value| -> Option<(String, f64)> {
            Some((
                e.get("token")?.as_str()?.to_string(),
                e.get("logprob")?.as_f64()?,
            ))
        };
        content
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let (text, logprob) = entry(e)?;
                let others = e
                    .get("top_logprobs")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(entry)
                    .collect();
                Some(TokenChoice {
                    text,
                    logprob,
                    others,
                })
            })
            .collect()
    }
}

/// Why a reply ended, normalised across providers: OpenAI's `length` and Anthropic's
/// `max_tokens` are both [`FinishReason::Length`]; the raw text stays in
/// [`ModelReply::finish_reason`] for the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishReason {
    /// The model stopped by itself (`stop`, `end_turn`, `stop_sequence`).
    Stop,
    /// The reply hit the `max_tokens` cap (or was cut by kotef as degenerate).
    Length,
    /// The model asked for tools (`tool_calls`, `tool_use`, `function_call`).
    ToolCalls,
    /// Anything else a provider sends (`content_filter`, …).
    Other,
}

impl FinishReason {
    /// The normalised reason for a provider's raw finish reason.
    pub fn parse(raw: &str) -> Self {
        match raw {
            "stop" | "end_turn" | "stop_sequence" => Self::Stop,
            "length" | "max_tokens" => Self::Length,
            "tool_calls" | "tool_use" | "function_call" => Self::ToolCalls,
            _ => Self::Other,
        }
    }
}

impl ModelReply {
    /// The normalised finish reason, when the provider gave one.
    pub fn finish(&self) -> Option<FinishReason> {
        self.finish_reason.as_deref().map(FinishReason::parse)
    }

    /// Whether the reply stopped at the `max_tokens` cap rather than by itself.
    pub fn cut_off(&self) -> bool {
        self.finish() == Some(FinishReason::Length)
    }
}

/// How the server spent a call, from its own figures (llama.cpp's `timings`): the prompt
/// tokens it had to process (not reused from its prompt cache), the ones it reused, and the
/// milliseconds for the prompt and for generation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerTimings {
    pub prompt_uncached: u64,
    pub prompt_cached: u64,
    pub prompt_ms: f64,
    pub generated: u64,
    pub generation_ms: f64,
    /// Timed by kotef, not the server: kotef ended the streamed reply itself (a runaway, or a
    /// code reply complete before its prose), so the server sent no figures; the prompt is
    /// the time to the first text, and the cached/uncached split is unknown (0).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub client_clock: bool,
}

impl ServerTimings {
    /// llama.cpp's `timings` object (`prompt_n`, `cache_n`, `prompt_ms`, `predicted_n`,
    /// `predicted_ms`); `None` when the reply has none.
    pub fn from_llama(v: &serde_json::Value) -> Option<Self> {
        let t = v.get("timings")?.as_object()?;
        let n = |k: &str| t.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
        let ms = |k: &str| t.get(k).and_then(serde_json::Value::as_f64).unwrap_or(0.0);
        Some(Self {
            prompt_uncached: n("prompt_n"),
            prompt_cached: n("cache_n"),
            prompt_ms: ms("prompt_ms"),
            generated: n("predicted_n"),
            generation_ms: ms("predicted_ms"),
            client_clock: t
                .get("client_clock")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
        })
    }
}

impl ServerTimings {
    /// Adds what these timings measured to `meter` (kotef's own clock, for a stream it ended
    /// early, gives no prompt figure: the call's last prompt progress stands for it).
    pub fn measure(&self, meter: &mut crate::pace::SpeedMeter) {
        let prompt = if self.client_clock {
            meter.ended();
            (0, 0.0)
        } else {
            (self.prompt_uncached, self.prompt_ms)
        };
        meter.finished(prompt, (self.generated, self.generation_ms));
    }
}

impl ModelReply {
    /// Estimated completion tokens: ceil(characters of content and tool calls / 4).
    pub fn estimated_completion_tokens(content: &str, calls: &[ToolCall]) -> u64 {
        let mut chars = content.chars().count();
        for c in calls {
            chars += c.name.chars().count() + c.arguments.to_string().chars().count();
        }
        div_ceil4(chars)
    }
}

/// ceil(characters / 4), the contract's token estimate for a text.
pub fn estimate_tokens(text: &str) -> u64 {
    div_ceil4(text.chars().count())
}

fn div_ceil4(chars: usize) -> u64 {
    (chars as u64).div_ceil(4)
}

/// Why a model call failed. Callers branch on `is_retryable`; every variant carries the
/// provider's message with secrets removed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// 429 or a provider's overload answer; `retry_after_ms` when the provider said.
    #[error("rate limited: {message}")]
    RateLimited {
        message: String,
        retry_after_ms: Option<u64>,
    },
    /// 5xx or a provider error that may pass.
    #[error("provider error (status {status}): {message}")]
    Server { status: u16, message: String },
    /// Connection refused, reset, DNS.
    #[error("connection error: {0}")]
    Connection(String),
    /// The server showed no progress for this many milliseconds (no byte of a streamed reply,
    /// or a wait its measured speed explains was over). Not retried: a request that timed
    /// out is never sent again unchanged.
    #[error("model call timed out after {0} ms without progress")]
    Timeout(u64),
    /// 400/401/403/404 and other answers that will not change on retry.
    #[error("request rejected (status {status}): {message}")]
    Rejected { status: u16, message: String },
    /// A reply that could not be understood.
    #[error("malformed reply: {0}")]
    Malformed(String),
    /// A scripted `{"error": ...}` turn, standing in for a provider failure.
    #[error("provider error: {0}")]
    Scripted(String),
    /// Configuration problems found before any call (missing key, unknown provider).
    #[error("model configuration: {0}")]
    Config(String),
}

impl ModelError {
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::RateLimited { .. } | Self::Server { .. } | Self::Connection(_)
        )
    }
}

/// A chat model with tool calling.
#[async_trait::async_trait]
pub trait Model: Send + Sync {
    /// `provider:name`, for reports.
    fn name(&self) -> String;

    /// One call. Implementations retry transient failures themselves (bounded, honouring
    /// Retry-After); the error returned is final for this call.
    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError>;

    /// Calls made inside `complete` that failed before the final answer (retries), with the
    /// tokens they are charged; drained by the caller after each `complete`. The attempt
    /// whose error `complete` returns is not among them: the caller charges that call itself.
    fn take_failed_attempts(&self) -> Vec<Usage> {
        Vec::new()
    }

    /// Every HTTP attempt made since the last drain (successful or not), with its status,
    /// latency and tokens; for reports and logs. Models that make no HTTP calls return none.
    fn take_call_records(&self) -> Vec<CallRecord> {
        Vec::new()
    }

    /// Whether the model is served locally or self-hosted (a loopback, private or bare-name
    /// base URL; see [`crate::http::is_local_url`]): such a model costs $0 unless priced.
    fn local_endpoint(&self) -> bool {
        false
    }

    /// The server's speed as measured on the calls so far (its own timings and prompt
    /// progress), for sizing the next call; `None` when nothing was measured.
    fn server_speed(&self) -> Option<crate::pace::ServerSpeed> {
        None
    }

    /// The completion-token cap sent when a request sets none (`[model] max_tokens`).
    fn reply_cap(&self) -> Option<u32> {
        None
    }

    /// Whether the server is known to continue a reply begun for it
    /// ([`ModelRequest::prefill`]): llama.cpp does, and says it is llama.cpp by the `timings`
    /// in its replies. OpenAI's API answers a fresh message instead, so a caller asks only
    /// when this holds.
    fn continues_replies(&self) -> bool {
        false
    }

    /// Asks the server what it is when no reply has said so yet, once per model (llama.cpp
    /// names itself in its model list, [`crate::identify`]), so [`Model::continues_replies`]
    /// can hold before the first call. Never fails: what cannot be learned stays unknown.
    async fn identify_server(&self) {}
}

/// One HTTP attempt of a real provider: what it was charged and how long it took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// `provider:name` of the model.
    pub model: String,
    /// 1 for the first attempt of a call, 2 for its first retry, ...
    pub attempt: u32,
    /// The HTTP status, when an answer came.
    pub status: Option<u16>,
    /// From sending the request to the end of the reply body (or the failure).
    pub latency_ms: u64,
    /// Time waited before this attempt (0 for a call's first attempt).
    #[serde(default)]
    pub waited_ms: u64,
    /// Tokens charged: the provider's usage (estimates for missing figures); a failed attempt
    /// is charged the prompt estimate and 0 completion tokens.
    pub usage: Usage,
    /// Whether `usage` is the provider's own figure (false: estimated).
    pub usage_reported: bool,
    /// The error of a failed attempt (secrets redacted).
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    #[test]
    fn finish_reasons_of_every_provider_are_normalised() {
        use super::FinishReason::{self, *};
        let raw = [
            "length",
            "max_tokens",
            "stop",
            "end_turn",
            "tool_calls",
            "tool_use",
            "content_filter",
        ];
        assert_eq!(
            raw.map(FinishReason::parse),
            [Length, Length, Stop, Stop, ToolCalls, ToolCalls, Other]
        );
    }

    use super::*;

    #[test]
    fn llama_timings_say_what_the_prompt_cache_saved() {
        let v = serde_json::json!({"timings": {"cache_n": 900, "prompt_n": 120, "prompt_ms": 1500.5,
            "predicted_n": 40, "predicted_ms": 2600.0}});
        let t = ServerTimings::from_llama(&v).unwrap();
        assert_eq!(
            (t.prompt_uncached, t.prompt_cached, t.generated),
            (120, 900, 40)
        );
        assert_eq!((t.prompt_ms, t.generation_ms), (1500.5, 2600.0));
    }

    #[test]
    fn llama_timings_give_the_server_speed() {
        let t = ServerTimings {
            prompt_uncached: 1800,
            prompt_cached: 900,
            prompt_ms: 100_000.0,
            generated: 74,
            generation_ms: 10_000.0,
            client_clock: false,
        };
        let speed = |t: &ServerTimings| {
            let mut m = crate::pace::SpeedMeter::default();
            t.measure(&mut m);
            m.speed()
        };
        let s = speed(&t);
        assert_eq!(
            (s.prompt_per_s, s.generation_per_s),
            (Some(18.0), Some(7.4))
        );
        // A prompt mostly cached says nothing of the prompt speed.
        let cached = ServerTimings {
            prompt_uncached: 3,
            prompt_ms: 200.0,
            ..t
        };
        assert_eq!(speed(&cached).prompt_per_s, None);
    }

    #[test]
    fn a_reply_without_timings_has_none() {
        assert_eq!(
            ServerTimings::from_llama(&serde_json::json!({"usage": {}})),
            None
        );
    }

    #[test]
    fn token_estimate_is_ceil_of_quarter_chars() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abc"), 1);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        let req = ModelRequest {
            node: kotef_core::NodeName::Planner,
            messages: vec![Message::user("12345678")],
            tools: vec![],
            json_reply: true,
            temperature: None,
            max_tokens: None,
            code_reply: false,
            alternatives: None,
        };
        assert_eq!(req.estimated_prompt_tokens(), 2);
    }

    #[test]
    fn retryable_errors() {
        assert!(!ModelError::Timeout(1).is_retryable());
        assert!(ModelError::Server {
            status: 502,
            message: String::new()
        }
        .is_retryable());
        assert!(!ModelError::Rejected {
            status: 401,
            message: String::new()
        }
        .is_retryable());
        assert!(!ModelError::Malformed(String::new()).is_retryable());
    }
}
