//! Streamed Chat Completions replies (server-sent events), read as they arrive so that a
//! reply which degenerates — a small model writing one line, or `\n`, again and again until
//! the token cap — is cut as soon as the repetition shows, instead of after the whole cap has
//! been generated and waited for. Closing the stream early also tells the server to stop
//! (llama.cpp, vLLM and Ollama stop generating when the client goes away).
//!
//! The events are folded into the body of an ordinary, non-streamed reply, so the reply
//! parser is the same for both. A cut reply keeps what came before the repetition (and one
//! copy of the repeated piece) with `finish_reason: "length"`, as a reply cut by the cap has.
//!
//! A code reply (the repair loop's fenced blocks) is also complete once its blocks are: the
//! prose a model writes after the last one is not waited for ([`prose_after_code`]).
//!
//! Tool calls streamed as `delta.tool_calls` pieces are put together by their `index`, and
//! llama.cpp's `prompt_progress` events (sent while it reads the prompt, when the request asks
//! with `return_progress`) are kept for the caller's time limits ([`crate::pace`]).

use crate::pace::PromptProgress;
use serde_json::{json, Map, Value};
use std::time::Instant;

/// How many bytes at the end of a reply must repeat one piece before it is cut.
pub const DEGENERATE_WINDOW: usize = 400;

/// The longest repeated piece (in bytes) looked for: a line of code or prose.
pub const MAX_PERIOD: usize = 100;

/// Where `text` should be cut when its last [`DEGENERATE_WINDOW`] bytes are one piece of at
/// most [`MAX_PERIOD`] bytes over and over: the end of the first copy of the piece. `None`
/// for text that does not end repeating (pure; checked after every streamed chunk).
pub fn degenerate_from(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    if b.len() < DEGENERATE_WINDOW {
        return None;
    }
    let tail = &b[b.len() - DEGENERATE_WINDOW..];
    let p = (1..=MAX_PERIOD).find(|&p| (p..DEGENERATE_WINDOW).all(|i| tail[i] == tail[i - p]))?;
    let mut start = b.len() - DEGENERATE_WINDOW;
    while start > 0 && b[start - 1] == b[start - 1 + p] {
        start -= 1;
    }
    let mut cut = start + p;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    Some(cut)
}

/// Bytes of an unfinished line after a closed block read before it is judged as prose.
pub const PROSE_LINE: usize = 80;

/// Where a code reply (fenced blocks, or search/replace blocks) is complete: just after its
/// last closed block, once a line after that block is prose — three words or more, not
/// ending in `:` as a line that introduces another block does — and only when that block
/// came after the reply's explanation (prose before it), as the repair prompt asks. A reply
/// that opens with code (a small model restating the code before it explains and fixes it)
/// is not ended after that first block. `None` while a block is open, before any block has
/// closed, or while what follows may still open another block (a path, a marker word, a blank
/// line). Pure; checked after every streamed chunk.
pub fn prose_after_code(text: &str) -> Option<usize> {
    code_end(text, false)
}

/// [`prose_after_code`] for a reply `begun` for the model (a search/replace block opened for
/// it, [`crate::ModelRequest::prefill`]) of which `text` is the rest: the start is the
/// caller's, so the block counts as coming after an explanation. The offset is in `text`.
pub fn prose_after_begun_code(begun: &str, text: &str) -> Option<usize> {
    let at = code_end(&format!("{begun}{text}"), true)?;
    at.checked_sub(begun.len())
}

/// The lines that end the replace half of a search/replace block: its end marker, another
/// separator or marker, a fence.
const BLOCK_ENDS: [&str; 4] = [">>>>>>>", "=======", "<<<<<<<", "```"];

