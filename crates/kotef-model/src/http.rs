//! The HTTP side both provider clients share: their options, one reqwest client with time
//! limits that follow the server's progress ([`crate::pace`]: an idle limit between the bytes
//! of a reply, a first byte allowed as long as the server's measured speed needs, a hard cap
//! per attempt) and a reply-size cap, the retry loop around each call (a timed-out request is
//! not sent again), the server's measured speed, secret scrubbing of every error, and the
//! ledger of failed attempts and per-attempt records (status, latency, tokens) that
//! `Model::take_failed_attempts` / `take_call_records` drain.

use crate::pace::{self, ServerSpeed, SpeedMeter};
use crate::retry::{
    error_for_status, retry_after_hint, run_with_retries, AttemptFailure, RetryPolicy,
};
use crate::stream::StreamedReply;
use crate::types::{CallRecord, ModelError, ModelReply, ModelRequest, Role, Usage};
use crate::wire::{provider_message, scrub, scrub_error};
use kotef_core::Redactor;
use reqwest::header::HeaderMap;
use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

/// Largest reply body read; a bigger one is a malformed reply.
pub const MAX_REPLY_BYTES: usize = 16 * 1024 * 1024;

/// Call records kept when nobody drains them (the oldest are dropped first).
const MAX_RECORDS: usize = 4096;

/// How to reach one provider model.
#[derive(Clone)]
pub struct ClientOptions {
    /// The provider's model name (`gpt-4o`, `claude-sonnet-4-20250514`, `llama3.1`, ...).
    pub model: String,
    /// Base URL (OpenAI-compatible: up to and including `/v1`; Anthropic: the host).
    pub base_url: String,
    /// `None`: no auth header (a local OpenAI-compatible server such as Ollama).
    pub api_key: Option<String>,
    /// The idle limit: how long a reply may show no progress — no byte of it (a streamed
    /// reply's events, llama.cpp's prompt progress included), or, before its first byte, no
    /// more than the server's measured speed explains ([`crate::pace`]). One attempt is
    /// capped at [`pace::MAX_ATTEMPT`] however much progress it shows.
    pub timeout: Duration,
    pub retry: RetryPolicy,
    /// Completion token cap: always sent to Anthropic (a default chosen per model when
    /// `None`), sent to OpenAI-compatible servers only when set.
    pub max_tokens: Option<u32>,
}

impl fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientOptions")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[REDACTED]"))
            .field("timeout", &self.timeout)
            .field("retry", &self.retry)
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

impl ClientOptions {
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

    pub fn new(model: impl Into<String>, base_url: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            base_url: base_url.into(),
            api_key: None,
            timeout: Self::DEFAULT_TIMEOUT,
            retry: RetryPolicy::default(),
            max_tokens: None,
        }
    }

    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// The base URL without trailing slashes, checked to be http(s).
    pub(crate) fn checked_base_url(&self) -> Result<String, ModelError> {
        let base = self.base_url.trim().trim_end_matches('/').to_string();
        let url = reqwest::Url::parse(&base).map_err(|e| {
            ModelError::Config(format!("invalid base URL {:?}: {e}", self.base_url))
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ModelError::Config(format!(
                "invalid base URL {:?}: only http and https are supported",
                self.base_url
            )));
        }
        if self.model.trim().is_empty() {
            return Err(ModelError::Config("the model name is empty".into()));
        }
        if self.timeout.is_zero() {
            return Err(ModelError::Config(
                "the model call timeout must be above 0".into(),
            ));
        }
        Ok(base)
    }
}

/// What the transport needs to know of a request to time it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct CallShape {
    /// The reply is asked for as a stream of events.
    pub streamed: bool,
    /// The completion-token cap sent.
    pub reply_cap: Option<u32>,
}

