//! Retrying model calls: which provider failures are retried (429, 529, 408, 409, 5xx,
//! connection errors; never a timeout, whose request is not sent again unchanged) and how long the provider asked to wait (`retry-after-ms`,
//! `Retry-After`, Anthropic's rate-limit reset headers). The policy (backoff with full
//! jitter, the retry window since the first attempt) and the loop are the engine shared with
//! the GitHub client, [`kotef_core::retry`].

use crate::types::ModelError;
use reqwest::header::HeaderMap;
use std::future::Future;
use std::time::{Duration, SystemTime};

pub use kotef_core::retry::RetryPolicy;

/// How long to wait before attempt `attempt` given the failed attempt's response headers
/// (`None` for a connection error or timeout): [`retry_after_hint`] then
/// [`RetryPolicy::delay_before_attempt`].
pub fn wait_before_attempt(
    policy: &RetryPolicy,
    attempt: u32,
    headers: Option<&HeaderMap>,
    now: SystemTime,
    elapsed: Duration,
    jitter: f64,
) -> Option<Duration> {
    let hint = headers.and_then(|h| retry_after_hint(h, now));
    policy.delay_before_attempt(attempt, hint, elapsed, jitter)
}

/// Anthropic's rate-limit families: `anthropic-ratelimit-{family}-remaining` / `-reset`.
const ANTHROPIC_LIMITS: [&str; 4] = ["requests", "tokens", "input-tokens", "output-tokens"];

/// The wait a provider asked for, from (first match wins): `retry-after-ms` (milliseconds,
/// as OpenAI sends), `Retry-After` (seconds, fractions allowed, or an HTTP date), then
/// Anthropic's `anthropic-ratelimit-*-reset` (RFC 3339) of the limits whose `-remaining` is 0
/// (the latest of them). A date in the past means "now". Unparseable values are ignored.
pub fn retry_after_hint(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    if let Some(ms) = text("retry-after-ms").and_then(parse_non_negative) {
        if let Ok(d) = Duration::try_from_secs_f64(ms / 1000.0) {
            return Some(d);
        }
    }
    if let Some(v) = text("retry-after") {
        if let Some(secs) = parse_non_negative(v) {
            if let Ok(d) = Duration::try_from_secs_f64(secs) {
                return Some(d);
            }
        } else if let Ok(at) = httpdate::parse_http_date(v) {
            return Some(at.duration_since(now).unwrap_or(Duration::ZERO));
        }
    }
    let mut latest: Option<Duration> = None;
    for family in ANTHROPIC_LIMITS {
        let exhausted = text(&format!("anthropic-ratelimit-{family}-remaining"))
            .and_then(|r| r.parse::<u64>().ok())
            == Some(0);
        if !exhausted {
            continue;
        }
        let Some(reset) = text(&format!("anthropic-ratelimit-{family}-reset")) else {
            continue;
        };
        let Ok(at) = chrono::DateTime::parse_from_rfc3339(reset) else {
            continue;
        };
        let at: SystemTime = at.with_timezone(&chrono::Utc).into();
        let wait = at.duration_since(now).unwrap_or(Duration::ZERO);
        latest = Some(latest.map_or(wait, |l| l.max(wait)));
    }
    latest
}

fn parse_non_negative(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)
}

/// The error of a non-success HTTP status: 429 and 529 (overloaded) are rate limits, 408,
/// 409 and 5xx are server errors (all retried); everything else is rejected at once, and so is
/// a 5xx whose body says the request itself could not be parsed ([`request_unparseable`]):
/// sending the same request again gets the same answer.
pub fn error_for_status(status: u16, message: String, hint: Option<Duration>) -> ModelError {
    match status {
        429 | 529 => ModelError::RateLimited {
            message,
            retry_after_ms: hint.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        },
        500..=599 if request_unparseable(&message) => ModelError::Rejected { status, message },
        408 | 409 | 500..=599 => ModelError::Server { status, message },
        _ => ModelError::Rejected { status, message },
    }
}

/// Whether a server error's text says the *request* was malformed rather than that the server
/// failed: llama.cpp answers a history it cannot read with HTTP 500 "Failed to parse tool call
/// arguments as JSON: [json.exception.parse_error.101] …", and other servers say "invalid
/// request" or "could not parse the request".
pub fn request_unparseable(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    [
        "failed to parse",
        "could not parse",
        "unable to parse",
        "json.exception.parse_error",
        "invalid request",
        "invalid_request_error",
        "malformed request",
    ]
    .iter()
    .any(|p| m.contains(p))
}

/// One failed attempt: the error and the wait the provider asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptFailure {
    pub error: ModelError,
    pub hint: Option<Duration>,
}

impl From<ModelError> for AttemptFailure {
    fn from(error: ModelError) -> Self {
        Self { error, hint: None }
    }
}

