//! When to retry a GitHub API call and how long to wait: 5xx with exponential backoff, rate
//! limits (403/429) honouring `Retry-After` or `x-ratelimit-reset`, all capped in attempts and
//! total waiting time. Pure; the client's loop applies it.

use axum::http::HeaderMap;
use std::time::Duration;

/// Caps for retrying one API call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first one included.
    pub max_attempts: u32,
    /// First backoff for 5xx and transport errors; doubles each attempt.
    pub base_delay: Duration,
    /// Longest single wait; a rate limit that resets later than this is not waited for.
    pub max_delay: Duration,
    /// Longest total waiting across the attempts of one call.
    pub max_total_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
            max_total_wait: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// Small values for tests: many quick attempts.
    pub fn fast() -> Self {
        Self {
            max_attempts: 5,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_secs(3),
            max_total_wait: Duration::from_secs(5),
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32 << attempt.saturating_sub(1).min(16);
        self.base_delay.saturating_mul(factor).min(self.max_delay)
    }
}

fn header_u64(headers: &HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

/// How long to wait before attempt `attempt + 1` after a response with `status` and `headers`
/// (`attempt` counts from 1); `None` when the response must not be retried or the wait would
/// exceed the policy. `body_says_rate_limit` is whether a 403 body mentions a rate limit;
/// `now_epoch_s` is the current Unix time (for `x-ratelimit-reset`).
pub fn retry_delay(
    policy: &RetryPolicy,
    attempt: u32,
    status: u16,
    headers: &HeaderMap,
    body_says_rate_limit: bool,
    now_epoch_s: u64,
) -> Option<Duration> {
    if attempt >= policy.max_attempts {
        return None;
    }
    let wait = match status {
        500..=599 => policy.backoff(attempt),
        403 | 429 => {
            if let Some(s) = header_u64(headers, "retry-after") {
                Duration::from_secs(s)
            } else if header_u64(headers, "x-ratelimit-remaining") == Some(0) {
                let reset = header_u64(headers, "x-ratelimit-reset")?;
                Duration::from_secs(reset.saturating_sub(now_epoch_s).max(1))
            } else if status == 429 || body_says_rate_limit {
                policy
                    .backoff(attempt)
                    .max(Duration::from_secs(1))
                    .min(policy.max_delay)
            } else {
                // A plain 403 is a real "forbidden".
                return None;
            }
        }
        _ => return None,
    };
    (wait <= policy.max_delay).then_some(wait)
}

/// Backoff after a transport error (no response), or `None` when attempts are used up.
pub fn transport_retry_delay(policy: &RetryPolicy, attempt: u32) -> Option<Duration> {
    (attempt < policy.max_attempts).then(|| policy.backoff(attempt))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn server_errors_back_off_exponentially_until_attempts_run_out() {
        let p = RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(250),
            max_total_wait: Duration::from_secs(1),
        };
        let h = HeaderMap::new();
        assert_eq!(
            retry_delay(&p, 1, 502, &h, false, 0),
            Some(Duration::from_millis(100))
        );
        assert_eq!(
            retry_delay(&p, 2, 503, &h, false, 0),
            Some(Duration::from_millis(200))
        );
        assert_eq!(
            retry_delay(&p, 3, 500, &h, false, 0),
            Some(Duration::from_millis(250))
        );
        assert_eq!(retry_delay(&p, 4, 500, &h, false, 0), None);
    }

    #[test]
    fn rate_limits_honour_retry_after_and_reset() {
        let p = RetryPolicy::default();
        let h = headers(&[("retry-after", "7")]);
        assert_eq!(
            retry_delay(&p, 1, 403, &h, true, 0),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            retry_delay(&p, 1, 429, &h, false, 0),
            Some(Duration::from_secs(7))
        );
        let h = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1010"),
        ]);
        assert_eq!(
            retry_delay(&p, 1, 403, &h, false, 1000),
            Some(Duration::from_secs(10))
        );
        // Resetting too far in the future: give up instead of blocking.
        assert_eq!(retry_delay(&p, 1, 403, &h, false, 0), None);
        let h = headers(&[("retry-after", "3600")]);
        assert_eq!(retry_delay(&p, 1, 429, &h, false, 0), None);
    }

    #[test]
    fn plain_forbidden_and_client_errors_are_final() {
        let p = RetryPolicy::default();
        let h = HeaderMap::new();
        assert_eq!(retry_delay(&p, 1, 403, &h, false, 0), None);
        assert!(retry_delay(&p, 1, 403, &h, true, 0).is_some());
        for s in [400, 401, 404, 422] {
            assert_eq!(retry_delay(&p, 1, s, &h, false, 0), None);
        }
        assert!(transport_retry_delay(&p, 1).is_some());
        assert!(transport_retry_delay(&p, p.max_attempts).is_none());
    }
}