/// Whether `url` points at a local or self-hosted server: a loopback, private, link-local or
/// unspecified address, `localhost` (or a `.localhost` name), a `.local` / `.internal` /
/// `.lan` name or a single-label host (`http://llama:8080`, a container's name). Such a
/// server is priced at $0 unless the operator sets a price.
pub fn is_local_url(url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(url.trim()) else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => {
            ip.is_loopback() || ip.is_private() || ip.is_link_local() || ip.is_unspecified()
        }
        Ok(std::net::IpAddr::V6(ip)) => {
            let first = ip.segments()[0];
            ip.is_loopback()
                || ip.is_unspecified()
                || (first & 0xfe00) == 0xfc00 // unique local
                || (first & 0xffc0) == 0xfe80 // link-local
                || ip
                    .to_ipv4_mapped()
                    .is_some_and(|v4| v4.is_loopback() || v4.is_private())
        }
        Err(_) => {
            let d = host.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost"
                || [".localhost", ".local", ".internal", ".lan"]
                    .iter()
                    .any(|s| d.ends_with(s))
                || !d.contains('.')
        }
    }
}

/// A parsed successful reply and whether its usage came from the provider.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub reply: ModelReply,
    pub usage_reported: bool,
}

struct RawResponse {
    status: u16,
    headers: HeaderMap,
    body: Vec<u8>,
}

/// Sends a provider's requests with timeout, retries and accounting.
pub(crate) struct Transport {
    label: String,
    client: reqwest::Client,
    timeout: Duration,
    retry: RetryPolicy,
    redactor: Redactor,
    failed: Mutex<Vec<Usage>>,
    records: Mutex<VecDeque<CallRecord>>,
    speed: Mutex<SpeedMeter>,
    /// Set once the server showed it is llama.cpp ([`Transport::is_llama_cpp`]).
    llama: AtomicBool,
}

impl Transport {
    pub fn new(label: String, opts: &ClientOptions) -> Result<Self, ModelError> {
        let mut redactor = Redactor::from_env();
        if let Some(k) = &opts.api_key {
            redactor.add(k.clone());
        }
        let client = reqwest::Client::builder()
            .connect_timeout(opts.timeout.min(Duration::from_secs(30)))
            .build()
            .map_err(|e| ModelError::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self {
            label,
            client,
            timeout: opts.timeout,
            retry: opts.retry,
            redactor,
            failed: Mutex::new(Vec::new()),
            records: Mutex::new(VecDeque::new()),
            speed: Mutex::new(SpeedMeter::default()),
            llama: AtomicBool::new(false),
        })
    }

    /// Whether the server showed it is llama.cpp: a reply carried its own `timings` (not this
    /// side's clock), or a stream its `prompt_progress`.
    pub fn is_llama_cpp(&self) -> bool {
        self.llama.load(Ordering::Relaxed)
    }

    /// Records that the server named itself llama.cpp ([`crate::identify`]).
    pub fn mark_llama_cpp(&self) {
        self.llama.store(true, Ordering::Relaxed);
    }

    /// The server's speed measured so far; `None` when nothing was.
    pub fn speed(&self) -> Option<ServerSpeed> {
        let s = self.speed_now();
        (s != ServerSpeed::default()).then_some(s)
    }

    fn speed_now(&self) -> ServerSpeed {
        self.speed.lock().unwrap_or_else(|p| p.into_inner()).speed()
    }

    /// Updates the speed measured so far ([`SpeedMeter`]).
    fn measured(&self, f: impl FnOnce(&mut SpeedMeter)) {
        f(&mut self.speed.lock().unwrap_or_else(|p| p.into_inner()));
    }

    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    pub fn take_failed_attempts(&self) -> Vec<Usage> {
        std::mem::take(&mut *self.failed.lock().unwrap_or_else(|p| p.into_inner()))
    }

    pub fn take_call_records(&self) -> Vec<CallRecord> {
        let mut r = self.records.lock().unwrap_or_else(|p| p.into_inner());
        r.drain(..).collect()
    }

