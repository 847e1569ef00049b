//! Sizing each model call to the server and the time left, before it is sent.
//!
//! At the server's measured speed ([`ServerSpeed`]), a call whose prompt (the part the server
//! has not cached) cannot be evaluated, and a short reply generated, in the time the run has
//! left is not started: the run ends with the `budget` rule and says why, instead of waiting
//! for the deadline to cut the call. A reply cap that does not fit is lowered to what does.
//! A request that timed out is never sent again unchanged: the first time it comes again it
//! goes with half its reply cap (llama.cpp keeps the prompt it had read in its cache, so the
//! call continues where it stopped), and after that it is not sent (`model_error`).
//!
//! Pure rules over a small memory of the run's calls ([`CallPacing`]); `graph::nodes::llm` applies
//! them.

use crate::graph::memory::sent_calls::CallPacing;
use kotef_core::StopRule;
use kotef_model::{ModelRequest, ServerSpeed};
use std::time::Duration;

/// The shortest reply a call is sized for: a fix in one fenced block, or one tool call.
pub const MIN_REPLY_TOKENS: u32 = 128;

/// The reply cap assumed when neither the request nor the configuration sets one.
pub const ASSUMED_REPLY_CAP: u32 = 1024;

/// What to do with the next call.
#[derive(Debug, Clone, PartialEq)]
pub enum CallPlan {
    /// Send it, with this reply cap when one must be set; `note` says what was changed.
    Send {
        reply_cap: Option<u32>,
        note: Option<String>,
    },
    /// Do not send it; the run ends with this rule and reason.
    NotStarted { rule: StopRule, reason: String },
}

/// What the sizing needs to know besides the request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Room {
    /// The server's measured speed, when any was measured.
    pub speed: Option<ServerSpeed>,
    /// Time the run has left.
    pub time_left: Duration,
    /// The configured reply cap (`[model] max_tokens`), when known.
    pub configured_cap: Option<u32>,
}

impl CallPacing {
    /// The most prompt tokens the server can read (beyond what it has cached) and still give
    /// a reply of [`MIN_REPLY_TOKENS`] in the time left, at its measured speed; `None` while
    /// the prompt speed is unknown. For a prompt builder that can leave context out (fewer
    /// files) rather than have its call refused.
    pub fn prompt_allowance(room: Room) -> Option<u64> {
        let speed = room.speed?;
        let rate = speed.prompt_per_s?;
        let reply_s = speed
            .generation_secs(u64::from(MIN_REPLY_TOKENS))
            .unwrap_or(0.0);
        let fixed = speed.prompt_call_s.unwrap_or(0.0);
        let left = (room.time_left.as_secs_f64() - reply_s - fixed).max(0.0);
        Some((left * rate).floor() as u64)
    }

