//! How long one attempt may wait, from the server's measured speed and what it reports while
//! it works, instead of one fixed timeout for the whole call.
//!
//! A self-hosted server on a slow CPU (about 18 prompt tokens/s on 2 cores) needs minutes for
//! a long prompt before its first token. A call is therefore cut only when the server stops
//! showing progress: when no byte of a streamed reply came for the idle limit (llama.cpp's
//! `prompt_progress` events, asked for with `return_progress`, arrive while it reads the
//! prompt), or when a wait the server's measured speed explains is over. One attempt is still
//! bounded: by [`MAX_ATTEMPT`] and, in the graph, by the run's time left.
//!
//! The speed comes from the server's own figures (llama.cpp's `timings`: prompt tokens
//! processed and milliseconds, tokens generated and milliseconds) and from its progress
//! events, so a call that was cut still measures it. All functions here are pure.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The longest one attempt may take however much progress it shows.
pub const MAX_ATTEMPT: Duration = Duration::from_secs(3600);

/// Fewest prompt tokens a measurement of the prompt speed is taken from (fewer are noise).
pub const MIN_PROMPT_SAMPLE: u64 = 32;

/// Fewest generated tokens a measurement of the generation speed is taken from.
pub const MIN_GENERATION_SAMPLE: u64 = 8;

/// How much longer than its measured speed explains the server may take (a busy machine).
pub const SLACK: f64 = 1.5;

/// One `prompt_progress` event of llama.cpp's server: the prompt's tokens, the ones reused from
/// its cache, the ones in place so far (cached ones included) and the milliseconds spent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptProgress {
    pub total: u64,
    pub cache: u64,
    pub processed: u64,
    pub time_ms: f64,
}

impl PromptProgress {
    /// Reads `{"total", "cache", "processed", "time_ms"}`; `None` for anything else.
    pub fn from_json(v: &serde_json::Value) -> Option<Self> {
        let o = v.as_object()?;
        let n = |k: &str| o.get(k).and_then(serde_json::Value::as_u64);
        Some(Self {
            total: n("total")?,
            cache: n("cache").unwrap_or(0),
            processed: n("processed")?,
            time_ms: o
                .get("time_ms")
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(0.0),
        })
    }

    /// Prompt tokens per second so far, when enough were evaluated to tell.
    pub fn rate(&self) -> Option<f64> {
        let done = self.processed.saturating_sub(self.cache);
        rate(done, self.time_ms, MIN_PROMPT_SAMPLE)
    }

    /// Prompt tokens still to evaluate.
    pub fn remaining(&self) -> u64 {
        self.total.saturating_sub(self.processed)
    }
}

/// The server's measured speed: prompt tokens evaluated and tokens generated per second, and
/// the fixed seconds a call's prompt costs besides its tokens, when reads of different sizes
/// told the two apart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerSpeed {
    pub prompt_per_s: Option<f64>,
    pub generation_per_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_call_s: Option<f64>,
}

/// Tokens per second from `tokens` in `ms` milliseconds; `None` below `min` tokens.
pub(crate) fn rate(tokens: u64, ms: f64, min: u64) -> Option<f64> {
    (tokens >= min && ms.is_finite() && ms > 0.0).then(|| tokens as f64 * 1000.0 / ms)
}

impl ServerSpeed {
    /// Seconds to evaluate `tokens` prompt tokens (with the fixed cost of a call, when it is
    /// known), when the prompt speed is known.
    pub fn prompt_secs(&self, tokens: u64) -> Option<f64> {
        let fixed = self.prompt_call_s.unwrap_or(0.0);
        self.prompt_per_s.map(|r| fixed + tokens as f64 / r)
    }

    /// Seconds to generate `tokens` tokens, when the generation speed is known.
    pub fn generation_secs(&self, tokens: u64) -> Option<f64> {
        self.generation_per_s.map(|r| tokens as f64 / r)
    }
}

/// How many newer tokens halve the weight of what was measured before them: a prompt speed
/// follows a machine that got busier within a few long reads, and one short read barely moves it.
pub const PROMPT_HALF_LIFE: f64 = 4096.0;

/// As [`PROMPT_HALF_LIFE`], for generated tokens.
pub const GENERATION_HALF_LIFE: f64 = 1024.0;

/// Tokens and milliseconds summed over measurements, older ones weighing less.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Evidence {
    tokens: f64,
    ms: f64,
}

impl Evidence {
    /// This evidence with `tokens` read in `ms` added; what came before weighs half as much
    /// for every `half_life` of the new tokens.
    fn with(self, tokens: u64, ms: f64, half_life: f64) -> Self {
        if tokens == 0 || !ms.is_finite() || ms <= 0.0 {
            return self;
        }
        let t = tokens as f64;
        let keep = 0.5f64.powf(t / half_life);
        Self {
            tokens: self.tokens * keep + t,
            ms: self.ms * keep + ms,
        }
    }

