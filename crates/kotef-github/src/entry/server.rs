//! The webhook server: an axum router (`POST` webhook path, `GET /healthz`, `GET /metrics`)
//! behind a body cap (413), a request timeout, a concurrency limit and a panic catcher; a
//! verified-webhook extractor that checks the signature before anything is parsed (a tenant
//! whose queue is full is answered 429); and a bounded pool of workers that take jobs from the
//! durable store and run them here ([`ExecutorMode::Local`]) or hand them to GitHub Actions
//! ([`ExecutorMode::Actions`]). A worker never gets stuck on one job: a panic, a job past its
//! deadline ([`ServeConfig::job_deadline`]) or a stored job that no longer reads ends failed with
//! its status comment finished, and the worker goes on.

use super::edge::{label_gate, LabelGate, Refusals};
use super::labels::RepoLabels;
use super::startup::{bot_login, open_store, prepare_work_dir, server_redactor};
use crate::config::{ExecutorMode, ServeConfig};
use crate::inbound::decide::decide;
use crate::inbound::signature::{verify, SIGNATURE_HEADER};
use crate::inbound::trigger::{Admission, AdmissionConfig};
use crate::metrics::Metrics;
use crate::outbound::client::GitHub;
use crate::pipeline::{end_abandoned, finish_comment, process_job, JobContext, INTERNAL_ERROR};
use crate::queue::job::{Job, Work};
use crate::queue::store::{Claimed, Enqueued, JobStore, Unreadable};
use crate::secret::Secret;
use crate::RunExecutor;
use anyhow::Context;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use kotef_core::DeliveryId;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;

/// Shared by the handlers.
pub struct AppState {
    secrets: Vec<Secret>,
    decision: AdmissionConfig,
    store: JobStore,
    metrics: Arc<Metrics>,
    wake: Arc<Notify>,
    /// The repositories' own trigger labels, so a label that is no trigger queues nothing.
    labels: Arc<RepoLabels>,
    /// Answers on the issue to triggers refused for a full queue.
    refusals: Refusals,
    /// Jobs one installation may have waiting.
    max_queued: u32,
}

/// A delivery whose signature checked out: event name, delivery id and the raw body.
#[derive(Debug)]
pub struct VerifiedWebhook {
    pub event: String,
    pub delivery: DeliveryId,
    pub body: Bytes,
}

fn header_str<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

impl FromRequest<Arc<AppState>> for VerifiedWebhook {
    type Rejection = Response;

    async fn from_request(req: Request, state: &Arc<AppState>) -> Result<Self, Self::Rejection> {
        let headers = req.headers().clone();
        let body = Bytes::from_request(req, state)
            .await
            .map_err(IntoResponse::into_response)?;
        if !verify(
            &state.secrets,
            header_str(&headers, SIGNATURE_HEADER),
            &body,
        ) {
            state.metrics.delivery("unverified", "unauthorized");
            return Err(StatusCode::UNAUTHORIZED.into_response());
        }
        let Some(event) = header_str(&headers, "x-github-event").map(str::to_string) else {
            state.metrics.delivery("unknown", "bad_request");
            return Err((StatusCode::BAD_REQUEST, "missing X-GitHub-Event header").into_response());
        };
        let Some(delivery) = header_str(&headers, "x-github-delivery")
            .map(str::trim)
            .filter(|d| !d.is_empty() && d.len() <= 200)
        else {
            state.metrics.delivery(&event, "bad_request");
            return Err(
                (StatusCode::BAD_REQUEST, "missing X-GitHub-Delivery header").into_response(),
            );
        };
        Ok(Self {
            event,
            delivery: DeliveryId(delivery.to_string()),
            body,
        })
    }
}

async fn webhook(State(st): State<Arc<AppState>>, hook: VerifiedWebhook) -> Response {
    use tracing::Instrument as _;
    let span = tracing::info_span!("delivery", delivery = %hook.delivery, event = %hook.event);
    answer(&st, hook).instrument(span).await
}

