//! The GitHub API budget of each installation (repository owner), as GitHub's answers report
//! it: `X-RateLimit-Remaining` / `X-RateLimit-Reset`, and the `Retry-After` of a secondary
//! limit. A job asks [`GitHub::budget_wait`] before its work and waits (saying so in its status
//! comment) while the budget is nearly spent; the decision is the pure [`budget_wait`].

use super::*;
use axum::http::HeaderMap;

/// Requests kept in reserve: below this many left, a new job waits for the reset.
pub const RESERVE: u64 = 100;

/// The longest a job waits for a budget (GitHub's primary window is an hour).
pub const MAX_WAIT: Duration = Duration::from_secs(3600);

/// What GitHub last said of one installation's budget.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RateBudget {
    /// Requests left in the window, when reported.
    pub remaining: Option<u64>,
    /// When the window resets (epoch seconds), when reported.
    pub reset_epoch_s: Option<u64>,
    /// Until when a secondary limit asked to wait (epoch seconds).
    pub blocked_until_epoch_s: Option<u64>,
}

fn header_u64(headers: &HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

impl RateBudget {
    /// This budget updated by one answer's `status` and `headers` at `now` (epoch seconds).
    pub fn updated(mut self, status: u16, headers: &HeaderMap, now: u64) -> Self {
        if let Some(r) = header_u64(headers, "x-ratelimit-remaining") {
            self.remaining = Some(r);
            self.reset_epoch_s = header_u64(headers, "x-ratelimit-reset");
        }
        if matches!(status, 403 | 429) {
            if let Some(after) = header_u64(headers, "retry-after") {
                self.blocked_until_epoch_s = Some(now.saturating_add(after));
            }
        }
        self
    }
}

/// How long a job should wait before spending `budget` at `now`: until the reset when fewer
/// than `reserve` requests are left, until a secondary limit's end; at most [`MAX_WAIT`].
pub fn budget_wait(budget: &RateBudget, now: u64, reserve: u64) -> Option<Duration> {
    let primary = match (budget.remaining, budget.reset_epoch_s) {
        (Some(left), Some(reset)) if left < reserve && reset > now => Some(reset - now),
        _ => None,
    };
    let secondary = budget
        .blocked_until_epoch_s
        .filter(|until| *until > now)
        .map(|until| until - now);
    primary
        .max(secondary)
        .map(|s| Duration::from_secs(s).min(MAX_WAIT))
}

/// The installation a REST path belongs to: the owner in `/repos/{owner}/...`, lower case.
pub(super) fn owner_of(path: &str) -> Option<String> {
    let owner = path.strip_prefix("/repos/")?.split('/').next()?;
    (!owner.is_empty()).then(|| owner.to_ascii_lowercase())
}

/// Installations whose budget is remembered; beyond this the memory starts over.
const MAX_OWNERS: usize = 10_000;

impl GitHub {
    /// Notes what an answer to `path` said of its installation's budget.
    pub(super) fn note_budget(&self, path: &str, status: u16, headers: &HeaderMap) {
        let Some(owner) = owner_of(path) else {
            return;
        };
        let now = chrono::Utc::now().timestamp().max(0) as u64;
        if let Ok(mut budgets) = self.inner.budgets.lock() {
            if budgets.len() >= MAX_OWNERS && !budgets.contains_key(&owner) {
                budgets.clear();
            }
            let b = budgets.entry(owner).or_default();
            *b = b.updated(status, headers, now);
        }
    }

    /// How long a job on `repo` should wait for its installation's budget, with the budget.
    pub fn budget_wait(&self, repo: &RepoName) -> Option<(Duration, RateBudget)> {
        let budget = *self
            .inner
            .budgets
            .lock()
            .ok()?
            .get(&repo.owner.to_ascii_lowercase())?;
        let now = chrono::Utc::now().timestamp().max(0) as u64;
        budget_wait(&budget, now, RESERVE).map(|d| (d, budget))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(remaining: u64, reset: u64) -> RateBudget {
        RateBudget {
            remaining: Some(remaining),
            reset_epoch_s: Some(reset),
            blocked_until_epoch_s: None,
        }
    }

    #[test]
    fn a_nearly_spent_budget_waits_for_its_reset() {
        assert_eq!(
            budget_wait(&budget(5, 1_060), 1_000, RESERVE),
            Some(Duration::from_secs(60))
        );
    }

    #[test]
    fn a_budget_with_room_or_past_its_reset_does_not_wait() {
        assert_eq!(budget_wait(&budget(500, 1_060), 1_000, RESERVE), None);
        assert_eq!(budget_wait(&budget(5, 900), 1_000, RESERVE), None);
    }

    #[test]
    fn a_secondary_limit_waits_for_its_retry_after() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", "30".parse().unwrap());
        let b = RateBudget::default().updated(403, &headers, 1_000);
        assert_eq!(
            budget_wait(&b, 1_010, RESERVE),
            Some(Duration::from_secs(20))
        );
    }

    #[test]
    fn a_wait_is_capped_at_an_hour() {
        assert_eq!(
            budget_wait(&budget(0, 1_000_000), 0, RESERVE),
            Some(MAX_WAIT)
        );
    }

    #[test]
    fn the_installation_is_the_owner_in_the_path() {
        assert_eq!(owner_of("/repos/Acme/w/issues/1").as_deref(), Some("acme"));
        assert_eq!(owner_of("/app/installations"), None);
    }
}