    fn rate(&self, min: u64) -> Option<f64> {
        (self.tokens >= min as f64 && self.ms > 0.0).then(|| self.tokens * 1000.0 / self.ms)
    }
}

/// How far apart in size, in tokens, the reads a line is fitted to must be (the root of their
/// weighted squared distances from their mean): closer reads cannot tell a fixed cost per call
/// from a cost per token.
pub const MIN_FIT_SPREAD: f64 = 256.0;

/// Each read of a prompt as a point (tokens, milliseconds), older ones weighing less (half for
/// every [`PROMPT_HALF_LIFE`] newer tokens), for the line `ms = per_call + per_token * tokens`.
/// On llama.cpp a read has a fixed cost besides its tokens (about 150 ms on 2 cores), so a
/// 10-token read looks twice as slow as a 2,000-token one: hundreds of short reads (one per
/// line attempt) summed with a few long ones would size the next long prompt at a speed the
/// server never reads long prompts at.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct ReadLine {
    weight: f64,
    tokens: f64,
    ms: f64,
    tokens_sq: f64,
    tokens_ms: f64,
}

impl ReadLine {
    fn with(self, tokens: u64, ms: f64) -> Self {
        if tokens == 0 || !ms.is_finite() || ms <= 0.0 {
            return self;
        }
        let t = tokens as f64;
        let keep = 0.5f64.powf(t / PROMPT_HALF_LIFE);
        Self {
            weight: self.weight * keep + 1.0,
            tokens: self.tokens * keep + t,
            ms: self.ms * keep + ms,
            tokens_sq: self.tokens_sq * keep + t * t,
            tokens_ms: self.tokens_ms * keep + t * ms,
        }
    }

    /// Tokens per second over all reads (their weighted sums), from enough tokens to tell.
    fn ratio(&self) -> Option<f64> {
        let enough = self.tokens >= MIN_PROMPT_SAMPLE as f64 && self.ms > 0.0;
        enough.then(|| self.tokens * 1000.0 / self.ms)
    }

    /// The fitted (milliseconds per call, milliseconds per token), when the reads are spread
    /// enough ([`MIN_FIT_SPREAD`]) and the line is a cost (a rising line; a negative fixed cost
    /// is fitted through zero instead).
    fn fit(&self) -> Option<(f64, f64)> {
        if self.weight <= 0.0 {
            return None;
        }
        let spread = self.tokens_sq - self.tokens * self.tokens / self.weight;
        if spread.is_nan() || spread < MIN_FIT_SPREAD * MIN_FIT_SPREAD {
            return None;
        }
        let per_token = (self.tokens_ms - self.tokens * self.ms / self.weight) / spread;
        if !(per_token.is_finite() && per_token > 0.0) {
            return None;
        }
        let per_call = (self.ms - per_token * self.tokens) / self.weight;
        if per_call >= 0.0 {
            Some((per_call, per_token))
        } else {
            Some((0.0, self.tokens_ms / self.tokens_sq))
        }
    }
}

/// The server's speed weighted by tokens: every measurement counts by the tokens it was taken
/// from, so a call that read 40 tokens (a reply begun for the model, whose fixed cost per call
/// makes it look slow) cannot set the speed the next 3,000-token call is sized by. When the
/// reads differ enough in size, the prompt's cost is fitted as a fixed cost per call plus a
/// cost per token ([`ReadLine`]), so even hundreds of short reads leave the cost per token to
/// the long ones. A call still under way counts by its prompt progress so far, and, when it
/// ends without the server's own figures (cut, or ended early), by its last progress.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SpeedMeter {
    reads: ReadLine,
    generation: Evidence,
    /// Prompt progress of the call under way (tokens read, not cached, and milliseconds).
    in_flight: Option<(u64, f64)>,
}

impl SpeedMeter {
    /// Adds a finished call's own figures (llama.cpp's `timings`); its progress is then
    /// replaced by them.
    pub fn finished(&mut self, prompt: (u64, f64), generation: (u64, f64)) {
        self.in_flight = None;
        self.read(prompt.0, prompt.1);
        self.generation = self
            .generation
            .with(generation.0, generation.1, GENERATION_HALF_LIFE);
    }

    /// Records the prompt progress of the call under way (each event replaces the last).
    pub fn progress(&mut self, p: &PromptProgress) {
        self.in_flight = Some((p.processed.saturating_sub(p.cache), p.time_ms));
    }