/// What one verified delivery is answered, and the job it becomes.
async fn answer(st: &AppState, hook: VerifiedWebhook) -> Response {
    if hook.event == "push" {
        return push(st, &hook).await;
    }
    let decision = match decide(&hook.event, &hook.body, &st.decision) {
        Ok(d) => d,
        Err(e) => {
            st.metrics.delivery(&hook.event, "bad_request");
            tracing::info!(error = %e, "malformed payload");
            return (StatusCode::BAD_REQUEST, e.to_string()).into_response();
        }
    };
    let mut trigger_label = st.decision.trigger_label.clone();
    // Whether the delivery is known to ask for a run (a label not yet checked is not).
    let mut certain = true;
    let work = match decision {
        Admission::Ping => {
            st.metrics.delivery(&hook.event, "ping");
            return (StatusCode::OK, "pong").into_response();
        }
        Admission::Ignore(reason) => {
            st.metrics.delivery(&hook.event, "ignored");
            tracing::debug!(%reason, "ignored");
            return (StatusCode::OK, format!("ignored: {reason}")).into_response();
        }
        Admission::Run(trigger) => {
            match label_gate(&st.labels, &trigger, &st.decision.trigger_label).await {
                LabelGate::Queue { trigger_label: l } => trigger_label = l,
                LabelGate::Ignore(reason) => {
                    st.metrics.delivery(&hook.event, "ignored");
                    return (StatusCode::OK, format!("ignored: {reason}")).into_response();
                }
                LabelGate::Unknown(why) => {
                    certain = false;
                    tracing::warn!(%why, "the repository's trigger label is unknown; the job checks it");
                }
            }
            Work::Run { trigger }
        }
        Admission::Reject(rejection) => Work::Reject { rejection },
    };
    let job = Job::new(hook.delivery.clone(), work, trigger_label);
    match st.store.enqueue(&job).await {
        Ok(Enqueued::New(id)) => {
            st.metrics.delivery(&hook.event, "accepted");
            st.wake.notify_one();
            let ahead = st.store.ahead(id).await.unwrap_or(0);
            tracing::info!(job = id, run_id = %job.run_id, repo = %job.repo(), issue = %job.number(), ahead, "job queued");
            let body = format!("queued job {id} (run {}) behind {ahead} runs", job.run_id);
            (StatusCode::ACCEPTED, body).into_response()
        }
        Ok(Enqueued::Duplicate) => {
            st.metrics.delivery(&hook.event, "duplicate");
            (StatusCode::OK, "duplicate delivery").into_response()
        }
        Ok(Enqueued::Full) => {
            st.metrics.delivery(&hook.event, "queue_full");
            let answered = certain && st.refusals.refuse(job.repo(), job.number());
            tracing::warn!(repo = %job.repo(), issue = %job.number(), answered, "the installation's queue is full; trigger refused");
            (
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "refused: more than {} runs pending for this installation; {}",
                    st.max_queued,
                    if answered {
                        "answered on the issue"
                    } else {
                        "redeliver later"
                    }
                ),
            )
                .into_response()
        }
        Err(e) => {
            st.metrics.delivery(&hook.event, "error");
            tracing::error!(error = %format!("{e:#}"), "cannot store the job");
            (StatusCode::INTERNAL_SERVER_ERROR, "cannot store the job").into_response()
        }
    }
}

/// A `push`: refreshes the cached trigger label when it may have changed the config.
async fn push(st: &AppState, hook: &VerifiedWebhook) -> Response {
    match crate::inbound::push::config_push(&hook.body) {
        Ok(Some(p)) => {
            st.labels.note_push(&p).await;
            st.metrics.delivery(&hook.event, "ignored");
            let what = if p.touches_config {
                "the config is read again at the next label"
            } else {
                "the config is unchanged"
            };
            (StatusCode::OK, format!("push to {}: {what}", p.branch)).into_response()
        }
        Ok(None) => {
            st.metrics.delivery(&hook.event, "ignored");
            (StatusCode::OK, "ignored: not the default branch").into_response()
        }
        Err(e) => {
            st.metrics.delivery(&hook.event, "bad_request");
            (StatusCode::BAD_REQUEST, e.to_string()).into_response()
        }
    }
}

