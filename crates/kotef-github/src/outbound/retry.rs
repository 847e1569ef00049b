//! Which GitHub API failures are worth another attempt and how long GitHub asked to wait:
//! 5xx and transport errors are retried (for requests that may be sent twice), rate limits
//! (403/429) honour `Retry-After` or `x-ratelimit-reset`. Pure classification; the policy and
//! the loop are the engine shared with the model clients, [`kotef_core::retry`].

use reqwest::header::HeaderMap;
use std::time::Duration;

pub use kotef_core::retry::RetryPolicy;

/// The default policy of GitHub calls: five attempts within the 120 s retry window.
pub fn github_default() -> RetryPolicy {
    RetryPolicy::default().with_max_retries(4)
}

/// What a failed response means for a retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Send it again, after the wait GitHub named (else the policy's backoff).
    Retry(Option<Duration>),
    /// Final.
    Stop,
}

fn header_u64(headers: &HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

/// What a response with `status` and `headers` means: 5xx are retried with backoff, a rate
/// limit after the wait GitHub named (`Retry-After`, or `x-ratelimit-reset` when
/// `x-ratelimit-remaining` is 0), a 429 or a 403 whose body mentions a rate limit
/// (`body_says_rate_limit`) with backoff; anything else is final. `now_epoch_s` is the current
/// Unix time.
pub fn classify(
    status: u16,
    headers: &HeaderMap,
    body_says_rate_limit: bool,
    now_epoch_s: u64,
) -> Verdict {
    match status {
        500..=599 => Verdict::Retry(None),
        403 | 429 => {
            if let Some(s) = header_u64(headers, "retry-after") {
                Verdict::Retry(Some(Duration::from_secs(s)))
            } else if header_u64(headers, "x-ratelimit-remaining") == Some(0) {
                match header_u64(headers, "x-ratelimit-reset") {
                    Some(reset) => Verdict::Retry(Some(Duration::from_secs(
                        reset.saturating_sub(now_epoch_s).max(1),
                    ))),
                    None => Verdict::Stop,
                }
            } else if status == 429 || body_says_rate_limit {
                Verdict::Retry(Some(Duration::from_secs(1)))
            } else {
                // A plain 403 is a real "forbidden".
                Verdict::Stop
            }
        }
        _ => Verdict::Stop,
    }
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
    fn server_errors_are_retried_with_backoff() {
        assert_eq!(
            classify(502, &HeaderMap::new(), false, 0),
            Verdict::Retry(None)
        );
    }

    #[test]
    fn a_rate_limit_waits_as_long_as_retry_after_says() {
        let h = headers(&[("retry-after", "7")]);
        assert_eq!(
            classify(403, &h, true, 0),
            Verdict::Retry(Some(Duration::from_secs(7)))
        );
    }

    #[test]
    fn an_exhausted_quota_waits_until_its_reset() {
        let h = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1010"),
        ]);
        assert_eq!(
            classify(403, &h, false, 1000),
            Verdict::Retry(Some(Duration::from_secs(10)))
        );
    }

    #[test]
    fn a_reset_beyond_the_window_ends_the_retries() {
        let h = headers(&[("retry-after", "3600")]);
        let Verdict::Retry(hint) = classify(429, &h, false, 0) else {
            panic!("a rate limit is retried")
        };
        assert_eq!(
            github_default().delay_before_attempt(2, hint, Duration::ZERO, 0.5),
            None
        );
    }

    #[test]
    fn plain_forbidden_and_client_errors_are_final() {
        let h = HeaderMap::new();
        let finals: Vec<u16> = [403, 400, 401, 404, 422]
            .into_iter()
            .filter(|s| classify(*s, &h, false, 0) == Verdict::Stop)
            .collect();
        assert_eq!(finals, [403, 400, 401, 404, 422]);
    }
}
