//! The durable job store (embedded SQLite): an accepted delivery becomes a row before the
//! webhook is answered, a redelivery of the same `X-GitHub-Delivery` is recognised, workers
//! claim jobs so that one issue/PR never has two running at once and one tenant (a repository
//! owner: one GitHub App installation) cannot hold every worker or fill the queue while others
//! wait, a row that no longer reads as a job ends failed instead of blocking its issue, and
//! jobs left `running` by a crash are put back in the queue on start-up.

use crate::queue::job::Job;
use anyhow::Context;
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use rusqlite::{params, Connection, OptionalExtension};
use rusqlite_migration::{Migrations, M};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// What happened to a delivery offered to the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enqueued {
    /// A new job with this id.
    New(i64),
    /// This delivery was seen before; nothing was added.
    Duplicate,
    /// The tenant already has [`TenantLimits::queued`] jobs waiting; nothing was added.
    Full,
}

/// A job taken from the queue by [`JobStore::claim_next`].
#[derive(Debug, Clone, PartialEq)]
pub enum Claimed {
    /// A job to run, now `running`.
    Job(Box<Job>),
    /// A row that no longer reads as a job (e.g. written by another kotef version); it is
    /// already ended failed, and its issue is free.
    Unreadable(Unreadable),
}

/// What is known of a stored job that no longer parses: enough to finish its status comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub id: i64,
    /// `owner/name` as stored.
    pub repo: String,
    pub number: u64,
    /// The run id, when the payload still has one.
    pub run_id: Option<String>,
    /// The status comment the job continued, when the payload still names one.
    pub status_comment: Option<u64>,
    /// Why it does not parse.
    pub error: String,
}

/// One tenant's share of the server: running jobs before its other jobs wait while other
/// tenants have work, and jobs it may have waiting at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TenantLimits {
    pub running: u32,
    pub queued: u32,
}

impl TenantLimits {
    /// No share: every tenant may take every worker and queue without end.
    pub const UNLIMITED: TenantLimits = TenantLimits {
        running: u32::MAX,
        queued: u32::MAX,
    };
}

/// The tenant a repository belongs to: its owner, which is one GitHub App installation (an
/// installation covers one account's repositories).
pub fn tenant_of(repo: &kotef_core::RepoName) -> String {
    repo.owner.to_ascii_lowercase()
}

/// Where a job is in its life, as the `state` column stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    /// Waiting for a worker.
    Queued,
    /// Taken by a worker (or left so by a crash, until start-up puts it back).
    Running,
    /// Finished, with its one-line result.
    Done,
}

impl JobState {
    /// The column's text for this state.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::Done => "done",
        }
    }
}

impl ToSql for JobState {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for JobState {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        match value.as_str()? {
            "queued" => Ok(Self::Queued),
            "running" => Ok(Self::Running),
            "done" => Ok(Self::Done),
            other => Err(FromSqlError::Other(
                format!("unknown job state `{other}`").into(),
            )),
        }
    }
}

/// A job's state in the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobRow {
    pub id: i64,
    pub state: JobState,
    pub attempts: u32,
    pub result: Option<String>,
}

/// The store; cheap to clone, calls run on the blocking pool.
#[derive(Clone)]
pub struct JobStore {
    conn: Arc<Mutex<Connection>>,
    limits: TenantLimits,
}

/// Migration 1, the first schema. It keeps `IF NOT EXISTS` so that a database created before
/// the store used migrations (tables present, `user_version` 0) takes it as a no-op.
const SCHEMA_V1: &str = "
CREATE TABLE IF NOT EXISTS jobs (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery   TEXT NOT NULL UNIQUE,
    repo       TEXT NOT NULL,
    number     INTEGER NOT NULL,
    job        TEXT NOT NULL,
    state      TEXT NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    result     TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, repo, number);
";