async fn healthz() -> &'static str {
    "ok"
}

async fn metrics(State(st): State<Arc<AppState>>) -> Response {
    let depth = st.store.queue_depth().await.unwrap_or(0);
    let running = st.store.running().await.unwrap_or(0);
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        st.metrics.render(depth, running),
    )
        .into_response()
}

/// The router with its layers (exposed for tests that drive it without a socket).
pub fn router(state: Arc<AppState>, cfg: &ServeConfig) -> Router {
    use tower_http::catch_panic::CatchPanicLayer;
    use tower_http::limit::RequestBodyLimitLayer;
    use tower_http::timeout::TimeoutLayer;
    Router::new()
        .route(&cfg.webhook_path, post(webhook))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .layer(DefaultBodyLimit::max(cfg.body_limit))
        .layer(RequestBodyLimitLayer::new(cfg.body_limit))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            cfg.request_timeout,
        ))
        .layer(tower::limit::GlobalConcurrencyLimitLayer::new(
            cfg.max_concurrent_requests,
        ))
        .layer(CatchPanicLayer::new())
        .with_state(state)
}

/// A started server.
pub struct RunningServer {
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    http: JoinHandle<()>,
    workers: Vec<JoinHandle<()>>,
    store: JobStore,
    metrics: Arc<Metrics>,
}

impl RunningServer {
    /// Where it listens (the real port when started on port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn store(&self) -> &JobStore {
        &self.store
    }

    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// Stops accepting deliveries and stops the workers. Runs in progress are cancelled (their
    /// workspaces removed, git processes killed) and stay `running` in the store, so the next
    /// start on the same data dir re-queues them.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        // Workers cancel their job and wait for it to unwind (clone removed); a worker that
        // does not stop in time is aborted.
        for mut w in self.workers {
            if tokio::time::timeout(Duration::from_secs(10), &mut w)
                .await
                .is_err()
            {
                w.abort();
                let _ = w.await;
            }
        }
        if tokio::time::timeout(Duration::from_secs(5), self.http)
            .await
            .is_err()
        {
            tracing::warn!("the HTTP server did not stop within 5s");
        }
    }
}