    /// One model call: `build` makes each attempt's request, `parse` reads a 2xx body.
    ///
    /// Every attempt that failed and was followed by another one is added to the failed
    /// ledger (prompt estimate, 0 completion). The attempt whose error is returned is not:
    /// the caller charges a failed call itself, as it charges a reply's usage.
    pub async fn call<B, P>(
        &self,
        request: &ModelRequest,
        shape: CallShape,
        build: B,
        parse: P,
    ) -> Result<ModelReply, ModelError>
    where
        B: Fn() -> reqwest::RequestBuilder,
        P: Fn(&[u8], &ModelRequest) -> Result<Parsed, AttemptFailure>,
    {
        let estimate = request.estimated_prompt_tokens();
        let (build, parse) = (&build, &parse);
        let attempts_failed: Mutex<Vec<Usage>> = Mutex::new(Vec::new());
        let attempts_failed_ref = &attempts_failed;
        let last_end: Mutex<Option<Instant>> = Mutex::new(None);
        let last_end_ref = &last_end;
        let result = run_with_retries(&self.retry, |attempt| async move {
            let started = Instant::now();
            let waited_ms = last_end_ref
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .map_or(0, |end| millis(started.saturating_duration_since(end)));
            // A reply begun for the model goes on from code of the prompt's: no echo to judge.
            let echo_of = (request.code_reply && request.prefill().is_none())
                .then(|| request.messages.iter().rev().find(|m| m.role == Role::User))
                .flatten()
                .map(|m| m.content.as_str());
            let sent = self.send_once(build(), request, shape, echo_of).await;
            let (status, result) = match sent {
                Err(e) => (None, Err(AttemptFailure::from(e))),
                Ok(raw) if (200..300).contains(&raw.status) => {
                    (Some(raw.status), parse(&raw.body, request))
                }
                Ok(raw) => {
                    let hint = retry_after_hint(&raw.headers, SystemTime::now());
                    let error = error_for_status(raw.status, provider_message(&raw.body), hint);
                    (Some(raw.status), Err(AttemptFailure { error, hint }))
                }
            };
            let latency_ms = millis(started.elapsed());
            *last_end_ref.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
            match result {
                Ok(p) => {
                    match &p.reply.timings {
                        Some(t) => {
                            self.measured(|m| t.measure(m));
                            if !t.client_clock {
                                self.llama.store(true, Ordering::Relaxed);
                            }
                        }
                        None => self.measured(SpeedMeter::ended),
                    }
                    tracing::info!(
                        model = %self.label, attempt, latency_ms,
                        prompt_tokens = p.reply.usage.prompt_tokens,
                        completion_tokens = p.reply.usage.completion_tokens,
                        "model call succeeded"
                    );
                    self.record(CallRecord {
                        model: self.label.clone(),
                        attempt,
                        status,
                        latency_ms,
                        waited_ms,
                        usage: p.reply.usage,
                        usage_reported: p.usage_reported,
                        error: None,
                    });
                    Ok(p.reply)
                }
                Err(mut f) => {
                    self.measured(SpeedMeter::ended);
                    f.error = scrub_error(&self.redactor, f.error);
                    let usage = Usage {
                        prompt_tokens: estimate,
                        completion_tokens: 0,
                    };
                    attempts_failed_ref
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(usage);
                    self.record(CallRecord {
                        model: self.label.clone(),
                        attempt,
                        status,
                        latency_ms,
                        waited_ms,
                        usage,
                        usage_reported: false,
                        error: Some(f.error.to_string()),
                    });
                    Err(f)
                }
            }
        })
        .await;
        let mut retried = attempts_failed
            .into_inner()
            .unwrap_or_else(|p| p.into_inner());
        if result.is_err() {
            retried.pop();
        }
        self.failed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(retried);
        result
    }

    fn record(&self, r: CallRecord) {
        let mut records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        if records.len() >= MAX_RECORDS {
            records.pop_front();
        }
        records.push_back(r);
    }