    /// What to do with `request` (`node` names it in reasons), given the room the run has.
    pub fn plan(&self, request: &ModelRequest, node: &str, room: Room) -> CallPlan {
        let configured = match (room.configured_cap, request.max_tokens) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let mut cap = configured;
        let mut notes = Vec::new();
        if let Some(t) = self.timed_out_before(request) {
            let sent_cap = t.cap.unwrap_or(ASSUMED_REPLY_CAP);
            let half = sent_cap / 2;
            if t.resent || half < MIN_REPLY_TOKENS {
                return CallPlan::NotStarted {
                    rule: StopRule::ModelError,
                    reason: format!(
                        "The {node} call timed out again (the server showed no progress), and a \
                         request that timed out is not sent again unchanged; its reply cap was \
                         already {sent_cap} tokens."
                    ),
                };
            }
            cap = Some(half);
            notes.push(format!(
                "the same request timed out before, so it goes with its reply cap halved to \
                 {half} tokens (a timed-out request is never sent again unchanged)"
            ));
        }
        let Some(speed) = room.speed else {
            return send(cap, configured, notes);
        };
        let estimate = request.estimated_prompt_tokens();
        let uncached = estimate.saturating_sub(self.cached_tokens(request));
        let left = room.time_left.as_secs_f64();
        let prompt_s = speed.prompt_secs(uncached).unwrap_or(0.0);
        let reply_floor = cap.unwrap_or(ASSUMED_REPLY_CAP).min(MIN_REPLY_TOKENS);
        let floor_s = speed.generation_secs(u64::from(reply_floor)).unwrap_or(0.0);
        if prompt_s + floor_s > left {
            let rate = |r: Option<f64>| r.map_or("unknown".into(), |r| format!("{r:.1}"));
            let per_call = speed
                .prompt_call_s
                .filter(|s| *s > 0.0)
                .map_or(String::new(), |s| format!(" (and {s:.2} s per call)"));
            return CallPlan::NotStarted {
                rule: StopRule::Budget,
                reason: format!(
                    "The next {node} call cannot finish in the time left, so it was not \
                     started: its prompt of about {estimate} tokens ({uncached} not in the \
                     server's cache) needs about {prompt_s:.0} s at the {} prompt tokens/s{} \
                     the server was measured at, and a reply of {reply_floor} tokens about \
                     {floor_s:.0} s at {} tokens/s; {left:.0} s are left.",
                    rate(speed.prompt_per_s),
                    per_call,
                    rate(speed.generation_per_s),
                ),
            };
        }
        if let Some(gen) = speed.generation_per_s {
            let fits = ((left - prompt_s) * gen).floor().min(f64::from(u32::MAX)) as u32;
            let wanted = cap.unwrap_or(ASSUMED_REPLY_CAP);
            if fits < wanted {
                let lowered = fits.max(reply_floor);
                cap = Some(lowered);
                notes.push(format!(
                    "its reply cap was lowered from {wanted} to {lowered} tokens to fit the \
                     {left:.0} s left at {gen:.1} tokens/s"
                ));
            }
        }
        send(cap, configured, notes)
    }
}