/// Starts the server and its workers; returns once it listens. With
/// [`ExecutorMode::Actions`] the executor is not used: jobs become workflow dispatches.
pub async fn start(
    cfg: ServeConfig,
    executor: Arc<dyn RunExecutor>,
) -> anyhow::Result<RunningServer> {
    cfg.validate()?;
    let work_dir = prepare_work_dir(&cfg).await?;
    let store = open_store(&cfg).await?;

    let github = GitHub::new(&cfg.github_api_url, cfg.auth.clone(), cfg.retry)?;
    let bot_login = bot_login(&cfg, &github).await;
    let max_queued = u32::try_from(cfg.max_queued_per_installation).unwrap_or(u32::MAX);
    let labels = Arc::new(RepoLabels::new(github.clone(), cfg.label_ttl));
    let refusals = Refusals::start(github.clone(), max_queued);
    let app_id = match &cfg.auth {
        crate::outbound::client::GitHubAuth::App { app_id, .. } => Some(*app_id),
        _ => None,
    };

    let redactor = server_redactor(&cfg);
    let metrics = Arc::new(Metrics::new());
    let mut ctx = JobContext::new(github, cfg.git.clone(), work_dir);
    ctx.model = cfg.model.clone();
    ctx.progress_interval = cfg.progress_interval;
    ctx.max_attempts = cfg.max_attempts;
    ctx.run_grace = cfg.run_grace;
    ctx.redactor = redactor;
    ctx.metrics = Some(metrics.clone());
    ctx.operator = crate::pipeline::OperatorSettings {
        trust: kotef_core::Trust::Untrusted,
        model: cfg.operator_model.clone(),
        sandbox: Some(if cfg.allow_unsandboxed {
            kotef_core::SandboxMode::Auto
        } else {
            kotef_core::SandboxMode::Bwrap
        }),
        ceilings: cfg.ceilings,
        loopback_ports: cfg.loopback_ports.clone(),
        branch_prefix: Some(cfg.branch_prefix.clone()),
        hidden_paths: std::iter::once(
            std::path::absolute(&cfg.data_dir).unwrap_or_else(|_| cfg.data_dir.clone()),
        )
        .chain(cfg.secret_files.iter().cloned())
        .collect(),
    };
    ctx.transcripts = super::startup::transcript_store(&cfg);
    let ctx = Arc::new(ctx);
    let runner = Arc::new(match cfg.executor {
        ExecutorMode::Local => Runner::Local(executor),
        ExecutorMode::Actions => Runner::Actions {
            workflow: cfg.workflow.clone(),
        },
    });

    let wake = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    let workers = (0..cfg.workers)
        .map(|i| {
            tokio::spawn(worker(
                i,
                store.clone(),
                ctx.clone(),
                runner.clone(),
                wake.clone(),
                stop_rx.clone(),
                cfg.poll_interval,
                cfg.job_deadline(),
            ))
        })
        .collect();

    let state = Arc::new(AppState {
        secrets: cfg.webhook_secrets.clone(),
        decision: AdmissionConfig {
            trigger_label: cfg.trigger_label.clone(),
            bot_login,
            assignee: cfg.assignee_trigger.clone(),
            trigger_phrase: cfg.trigger_phrase.clone(),
            app_id,
            repository_labels: true,
        },
        store: store.clone(),
        metrics: metrics.clone(),
        wake,
        labels,
        refusals,
        max_queued,
    });
    let app = router(state, &cfg);
    let listener = tokio::net::TcpListener::bind(cfg.listen)
        .await
        .with_context(|| format!("cannot listen on {}", cfg.listen))?;
    let addr = listener.local_addr()?;
    let mut http_stop = stop_rx.clone();
    let http = tokio::spawn(async move {
        let shutdown = async move {
            let _ = http_stop.wait_for(|s| *s).await;
        };
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(shutdown)
            .await
        {
            tracing::error!(error = %e, "the HTTP server failed");
        }
    });
    tracing::info!(%addr, path = %cfg.webhook_path, workers = cfg.workers, executor = cfg.executor.as_str(), "kotef listening");
    Ok(RunningServer {
        addr,
        stop,
        http,
        workers,
        store,
        metrics,
    })
}

/// A task handle that aborts its task when dropped.
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What the workers do with a job.
enum Runner {
    /// Run it here.
    Local(Arc<dyn RunExecutor>),
    /// Dispatch the repository's kotef workflow.
    Actions { workflow: String },
}

/// How long finishing the comment of a job that could not end itself may take.
const ENDING_TIMEOUT: Duration = Duration::from_secs(60);

