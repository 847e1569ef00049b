//! The run's log off the branch: the repository gets the record (`.sdd/runs/<id>.md`, `.json`,
//! `.sdd/issues.md`), while the transcript (`.sdd/runs/<id>.transcript.jsonl`, up to 8 MiB)
//! is taken out of the work tree before the commit — unless the repository opts in with
//! `[report] commit_transcript = true` — and kept in the [`TranscriptStore`]: the Action's
//! artifact directory (uploaded by action.yml) or the server's data directory. A diff record
//! (what the run pushed) is appended, and the page (`kotef report --html`) written beside it.

use super::JobContext;
use crate::outbound::render::TranscriptLink;
use crate::RunExecutor;
use kotef_core::RunOutcome;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Where transcripts are kept off the branch (a directory kotef owns, never a work tree).
#[derive(Debug, Clone)]
pub struct TranscriptStore {
    /// The directory the files go to (created by the entry point).
    pub dir: PathBuf,
    /// The Action: the artifact's name (uploaded from `dir` after the step), linked with the
    /// run's URL. `None`: a server, which names the file in its data directory.
    pub artifact: Option<String>,
}

/// A transcript taken from the work tree, waiting for the diff.
#[derive(Debug)]
pub(super) struct Taken {
    /// `<UTC timestamp>-<run id>`, the report's stem.
    pub(super) stem: String,
    /// Its path in the work tree.
    pub(super) rel: String,
    pub(super) text: String,
    /// Whether it stays on the branch too.
    pub(super) committed: bool,
}

/// Bytes of the diff a transcript keeps.
pub(super) const DIFF_CAP: u64 = 1024 * 1024;

/// The transcript's path in the work tree: `<report stem>.transcript.jsonl`.
fn rel_path(o: &RunOutcome) -> Option<(String, String)> {
    o.summary.transcript_path.as_ref()?;
    let stem_path = o.report_rel_path.strip_suffix(".md")?;
    let stem = stem_path.rsplit('/').next()?.to_string();
    Some((stem, format!("{stem_path}.transcript.jsonl")))
}

/// Takes the run's transcript out of the work tree (or reads it, when committed).
pub(super) fn take(
    workdir: &Path,
    run: &Result<RunOutcome, String>,
    commit: bool,
    executor: &dyn RunExecutor,
    notes: &mut Vec<String>,
) -> Option<Taken> {
    let (stem, rel) = rel_path(run.as_ref().ok()?)?;
    match executor.take_transcript(workdir, &rel, commit) {
        Ok(Some(text)) => Some(Taken {
            stem,
            rel,
            text,
            committed: commit,
        }),
        Ok(None) => None,
        Err(e) => {
            notes.push(format!("the run's transcript could not be kept: {e}"));
            None
        }
    }
}

/// Where the comment says the transcript is, for a transcript that will be kept.
/// `web_branch` is the pushed branch's web URL (`{repo}/blob/{branch}`), when it was pushed.
pub(super) fn link(
    ctx: &JobContext,
    taken: &Taken,
    web_branch: Option<&str>,
) -> Option<TranscriptLink> {
    match (&ctx.transcripts, ctx.actions_run_url.as_deref()) {
        (
            Some(TranscriptStore {
                artifact: Some(name),
                ..
            }),
            Some(run),
        ) => Some(TranscriptLink::Artifact {
            name: name.clone(),
            run_url: run.to_string(),
        }),
        _ if taken.committed => web_branch.map(|web| TranscriptLink::Branch {
            path: taken.rel.clone(),
            url: format!("{web}/{}", taken.rel),
        }),
        (Some(TranscriptStore { artifact: None, .. }), _) => Some(TranscriptLink::Server {
            file: format!("transcripts/{}.transcript.jsonl", taken.stem),
        }),
        _ => None,
    }
}

/// The diff record appended to the transcript: `git diff --shortstat` of the code, the files
/// under `.sdd/` the commit holds, and the diff itself (capped).
pub(super) fn diff_record(stat: &str, sdd_files: u64, diff: &str) -> String {
    serde_json::json!({
        "type": "diff",
        "stat": stat,
        "sdd_files": sdd_files,
        "diff": diff,
    })
    .to_string()
}

/// Writes the transcript (with `extra` lines appended) and its page to the store; what went
/// wrong is added to `notes`.
pub(super) fn keep(
    ctx: &JobContext,
    taken: Taken,
    extra: &[String],
    executor: &dyn RunExecutor,
    notes: &mut Vec<String>,
) {
    let Some(store) = &ctx.transcripts else {
        return;
    };
    let mut text = taken.text;
    for line in extra {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&ctx.redactor.redact(line));
        text.push('\n');
    }
    let file = |ext: &str| store.dir.join(format!("{}.transcript.{ext}", taken.stem));
    let mut written = write_new(&file("jsonl"), text.as_bytes());
    let title = format!("kotef run {}", taken.stem);
    if let (Ok(()), Some(page)) = (&written, executor.transcript_page(&text, &title)) {
        written = write_new(&file("html"), page.as_bytes());
    }
    if let Err(e) = written {
        tracing::warn!(error = %e, dir = %store.dir.display(), "cannot keep the transcript");
        notes.push(format!("the run's transcript could not be kept: {e}"));
    }
}

/// Creates `path` (never through a link, never over a file) with `bytes`.
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    f.write_all(bytes)
}