/// Where a reply `begun` inside a block's replace half (it opened the block and wrote the
/// separator: a line attempt's start) has its new lines complete: at the start of the first
/// line of `text` (the rest) that opens with an end marker, a separator or a fence — as soon
/// as the marker's first token arrived, so that token's alternatives are read. The marker's
/// word, the closing fence and the end of the turn are 5 of a line attempt's 17 tokens
/// (median of 355 replies), a third of its writing. `None` while no such line has begun, or
/// when `begun` does not end in a replace half. llama.cpp's own server sends the begun part
/// back first, in the event with the first new token: `text` may open with `begun` (the
/// search is after it) or still be part of it (`None`). The offset is in `text`. Pure.
pub fn begun_block_end(begun: &str, text: &str) -> Option<usize> {
    let last_marker = begun
        .lines()
        .map(str::trim)
        .rfind(|l| BLOCK_ENDS.iter().any(|m| l.starts_with(m)))?;
    if !last_marker.starts_with("=======") || begun.starts_with(text) {
        return None;
    }
    let echoed = if text.starts_with(begun) {
        begun.len()
    } else {
        0
    };
    let mut start = if begun.ends_with('\n') {
        echoed
    } else {
        echoed + text[echoed..].find('\n')? + 1
    };
    loop {
        let line = text[start..].trim_start_matches([' ', '\t']);
        if BLOCK_ENDS.iter().any(|m| line.starts_with(m)) {
            return Some(start);
        }
        start += text[start..].find('\n')? + 1;
    }
}

fn code_end(text: &str, explained: bool) -> Option<usize> {
    let (mut in_fence, mut in_search) = (false, false);
    let (mut seen_prose, mut opened_after_prose) = (explained, false);
    let mut end = None;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        pos += line.len();
        if !line.ends_with('\n') {
            break;
        }
        let t = line.trim();
        let outside = !in_fence && !in_search;
        if t.starts_with("```") {
            if outside {
                opened_after_prose = seen_prose;
            }
            in_fence = !in_fence;
            if !in_fence && !in_search {
                end = opened_after_prose.then_some(pos);
            }
        } else if t.starts_with("<<<<<<<") {
            if outside {
                opened_after_prose = seen_prose;
            }
            in_search = true;
        } else if t.starts_with(">>>>>>>") {
            in_search = false;
            if !in_fence {
                end = opened_after_prose.then_some(pos);
            }
        } else if outside && t.split_whitespace().count() >= 3 {
            seen_prose = true;
        }
    }
    let end = end.filter(|_| !in_fence && !in_search)?;
    let after = &text[end..];
    let mut lines = after.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let finished = line.ends_with('\n') || line.len() >= PROSE_LINE;
        if finished && is_prose(line) {
            return Some(end);
        }
        if lines.peek().is_none() {
            break;
        }
    }
    None
}

/// Characters a line must have before a reply that opens with it counts as an echo.
pub const ECHO_LINE: usize = 40;

/// Whether a code reply opens by copying the prompt back: its first line of text (outside a
/// fence, [`ECHO_LINE`] characters or more) is, whole, a line of `prompt` (the request's last
/// user message). A small model shown a list of failed attempts often restates it, attempt
/// by attempt, for hundreds of tokens before it writes anything new. Pure.
pub fn echoes_prompt(text: &str, prompt: &str) -> bool {
    let Some(first) = text
        .split_inclusive('\n')
        .take_while(|l| l.ends_with('\n'))
        .map(str::trim)
        .find(|l| !l.is_empty())
    else {
        return false;
    };
    !first.starts_with("```")
        && first.chars().count() >= ECHO_LINE
        && prompt.lines().any(|l| l.trim() == first)
}

/// A line of sentence text: three words or more, not introducing something with `:`.
fn is_prose(line: &str) -> bool {
    let t = line.trim();
    t.split_whitespace().count() >= 3 && !t.trim_end_matches(['*', '`']).ends_with(':')
}

/// A streamed reply being read: the text so far and what the events said about the end.
#[derive(Debug, Default)]
pub struct StreamedReply {
    pending: Vec<u8>,
    content: String,
    /// The start of the reply the request wrote for the model ([`StreamedReply::continuing`]).
    begun: String,
    finish_reason: Option<String>,
    usage: Option<Value>,
    timings: Option<Value>,
    error: Option<Value>,
    done: bool,
    cut: bool,
    ended: bool,
    started: Option<Instant>,
    first_text: Option<Instant>,
    deltas: u64,
    /// Streamed tool calls by index: id, name and the argument text so far.
    tool_calls: Vec<(String, String, String)>,
    /// The last `prompt_progress` event not yet taken by [`StreamedReply::take_progress`].
    progress: Option<PromptProgress>,
    /// The tokens' `logprobs` entries, when the request asked for them (at most
    /// [`MAX_LOGPROBS`]).
    logprobs: Vec<Value>,
}