#[allow(clippy::too_many_arguments)]
async fn worker(
    index: usize,
    store: JobStore,
    ctx: Arc<JobContext>,
    runner: Arc<Runner>,
    wake: Arc<Notify>,
    mut stop: watch::Receiver<bool>,
    poll: Duration,
    deadline: Duration,
) {
    loop {
        if *stop.borrow_and_update() {
            return;
        }
        match store.claim_next().await {
            Ok(Some(Claimed::Unreadable(u))) => {
                tracing::error!(worker = index, job = u.id, error = %u.error, "a stored job is unreadable; it ended failed");
                end_unreadable(&ctx, &u).await;
                // A job for the same issue may have been waiting on this one.
                wake.notify_one();
                continue;
            }
            Ok(Some(Claimed::Job(job))) => {
                let job = *job;
                tracing::info!(
                    worker = index,
                    job = job.id,
                    attempt = job.attempts,
                    "job started"
                );
                // Its own task, so a panic ends the job, not the worker, and a job that blocks
                // its thread still ends on its deadline here.
                let mut task = {
                    let (ctx, runner, job) = (ctx.clone(), runner.clone(), job.clone());
                    AbortOnDrop(tokio::spawn(async move {
                        match runner.as_ref() {
                            Runner::Local(executor) => {
                                process_job(&ctx, &job, executor.as_ref()).await
                            }
                            Runner::Actions { workflow } => {
                                crate::entry::dispatch::dispatch_job(&ctx, &job, workflow).await
                            }
                        }
                    }))
                };
                // `None`: still going at its deadline.
                let ended = tokio::select! {
                    r = &mut task.0 => Some(r),
                    _ = tokio::time::sleep(deadline) => None,
                    _ = stop.changed() => {
                        // Stopping: cancel the run and wait until it has unwound. The job
                        // stays `running`, so the next start re-queues it.
                        task.0.abort();
                        let _ = (&mut task.0).await;
                        return;
                    }
                };
                let line = match ended {
                    Some(Ok(result)) => {
                        format!("{}: {}", result.status.as_str(), result.message)
                    }
                    Some(Err(e)) => {
                        let what = if e.is_panic() {
                            crate::pipeline::panic_text(e.into_panic().as_ref())
                        } else {
                            e.to_string()
                        };
                        tracing::error!(worker = index, job = job.id, error = %what, "the job panicked");
                        end_bounded(&ctx, &job, INTERNAL_ERROR).await;
                        "failed: internal error (panic)".to_string()
                    }
                    None => {
                        // Cancelled at its next await; a job blocking its thread is left to
                        // finish there, its clone removed when it does.
                        task.0.abort();
                        let reason = format!(
                            "the job did not end within {}s (the largest time budget, its grace and a margin for cloning and publishing) and was stopped",
                            deadline.as_secs()
                        );
                        tracing::error!(worker = index, job = job.id, "{reason}");
                        end_bounded(&ctx, &job, &reason).await;
                        format!("failed: {reason}")
                    }
                };
                if let Err(e) = store.finish(job.id, &line).await {
                    tracing::error!(error = %format!("{e:#}"), "cannot mark the job finished");
                }
                // A job for the same issue may have been waiting on this one.
                wake.notify_one();
                continue;
            }
            Ok(None) => {}
            Err(e) => tracing::error!(error = %format!("{e:#}"), "cannot read the job store"),
        }
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(poll) => {}
            _ = stop.changed() => {}
        }
    }
}

/// Finishes the status comment of a job that could not end itself, within [`ENDING_TIMEOUT`].
async fn end_bounded(ctx: &JobContext, job: &Job, reason: &str) {
    if tokio::time::timeout(ENDING_TIMEOUT, end_abandoned(ctx, job, reason))
        .await
        .is_err()
    {
        tracing::warn!(job = job.id, "finishing the status comment timed out");
    }
}

/// Finishes the status comment of a stored job that no longer reads, when the row still
/// names its repository and its comment or run.
async fn end_unreadable(ctx: &JobContext, u: &Unreadable) {
    let Some(repo) = kotef_core::RepoName::parse(&u.repo) else {
        return;
    };
    let reason = "kotef could not read this run's stored job (was the server upgraded or downgraded?) and ended it; see the server log. Comment `/kotef run` to start a new run.";
    let ending = finish_comment(
        ctx,
        &repo,
        kotef_core::IssueNumber(u.number),
        u.run_id.as_deref(),
        u.status_comment,
        reason,
    );
    if tokio::time::timeout(ENDING_TIMEOUT, ending).await.is_err() {
        tracing::warn!(job = u.id, "finishing the status comment timed out");
    }
}

/// Runs the server until Ctrl-C or SIGTERM.
pub async fn serve(cfg: ServeConfig, executor: Arc<dyn RunExecutor>) -> anyhow::Result<()> {
    let server = start(cfg, executor).await?;
    shutdown_signal().await;
    tracing::info!("stopping");
    server.shutdown().await;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}
