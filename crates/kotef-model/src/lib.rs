//! The `Model` trait every provider implements, the message and tool-call types the graph
//! speaks, token estimation, and the scripted model of the scenario contract.
//!
//! Real providers (OpenAI-compatible Chat Completions, Anthropic Messages) live beside the
//! scripted model and are chosen by a spec string (`openai:NAME`, `anthropic:NAME`,
//! `scripted:FILE`).

pub mod scripted;
pub mod types;

pub use scripted::ScriptedModel;
pub use types::{
    estimate_tokens, Message, Model, ModelError, ModelReply, ModelRequest, Role, ToolCall,
    ToolSchema, Usage,
};