    /// The call under way ended without the server's figures: its last progress counts.
    pub fn ended(&mut self) {
        if let Some((tokens, ms)) = self.in_flight.take() {
            self.read(tokens, ms);
        }
    }

    fn read(&mut self, tokens: u64, ms: f64) {
        self.reads = self.reads.with(tokens, ms);
    }

    /// The speed measured so far (a figure from too few tokens is left out).
    pub fn speed(&self) -> ServerSpeed {
        let mut now = *self;
        now.ended();
        let ratio = now.reads.ratio();
        let fit = ratio.and(now.reads.fit());
        ServerSpeed {
            prompt_per_s: fit.map_or(ratio, |(_, per_token)| Some(1000.0 / per_token)),
            generation_per_s: self.generation.rate(MIN_GENERATION_SAMPLE),
            prompt_call_s: fit.map(|(per_call, _)| per_call / 1000.0),
        }
    }
}

fn secs(s: f64) -> Duration {
    Duration::try_from_secs_f64(s).unwrap_or(MAX_ATTEMPT)
}

/// How long to wait for the first byte of a reply to a prompt of `prompt_tokens` (a streamed
/// reply's first event; a whole reply when it is not streamed, up to `reply_cap` tokens): the
/// idle limit, or longer when the server's measured speed says the work takes longer (with
/// [`SLACK`]); never above [`MAX_ATTEMPT`].
pub fn first_byte_wait(
    idle: Duration,
    speed: ServerSpeed,
    prompt_tokens: u64,
    streamed: bool,
    reply_cap: Option<u32>,
) -> Duration {
    let mut need = speed.prompt_secs(prompt_tokens).unwrap_or(0.0);
    if !streamed {
        let cap = u64::from(reply_cap.unwrap_or(0));
        need += speed.generation_secs(cap).unwrap_or(0.0);
    }
    idle.max(secs(need * SLACK)).min(MAX_ATTEMPT)
}