/// Migration 2: each job's tenant (the repository's owner, lower case), for the per-tenant
/// share of workers and queue.
const SCHEMA_V2: &str = "
ALTER TABLE jobs ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
UPDATE jobs SET tenant = lower(substr(repo, 1, instr(repo, '/') - 1));
CREATE INDEX IF NOT EXISTS jobs_tenant ON jobs(state, tenant);
";

/// The store's schema migrations, oldest first; the version lives in `PRAGMA user_version`.
fn migrations() -> Migrations<'static> {
    Migrations::new(vec![M::up(SCHEMA_V1), M::up(SCHEMA_V2)])
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339()
}

impl JobStore {
    /// Opens (creating if needed) the store at `path`.
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let mut conn = Connection::open(path)
            .with_context(|| format!("opening the job store {}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        migrations()
            .to_latest(&mut conn)
            .context("migrating the job store schema")?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
            limits: TenantLimits::UNLIMITED,
        })
    }

    /// This store with each tenant held to `limits` (by [`Self::enqueue`] and
    /// [`Self::claim_next`]).
    pub fn with_tenant_limits(mut self, limits: TenantLimits) -> Self {
        self.limits = limits;
        self
    }

    async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> anyhow::Result<T> + Send + 'static,
    ) -> anyhow::Result<T> {
        let conn = self.conn.clone();
        tokio::task::spawn_blocking(move || {
            let mut guard = conn
                .lock()
                .map_err(|_| anyhow::anyhow!("job store lock poisoned"))?;
            f(&mut guard)
        })
        .await
        .context("job store task failed")?
    }

    /// Adds `job` unless its delivery id was seen before or its tenant's queue is full.
    pub async fn enqueue(&self, job: &Job) -> anyhow::Result<Enqueued> {
        let text = serde_json::to_string(job)?;
        let delivery = job.delivery.0.clone();
        let repo = job.repo().to_string();
        let tenant = tenant_of(job.repo());
        let number = job.number().0 as i64;
        let max_queued = i64::from(self.limits.queued);
        self.with(move |c| {
            let tx = c.transaction()?;
            let seen = tx
                .query_row(
                    "SELECT 1 FROM jobs WHERE delivery = ?1",
                    params![delivery],
                    |_| Ok(()),
                )
                .optional()?
                .is_some();
            if seen {
                return Ok(Enqueued::Duplicate);
            }
            let queued: i64 = tx.query_row(
                "SELECT COUNT(*) FROM jobs WHERE state = ?2 AND tenant = ?1",
                params![tenant, JobState::Queued],
                |r| r.get(0),
            )?;
            if queued >= max_queued {
                return Ok(Enqueued::Full);
            }
            tx.execute(
                "INSERT INTO jobs (delivery, repo, number, job, state, tenant, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?7, ?5, ?6, ?6)",
                params![delivery, repo, number, text, tenant, now(), JobState::Queued],
            )?;
            let id = tx.last_insert_rowid();
            tx.commit()?;
            Ok(Enqueued::New(id))
        })
        .await
    }

    /// Takes the oldest queued job whose issue/PR has no running job — first among tenants
    /// below their share of running jobs, then (when only tenants at their share have work)
    /// among all — marks it running and counts the attempt. A row that no longer reads as a
    /// job is ended failed on the spot and handed back as [`Claimed::Unreadable`].
    pub async fn claim_next(&self) -> anyhow::Result<Option<Claimed>> {
        let max_running = i64::from(self.limits.running);
        self.with(move |c| {
            let tx = c.transaction()?;
            let row: Option<(i64, String, u32, String, i64)> = tx
                .query_row(
                    "SELECT id, job, attempts, repo, number FROM jobs j WHERE state = ?2
                     AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.state = ?3
                                     AND r.repo = j.repo AND r.number = j.number)
                     ORDER BY (SELECT COUNT(*) FROM jobs t WHERE t.state = ?3
                               AND t.tenant = j.tenant) >= ?1, id
                     LIMIT 1",
                    params![max_running, JobState::Queued, JobState::Running],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
                )
                .optional()?;
            let Some((id, text, attempts, repo, number)) = row else {
                return Ok(None);
            };
            let mut job: Job = match serde_json::from_str(&text) {
                Ok(job) => job,
                Err(e) => {
                    let error = format!("the stored job is unreadable: {e}");
                    tx.execute(
                        "UPDATE jobs SET state = ?4, attempts = attempts + 1, result = ?2,
                         updated_at = ?3 WHERE id = ?1",
                        params![id, format!("failed: {error}"), now(), JobState::Done],
                    )?;
                    tx.commit()?;
                    let loose: Option<serde_json::Value> = serde_json::from_str(&text).ok();
                    let field = |name: &str| loose.as_ref().and_then(|v| v.get(name)).cloned();
                    return Ok(Some(Claimed::Unreadable(Unreadable {
                        id,
                        repo,
                        number: u64::try_from(number).unwrap_or_default(),
                        run_id: field("run_id").and_then(|v| v.as_str().map(str::to_string)),
                        status_comment: field("status_comment").and_then(|v| v.as_u64()),
                        error,
                    })));
                }
            };
            tx.execute(
                "UPDATE jobs SET state = ?3, attempts = attempts + 1, updated_at = ?2 WHERE id = ?1",
                params![id, now(), JobState::Running],
            )?;
            tx.commit()?;
            job.id = id;
            job.attempts = attempts + 1;
            Ok(Some(Claimed::Job(Box::new(job))))
        })
        .await
    }

    /// Marks a job finished with a one-line result.
    pub async fn finish(&self, id: i64, result: &str) -> anyhow::Result<()> {
        let result = result.to_string();
        self.with(move |c| {
            c.execute(
                "UPDATE jobs SET state = ?4, result = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, result, now(), JobState::Done],
            )?;
            Ok(())
        })
        .await
    }

    /// Start-up recovery: jobs left `running` (the process died mid-run) go back to the queue.
    /// The pipeline ends a job with a comment instead of running it again once its attempts
    /// exceed the limit. Returns how many were re-queued.
    pub async fn requeue_interrupted(&self) -> anyhow::Result<usize> {
        self.with(|c| {
            Ok(c.execute(
                "UPDATE jobs SET state = ?2, updated_at = ?1 WHERE state = ?3",
                params![now(), JobState::Queued, JobState::Running],
            )?)
        })
        .await
    }

    /// Forgets finished jobs last touched more than `age` ago (GitHub redelivers only within a
    /// few days, so old delivery ids are no longer needed). Returns how many were removed.
    pub async fn prune_finished(&self, age: std::time::Duration) -> anyhow::Result<usize> {
        let cutoff = (chrono::Utc::now()
            - chrono::Duration::from_std(age).unwrap_or(chrono::Duration::days(30)))
        .to_rfc3339();
        self.with(move |c| {
            Ok(c.execute(
                "DELETE FROM jobs WHERE state = ?2 AND updated_at < ?1",
                params![cutoff, JobState::Done],
            )?)
        })
        .await
    }

    /// Jobs waiting in the queue.
    pub async fn queue_depth(&self) -> anyhow::Result<u64> {
        self.with(|c| {
            Ok(c.query_row(
                "SELECT COUNT(*) FROM jobs WHERE state = ?1",
                params![JobState::Queued],
                |r| r.get::<_, i64>(0),
            )? as u64)
        })
        .await
    }

    /// Jobs of job `id`'s tenant queued or running ahead of it: the runs it waits behind.
    pub async fn ahead(&self, id: i64) -> anyhow::Result<u64> {
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT COUNT(*) FROM jobs j WHERE j.id < ?1 AND j.state IN (?2, ?3)
                 AND j.tenant = (SELECT tenant FROM jobs WHERE id = ?1)",
                params![id, JobState::Queued, JobState::Running],
                |r| r.get::<_, i64>(0),
            )? as u64)
        })
        .await
    }

    /// Jobs being run now.
    pub async fn running(&self) -> anyhow::Result<u64> {
        self.with(|c| {
            Ok(c.query_row(
                "SELECT COUNT(*) FROM jobs WHERE state = ?1",
                params![JobState::Running],
                |r| r.get::<_, i64>(0),
            )? as u64)
        })
        .await
    }

    /// One job's state (for tests and diagnostics).
    pub async fn job_row(&self, id: i64) -> anyhow::Result<Option<JobRow>> {
        self.with(move |c| {
            Ok(c.query_row(
                "SELECT id, state, attempts, result FROM jobs WHERE id = ?1",
                params![id],
                |r| {
                    Ok(JobRow {
                        id: r.get(0)?,
                        state: r.get(1)?,
                        attempts: r.get(2)?,
                        result: r.get(3)?,
                    })
                },
            )
            .optional()?)
        })
        .await
    }

    /// Every job's state, oldest first.
    pub async fn all_rows(&self) -> anyhow::Result<Vec<JobRow>> {
        self.with(|c| {
            let mut st = c.prepare("SELECT id, state, attempts, result FROM jobs ORDER BY id")?;
            let rows = st
                .query_map([], |r| {
                    Ok(JobRow {
                        id: r.get(0)?,
                        state: r.get(1)?,
                        attempts: r.get(2)?,
                        result: r.get(3)?,
                    })
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_states_round_trip_through_the_column_and_an_unknown_one_is_named() {
        let c = Connection::open_in_memory().unwrap();
        for s in [JobState::Queued, JobState::Running, JobState::Done] {
            let back: JobState = c.query_row("SELECT ?1", params![s], |r| r.get(0)).unwrap();
            assert_eq!(back, s);
        }
        let err = c
            .query_row("SELECT 'paused'", [], |r| r.get::<_, JobState>(0))
            .unwrap_err();
        assert!(err.to_string().contains("paused"), "{err}");
    }

    fn job(delivery: &str, number: u64) -> Job {
        crate::queue::job::test_job(delivery, number)
    }

    /// A job on issue `number` of `{owner}/r`.
    fn job_of(owner: &str, delivery: &str, number: u64) -> Job {
        let mut j = job(delivery, number);
        if let crate::queue::job::Work::Run {
            trigger: crate::inbound::trigger::Trigger::IssueLabeled { target, .. },
        } = &mut j.work
        {
            target.repo = kotef_core::RepoName::new(owner, "r");
        }
        j
    }

    /// The next job to run, if any.
    async fn claim(s: &JobStore) -> Option<Job> {
        match s.claim_next().await.unwrap() {
            Some(Claimed::Job(j)) => Some(*j),
            Some(Claimed::Unreadable(u)) => panic!("unexpected unreadable row {u:?}"),
            None => None,
        }
    }

    fn store(dir: &tempfile::TempDir) -> JobStore {
        JobStore::open(&dir.path().join("jobs.db")).unwrap()
    }

    /// Rewrites a stored job's payload, as another kotef version might have written it.
    async fn set_payload(s: &JobStore, id: i64, text: &str) {
        let text = text.to_string();
        s.with(move |c| {
            c.execute("UPDATE jobs SET job = ?2 WHERE id = ?1", params![id, text])?;
            Ok(())
        })
        .await
        .unwrap();
    }

    fn new_id(e: Enqueued) -> i64 {
        match e {
            Enqueued::New(id) => id,
            other => panic!("not queued: {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_row_that_no_longer_parses_ends_failed() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir);
        let id = new_id(s.enqueue(&job("bad", 1)).await.unwrap());
        set_payload(
            &s,
            id,
            r#"{"run_id":"r1","status_comment":42,"work":{"work":"teleport"}}"#,
        )
        .await;
        let Some(Claimed::Unreadable(u)) = s.claim_next().await.unwrap() else {
            panic!("the row should be handed back as unreadable");
        };
        assert_eq!(
            (
                u.repo.as_str(),
                u.number,
                u.run_id.as_deref(),
                u.status_comment
            ),
            ("o/r", 1, Some("r1"), Some(42))
        );
        let row = s.job_row(id).await.unwrap().unwrap();
        assert!(
            row.state == JobState::Done
                && row
                    .result
                    .as_deref()
                    .unwrap_or_default()
                    .starts_with("failed: the stored job is unreadable"),
            "{row:?}"
        );
    }

    #[tokio::test]
    async fn a_row_that_no_longer_parses_frees_its_issue() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir);
        let id = new_id(s.enqueue(&job("bad", 1)).await.unwrap());
        set_payload(&s, id, "not json").await;
        s.enqueue(&job("good", 1)).await.unwrap();
        assert!(matches!(
            s.claim_next().await.unwrap(),
            Some(Claimed::Unreadable(_))
        ));
        assert_eq!(claim(&s).await.map(|j| j.delivery.0), Some("good".into()));
    }

    #[tokio::test]
    async fn a_tenant_at_its_share_waits_while_another_tenant_has_work() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir).with_tenant_limits(TenantLimits {
            running: 1,
            queued: 100,
        });
        for n in 1..=10 {
            s.enqueue(&job_of("a", &format!("a{n}"), n)).await.unwrap();
        }
        s.enqueue(&job_of("b", "b1", 1)).await.unwrap();
        let mut owners = Vec::new();
        for _ in 0..3 {
            owners.push(claim(&s).await.unwrap().repo().owner.clone());
        }
        assert_eq!(owners, ["a", "b", "a"]);
    }

    #[tokio::test]
    async fn a_lone_tenant_may_use_every_worker() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir).with_tenant_limits(TenantLimits {
            running: 1,
            queued: 100,
        });
        s.enqueue(&job_of("a", "a1", 1)).await.unwrap();
        s.enqueue(&job_of("a", "a2", 2)).await.unwrap();
        claim(&s).await.unwrap();
        assert!(claim(&s).await.is_some());
    }

    #[tokio::test]
    async fn a_full_tenant_queue_refuses_more() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir).with_tenant_limits(TenantLimits {
            running: 1,
            queued: 2,
        });
        s.enqueue(&job_of("a", "a1", 1)).await.unwrap();
        s.enqueue(&job_of("a", "a2", 2)).await.unwrap();
        assert_eq!(
            s.enqueue(&job_of("a", "a3", 3)).await.unwrap(),
            Enqueued::Full
        );
    }

    #[tokio::test]
    async fn a_job_waits_behind_its_own_tenants_runs_only() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir);
        s.enqueue(&job_of("a", "a1", 1)).await.unwrap();
        claim(&s).await.unwrap();
        s.enqueue(&job_of("b", "b1", 1)).await.unwrap();
        s.enqueue(&job_of("a", "a2", 2)).await.unwrap();
        let Enqueued::New(id) = s.enqueue(&job_of("a", "a3", 3)).await.unwrap() else {
            panic!("queued")
        };
        assert_eq!(s.ahead(id).await.unwrap(), 2);
    }

    #[tokio::test]
    async fn a_full_tenant_queue_leaves_room_for_other_tenants() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir).with_tenant_limits(TenantLimits {
            running: 1,
            queued: 1,
        });
        s.enqueue(&job_of("a", "a1", 1)).await.unwrap();
        assert!(matches!(
            s.enqueue(&job_of("B", "b1", 1)).await.unwrap(),
            Enqueued::New(_)
        ));
    }

    #[tokio::test]
    async fn a_redelivery_to_a_full_queue_is_a_duplicate() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(&dir).with_tenant_limits(TenantLimits {
            running: 1,
            queued: 1,
        });
        s.enqueue(&job_of("a", "a1", 1)).await.unwrap();
        assert_eq!(
            s.enqueue(&job_of("a", "a1", 1)).await.unwrap(),
            Enqueued::Duplicate
        );
    }

    #[test]
    fn migrations_are_valid() {
        migrations().validate().unwrap();
    }

    /// A database made by the store before migrations (the schema run as a batch, no
    /// `user_version`) opens, keeps its jobs and is marked as migration 1.
    #[tokio::test]
    async fn a_database_from_before_migrations_opens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jobs.db");
        {
            let old = Connection::open(&path).unwrap();
            old.execute_batch(SCHEMA_V1).unwrap();
            old.execute(
                "INSERT INTO jobs (delivery, repo, number, job, state, created_at, updated_at)
                 VALUES ('old', 'acme/widgets', 1, '{}', 'done', 't', 't')",
                [],
            )
            .unwrap();
        }
        let s = JobStore::open(&path).unwrap();
        assert_eq!(
            s.enqueue(&job("old", 1)).await.unwrap(),
            Enqueued::Duplicate
        );
        assert!(matches!(
            s.enqueue(&job("new", 2)).await.unwrap(),
            Enqueued::New(_)
        ));
        let version: i64 = s
            .with(|c| Ok(c.pragma_query_value(None, "user_version", |r| r.get(0))?))
            .await
            .unwrap();
        assert_eq!(version, 2);
        drop(s);
        // Opening again is a no-op.
        JobStore::open(&path).unwrap();
    }

    #[tokio::test]
    async fn redelivery_is_a_duplicate() {
        let dir = tempfile::tempdir().unwrap();
        let s = JobStore::open(&dir.path().join("jobs.db")).unwrap();
        assert!(matches!(
            s.enqueue(&job("d1", 1)).await.unwrap(),
            Enqueued::New(_)
        ));
        assert_eq!(s.enqueue(&job("d1", 1)).await.unwrap(), Enqueued::Duplicate);
        assert_eq!(s.queue_depth().await.unwrap(), 1);
    }

    #[tokio::test]
    async fn one_running_job_per_issue() {
        let dir = tempfile::tempdir().unwrap();
        let s = JobStore::open(&dir.path().join("jobs.db")).unwrap();
        s.enqueue(&job("a", 1)).await.unwrap();
        s.enqueue(&job("b", 1)).await.unwrap();
        s.enqueue(&job("c", 2)).await.unwrap();
        let first = claim(&s).await.unwrap();
        assert_eq!(first.delivery.0, "a");
        assert_eq!(first.attempts, 1);
        // Issue 1 is busy, so issue 2's job comes next, then nothing.
        let second = claim(&s).await.unwrap();
        assert_eq!(second.delivery.0, "c");
        assert!(claim(&s).await.is_none());
        s.finish(first.id, "done").await.unwrap();
        let third = claim(&s).await.unwrap();
        assert_eq!(third.delivery.0, "b");
    }

    #[tokio::test]
    async fn interrupted_jobs_are_requeued_with_their_attempts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jobs.db");
        {
            let s = JobStore::open(&path).unwrap();
            s.enqueue(&job("a", 1)).await.unwrap();
            claim(&s).await.unwrap();
        }
        let s = JobStore::open(&path).unwrap();
        assert_eq!(s.requeue_interrupted().await.unwrap(), 1);
        let again = claim(&s).await.unwrap();
        assert_eq!(again.attempts, 2);
        assert_eq!(s.running().await.unwrap(), 1);
        s.finish(again.id, "ok").await.unwrap();
        let row = s.job_row(again.id).await.unwrap().unwrap();
        assert_eq!(
            (row.state.as_str(), row.result.as_deref()),
            ("done", Some("ok"))
        );
        assert_eq!(
            s.prune_finished(std::time::Duration::from_secs(3600))
                .await
                .unwrap(),
            0
        );
        assert_eq!(
            s.prune_finished(std::time::Duration::ZERO).await.unwrap(),
            1
        );
        assert!(s.job_row(again.id).await.unwrap().is_none());
    }
}
