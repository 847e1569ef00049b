//! The durable job store (embedded SQLite): an accepted delivery becomes a row before the
//! webhook is answered, a redelivery of the same `X-GitHub-Delivery` is recognised, workers
//! claim jobs so that one issue/PR never has two running at once, and jobs left `running` by a
//! crash are put back in the queue on start-up.

use crate::job::Job;
use anyhow::Context;
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
}

/// A job's state in the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobRow {
    pub id: i64,
    pub state: String,
    pub attempts: u32,
    pub result: Option<String>,
}

/// The store; cheap to clone, calls run on the blocking pool.
#[derive(Clone)]
pub struct JobStore {
    conn: Arc<Mutex<Connection>>,
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

/// The store's schema migrations, oldest first; the version lives in `PRAGMA user_version`.
fn migrations() -> Migrations<'static> {
    Migrations::new(vec![M::up(SCHEMA_V1)])
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
        })
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

    /// Adds `job` unless its delivery id was seen before.
    pub async fn enqueue(&self, job: &Job) -> anyhow::Result<Enqueued> {
        let text = serde_json::to_string(job)?;
        let delivery = job.delivery.0.clone();
        let repo = job.repo().to_string();
        let number = job.number().0 as i64;
        self.with(move |c| {
            let t = now();
            let n = c.execute(
                "INSERT OR IGNORE INTO jobs (delivery, repo, number, job, state, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?5)",
                params![delivery, repo, number, text, t],
            )?;
            Ok(if n == 1 {
                Enqueued::New(c.last_insert_rowid())
            } else {
                Enqueued::Duplicate
            })
        })
        .await
    }

    /// Takes the oldest queued job whose issue/PR has no running job, marks it running and
    /// counts the attempt.
    pub async fn claim_next(&self) -> anyhow::Result<Option<Job>> {
        self.with(|c| {
            let tx = c.transaction()?;
            let row: Option<(i64, String, u32)> = tx
                .query_row(
                    "SELECT id, job, attempts FROM jobs j WHERE state = 'queued'
                     AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.state = 'running'
                                     AND r.repo = j.repo AND r.number = j.number)
                     ORDER BY id LIMIT 1",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?;
            let Some((id, text, attempts)) = row else {
                return Ok(None);
            };
            tx.execute(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, updated_at = ?2 WHERE id = ?1",
                params![id, now()],
            )?;
            tx.commit()?;
            let mut job: Job = serde_json::from_str(&text)
                .with_context(|| format!("job {id} in the store is unreadable"))?;
            job.id = id;
            job.attempts = attempts + 1;
            Ok(Some(job))
        })
        .await
    }

    /// Marks a job finished with a one-line result.
    pub async fn finish(&self, id: i64, result: &str) -> anyhow::Result<()> {
        let result = result.to_string();
        self.with(move |c| {
            c.execute(
                "UPDATE jobs SET state = 'done', result = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, result, now()],
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
                "UPDATE jobs SET state = 'queued', updated_at = ?1 WHERE state = 'running'",
                params![now()],
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
                "DELETE FROM jobs WHERE state = 'done' AND updated_at < ?1",
                params![cutoff],
            )?)
        })
        .await
    }

    /// Jobs waiting in the queue.
    pub async fn queue_depth(&self) -> anyhow::Result<u64> {
        self.with(|c| {
            Ok(c.query_row(
                "SELECT COUNT(*) FROM jobs WHERE state = 'queued'",
                [],
                |r| r.get::<_, i64>(0),
            )? as u64)
        })
        .await
    }

    /// Jobs being run now.
    pub async fn running(&self) -> anyhow::Result<u64> {
        self.with(|c| {
            Ok(c.query_row(
                "SELECT COUNT(*) FROM jobs WHERE state = 'running'",
                [],
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

    fn job(delivery: &str, number: u64) -> Job {
        crate::job::test_job(delivery, number)
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
        assert_eq!(version, 1);
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
        let first = s.claim_next().await.unwrap().unwrap();
        assert_eq!(first.delivery.0, "a");
        assert_eq!(first.attempts, 1);
        // Issue 1 is busy, so issue 2's job comes next, then nothing.
        let second = s.claim_next().await.unwrap().unwrap();
        assert_eq!(second.delivery.0, "c");
        assert!(s.claim_next().await.unwrap().is_none());
        s.finish(first.id, "done").await.unwrap();
        let third = s.claim_next().await.unwrap().unwrap();
        assert_eq!(third.delivery.0, "b");
    }

    #[tokio::test]
    async fn interrupted_jobs_are_requeued_with_their_attempts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jobs.db");
        {
            let s = JobStore::open(&path).unwrap();
            s.enqueue(&job("a", 1)).await.unwrap();
            s.claim_next().await.unwrap().unwrap();
        }
        let s = JobStore::open(&path).unwrap();
        assert_eq!(s.requeue_interrupted().await.unwrap(), 1);
        let again = s.claim_next().await.unwrap().unwrap();
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