/// How long to wait for the next byte after a `prompt_progress` event: the idle limit, or the
/// time the rest of the prompt needs at the known prompt speed (with [`SLACK`]) when that is
/// longer, since the server may send its next event only then. Never above [`MAX_ATTEMPT`].
pub fn wait_after_progress(
    idle: Duration,
    progress: &PromptProgress,
    speed: ServerSpeed,
) -> Duration {
    let rate = progress.rate().or(speed.prompt_per_s);
    let need = rate.map_or(0.0, |r| progress.remaining() as f64 / r);
    idle.max(secs(need * SLACK)).min(MAX_ATTEMPT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn speed(p: f64, g: f64) -> ServerSpeed {
        ServerSpeed {
            prompt_per_s: Some(p),
            generation_per_s: Some(g),
            prompt_call_s: None,
        }
    }

    fn meter(reads: &[(u64, f64)]) -> SpeedMeter {
        let mut m = SpeedMeter::default();
        for &r in reads {
            m.finished(r, (100, 5000.0));
        }
        m
    }

    /// Milliseconds a server with a fixed cost of 150 ms per read and 80 tokens/s takes.
    fn served(tokens: u64) -> (u64, f64) {
        (tokens, 150.0 + tokens as f64 * 12.5)
    }

    fn secs_off(speed: ServerSpeed, tokens: u64) -> f64 {
        let (_, ms) = served(tokens);
        (speed.prompt_secs(tokens).unwrap() * 1000.0 - ms).abs() / ms
    }

    #[test]
    fn a_short_read_barely_moves_what_a_long_prompt_is_sized_by() {
        // 2,000 tokens, then a begun reply's 40 tokens that look three times slower.
        let speed = meter(&[served(2000), served(40)]).speed();
        assert!(secs_off(speed, 2000) < 0.01, "{speed:?}");
    }

    #[test]
    fn hundreds_of_short_reads_leave_the_cost_per_token_to_the_long_ones() {
        // Line attempts: 300 reads of 15 tokens (44 tokens/s each) after two long reads.
        let mut reads = vec![served(2000), served(1200)];
        reads.extend([served(15); 300]);
        let speed = meter(&reads).speed();
        assert!(secs_off(speed, 2253) < 0.02, "{speed:?}");
        let per_call = speed.prompt_call_s.unwrap();
        assert!((0.14..0.16).contains(&per_call), "{per_call}");
    }

    #[test]
    fn a_fitted_fixed_cost_below_zero_is_fitted_through_zero() {
        // Long prompts slower per token than short ones (attention over a long context).
        let speed = meter(&[(100, 500.0), (1000, 12_000.0)]).speed();
        assert_eq!(speed.prompt_call_s, Some(0.0));
        let rate = speed.prompt_per_s.unwrap();
        assert!((80.0..84.0).contains(&rate), "{rate}");
    }

    #[test]
    fn a_machine_that_got_slower_is_followed_within_a_few_long_reads() {
        let mut reads = vec![(3000, 37_500.0)]; // 80/s
        reads.extend([(3000, 100_000.0); 4]); // 30/s
        let speed = meter(&reads).speed();
        let rate = speed.prompt_per_s.unwrap();
        assert!((30.0..34.0).contains(&rate), "{rate}");
        // Reads of one size cannot tell a fixed cost from a cost per token.
        assert_eq!(speed.prompt_call_s, None);
    }

    #[test]
    fn too_few_tokens_measure_nothing_until_they_add_up() {
        assert_eq!(meter(&[(20, 1000.0)]).speed().prompt_per_s, None);
        let rate = meter(&[(20, 1000.0), (20, 1000.0)])
            .speed()
            .prompt_per_s
            .unwrap();
        assert!((rate - 20.0).abs() < 1e-9, "{rate}");
        assert_eq!(meter(&[]).speed(), ServerSpeed::default());
    }

    #[test]
    fn a_call_under_way_counts_by_its_progress_and_a_cut_one_keeps_it() {
        let mut m = meter(&[(1000, 50_000.0)]); // 20/s
        let p = PromptProgress {
            total: 3000,
            cache: 0,
            processed: 1000,
            time_ms: 100_000.0, // 10/s
        };
        m.progress(&p);
        let cut = meter(&[(1000, 50_000.0), (1000, 100_000.0)]).speed();
        assert_eq!(m.speed().prompt_per_s, cut.prompt_per_s);
        m.ended();
        assert_eq!(m.speed().prompt_per_s, cut.prompt_per_s);
        // A finished call's own figures replace its progress.
        let mut m = meter(&[(1000, 50_000.0)]);
        m.progress(&p);
        m.finished((3000, 150_000.0), (0, 0.0));
        m.ended();
        let whole = meter(&[(1000, 50_000.0), (3000, 150_000.0)]).speed();
        assert_eq!(m.speed().prompt_per_s, whole.prompt_per_s);
    }

    #[test]
    fn progress_events_measure_the_prompt_speed_of_a_call_still_running() {
        let p = PromptProgress::from_json(
            &serde_json::json!({"total": 2830, "cache": 100, "processed": 1000, "time_ms": 50000}),
        )
        .unwrap();
        assert_eq!(p.rate(), Some(18.0));
        assert_eq!(p.remaining(), 1830);
        assert_eq!(
            PromptProgress::from_json(&serde_json::json!({"x": 1})),
            None
        );
    }

    #[test]
    fn the_first_byte_may_take_as_long_as_the_measured_prompt_needs() {
        let idle = Duration::from_secs(120);
        // 2,830 tokens at 18 tokens/s: 157 s, with slack 236 s.
        let w = first_byte_wait(idle, speed(18.0, 7.4), 2830, true, Some(1024));
        assert_eq!(w.as_secs(), 235);
        // Unknown speed: the idle limit.
        assert_eq!(
            first_byte_wait(idle, ServerSpeed::default(), 2830, true, None),
            idle
        );
        // A short prompt on a fast server: still the idle limit.
        assert_eq!(
            first_byte_wait(idle, speed(2000.0, 50.0), 300, true, None),
            idle
        );
        // Not streamed: the whole reply comes at once, generation included.
        let w = first_byte_wait(idle, speed(18.0, 7.4), 2830, false, Some(740));
        assert_eq!(w.as_secs(), 385);
        // Bounded whatever the figures say.
        assert_eq!(
            first_byte_wait(idle, speed(0.001, 0.001), 100_000, false, Some(9)),
            MAX_ATTEMPT
        );
    }

    #[test]
    fn after_progress_the_wait_covers_the_rest_of_the_prompt() {
        let idle = Duration::from_millis(1200);
        let p = PromptProgress {
            total: 2830,
            cache: 0,
            processed: 512,
            time_ms: 284.0,
        };
        // ~1803 tokens/s, 2,318 left: ~1.29 s, with slack ~1.93 s.
        let w = wait_after_progress(idle, &p, ServerSpeed::default());
        assert!((1900..1950).contains(&w.as_millis()), "{w:?}");
        let first = PromptProgress {
            processed: 0,
            time_ms: 0.0,
            ..p
        };
        // The first (0 %) event measures nothing: the known speed, or the idle limit.
        assert_eq!(
            wait_after_progress(idle, &first, ServerSpeed::default()),
            idle
        );
        let w = wait_after_progress(idle, &first, speed(1800.0, 700.0));
        assert!((2350..2370).contains(&w.as_millis()), "{w:?}");
    }
}
