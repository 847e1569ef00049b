//! The one retry engine of kotef's HTTP clients (the model providers and GitHub): a policy
//! (attempts, exponential backoff with full jitter, a retry window measured from the first
//! attempt) and the loop that applies it. Each client only classifies its own failures into a
//! [`Failure`]: whether the request may be sent again, and how long the server asked to wait
//! (`Retry-After` and the like), which wins over the backoff as long as it fits the window.

use std::fmt::Display;
use std::future::Future;
use std::time::Duration;
use tokio::time::Instant;

/// Retries of one call. Defaults: a 120 s retry window, 500 ms base delay, 20 s per wait, and a
/// sanity cap of 60 retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt: at most `max_retries + 1` requests per call.
    pub max_retries: u32,
    /// Backoff ceiling of the first retry, doubled for each later one.
    pub base_delay: Duration,
    /// Largest backoff ceiling of one wait. A server's `Retry-After` may exceed it as long as
    /// the retry window allows.
    pub max_delay: Duration,
    /// The retry window: time from the start of a call's first attempt during which it keeps
    /// retrying. A wait that would end beyond it (a `Retry-After` included) ends the retries.
    pub retry_window: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: Self::DEFAULT_MAX_RETRIES,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
            retry_window: Self::DEFAULT_RETRY_WINDOW,
        }
    }
}

impl RetryPolicy {
    pub const DEFAULT_MAX_RETRIES: u32 = 60;
    pub const DEFAULT_RETRY_WINDOW: Duration = Duration::from_secs(120);

    /// Small values for tests: quick attempts within a 5 s window.
    pub fn fast() -> Self {
        Self {
            max_retries: 4,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_secs(3),
            retry_window: Duration::from_secs(5),
        }
    }

    pub fn with_max_retries(mut self, n: u32) -> Self {
        self.max_retries = n;
        self
    }

    pub fn with_base_delay(mut self, d: Duration) -> Self {
        self.base_delay = d;
        self
    }

    pub fn with_max_delay(mut self, d: Duration) -> Self {
        self.max_delay = d;
        self
    }

    pub fn with_retry_window(mut self, d: Duration) -> Self {
        self.retry_window = d;
        self
    }

    /// The older name of [`RetryPolicy::with_retry_window`].
    pub fn with_max_total_wait(self, d: Duration) -> Self {
        self.with_retry_window(d)
    }

    /// The backoff ceiling before attempt `attempt` (the first attempt is 1, so the first
    /// retry is attempt 2): `min(max_delay, base_delay * 2^(attempt - 2))`.
    pub fn backoff_ceiling(&self, attempt: u32) -> Duration {
        let exp = attempt.saturating_sub(2).min(31);
        self.base_delay
            .checked_mul(1u32 << exp)
            .unwrap_or(self.max_delay)
            .min(self.max_delay)
    }

    /// How long to wait before attempt `attempt` (1-based; attempt 1 needs no wait), given the
    /// server's hint, the time `elapsed` since the call's first attempt started and a jitter
    /// draw in `[0, 1]`. `None`: do not retry (attempts used up, the window is over, or the
    /// server's hint reaches beyond it).
    pub fn delay_before_attempt(
        &self,
        attempt: u32,
        hint: Option<Duration>,
        elapsed: Duration,
        jitter: f64,
    ) -> Option<Duration> {
        if attempt <= 1 {
            return Some(Duration::ZERO);
        }
        if attempt > self.max_retries.saturating_add(1) {
            return None;
        }
        let remaining = self.retry_window.saturating_sub(elapsed);
        match hint {
            Some(h) => (h <= remaining).then_some(h),
            None => {
                if remaining.is_zero() {
                    return None;
                }
                let j = if jitter.is_finite() {
                    jitter.clamp(0.0, 1.0)
                } else {
                    0.0
                };
                Some(self.backoff_ceiling(attempt).mul_f64(j).min(remaining))
            }
        }
    }
}

/// A failed attempt, as its client classified it.
#[derive(Debug)]
pub struct Failure<E> {
    pub error: E,
    /// The request may be sent again (not applied, or safe to apply twice).
    pub retryable: bool,
    /// The wait the server asked for, when it did.
    pub hint: Option<Duration>,
}

impl<E> Failure<E> {
    /// A failure that ends the call.
    pub fn fatal(error: E) -> Self {
        Self {
            error,
            retryable: false,
            hint: None,
        }
    }

    /// A failure worth another attempt, after `hint` when the server named a wait.
    pub fn retry(error: E, hint: Option<Duration>) -> Self {
        Self {
            error,
            retryable: true,
            hint,
        }
    }
}

/// Runs `attempt(1)`, `attempt(2)`, ... until one succeeds, a failure is not retryable, or the
/// policy has no wait left; the last error is returned. `what` names the call in the log.
pub async fn run<T, E, F, Fut>(policy: &RetryPolicy, what: &str, mut attempt: F) -> Result<T, E>
where
    E: Display,
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<T, Failure<E>>>,
{
    let started = Instant::now();
    let mut n: u32 = 1;
    loop {
        let failure = match attempt(n).await {
            Ok(v) => return Ok(v),
            Err(f) => f,
        };
        if !failure.retryable {
            return Err(failure.error);
        }
        let jitter: f64 = rand::random();
        let Some(delay) =
            policy.delay_before_attempt(n + 1, failure.hint, started.elapsed(), jitter)
        else {
            tracing::warn!(attempt = n, error = %failure.error, "{what} failed; no retry left");
            return Err(failure.error);
        };
        tracing::warn!(
            attempt = n,
            delay_ms = delay.as_millis() as u64,
            error = %failure.error,
            "{what} failed; retrying"
        );
        tokio::time::sleep(delay).await;
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_hint_wins_over_the_backoff_within_the_window() {
        let p = RetryPolicy::default();
        let d = p.delay_before_attempt(2, Some(Duration::from_secs(30)), Duration::ZERO, 0.5);
        assert_eq!(d, Some(Duration::from_secs(30)));
    }

    #[test]
    fn a_hint_beyond_the_window_ends_the_retries() {
        let p = RetryPolicy::default();
        let d = p.delay_before_attempt(
            2,
            Some(Duration::from_secs(100)),
            Duration::from_secs(30),
            0.5,
        );
        assert_eq!(d, None);
    }

    #[test]
    fn the_backoff_doubles_up_to_its_ceiling() {
        let p = RetryPolicy::default();
        let ceilings: Vec<u64> = (2..=9)
            .map(|a| p.backoff_ceiling(a).as_millis() as u64)
            .collect();
        assert_eq!(ceilings, [500, 1000, 2000, 4000, 8000, 16000, 20000, 20000]);
    }

    #[test]
    fn attempts_end_at_max_retries() {
        let p = RetryPolicy::default().with_max_retries(2);
        assert!(p
            .delay_before_attempt(3, None, Duration::ZERO, 1.0)
            .is_some());
        assert_eq!(p.delay_before_attempt(4, None, Duration::ZERO, 1.0), None);
    }

    #[tokio::test]
    async fn run_retries_retryable_failures_and_stops_at_a_fatal_one() {
        let mut calls = 0;
        let r: Result<(), String> = run(&RetryPolicy::fast(), "test call", |n| {
            calls += 1;
            async move {
                if n < 3 {
                    Err(Failure::retry(format!("flaky {n}"), None))
                } else {
                    Err(Failure::fatal("broken".to_string()))
                }
            }
        })
        .await;
        assert_eq!((r, calls), (Err("broken".to_string()), 3));
    }
}
