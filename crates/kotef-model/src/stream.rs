//! Streamed Chat Completions replies (server-sent events), read as they arrive so that a
//! reply which degenerates — a small model writing one line, or `\n`, again and again until
//! the token cap — is cut as soon as the repetition shows, instead of after the whole cap has
//! been generated and waited for. Closing the stream early also tells the server to stop
//! (llama.cpp, vLLM and Ollama stop generating when the client goes away).
//!
//! The events are folded into the body of an ordinary, non-streamed reply, so the reply
//! parser is the same for both. A cut reply keeps what came before the repetition (and one
//! copy of the repeated piece) with `finish_reason: "length"`, as a reply cut by the cap has.

use serde_json::{json, Value};

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

/// A streamed reply being read: the text so far and what the events said about the end.
#[derive(Debug, Default)]
pub struct StreamedReply {
    pending: Vec<u8>,
    content: String,
    finish_reason: Option<String>,
    usage: Option<Value>,
    timings: Option<Value>,
    error: Option<Value>,
    done: bool,
    cut: bool,
}

impl StreamedReply {
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

    /// Whether the reply was cut for repeating itself.
    pub fn was_cut(&self) -> bool {
        self.cut
    }

    /// The reply as a non-streamed Chat Completions body (an error event as an error body).
    pub fn into_body(self) -> Vec<u8> {
        let v = match self.error {
            Some(e) if self.content.is_empty() => json!({ "error": e }),
            _ => {
                let mut v = json!({
                    "choices": [{
                        "index": 0,
                        "message": {"role": "assistant", "content": self.content},
                        "finish_reason": self.finish_reason,
                    }],
                });
                if let Some(u) = self.usage {
                    v["usage"] = u;
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

    const FIX: &str = "gcd.py\n```python\ndef gcd(a, b):\n    return gcd(b, a % b)\n```\n";

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
    fn an_error_event_is_an_error_body() {
        let mut r = StreamedReply::default();
        r.push(b"data: {\"error\": {\"code\": 500, \"message\": \"boom\"}}\n\n");
        assert!(r.finished());
        let v: Value = serde_json::from_slice(&r.into_body()).unwrap();
        assert_eq!(v["error"]["message"], "boom");
    }
}
