//! Counters for `GET /metrics`, rendered as Prometheus text: deliveries by event and result,
//! runs by terminal status (or failure), queue depth, run durations and tokens.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

const BUCKETS_S: [f64; 10] = [
    1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0,
];

#[derive(Default)]
struct State {
    deliveries: BTreeMap<(String, String), u64>,
    runs: BTreeMap<String, u64>,
    duration_buckets: [u64; BUCKETS_S.len()],
    duration_count: u64,
    duration_sum_s: f64,
    prompt_tokens: u64,
    completion_tokens: u64,
}

/// The server's metrics; shared by the handler and the workers.
#[derive(Default)]
pub struct Metrics {
    state: Mutex<State>,
}

/// Keeps label values short and plain (event names come from a header).
fn label(v: &str) -> String {
    let s: String = v
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .take(40)
        .collect();
    if s.is_empty() {
        "unknown".into()
    } else {
        s
    }
}

impl Metrics {
    pub fn new() -> Self {
        Self::default()
    }

    /// One delivery answered: `result` is e.g. `accepted`, `duplicate`, `ignored`, `rejected`,
    /// `unauthorized`, `bad_request`.
    pub fn delivery(&self, event: &str, result: &str) {
        if let Ok(mut s) = self.state.lock() {
            *s.deliveries
                .entry((label(event), label(result)))
                .or_default() += 1;
        }
    }

    /// One job ended: `status` is a terminal status or `failed`/`ignored`/`rejected`.
    pub fn job_finished(&self, status: &str, duration: Duration, prompt: u64, completion: u64) {
        if let Ok(mut s) = self.state.lock() {
            *s.runs.entry(label(status)).or_default() += 1;
            let secs = duration.as_secs_f64();
            for (i, b) in BUCKETS_S.iter().enumerate() {
                if secs <= *b {
                    s.duration_buckets[i] += 1;
                }
            }
            s.duration_count += 1;
            s.duration_sum_s += secs;
            s.prompt_tokens += prompt;
            s.completion_tokens += completion;
        }
    }

    /// Prometheus text exposition.
    pub fn render(&self, queue_depth: u64, running: u64) -> String {
        let Ok(s) = self.state.lock() else {
            return String::new();
        };
        let mut out = String::new();
        out.push_str("# HELP kotef_webhook_deliveries_total Webhook deliveries by event and result.\n# TYPE kotef_webhook_deliveries_total counter\n");
        for ((event, result), n) in &s.deliveries {
            out.push_str(&format!(
                "kotef_webhook_deliveries_total{{event=\"{event}\",result=\"{result}\"}} {n}\n"
            ));
        }
        out.push_str("# HELP kotef_runs_total Jobs ended, by terminal status (or failed/ignored/rejected).\n# TYPE kotef_runs_total counter\n");
        for (status, n) in &s.runs {
            out.push_str(&format!("kotef_runs_total{{status=\"{status}\"}} {n}\n"));
        }
        out.push_str(&format!(
            "# HELP kotef_queue_depth Jobs waiting for a worker.\n# TYPE kotef_queue_depth gauge\nkotef_queue_depth {queue_depth}\n"
        ));
        out.push_str(&format!(
            "# HELP kotef_jobs_running Jobs being run now.\n# TYPE kotef_jobs_running gauge\nkotef_jobs_running {running}\n"
        ));
        out.push_str("# HELP kotef_run_duration_seconds Wall-clock time of a job.\n# TYPE kotef_run_duration_seconds histogram\n");
        for (i, b) in BUCKETS_S.iter().enumerate() {
            out.push_str(&format!(
                "kotef_run_duration_seconds_bucket{{le=\"{b}\"}} {}\n",
                s.duration_buckets[i]
            ));
        }
        out.push_str(&format!(
            "kotef_run_duration_seconds_bucket{{le=\"+Inf\"}} {c}\nkotef_run_duration_seconds_sum {:.3}\nkotef_run_duration_seconds_count {c}\n",
            s.duration_sum_s,
            c = s.duration_count
        ));
        out.push_str(&format!(
            "# HELP kotef_tokens_total Model tokens used by runs.\n# TYPE kotef_tokens_total counter\nkotef_tokens_total{{kind=\"prompt\"}} {}\nkotef_tokens_total{{kind=\"completion\"}} {}\n",
            s.prompt_tokens, s.completion_tokens
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_histogram_and_gauges() {
        let m = Metrics::new();
        m.delivery("issues", "accepted");
        m.delivery("issues", "accepted");
        m.delivery("bad\"event{}", "unauthorized");
        m.job_finished("done_success", Duration::from_secs(3), 100, 20);
        let text = m.render(4, 1);
        assert!(
            text.contains("kotef_webhook_deliveries_total{event=\"issues\",result=\"accepted\"} 2")
        );
        assert!(text.contains("event=\"badevent\""));
        assert!(text.contains("kotef_runs_total{status=\"done_success\"} 1"));
        assert!(text.contains("kotef_queue_depth 4"));
        assert!(text.contains("kotef_run_duration_seconds_bucket{le=\"1\"} 0"));
        assert!(text.contains("kotef_run_duration_seconds_bucket{le=\"5\"} 1"));
        assert!(text.contains("kotef_tokens_total{kind=\"prompt\"} 100"));
    }
}
