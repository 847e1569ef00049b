//! What an attempt's reply changes, and which attempt comes next: a free attempt's edit
//! blocks (fenced or search/replace blocks, `edit_file` calls written as text or sent as tool
//! calls, a fix said in a sentence, a whole function cut at the token cap completed from the
//! file), or a line attempt's one statement ([`super::lines`]).

use super::attempts::Attempts;
use super::{lines, REPAIR_PROMPT};
use crate::graph::prompt::{code_view, context};
use crate::graph::GraphContext;
use kotef_model::ModelRequest;
use kotef_tools::{parse_edit_blocks_ignoring, Change, EditBlock};

/// The edit blocks of a reply; a model that still wrote `edit_file`/`write_file` calls (as
/// JSON text, or as native tool calls although none were offered) gets them read as blocks.
pub(super) fn reply_blocks(reply: &kotef_model::ModelReply) -> Vec<EditBlock> {
    let blocks = blocks_of(&reply.content);
    if !blocks.is_empty() {
        return blocks;
    }
    reply.tool_calls.iter().filter_map(call_block).collect()
}

/// Whether the step begins with line attempts rather than a free one: when the opening shows
/// a file of the project only in part (a long file as its outline and excerpts). A free
/// attempt there rewrites code it sees in fragments, in up to [`super::REPAIR_MAX_TOKENS`]
/// tokens: on the real projects' held-out runs the free attempts took 44 % of the model's
/// time for one pass in 63, the line attempts the rest for five in 963. Where every file is
/// shown whole (a one-function bug), the free attempt, which sees all the code, comes first
/// (four passes in eleven there).
pub(super) fn lines_first(files: &[(String, String)], protected: &[String]) -> bool {
    (files.iter()).any(|(path, text)| !protected.contains(path) && code_view::shown_in_part(text))
}

/// [`lines_first`], and when it holds, the server asked what it is before the first call:
/// line attempts need one that continues a begun reply.
pub(super) async fn begins_with_lines(
    ctx: &GraphContext,
    files: &[(String, String)],
    protected: &[String],
) -> bool {
    let first = lines_first(files, protected);
    if first {
        ctx.model.identify_server().await;
    }
    first
}

/// The next attempt and its request: a line attempt while statements are left to offer
/// ([`lines`]; only to a server that continues a begun reply), after a first attempt failed
/// or from the first when the step begins with them ([`lines_first`]); else a free one.
pub(super) fn next_attempt(
    ctx: &GraphContext,
    a: &mut Attempts,
    offers: &mut lines::Queue,
    (opening, lines_first): (&str, bool),
) -> (Option<lines::Offer>, ModelRequest) {
    let offer = ((a.made >= 1 || lines_first) && ctx.model.continues_replies())
        .then(|| offers.next())
        .flatten();
    let request = match &offer {
        Some(o) => a.line_request(opening, &o.begun(), o.temperature),
        None => a.next_request(opening),
    };
    (offer, request)
}

/// The blocks of an attempt's reply ([`attempt_blocks`] for a free one); `None` for a line
/// attempt whose statement was written back as it was. A line attempt's reply opens its
/// branches ([`lines::branches`]); written back as it was, with no alternatives reported, the
/// statement is offered again, hotter, once.
pub(super) fn attempt_change(
    reply: &kotef_model::ModelReply,
    offer: Option<lines::Offer>,
    files: &[(String, String)],
    a: &mut Attempts,
    offers: &mut lines::Queue,
) -> Option<Vec<EditBlock>> {
    let Some(o) = offer else {
        return Some(attempt_blocks(reply, files, a));
    };
    offers.replied(&o, &reply.tokens);
    if let Some(block) = lines::change(&o.target, &reply.content, o.place) {
        return Some(vec![block]);
    }
    a.notes.push(format!(
        "attempt {}: `{}` written back as it was",
        a.made,
        context::clip(o.target.text.trim(), 60)
    ));
    offers.unchanged(o);
    None
}

/// The reply's edit blocks; of a reply cut at the token cap while it rewrote a long function
/// whole, the part written completed by the rest of the function from the file (noted).
fn attempt_blocks(
    reply: &kotef_model::ModelReply,
    files: &[(String, String)],
    a: &mut Attempts,
) -> Vec<EditBlock> {
    let blocks = reply_blocks(reply);
    if !blocks.is_empty() {
        return blocks;
    }
    if let Some(block) = kotef_tools::inline_change(&reply.content, files) {
        a.notes.push(format!(
            "attempt {}: a change written as a sentence (`old` should be `new`), read as a block",
            a.made
        ));
        return vec![block];
    }
    if !reply.cut_off() {
        return blocks;
    }
    let completed: Vec<EditBlock> = kotef_tools::complete_cut_definition(&reply.content, files)
        .into_iter()
        .collect();
    if !completed.is_empty() {
        a.notes.push(format!(
            "attempt {}: a reply cut at the token cap, completed from the file",
            a.made
        ));
    }
    completed
}

fn call_block(c: &kotef_model::ToolCall) -> Option<EditBlock> {
    let arg = |k: &str| {
        c.arguments
            .get(k)
            .and_then(|v| v.as_str())
            .map(String::from)
    };
    let change = match kotef_tools::Tool::parse(&c.name)? {
        kotef_tools::Tool::EditFile => Change::Replace {
            search: arg("old")?,
            replace: arg("new")?,
        },
        kotef_tools::Tool::WriteFile => Change::Code {
            text: arg("content")?,
        },
        _ => return None,
    };
    Some(EditBlock {
        path: arg("path"),
        change,
    })
}

/// The edit blocks of a reply's text; `edit_file`/`write_file` calls written as JSON text are
/// read as blocks.
pub(super) fn blocks_of(content: &str) -> Vec<EditBlock> {
    // The prompt's own words, which a small model copies into its blocks.
    let template: Vec<&str> = REPAIR_PROMPT
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('-') && !l.contains("====="))
        .filter(|l| !l.contains("<<<<<<<") && !l.contains(">>>>>>>"))
        .collect();
    let blocks = parse_edit_blocks_ignoring(content, &template);
    if !blocks.is_empty() {
        return blocks;
    }
    kotef_model::parse_text_tool_calls(content, &["edit_file", "write_file"])
        .iter()
        .filter_map(call_block)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_edit_calls_written_as_text_are_read_as_blocks() {
        let blocks = blocks_of(
            r#"{"name": "edit_file", "arguments": {"path": "a.py", "old": "x = 1", "new": "x = 2"}}"#,
        );
        assert_eq!(
            blocks,
            vec![EditBlock {
                path: Some("a.py".into()),
                change: Change::Replace {
                    search: "x = 1".into(),
                    replace: "x = 2".into()
                }
            }]
        );
    }
}
