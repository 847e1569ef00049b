//! Where a run's results are, as the status comment and the PR body link them ([`Links`],
//! [`TranscriptLink`], [`links_line`]), and what its commits changed ([`DiffStat`],
//! [`short_stat`]).

use kotef_core::markdown::{code, inert, INERT_CAP};

fn inline(text: &str) -> String {
    inert(text, INERT_CAP)
}

/// A URL made safe as a Markdown link target (no spaces, brackets or angle brackets).
pub fn link_target(url: &str) -> String {
    url.chars()
        .filter(|c| !c.is_whitespace() && !"()<>[]\"'`".contains(*c))
        .collect()
}

/// Where the run's results live (each part present once known).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Links {
    /// Branch name and its web URL.
    pub branch: Option<(String, String)>,
    /// Report path and its web URL.
    pub report: Option<(String, String)>,
    /// Where the run's transcript and its page are.
    pub transcript: Option<TranscriptLink>,
    /// Pull request number and its web URL.
    pub pull: Option<(u64, String)>,
}

/// Where a run's transcript (and its page) is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TranscriptLink {
    /// Committed on the branch (the repository opted in): its path and web URL.
    Branch { path: String, url: String },
    /// An artifact of the Actions run: its name and the run's web URL.
    Artifact { name: String, run_url: String },
    /// Kept in the server's data directory under this name.
    Server { file: String },
}

/// What the pushed commits changed against the cloned branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffStat<'a> {
    /// `git diff --shortstat` of the code (`.sdd/` left out); empty: no code changed.
    pub code: &'a str,
    /// Files of kotef's record under `.sdd/` the commits hold.
    pub sdd_files: u64,
}

/// `1 file changed, 2 insertions(+), 1 deletion(-)` as `1 file changed (+2 −1)`; text git did
/// not write is shown as it is.
pub fn short_stat(stat: &str) -> String {
    let mut parts = stat.split(", ");
    let Some(files) = parts.next() else {
        return inline(stat);
    };
    let mut counts = Vec::new();
    for p in parts {
        let n = p.split_whitespace().next().unwrap_or("");
        if !n.chars().all(|c| c.is_ascii_digit()) || n.is_empty() {
            return inline(stat);
        }
        if p.contains("insertion") {
            counts.push(format!("+{n}"));
        } else if p.contains("deletion") {
            counts.push(format!("−{n}"));
        } else {
            return inline(stat);
        }
    }
    if counts.is_empty() {
        inline(files)
    } else {
        format!("{} ({})", inline(files), counts.join(" "))
    }
}

/// The links line of a final comment or PR body.
pub fn links_line(links: &Links) -> Option<String> {
    let mut parts = Vec::new();
    if let Some((name, url)) = &links.branch {
        parts.push(format!("Branch [{}]({})", code(name), link_target(url)));
    }
    if let Some((path, url)) = &links.report {
        parts.push(format!("Report [{}]({})", code(path), link_target(url)));
    }
    match &links.transcript {
        Some(TranscriptLink::Branch { url, .. }) => {
            parts.push(format!("[Transcript]({})", link_target(url)));
        }
        Some(TranscriptLink::Artifact { name, run_url }) => parts.push(format!(
            "Transcript and its page: artifact {} of the [Actions run]({})",
            code(name),
            link_target(run_url)
        )),
        Some(TranscriptLink::Server { file }) => parts.push(format!(
            "Transcript: {} in the kotef server's data directory",
            code(file)
        )),
        None => {}
    }
    if let Some((n, url)) = &links.pull {
        parts.push(format!("Pull request [#{n}]({url})"));
    }
    (!parts.is_empty()).then(|| format!("🔗 {}\n", parts.join(" · ")))
}