    /// One attempt. A streamed reply is read as it comes: cut when it repeats itself or opens
    /// by copying `echo_of` (the last user message of a code reply) back, and, for a
    /// `code_reply`, ended once its blocks are complete and prose follows them. It times out
    /// only when the server shows no progress ([`crate::pace`]).
    async fn send_once(
        &self,
        req: reqwest::RequestBuilder,
        request: &ModelRequest,
        shape: CallShape,
        echo_of: Option<&str>,
    ) -> Result<RawResponse, ModelError> {
        let started = Instant::now();
        let first = pace::first_byte_wait(
            self.timeout,
            self.speed_now(),
            request.estimated_prompt_tokens(),
            shape.streamed,
            shape.reply_cap,
        );
        let attempt = async {
            let mut resp = match tokio::time::timeout(first, req.send()).await {
                Err(_) => return Err(ModelError::Timeout(millis(first))),
                Ok(r) => r.map_err(|e| self.transport_error(e))?,
            };
            let status = resp.status().as_u16();
            let headers = resp.headers().clone();
            let streamed = (200..300).contains(&status)
                && headers
                    .get(reqwest::header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|v| v.starts_with("text/event-stream"));
            let plain_text = request.tools.is_empty() && !request.json_reply;
            let mut body = Vec::new();
            let mut events = StreamedReply::started_at(started).continuing(request.prefill());
            let mut read = 0usize;
            // Before the first byte the server has the whole first allowance; after it, the
            // idle limit or what its prompt progress says it still needs.
            let (mut limit, mut wait) = (first, first.saturating_sub(started.elapsed()));
            loop {
                let chunk = match tokio::time::timeout(wait, resp.chunk()).await {
                    Err(_) => return Err(ModelError::Timeout(millis(limit))),
                    Ok(c) => c.map_err(|e| self.transport_error(e))?,
                };
                let Some(chunk) = chunk else { break };
                (limit, wait) = (self.timeout, self.timeout);
                read += chunk.len();
                if read > MAX_REPLY_BYTES {
                    return Err(ModelError::Malformed(format!(
                        "reply body exceeds {MAX_REPLY_BYTES} bytes"
                    )));
                }
                if !streamed {
                    body.extend_from_slice(&chunk);
                    continue;
                }
                events.push(&chunk);
                if let Some(p) = events.take_progress() {
                    // Prompt progress events are llama.cpp's own.
                    self.llama.store(true, Ordering::Relaxed);
                    self.measured(|m| m.progress(&p));
                    wait = pace::wait_after_progress(self.timeout, &p, self.speed_now());
                    limit = wait;
                }
                if events.finished() {
                    break;
                }
                // A plain-text reply is cut when it runs away; a JSON reply or one with tool
                // calls (whose content may repeat a line legitimately) is read whole.
                if plain_text && events.cut_if_degenerate() {
                    // Dropping the response closes the connection: the server stops too.
                    tracing::warn!(model = %self.label, "cut a reply that kept repeating itself");
                    break;
                }
                if echo_of.is_some_and(|p| events.cut_if_echo(p)) {
                    tracing::warn!(model = %self.label, "cut a reply that copied the prompt back");
                    break;
                }
                if request.code_reply && events.end_after_code() {
                    tracing::debug!(model = %self.label, "a code reply's blocks are complete");
                    break;
                }
            }
            if streamed {
                body = events.into_body();
            }
            Ok(RawResponse {
                status,
                headers,
                body,
            })
        };
        match tokio::time::timeout(pace::MAX_ATTEMPT, attempt).await {
            Ok(r) => r,
            Err(_) => Err(ModelError::Timeout(millis(pace::MAX_ATTEMPT))),
        }
    }

    fn transport_error(&self, e: reqwest::Error) -> ModelError {
        if e.is_timeout() && !e.is_connect() {
            return ModelError::Timeout(millis(self.timeout));
        }
        let mut text = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            text.push_str(": ");
            text.push_str(&s.to_string());
            source = s.source();
        }
        let text = scrub(&self.redactor, &text);
        if e.is_builder() {
            ModelError::Config(text)
        } else {
            ModelError::Connection(text)
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::is_local_url;

    #[test]
    fn loopback_private_and_bare_hosts_are_local_and_public_ones_are_not() {
        for local in [
            "http://127.0.0.1:18080/v1",
            "http://localhost:11434/v1",
            "http://[::1]:8000/v1",
            "http://10.1.2.3/v1",
            "http://192.168.0.7:8080/v1",
            "http://gpu-box.lan/v1",
            "http://llama:8080/v1",
            "http://host.docker.internal:11434/v1",
        ] {
            assert!(is_local_url(local), "{local}");
        }
        for hosted in [
            "https://api.openai.com/v1",
            "https://openrouter.ai/api/v1",
            "https://my-azure.openai.azure.com/openai/v1",
            "https://8.8.8.8/v1",
            "not a url",
        ] {
            assert!(!is_local_url(hosted), "{hosted}");
        }
    }
}
