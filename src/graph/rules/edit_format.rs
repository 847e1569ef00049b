//! How the coder writes code for this run, decided by what the server does rather than by
//! its host name. `tools` and `blocks` are fixed; `auto` (the default) starts with tools and
//! watches the replies to requests that offer them: a native tool call settles on tools; a
//! call written as text (the server does not do tool calling, or its model does not use
//! it), or [`PROSE_LIMIT`] replies in a row with no call at all before any native call,
//! switches to fenced edit blocks in the repair loop, for the rest of the run.

use kotef_core::EditFormat;
use kotef_model::ModelReply;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};

/// Replies without any tool call, in a row and before any native call, that show the server
/// ignores the tools it is offered.
pub const PROSE_LIMIT: u32 = 2;

const UNDECIDED: u8 = 0;
const TOOLS: u8 = 1;
const BLOCKS: u8 = 2;

/// The run's edit format; shared by the nodes, so it changes through `&self`.
#[derive(Debug)]
pub struct EditChoice {
    configured: EditFormat,
    settled: AtomicU8,
    prose_in_a_row: AtomicU32,
}

/// What one reply showed, when it settled the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// A native tool call: the tool loop stays.
    Tools,
    /// Calls written as text, or replies without calls: the repair loop's edit blocks.
    Blocks,
}

impl EditChoice {
    pub fn new(configured: EditFormat) -> Self {
        let settled = match configured {
            EditFormat::Tools => TOOLS,
            EditFormat::Blocks => BLOCKS,
            EditFormat::Auto => UNDECIDED,
        };
        Self {
            configured,
            settled: AtomicU8::new(settled),
            prose_in_a_row: AtomicU32::new(0),
        }
    }

    /// Whether the coder works with fenced edit blocks now (the repair loop, while the tests
    /// fail); otherwise it is offered tools.
    pub fn blocks(&self) -> bool {
        self.settled.load(Ordering::Relaxed) == BLOCKS
    }

    /// Takes the evidence of a reply to a request that offered tools; `Some` when this reply
    /// settled an `auto` format. A settled format never changes again.
    pub fn observe(&self, reply: &ModelReply) -> Option<Settled> {
        if self.configured != EditFormat::Auto || self.settled.load(Ordering::Relaxed) != UNDECIDED
        {
            return None;
        }
        let native = !reply.tool_calls.is_empty() && !reply.calls_from_text;
        // A call written as text settles at once; replies with no call at all, at the limit.
        let settled = if native {
            Settled::Tools
        } else if reply.calls_from_text
            || self.prose_in_a_row.fetch_add(1, Ordering::Relaxed) + 1 >= PROSE_LIMIT
        {
            Settled::Blocks
        } else {
            return None;
        };
        let value = match settled {
            Settled::Tools => TOOLS,
            Settled::Blocks => BLOCKS,
        };
        self.settled
            .compare_exchange(UNDECIDED, value, Ordering::Relaxed, Ordering::Relaxed)
            .ok()
            .map(|_| settled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_model::ToolCall;

    fn reply(calls: usize, from_text: bool) -> ModelReply {
        ModelReply {
            tool_calls: (0..calls)
                .map(|i| ToolCall {
                    id: format!("c{i}"),
                    name: "read_file".into(),
                    arguments: serde_json::json!({"path": "a"}),
                })
                .collect(),
            calls_from_text: from_text,
            content: String::new(),
            usage: kotef_model::Usage::default(),
            finish_reason: None,
            timings: None,
            tokens: Vec::new(),
        }
    }

    #[test]
    fn auto_offers_tools_until_the_server_shows_otherwise() {
        let c = EditChoice::new(EditFormat::Auto);
        assert!(!c.blocks());
        assert_eq!(c.observe(&reply(1, false)), Some(Settled::Tools));
        // Settled: later text calls change nothing.
        assert_eq!(c.observe(&reply(1, true)), None);
        assert!(!c.blocks());
    }

    #[test]
    fn text_tool_calls_switch_auto_to_blocks() {
        let c = EditChoice::new(EditFormat::Auto);
        assert_eq!(c.observe(&reply(1, true)), Some(Settled::Blocks));
        assert!(c.blocks());
        assert_eq!(c.observe(&reply(1, false)), None);
        assert!(c.blocks());
    }

    #[test]
    fn replies_without_calls_switch_auto_to_blocks_after_the_limit() {
        let c = EditChoice::new(EditFormat::Auto);
        assert_eq!(c.observe(&reply(0, false)), None);
        assert!(!c.blocks());
        assert_eq!(c.observe(&reply(0, false)), Some(Settled::Blocks));
        assert!(c.blocks());
    }

    #[test]
    fn a_configured_format_never_changes() {
        let tools = EditChoice::new(EditFormat::Tools);
        let blocks = EditChoice::new(EditFormat::Blocks);
        for r in [
            reply(1, true),
            reply(0, false),
            reply(0, false),
            reply(1, false),
        ] {
            assert_eq!(tools.observe(&r), None);
            assert_eq!(blocks.observe(&r), None);
        }
        assert!(!tools.blocks() && blocks.blocks());
    }
}
