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
    run: &Result<RunOutcome, super::RunError>,
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
    link_for(
        ctx.transcripts.as_ref(),
        ctx.actions_run_url.as_deref(),
        taken,
        web_branch,
    )
}

/// [`link`]'s rule: the Action's artifact (with the run's page), else the branch when the
/// transcript is committed and pushed, else the server's data directory.
fn link_for(
    store: Option<&TranscriptStore>,
    run_url: Option<&str>,
    taken: &Taken,
    web_branch: Option<&str>,
) -> Option<TranscriptLink> {
    match (store, run_url) {
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
        _ if taken.committed && web_branch.is_some() => {
            web_branch.map(|web| TranscriptLink::Branch {
                path: taken.rel.clone(),
                url: format!("{web}/{}", taken.rel),
            })
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(committed: bool) -> Taken {
        Taken {
            stem: "20261126T000000Z-abc".into(),
            rel: ".sdd/runs/20261126T000000Z-abc.transcript.jsonl".into(),
            text: String::new(),
            committed,
        }
    }

    fn store(artifact: Option<&str>) -> TranscriptStore {
        TranscriptStore {
            dir: "/tmp/x".into(),
            artifact: artifact.map(str::to_string),
        }
    }

    #[test]
    fn the_action_links_its_artifact_even_when_the_transcript_is_committed() {
        let l = link_for(
            Some(&store(Some("kotef-run-abc"))),
            Some("https://github.com/o/r/actions/runs/1"),
            &taken(true),
            Some("https://github.com/o/r/blob/kotef/issue-1"),
        );
        assert!(
            matches!(l, Some(TranscriptLink::Artifact { name, .. }) if name == "kotef-run-abc")
        );
    }

    #[test]
    fn a_server_names_the_file_unless_it_is_committed() {
        let s = store(None);
        let web = Some("https://github.com/o/r/blob/kotef/issue-1");
        let kept = link_for(Some(&s), None, &taken(false), web);
        let committed = link_for(Some(&s), None, &taken(true), web);
        assert_eq!(
            (kept, committed),
            (
                Some(TranscriptLink::Server {
                    file: "transcripts/20261126T000000Z-abc.transcript.jsonl".into()
                }),
                Some(TranscriptLink::Branch {
                    path: ".sdd/runs/20261126T000000Z-abc.transcript.jsonl".into(),
                    url: "https://github.com/o/r/blob/kotef/issue-1/.sdd/runs/20261126T000000Z-abc.transcript.jsonl".into()
                })
            )
        );
    }

    #[test]
    fn nowhere_to_keep_it_links_nothing() {
        assert_eq!(link_for(None, None, &taken(false), None), None);
    }

    #[test]
    fn a_written_file_is_never_overwritten_nor_written_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a");
        std::fs::write(&file, "old").unwrap();
        let link = dir.path().join("b");
        std::os::unix::fs::symlink(dir.path().join("target"), &link).unwrap();
        let results = (
            write_new(&file, b"new").is_err(),
            write_new(&link, b"new").is_err(),
        );
        assert_eq!(
            (
                results,
                std::fs::read_to_string(&file).unwrap(),
                dir.path().join("target").exists()
            ),
            ((true, true), "old".to_string(), false)
        );
    }
}
