//! Counters for `GET /metrics`, kept in a `prometheus-client` registry and rendered as
//! Prometheus text: deliveries by event and result, runs by terminal status (or failure),
//! queue depth, running jobs, run durations and tokens.

use prometheus_client::encoding::{text::encode, EncodeLabelSet};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::time::Duration;

const BUCKETS_S: [f64; 10] = [
    1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0,
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DeliveryLabels {
    event: String,
    result: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RunLabels {
    status: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TokenLabels {
    kind: &'static str,
}

/// The server's metrics; shared by the handler and the workers.
pub struct Metrics {
    registry: Registry,
    deliveries: Family<DeliveryLabels, Counter>,
    runs: Family<RunLabels, Counter>,
    queue_depth: Gauge,
    running: Gauge,
    duration: Histogram,
    tokens: Family<TokenLabels, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
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
        let deliveries = Family::<DeliveryLabels, Counter>::default();
        let runs = Family::<RunLabels, Counter>::default();
        let queue_depth = Gauge::default();
        let running = Gauge::default();
        let duration = Histogram::new(BUCKETS_S);
        let tokens = Family::<TokenLabels, Counter>::default();
        let mut registry = Registry::default();
        // Counters are registered without `_total`: the encoder appends it.
        registry.register(
            "kotef_webhook_deliveries",
            "Webhook deliveries by event and result",
            deliveries.clone(),
        );
        registry.register(
            "kotef_runs",
            "Jobs ended, by terminal status (or failed/ignored/rejected)",
            runs.clone(),
        );
        registry.register(
            "kotef_queue_depth",
            "Jobs waiting for a worker",
            queue_depth.clone(),
        );
        registry.register("kotef_jobs_running", "Jobs being run now", running.clone());
        registry.register(
            "kotef_run_duration_seconds",
            "Wall-clock time of a job",
            duration.clone(),
        );
        registry.register("kotef_tokens", "Model tokens used by runs", tokens.clone());
        // Both token series show from the start, as zeros.
        let _ = tokens.get_or_create(&TokenLabels { kind: "prompt" });
        let _ = tokens.get_or_create(&TokenLabels { kind: "completion" });
        Self {
            registry,
            deliveries,
            runs,
            queue_depth,
            running,
            duration,
            tokens,
        }
    }

    /// One delivery answered: `result` is e.g. `accepted`, `duplicate`, `ignored`, `rejected`,
    /// `unauthorized`, `bad_request`.
    pub fn delivery(&self, event: &str, result: &str) {
        self.deliveries
            .get_or_create(&DeliveryLabels {
                event: label(event),
                result: label(result),
            })
            .inc();
    }

    /// One job ended: `status` is a terminal status or `failed`/`ignored`/`rejected`.
    pub fn job_finished(&self, status: &str, duration: Duration, prompt: u64, completion: u64) {
        self.runs
            .get_or_create(&RunLabels {
                status: label(status),
            })
            .inc();
        self.duration.observe(duration.as_secs_f64());
        self.tokens
            .get_or_create(&TokenLabels { kind: "prompt" })
            .inc_by(prompt);
        self.tokens
            .get_or_create(&TokenLabels { kind: "completion" })
            .inc_by(completion);
    }

    /// Prometheus text exposition, with the gauges set to `queue_depth` and `running`.
    pub fn render(&self, queue_depth: u64, running: u64) -> String {
        self.queue_depth
            .set(i64::try_from(queue_depth).unwrap_or(i64::MAX));
        self.running.set(i64::try_from(running).unwrap_or(i64::MAX));
        let mut out = String::new();
        if encode(&mut out, &self.registry).is_err() {
            return String::new();
        }
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
        assert!(text.contains("kotef_run_duration_seconds_bucket{le=\"1.0\"} 0"));
        assert!(text.contains("kotef_run_duration_seconds_bucket{le=\"5.0\"} 1"));
        assert!(text.contains("kotef_tokens_total{kind=\"prompt\"} 100"));
    }
}
