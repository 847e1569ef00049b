//! [`FakeExecutor`]: a `RunExecutor` that succeeds, loops, fails or hangs as told, counting
//! calls and concurrency; and [`sample_outcome`], a plausible run outcome.

use kotef_core::{
    LoopCounters, RunId, RunOutcome, RunRequest, RunSummary, StepProgress, StopRule, TerminalStatus,
};
use kotef_github::RunExecutor;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::Notify;

/// What [`FakeExecutor`] does.
#[derive(Debug, Clone)]
pub enum FakeBehavior {
    /// Writes `hello.txt` and a report; `done_success`.
    Succeed,
    /// Writes a report; `aborted_stuck` by `planner_to_researcher`.
    AbortLoop,
    /// Writes `partial.txt`, then fails with this error (e.g. the model is down).
    Fail(String),
    /// Signals `started` and waits until cancelled (for crash tests).
    Hang,
}

/// An executor that does what it is told, counting calls and concurrency per workdir issue.
pub struct FakeExecutor {
    pub behavior: FakeBehavior,
    /// Steps reported through the progress channel.
    pub steps: u32,
    /// Time each run takes (before its outcome).
    pub delay: Duration,
    pub calls: std::sync::atomic::AtomicU32,
    running: Mutex<HashMap<String, u32>>,
    /// The most runs seen at once on one goal's first line (one issue).
    pub max_concurrent_same_issue: std::sync::atomic::AtomicU32,
    pub started: Notify,
    /// Goals received, in order.
    pub goals: Mutex<Vec<String>>,
}

impl FakeExecutor {
    pub fn new(behavior: FakeBehavior) -> Self {
        Self {
            behavior,
            steps: 3,
            delay: Duration::ZERO,
            calls: Default::default(),
            running: Mutex::new(HashMap::new()),
            max_concurrent_same_issue: Default::default(),
            started: Notify::new(),
            goals: Mutex::new(Vec::new()),
        }
    }

    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    pub fn calls(&self) -> u32 {
        self.calls.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// A plausible outcome for tests.
pub fn sample_outcome(
    run_id: &RunId,
    status: TerminalStatus,
    rule: Option<StopRule>,
    report: &str,
) -> RunOutcome {
    let (reason, counters) = match rule {
        Some(StopRule::PlannerToResearcher) => (
            "planner routed to the researcher 5 times without new findings".to_string(),
            LoopCounters {
                planner_to_researcher: 5,
                planner_to_coder: 0,
                planner_to_verifier: 0,
            },
        ),
        Some(r) => (format!("stop rule {r} fired"), LoopCounters::default()),
        None => (
            "the goal is met and the tests pass".to_string(),
            LoopCounters {
                planner_to_researcher: 1,
                planner_to_coder: 1,
                planner_to_verifier: 1,
            },
        ),
    };
    RunOutcome {
        run_id: run_id.clone(),
        summary: RunSummary {
            terminal_status: status,
            stop_rule: rule,
            stop_reason: reason,
            loop_counters: counters,
            total_steps: 7,
            model_calls: 6,
            prompt_tokens: 1000,
            completion_tokens: 200,
            fix_attempts: 0,
            report_path: report.into(),
            issues_md_path: ".sdd/issues.md".into(),
            transcript_path: None,
        },
        cost_usd: Some(0.0042),
        duration_ms: 1234,
        failure_summary: None,
        mermaid: "flowchart LR\n  planner --> researcher\n  researcher --> planner".into(),
        files_changed: Vec::new(),
        report_rel_path: report.into(),
        issues_rel_path: None,
        model: "fake".into(),
        change_summary: Some("wrote hello.txt".into()),
        verification: None,
        sandbox: None,
        setup_created: Vec::new(),
        checks: Vec::new(),
    }
}

#[async_trait::async_trait]
impl RunExecutor for FakeExecutor {
    async fn execute(
        &self,
        req: RunRequest,
        progress: tokio::sync::mpsc::UnboundedSender<StepProgress>,
    ) -> anyhow::Result<RunOutcome> {
        use std::sync::atomic::Ordering;
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.goals.lock().unwrap().push(req.goal.clone());
        let key = req.goal.lines().next().unwrap_or_default().to_string();
        {
            let mut r = self.running.lock().unwrap();
            let n = r.entry(key.clone()).or_default();
            *n += 1;
            self.max_concurrent_same_issue
                .fetch_max(*n, Ordering::SeqCst);
        }
        struct Leave<'a>(&'a Mutex<HashMap<String, u32>>, String);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                if let Ok(mut r) = self.0.lock() {
                    if let Some(n) = r.get_mut(&self.1) {
                        *n = n.saturating_sub(1);
                    }
                }
            }
        }
        let _leave = Leave(&self.running, key);
        self.started.notify_waiters();
        for i in 1..=self.steps {
            let _ = progress.send(StepProgress {
                step: i,
                node: if i % 2 == 1 {
                    kotef_core::NodeName::Planner
                } else {
                    kotef_core::NodeName::Researcher
                },
                decision: "researcher".into(),
                reason: format!("step {i}"),
                progress: false,
            });
        }
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        let report = format!(".sdd/runs/{}.md", req.run_id);
        let write = |rel: &str, text: &str| -> anyhow::Result<()> {
            let p = req.workdir.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(p, text)?;
            Ok(())
        };
        match &self.behavior {
            FakeBehavior::Succeed => {
                write("hello.txt", "hello from kotef\n")?;
                write(&report, "# Run report\n\nterminal_status: done_success\n")?;
                let mut o = sample_outcome(&req.run_id, TerminalStatus::DoneSuccess, None, &report);
                o.files_changed = vec!["hello.txt".into()];
                o.verification = Some(kotef_core::Verification {
                    command: "grep -q hello hello.txt".into(),
                    passed: true,
                });
                Ok(o)
            }
            FakeBehavior::AbortLoop => {
                write(&report, "# Run report\n\nterminal_status: aborted_stuck\n")?;
                write(".sdd/issues.md", "- planner loop detected\n")?;
                let mut o = sample_outcome(
                    &req.run_id,
                    TerminalStatus::AbortedStuck,
                    Some(StopRule::PlannerToResearcher),
                    &report,
                );
                o.issues_rel_path = Some(".sdd/issues.md".into());
                o.failure_summary = Some("researcher returned no new information 5 times".into());
                Ok(o)
            }
            FakeBehavior::Fail(msg) => {
                write("partial.txt", "half done\n")?;
                anyhow::bail!("{msg}")
            }
            FakeBehavior::Hang => std::future::pending::<anyhow::Result<RunOutcome>>().await,
        }
    }
}