fn send(cap: Option<u32>, configured: Option<u32>, notes: Vec<String>) -> CallPlan {
    CallPlan::Send {
        reply_cap: cap.filter(|c| Some(*c) != configured),
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_core::NodeName;
    use kotef_model::Message;

    fn request(text: &str) -> ModelRequest {
        ModelRequest {
            node: NodeName::Coder,
            messages: vec![Message::system("You fix bugs."), Message::user(text)],
            tools: vec![],
            json_reply: false,
            temperature: None,
            max_tokens: None,
            code_reply: true,
            alternatives: None,
        }
    }

    /// The slow machine of issue 30: 18 prompt tokens/s, 7.4 generated tokens/s.
    fn slow(left_s: u64) -> Room {
        Room {
            speed: Some(ServerSpeed {
                prompt_per_s: Some(18.0),
                generation_per_s: Some(7.4),
                prompt_call_s: None,
            }),
            time_left: Duration::from_secs(left_s),
            configured_cap: Some(1024),
        }
    }

    fn send_as_is() -> CallPlan {
        CallPlan::Send {
            reply_cap: None,
            note: None,
        }
    }

    #[test]
    fn without_a_measured_speed_a_call_is_sent_as_it_is() {
        let r = request(&"x".repeat(11_320));
        let room = Room {
            speed: None,
            ..slow(10)
        };
        assert_eq!(CallPacing::default().plan(&r, "coder", room), send_as_is());
    }

    #[test]
    fn a_prompt_that_cannot_be_read_in_the_time_left_is_not_started() {
        // 2,830 tokens at 18 tokens/s: 157 s; 120 s left.
        let r = request(&"x".repeat(11_307));
        let CallPlan::NotStarted { rule, reason } =
            CallPacing::default().plan(&r, "coder", slow(120))
        else {
            panic!("sent");
        };
        assert_eq!(rule, StopRule::Budget);
        assert!(
            reason.contains("about 2830 tokens (2830 not in the server's cache)"),
            "{reason}"
        );
        assert!(
            reason.contains("157 s at the 18.0 prompt tokens/s"),
            "{reason}"
        );
    }

    #[test]
    fn a_fixed_cost_per_call_is_counted_and_named() {
        // 2,000 tokens at 18 tokens/s (111 s) and 10 s per call: 121 s, with 17 s for the
        // reply; 130 s left is not enough, though the tokens alone would fit.
        let room = Room {
            speed: Some(ServerSpeed {
                prompt_call_s: Some(10.0),
                ..slow(0).speed.unwrap()
            }),
            ..slow(130)
        };
        let r = request(&"x".repeat(7_987));
        let CallPlan::NotStarted { reason, .. } = CallPacing::default().plan(&r, "coder", room)
        else {
            panic!("sent");
        };
        assert!(
            reason.contains("needs about 121 s at the 18.0 prompt tokens/s (and 10.00 s per call)"),
            "{reason}"
        );
        // The allowance leaves the fixed cost out: (130 - 17.3 - 10) s at 18 tokens/s.
        assert_eq!(CallPacing::prompt_allowance(room), Some(1848));
    }

    #[test]
    fn a_prompt_the_server_has_cached_is_sized_by_what_it_has_not() {
        let mut p = CallPacing::default();
        let base = "x".repeat(11_300);
        p.sent(&request(&base));
        // The same opening and 400 characters more: about 100 tokens to read, 6 s, where the
        // whole prompt would need 163 s.
        let r = request(&format!("{base}{}", "y".repeat(400)));
        assert!((2800..2840).contains(&p.cached_tokens(&r)));
        assert_eq!(p.plan(&r, "coder", slow(300)), send_as_is());
        assert!(matches!(
            CallPacing::default().plan(&r, "coder", slow(150)),
            CallPlan::NotStarted { .. }
        ));
    }

    #[test]
    fn a_reply_cap_that_does_not_fit_is_lowered_to_what_does() {
        // 99 tokens of prompt (5.5 s) and 60 s left: 54.5 s at 7.4 tokens/s is 403 tokens.
        let r = request(&"x".repeat(380));
        let CallPlan::Send { reply_cap, note } = CallPacing::default().plan(&r, "coder", slow(60))
        else {
            panic!("not sent");
        };
        assert_eq!(reply_cap, Some(403));
        assert!(note.unwrap().contains("lowered from 1024 to 403 tokens"));
    }

    #[test]
    fn the_prompt_allowance_is_what_the_server_reads_in_the_time_left() {
        // 120 s left, 17.3 s of them for a 128-token reply: 102.7 s at 18 tokens/s.
        assert_eq!(CallPacing::prompt_allowance(slow(120)), Some(1848));
        let unknown = Room {
            speed: None,
            ..slow(120)
        };
        assert_eq!(CallPacing::prompt_allowance(unknown), None);
    }

    #[test]
    fn a_timed_out_request_goes_once_more_with_half_its_cap_then_never() {
        let mut p = CallPacing::default();
        let r = request("fix it");
        p.sent(&r);
        p.timed_out(&r, Some(1024));
        let room = Room {
            speed: None,
            ..slow(600)
        };
        let CallPlan::Send { reply_cap, note } = p.plan(&r, "coder", room) else {
            panic!("not sent");
        };
        assert_eq!(reply_cap, Some(512));
        assert!(note.unwrap().contains("halved to 512 tokens"));
        // A hotter temperature does not make it another request.
        let hotter = ModelRequest {
            temperature: Some(0.9),
            ..r.clone()
        };
        p.timed_out(&hotter, Some(512));
        let CallPlan::NotStarted { rule, reason } = p.plan(&r, "coder", room) else {
            panic!("sent again");
        };
        assert_eq!(rule, StopRule::ModelError);
        assert!(reason.contains("not sent again unchanged"), "{reason}");
        // Another request is not affected.
        assert_eq!(p.plan(&request("other"), "coder", room), send_as_is());
    }
}