/// Runs `attempt(n)` for n = 1, 2, ... until it succeeds, fails with an error that is not
/// retryable, or the policy says stop (the retry window is measured from the first attempt);
/// sleeps between attempts. Returns the last error. The loop is the shared engine
/// [`kotef_core::retry::run`].
pub async fn run_with_retries<T, F, Fut>(
    policy: &RetryPolicy,
    mut attempt: F,
) -> Result<T, ModelError>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<T, AttemptFailure>>,
{
    kotef_core::retry::run(policy, "model call", |n| {
        let fut = attempt(n);
        async move {
            fut.await.map_err(|f| kotef_core::retry::Failure {
                retryable: f.error.is_retryable(),
                hint: f.hint,
                error: f.error,
            })
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_error_about_an_unparseable_request_is_not_retried() {
        let llama = "Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1, column 1";
        let e = error_for_status(500, llama.into(), None);
        assert!(matches!(e, ModelError::Rejected { status: 500, .. }));
        assert!(!e.is_retryable());
    }

    #[test]
    fn an_ordinary_server_error_is_still_retried() {
        let e = error_for_status(500, "upstream connect error".into(), None);
        assert!(e.is_retryable());
    }
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn policy() -> RetryPolicy {
        RetryPolicy::default()
            .with_base_delay(Duration::from_millis(100))
            .with_max_delay(Duration::from_millis(1000))
            .with_retry_window(Duration::from_secs(10))
            .with_max_retries(4)
    }

    #[test]
    fn retry_after_seconds_fractions_ms_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(
            retry_after_hint(&headers(&[("retry-after", "1")]), now),
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            retry_after_hint(&headers(&[("retry-after", "0.25")]), now),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after_hint(
                &headers(&[("retry-after-ms", "40"), ("retry-after", "9")]),
                now
            ),
            Some(Duration::from_millis(40))
        );
        let date = httpdate::fmt_http_date(now + Duration::from_secs(7));
        assert_eq!(
            retry_after_hint(&headers(&[("retry-after", &date)]), now),
            Some(Duration::from_secs(7))
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(7));
        assert_eq!(
            retry_after_hint(&headers(&[("retry-after", &past)]), now),
            Some(Duration::ZERO)
        );
        assert_eq!(
            retry_after_hint(&headers(&[("retry-after", "soon")]), now),
            None
        );
        assert_eq!(
            retry_after_hint(&headers(&[("retry-after", "-3")]), now),
            None
        );
        assert_eq!(retry_after_hint(&HeaderMap::new(), now), None);
    }

    #[test]
    fn anthropic_reset_headers_of_exhausted_limits() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let at = |secs: u64| {
            chrono::DateTime::<chrono::Utc>::from(now + Duration::from_secs(secs)).to_rfc3339()
        };
        let h = headers(&[
            ("anthropic-ratelimit-requests-remaining", "0"),
            ("anthropic-ratelimit-requests-reset", &at(3)),
            ("anthropic-ratelimit-tokens-remaining", "0"),
            ("anthropic-ratelimit-tokens-reset", &at(5)),
            ("anthropic-ratelimit-output-tokens-remaining", "900"),
            ("anthropic-ratelimit-output-tokens-reset", &at(50)),
        ]);
        assert_eq!(retry_after_hint(&h, now), Some(Duration::from_secs(5)));
        // `retry-after` wins over the reset headers.
        let mut h2 = h.clone();
        h2.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after_hint(&h2, now), Some(Duration::from_secs(2)));
        // Nothing exhausted: no hint, plain backoff.
        let h3 = headers(&[
            ("anthropic-ratelimit-tokens-remaining", "10"),
            ("anthropic-ratelimit-tokens-reset", &at(5)),
        ]);
        assert_eq!(retry_after_hint(&h3, now), None);
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let p = policy();
        assert_eq!(p.backoff_ceiling(2), Duration::from_millis(100));
        assert_eq!(p.backoff_ceiling(3), Duration::from_millis(200));
        assert_eq!(p.backoff_ceiling(4), Duration::from_millis(400));
        assert_eq!(p.backoff_ceiling(6), Duration::from_millis(1000));
        assert_eq!(p.backoff_ceiling(60), Duration::from_millis(1000));
    }

    #[test]
    fn full_jitter_within_ceiling() {
        let p = policy();
        assert_eq!(
            p.delay_before_attempt(3, None, Duration::ZERO, 0.5),
            Some(Duration::from_millis(100))
        );
        assert_eq!(
            p.delay_before_attempt(3, None, Duration::ZERO, 0.0),
            Some(Duration::ZERO)
        );
        assert_eq!(
            p.delay_before_attempt(3, None, Duration::ZERO, 7.0),
            Some(Duration::from_millis(200))
        );
        assert_eq!(
            p.delay_before_attempt(1, None, Duration::ZERO, 1.0),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn attempts_and_total_wait_are_capped() {
        let p = policy();
        assert!(p
            .delay_before_attempt(5, None, Duration::ZERO, 1.0)
            .is_some());
        assert_eq!(p.delay_before_attempt(6, None, Duration::ZERO, 1.0), None);
        // Backoff is clipped to what is left of the budget; nothing left ends retries.
        assert_eq!(
            p.delay_before_attempt(4, None, Duration::from_millis(9_950), 1.0),
            Some(Duration::from_millis(50))
        );
        assert_eq!(
            p.delay_before_attempt(4, None, Duration::from_secs(10), 1.0),
            None
        );
    }

    #[test]
    fn retry_after_is_honoured_or_ends_retries() {
        let p = policy();
        // Honoured even above max_delay while the budget lasts.
        assert_eq!(
            p.delay_before_attempt(2, Some(Duration::from_secs(3)), Duration::ZERO, 0.0),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            p.delay_before_attempt(2, Some(Duration::from_secs(11)), Duration::ZERO, 0.0),
            None
        );
        assert_eq!(
            p.delay_before_attempt(3, Some(Duration::from_secs(3)), Duration::from_secs(8), 0.0),
            None
        );
        let now = SystemTime::now();
        assert_eq!(
            wait_before_attempt(
                &p,
                2,
                Some(&headers(&[("retry-after", "1")])),
                now,
                Duration::ZERO,
                0.9
            ),
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            wait_before_attempt(&p, 2, None, now, Duration::ZERO, 1.0),
            Some(Duration::from_millis(100))
        );
    }

    #[test]
    fn status_classification() {
        let e = error_for_status(429, "slow down".into(), Some(Duration::from_millis(1500)));
        assert_eq!(
            e,
            ModelError::RateLimited {
                message: "slow down".into(),
                retry_after_ms: Some(1500)
            }
        );
        assert!(error_for_status(529, String::new(), None).is_retryable());
        assert!(error_for_status(503, String::new(), None).is_retryable());
        assert!(error_for_status(408, String::new(), None).is_retryable());
        for s in [400, 401, 403, 404, 422] {
            assert!(matches!(
                error_for_status(s, String::new(), None),
                ModelError::Rejected { status, .. } if status == s
            ));
        }
    }

    #[tokio::test]
    async fn loop_stops_at_non_retryable_and_at_the_cap() {
        let p = policy()
            .with_base_delay(Duration::from_millis(1))
            .with_max_retries(2);
        let mut calls = 0;
        let r: Result<(), _> = run_with_retries(&p, |_| {
            calls += 1;
            async { Err(ModelError::Connection("reset".into()).into()) }
        })
        .await;
        assert_eq!(r, Err(ModelError::Connection("reset".into())));
        assert_eq!(calls, 3);

        let mut calls = 0;
        let r: Result<(), _> = run_with_retries(&p, |_| {
            calls += 1;
            async {
                Err(ModelError::Rejected {
                    status: 401,
                    message: "no".into(),
                }
                .into())
            }
        })
        .await;
        assert!(matches!(r, Err(ModelError::Rejected { status: 401, .. })));
        assert_eq!(calls, 1);

        let r = run_with_retries(&p, |n| {
            fail_until(n, 3, ModelError::Connection("reset".into()))
        })
        .await;
        assert_eq!(r, Ok(3));
    }

    /// An attempt that fails with `err` before attempt `ok_at`.
    async fn fail_until(n: u32, ok_at: u32, err: ModelError) -> Result<u32, AttemptFailure> {
        if n < ok_at {
            Err(err.into())
        } else {
            Ok(n)
        }
    }

    /// Millisecond backoff (`base` ms, at most twice that) within `window`.
    fn windowed(base_ms: u64, window: Duration) -> RetryPolicy {
        RetryPolicy::default()
            .with_base_delay(Duration::from_millis(base_ms))
            .with_max_delay(Duration::from_millis(2 * base_ms))
            .with_retry_window(window)
    }

    #[tokio::test]
    async fn an_outage_shorter_than_the_window_is_retried_through() {
        let p = windowed(1, Duration::from_secs(10));
        let down = ModelError::Server {
            status: 500,
            message: "down".into(),
        };
        let r = run_with_retries(&p, |n| fail_until(n, 9, down.clone())).await;
        assert_eq!(r, Ok(9));
    }

    #[tokio::test]
    async fn an_outage_longer_than_the_window_ends_the_call() {
        let p = windowed(2, Duration::from_millis(40));
        let mut calls = 0;
        let r: Result<(), _> = run_with_retries(&p, |_| {
            calls += 1;
            async { Err(ModelError::Connection("refused".into()).into()) }
        })
        .await;
        assert_eq!(r, Err(ModelError::Connection("refused".into())));
        assert!(calls > 1, "retried within the window");
    }

    #[test]
    fn the_default_window_is_two_minutes() {
        assert_eq!(
            RetryPolicy::default().retry_window,
            Duration::from_secs(120)
        );
        assert!(RetryPolicy::default().max_retries >= 20);
    }
}