/// The most tokens' `logprobs` entries one reply keeps.
pub const MAX_LOGPROBS: usize = 4096;

impl StreamedReply {
    /// A reply whose request was sent at `started`: a stream this side ends early (the server
    /// never sends its closing `timings`) gets timings from this clock instead — the prompt
    /// until the first text, generation after it, one token per text event.
    pub fn started_at(started: Instant) -> Self {
        Self {
            started: Some(started),
            ..Self::default()
        }
    }

    /// A reply to a request that began it (`prefill`): the stream sends only the rest, and
    /// whether the code is complete is judged on the whole.
    pub fn continuing(mut self, prefill: Option<&str>) -> Self {
        self.begun = prefill.unwrap_or_default().to_string();
        self
    }

    /// Reads one chunk of the event stream (lines may be split across chunks).
    pub fn push(&mut self, chunk: &[u8]) {
        self.pending.extend_from_slice(chunk);
        while let Some(nl) = self.pending.iter().position(|&c| c == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=nl).collect();
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\r', '\n']);
            if let Some(data) = line.strip_prefix("data:") {
                self.event(data.trim_start());
            }
        }
    }

    fn event(&mut self, data: &str) {
        if data.trim() == "[DONE]" {
            self.done = true;
            return;
        }
        let Ok(v) = serde_json::from_str::<Value>(data) else {
            return;
        };
        if let Some(e) = v.get("error") {
            self.error = Some(e.clone());
            self.done = true;
        }
        if let Some(choice) = v
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        {
            if let Some(text) = choice
                .get("delta")
                .and_then(|d| d.get("content"))
                .and_then(Value::as_str)
            {
                self.content.push_str(text);
                // llama.cpp's own server sends a begun part back first, before it reads the
                // prompt when asked for progress: that text is not generated.
                let echo = !self.begun.is_empty() && self.begun.starts_with(self.content.as_str());
                if !text.is_empty() && !echo {
                    self.first_text.get_or_insert_with(Instant::now);
                    self.deltas += 1;
                }
            }
            if let Some(items) = choice
                .pointer("/logprobs/content")
                .and_then(Value::as_array)
            {
                let room = MAX_LOGPROBS.saturating_sub(self.logprobs.len());
                self.logprobs.extend(items.iter().take(room).cloned());
            }
            if let Some(r) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(r.to_string());
            }
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(u.clone());
        }
        if let Some(t) = v.get("timings").filter(|t| t.is_object()) {
            self.timings = Some(t.clone());
        }
        if let Some(p) = v.get("prompt_progress").and_then(PromptProgress::from_json) {
            self.progress = Some(p);
        }
        let calls = v
            .pointer("/choices/0/delta/tool_calls")
            .and_then(Value::as_array);
        for c in calls.into_iter().flatten() {
            self.tool_call_piece(c);
        }
    }

    /// Adds one streamed piece of a tool call (its `index` says which; at most 64 calls).
    fn tool_call_piece(&mut self, c: &Value) {
        let index = c
            .get("index")
            .and_then(Value::as_u64)
            .map_or(self.tool_calls.len().saturating_sub(1), |i| i as usize);
        if index >= 64 {
            return;
        }
        while self.tool_calls.len() <= index {
            self.tool_calls.push(Default::default());
        }
        let slot = &mut self.tool_calls[index];
        let text = |k: &str| c.pointer(k).and_then(Value::as_str).unwrap_or_default();
        slot.0.push_str(text("/id"));
        slot.1.push_str(text("/function/name"));
        slot.2.push_str(text("/function/arguments"));
    }

    /// The `prompt_progress` event that came since the last call, if one did.
    pub fn take_progress(&mut self) -> Option<PromptProgress> {
        self.progress.take()
    }

    /// Whether the stream has said it is over (`[DONE]` or an error).
    pub fn finished(&self) -> bool {
        self.done
    }

    /// Cuts the text when it has degenerated into repetition; true when it did (the caller
    /// then stops reading).
    pub fn cut_if_degenerate(&mut self) -> bool {
        match degenerate_from(&self.content) {
            Some(at) => {
                self.content.truncate(at);
                self.finish_reason = Some("length".into());
                self.cut = true;
                true
            }
            None => false,
        }
    }

    /// Ends a code reply whose blocks are complete and which has gone on to prose
    /// ([`prose_after_code`]), or a reply begun in a block's replace half whose end marker
    /// has begun ([`begun_block_end`]): the text after the last block (or from the marker
    /// on) is dropped and the reply ends as a finished one (`stop`); true when it did (the
    /// caller then stops reading, and the server stops writing).
    pub fn end_after_code(&mut self) -> bool {
        let end = if self.begun.is_empty() {
            prose_after_code(&self.content)
        } else {
            begun_block_end(&self.begun, &self.content)
                .or_else(|| prose_after_begun_code(&self.begun, &self.content))
        };
        match end {
            Some(at) => {
                self.content.truncate(at);
                self.finish_reason = Some("stop".into());
                self.ended = true;
                true
            }
            None => false,
        }
    }

    /// Cuts a reply that opens by copying `prompt` back ([`echoes_prompt`]): nothing of it is
    /// kept and it ends as cut off (`length`); true when it did (the caller stops reading).
    pub fn cut_if_echo(&mut self, prompt: &str) -> bool {
        if !echoes_prompt(&self.content, prompt) {
            return false;
        }
        self.content.clear();
        self.finish_reason = Some("length".into());
        self.cut = true;
        true
    }

    /// Whether the reply was cut for repeating itself.
    pub fn was_cut(&self) -> bool {
        self.cut
    }

    /// Timings from this side's clock for a stream it ended before the server's own came
    /// (llama.cpp's field names; the prompt's cached/uncached split is unknown).
    fn client_timings(&self) -> Option<Value> {
        if self.timings.is_some() || !(self.cut || self.ended) {
            return None;
        }
        let (started, first) = (self.started?, self.first_text?);
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
        Some(json!({
            "prompt_ms": ms(first.saturating_duration_since(started)),
            "predicted_ms": ms(first.elapsed()),
            "predicted_n": self.deltas,
            "client_clock": true,
        }))
    }

    /// The reply as a non-streamed Chat Completions body (an error event as an error body).
    pub fn into_body(mut self) -> Vec<u8> {
        if let Some(t) = self.client_timings() {
            self.timings = Some(t);
        }
        let v = match self.error {
            Some(e) if self.content.is_empty() => json!({ "error": e }),
            _ => {
                let mut message = Map::new();
                message.insert("role".into(), json!("assistant"));
                message.insert("content".into(), json!(self.content));
                if !self.tool_calls.is_empty() {
                    let calls: Vec<Value> = self
                        .tool_calls
                        .iter()
                        .map(|(id, name, args)| {
                            json!({"id": id, "type": "function",
                                   "function": {"name": name, "arguments": args}})
                        })
                        .collect();
                    message.insert("tool_calls".into(), Value::Array(calls));
                }
                let mut v = json!({
                    "choices": [{
                        "index": 0,
                        "message": message,
                        "finish_reason": self.finish_reason,
                    }],
                });
                if !self.logprobs.is_empty() {
                    v["choices"][0]["logprobs"] = json!({ "content": self.logprobs });
                }
                match self.usage {
                    Some(u) => v["usage"] = u,
                    // A stream ended here never gets the server's usage: the tokens generated
                    // still count (one per text event), or a cut reply would cost nothing.
                    None if (self.cut || self.ended) && self.deltas > 0 => {
                        v["usage"] = json!({ "completion_tokens": self.deltas });
                    }
                    None => {}
                }
                if let Some(t) = self.timings {
                    v["timings"] = t;
                }
                v
            }
        };
        v.to_string().into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reply as the repair prompt asks for it: the explanation, the path, the block.
    const FIX: &str = "The recursion swaps its arguments wrongly.\ngcd.py\n```python\ndef gcd(a, b):\n    return gcd(b, a % b)\n```\n";

    fn sse(deltas: &[&str]) -> Vec<u8> {
        let mut out = String::new();
        for d in deltas {
            out.push_str(&format!(
                "data: {}\n\n",
                json!({"choices": [{"index": 0, "delta": {"content": d}, "finish_reason": null}]})
            ));
        }
        out.into_bytes()
    }

    #[test]
    fn a_run_of_newlines_after_the_fix_is_cut_to_one() {
        let text = format!("{FIX}{}", "\n".repeat(500));
        assert_eq!(degenerate_from(&text), Some(FIX.len()));
    }

    #[test]
    fn a_line_written_again_and_again_is_cut_after_its_first_copy() {
        let line = "    return gcd(b, a % b)  # the same line\n";
        let text = format!("{FIX}{}", line.repeat(20));
        // One copy of the repeated piece is kept (here it starts at the newline before it).
        assert_eq!(
            &text[..degenerate_from(&text).unwrap()],
            format!("{FIX}{}", line.trim_end_matches('\n'))
        );
    }

    #[test]
    fn ordinary_code_is_not_degenerate() {
        let code: String = (0..40)
            .map(|i| format!("    x{i} = compute({i}, y)\n"))
            .collect();
        assert_eq!(degenerate_from(&code), None);
        assert_eq!(degenerate_from(FIX), None);
    }

    #[test]
    fn a_repetition_of_multibyte_text_is_cut_on_a_character_boundary() {
        let text = format!("ok {}", "é…".repeat(200));
        let at = degenerate_from(&text).unwrap();
        assert!(text.is_char_boundary(at) && at < 20, "{at}");
    }

    #[test]
    fn prompt_progress_events_are_kept_for_the_caller_and_add_no_text() {
        let mut r = StreamedReply::default();
        let progress = json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null}, "finish_reason": null}],
            "prompt_progress": {"total": 2830, "cache": 0, "processed": 512, "time_ms": 28000}});
        r.push(format!("data: {progress}\n\n").as_bytes());
        let p = r.take_progress().unwrap();
        assert_eq!((p.total, p.processed), (2830, 512));
        assert_eq!(r.take_progress(), None);
        let v: Value = serde_json::from_slice(&r.into_body()).unwrap();
        assert_eq!(v["choices"][0]["message"]["content"], "");
    }

    #[test]
    fn streamed_tool_call_pieces_fold_into_whole_calls() {
        let piece = |i: u64, id: &str, name: &str, args: &str| {
            let d = json!({"tool_calls": [{"index": i, "id": id, "type": "function",
                "function": {"name": name, "arguments": args}}]});
            format!(
                "data: {}\n\n",
                json!({"choices": [{"index": 0, "delta": d}]})
            )
        };
        let mut r = StreamedReply::default();
        r.push(piece(0, "a", "read_file", "{\"path\":").as_bytes());
        r.push(piece(0, "", "", " \"x.py\"}").as_bytes());
        r.push(piece(1, "b", "done", "{}").as_bytes());
        let v: Value = serde_json::from_slice(&r.into_body()).unwrap();
        let calls = &v["choices"][0]["message"]["tool_calls"];
        assert_eq!(calls[0]["function"]["name"], "read_file");
        assert_eq!(calls[0]["function"]["arguments"], "{\"path\": \"x.py\"}");
        assert_eq!(calls[1]["id"], "b");
    }

    #[test]
    fn streamed_logprobs_fold_into_the_reply_body_in_order() {
        let mut r = StreamedReply::default();
        for (text, lp) in [(" is", -0.1), (" not", -0.9)] {
            let event = json!({"choices": [{"index": 0, "delta": {"content": text},
                "logprobs": {"content": [{"token": text, "logprob": lp, "top_logprobs": []}]}}]});
            r.push(format!("data: {event}\n\n").as_bytes());
        }
        let v: Value = serde_json::from_slice(&r.into_body()).unwrap();
        let tokens = crate::TokenChoice::from_logprobs(v.pointer("/choices/0/logprobs/content"));
        let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, [" is", " not"]);
    }

    #[test]
    fn events_split_across_chunks_fold_into_one_reply_body() {
        let mut bytes = sse(&["Fix: ", "use a % b.\n"]);
        bytes.extend_from_slice(
            format!(
                "data: {}\n\ndata: [DONE]\n\n",
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 10, "completion_tokens": 4},
                       "timings": {"prompt_n": 3, "cache_n": 7}})
            )
            .as_bytes(),
        );
        let mut r = StreamedReply::default();
        for chunk in bytes.chunks(7) {
            r.push(chunk);
        }
        assert!(r.finished());
        let v: Value = serde_json::from_slice(&r.into_body()).unwrap();
        assert_eq!(v["choices"][0]["message"]["content"], "Fix: use a % b.\n");
        assert_eq!(v["choices"][0]["finish_reason"], "stop");
        assert_eq!(v["usage"]["completion_tokens"], 4);
        assert_eq!(v["timings"]["cache_n"], 7);
    }

    #[test]
    fn a_begun_block_ends_at_the_first_prose_after_its_end_marker() {
        let begun = "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\n";
        let rest = "x = 2\n>>>>>>> REPLACE\n```\n";
        let text = format!("{rest}This sets x to two.\n");
        assert_eq!(prose_after_begun_code(begun, &text), Some(rest.len()));
        assert_eq!(prose_after_begun_code(begun, "x = 2\n"), None);
    }

    #[test]
    fn a_degenerate_stream_is_cut_with_the_fix_kept() {
        let mut r = StreamedReply::default();
        r.push(&sse(&[FIX]));
        for _ in 0..300 {
            r.push(&sse(&["\\n"]));
            if r.cut_if_degenerate() {
                break;
            }
        }
        assert!(r.was_cut());
        let v: Value = serde_json::from_slice(&r.into_body()).unwrap();
        assert_eq!(v["choices"][0]["message"]["content"], format!("{FIX}\\n"));
        assert_eq!(v["choices"][0]["finish_reason"], "length");
    }

    #[test]
    fn a_code_reply_ends_at_the_first_line_of_prose_after_its_block() {
        let text = format!("{FIX}\nThis keeps the recursion going.\n");
        assert_eq!(prose_after_code(&text), Some(FIX.len()));
    }

    #[test]
    fn a_reply_that_opens_with_code_is_not_ended_after_it() {
        let restated = "gcd.py\n```python\ndef gcd(a, b):\n    return gcd(a, b % a)\n```\n";
        let text = format!("{restated}\nThe arguments are swapped in the recursion.\n");
        assert_eq!(prose_after_code(&text), None);
        let fixed =
            format!("{text}gcd.py\n```python\ndef gcd(a, b):\n    return gcd(b, a % b)\n```\n");
        let done = format!("{fixed}\nThat is the whole fix here.\n");
        assert_eq!(prose_after_code(&done), Some(fixed.len()));
    }

    #[test]
    fn a_code_reply_is_not_ended_inside_or_before_a_block() {
        assert_eq!(
            prose_after_code("The bug is on line two, it must swap.\n"),
            None
        );
        let open = "gcd.py\n```python\ndef gcd(a, b):\n    # this is a long comment line\n";
        assert_eq!(prose_after_code(open), None);
    }

    #[test]
    fn a_path_or_a_line_introducing_another_block_waits_for_it() {
        for next in [
            "\nutils.py\n",
            "\nAnd in `utils.py` change this too:\n",
            "\nREPLACE\n",
        ] {
            assert_eq!(prose_after_code(&format!("{FIX}{next}")), None, "{next:?}");
        }
    }

    #[test]
    fn a_second_block_moves_the_end_to_after_it() {
        let second = "\nutils.py\n```python\ndef f():\n    return 1\n```\n";
        let text = format!("{FIX}{second}Both functions are fixed now.\n");
        assert_eq!(prose_after_code(&text), Some(FIX.len() + second.len()));
    }

    #[test]
    fn a_search_replace_block_outside_a_fence_ends_at_its_marker() {
        let block =
            "x must be two.\na.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n";
        let text = format!("{block}This sets x to two.\n");
        assert_eq!(prose_after_code(&text), Some(block.len()));
    }

    #[test]
    fn a_long_unfinished_line_of_prose_is_judged_before_it_ends() {
        let text = format!("{FIX}{}", "word ".repeat(20));
        assert_eq!(prose_after_code(&text), Some(FIX.len()));
        assert_eq!(prose_after_code(&format!("{FIX}This keeps")), None);
    }

    const TRIED: &str = "These changes were tried and did not fix it; each was undone, so the files are as shown above.\n\nAttempt 1: This change did not fix it.";

    #[test]
    fn a_reply_that_opens_by_copying_the_prompt_is_an_echo() {
        let reply = "These changes were tried and did not fix it; each was undone, so the files are as shown above.\n\nAttempt 2";
        assert!(echoes_prompt(reply, TRIED));
    }

    #[test]
    fn a_reply_with_its_own_words_or_a_short_or_unfinished_line_is_no_echo() {
        assert!(!echoes_prompt(
            "The line that is wrong is `total += 1`.\n",
            TRIED
        ));
        assert!(!echoes_prompt(
            "Attempt 1: This change did not fix it.\n",
            "Attempt 1: This change did not fix it."
        ));
        assert!(!echoes_prompt(
            "These changes were tried and did not fix it; each",
            TRIED
        ));
    }

    #[test]
    fn code_the_prompt_also_shows_is_no_echo() {
        let prompt = "```\ndef hex_key(num):\n    primes = ('2', '3', '5', '7', 'B', 'D')\n```";
        assert!(!echoes_prompt(
            "```python\n    primes = ('2', '3', '5', '7', 'B', 'D')\n",
            prompt
        ));
    }

    /// A reply that restates the list of failed attempts, in two text events.
    fn echoing() -> StreamedReply {
        let mut r = StreamedReply::default();
        r.push(&sse(&[
            "These changes were tried and did not fix it; ",
            "each was undone, so the files are as shown above.\n",
        ]));
        r
    }

    #[test]
    fn an_echo_is_cut_to_nothing_as_cut_off() {
        let mut r = echoing();
        assert!(r.cut_if_echo(TRIED));
        assert!(r.was_cut());
    }

    #[test]
    fn a_reply_cut_here_still_counts_the_tokens_it_streamed() {
        let mut r = echoing();
        assert!(r.cut_if_echo(TRIED));
        let v: Value = serde_json::from_slice(&r.into_body()).unwrap();
        assert_eq!(v["choices"][0]["message"]["content"], "");
        assert_eq!(v["usage"]["completion_tokens"], 2);
    }

    const BEGUN: &str = "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\n";

    #[test]
    fn a_begun_block_ends_as_its_end_marker_begins() {
        assert_eq!(begun_block_end(BEGUN, "x = 2\n>>>>>>>"), Some(6));
        assert_eq!(begun_block_end(BEGUN, "x = 2\ny = 3\n```"), Some(12));
    }

    #[test]
    fn a_begun_block_sent_back_first_is_read_past() {
        let echoed = format!("{BEGUN}x = 2\n>>>>>>>");
        assert_eq!(begun_block_end(BEGUN, &echoed), Some(BEGUN.len() + 6));
        assert_eq!(begun_block_end(BEGUN, &BEGUN[..20]), None);
        assert_eq!(begun_block_end(BEGUN, &format!("{BEGUN}x = 2\n")), None);
        let branch = format!("{BEGUN}    if");
        let text = format!("{branch} x:\n        return\n>>>>>>>");
        assert_eq!(begun_block_end(&branch, &text), Some(text.len() - 7));
    }

    #[test]
    fn a_begun_block_is_open_until_a_marker_line_begins() {
        assert_eq!(begun_block_end(BEGUN, "x = 2\n"), None);
        assert_eq!(begun_block_end(BEGUN, "x = 2\n>>"), None);
        assert_eq!(begun_block_end(BEGUN, "s = '>>>>>>> '\n"), None);
    }

    #[test]
    fn a_branch_begun_mid_line_ends_at_the_marker_after_its_lines() {
        let begun = format!("{BEGUN}    if");
        let text = " x is None:\n        return\n>>>>>>>";
        assert_eq!(begun_block_end(&begun, text), Some(text.len() - 7));
    }

    #[test]
    fn a_reply_not_begun_in_a_replace_half_has_no_begun_block_end() {
        assert_eq!(begun_block_end("a.py\n", "x = 2\n>>>>>>>"), None);
        let closed = format!("{BEGUN}x = 2\n>>>>>>> REPLACE\n```\n");
        assert_eq!(begun_block_end(&closed, "y\n```"), None);
    }

    #[test]
    fn a_begun_reply_stops_at_its_end_marker_with_that_tokens_alternatives() {
        let mut r = StreamedReply::default().continuing(Some(BEGUN));
        for text in ["x = 2", "\n", ">>>>>>>"] {
            let top = json!([{"token": text, "logprob": -0.1}, {"token": "    ", "logprob": -2.0}]);
            let event = json!({"choices": [{"index": 0, "delta": {"content": text},
                "logprobs": {"content": [{"token": text, "logprob": -0.1, "top_logprobs": top}]}}]});
            r.push(format!("data: {event}\n\n").as_bytes());
        }
        assert!(r.end_after_code());
        let v: Value = serde_json::from_slice(&r.into_body()).unwrap();
        assert_eq!(v["choices"][0]["message"]["content"], "x = 2\n");
        assert_eq!(v["choices"][0]["finish_reason"], "stop");
        let tokens = crate::TokenChoice::from_logprobs(v.pointer("/choices/0/logprobs/content"));
        assert_eq!(tokens.last().map(|t| t.text.as_str()), Some(">>>>>>>"));
    }

    #[test]
    fn a_streamed_code_reply_ends_as_a_finished_one() {
        let mut r = StreamedReply::default();
        r.push(&sse(&[FIX, "\nThis ", "fixes the ", "recursion.\n"]));
        assert!(r.end_after_code());
        assert!(!r.was_cut());
        let v: Value = serde_json::from_slice(&r.into_body()).unwrap();
        assert_eq!(v["choices"][0]["message"]["content"], FIX);
        assert_eq!(v["choices"][0]["finish_reason"], "stop");
    }

    #[test]
    fn a_stream_ended_early_has_timings_from_this_side() {
        let mut r = StreamedReply::started_at(Instant::now());
        r.push(&sse(&[
            "It returns a.\n",
            "gcd.py\n",
            "```python\n",
            "def gcd(a, b):\n    return b\n```\n",
        ]));
        r.push(&sse(&["\nThis returns the ", "divisor now.\n"]));
        assert!(r.end_after_code());
        let v: Value = serde_json::from_slice(&r.into_body()).unwrap();
        assert_eq!(v["timings"]["predicted_n"], 6);
        assert_eq!(v["timings"]["client_clock"], true);
        assert!(v["timings"]["prompt_ms"].as_f64().is_some());
    }

    #[test]
    fn a_begun_part_sent_back_before_the_prompt_is_read_is_not_timed_as_generation() {
        let started = Instant::now();
        let mut r = StreamedReply::started_at(started).continuing(Some(BEGUN));
        r.push(&sse(&[BEGUN]));
        assert!(r.first_text.is_none());
        r.push(&sse(&["x = 2", "\n", ">>>>>>>"]));
        assert!(r.end_after_code());
        let v: Value = serde_json::from_slice(&r.into_body()).unwrap();
        assert_eq!(v["timings"]["predicted_n"], 3);
        assert_eq!(v["usage"]["completion_tokens"], 3);
    }

    #[test]
    fn a_finished_stream_keeps_the_servers_timings_only() {
        let mut r = StreamedReply::started_at(Instant::now());
        r.push(&sse(&["hi"]));
        let v: Value = serde_json::from_slice(&r.into_body()).unwrap();
        assert!(v.get("timings").is_none());
    }

    #[test]
    fn an_error_event_is_an_error_body() {
        let mut r = StreamedReply::default();
        r.push(b"data: {\"error\": {\"code\": 500, \"message\": \"boom\"}}\n\n");
        assert!(r.finished());
        let v: Value = serde_json::from_slice(&r.into_body()).unwrap();
        assert_eq!(v["error"]["message"], "boom");
    }
}
