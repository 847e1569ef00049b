//! The `Model` trait every provider implements, the message and tool-call types the graph
//! speaks, token estimation, and the scripted model of the scenario contract.
//!
//! Real providers (OpenAI-compatible Chat Completions, Anthropic Messages) live beside the
//! scripted model and are chosen by a spec string (`openai:NAME`, `anthropic:NAME`,
//! `scripted:FILE`) with [`model_from_spec`]. Both share one retry policy ([`RetryPolicy`]),
//! charge failed attempts to the budget ([`Model::take_failed_attempts`]) and record every
//! attempt's status, latency and tokens ([`Model::take_call_records`]). [`cost_usd`] prices
//! a call's usage.

pub mod anthropic;
pub mod cost;
pub mod http;
pub mod identify;
mod jsonrepair;
pub mod openai;
pub mod pace;
mod prices;
pub mod replies;
pub mod retry;
pub mod salvage;
pub mod scripted;
pub mod select;
pub mod stream;
pub mod textcalls;
pub mod types;
pub mod wire;

pub use anthropic::{AnthropicModel, ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_VERSION};
pub use cost::{cost_usd, price_of, table_price, Price, PriceSource, PRICE_TABLE_DATE};
pub use http::ClientOptions;
pub use openai::{BodyOptions, OpenAiModel, OPENAI_DEFAULT_BASE_URL};
pub use pace::{PromptProgress, ServerSpeed, SpeedMeter};
pub use retry::{error_for_status, retry_after_hint, RetryPolicy};
pub use scripted::ScriptedModel;
pub use select::{model_from_spec, model_from_spec_with_policy, parse_spec, ModelSpec};
pub use textcalls::{expected_call_shape, first_json_object, is_text_call, parse_text_tool_calls};
pub use types::{
    estimate_tokens, CallRecord, FinishReason, Message, Model, ModelError, ModelReply,
    ModelRequest, Role, ServerTimings, TokenChoice, ToolCall, ToolSchema, Usage,
};
