//! Keeping the run's symbolic links out of kotef's own directory: `.sdd/` holds what kotef
//! writes for people (reports, transcripts, the issues list), and a link the run planted there
//! (`.sdd/runs/<stem>.transcript.html -> ../../../.ssh/authorized_keys`) would be pushed under
//! kotef's name and followed by whoever runs a documented command on the branch. After
//! `git add -A`, every staged entry under `.sdd` (`.sdd` itself included) that is a link is
//! taken out of the index again: it stays in the work tree, but it is never committed.

use super::{GitError, Workspace};

/// The paths in `git diff --cached --raw -z` output whose new mode is a symbolic link.
pub(super) fn staged_links(raw: &str) -> Vec<String> {
    let mut fields = raw.split('\0');
    let mut out = Vec::new();
    while let (Some(meta), Some(path)) = (fields.next(), fields.next()) {
        let new_mode = meta.trim_start_matches(':').split(' ').nth(1);
        if new_mode == Some("120000") && !path.is_empty() {
            out.push(path.to_string());
        }
    }
    out
}

impl Workspace {
    /// Unstages every symbolic link staged under `.sdd`; returns their paths.
    pub(super) async fn unstage_sdd_links(&self) -> Result<Vec<String>, GitError> {
        let raw = self
            .git_ok(&[
                "diff",
                "--cached",
                "--raw",
                "-z",
                "--no-renames",
                "--",
                ":(literal).sdd",
            ])
            .await?;
        let links = staged_links(&raw.stdout);
        for path in &links {
            let spec = format!(":(literal){path}");
            self.git_ok(&["reset", "-q", "HEAD", "--", &spec]).await?;
            tracing::warn!(path = %path, "a symbolic link under .sdd/ is not committed");
        }
        Ok(links)
    }
}

#[cfg(test)]
mod tests {
    use super::staged_links;

    #[test]
    fn only_links_are_picked_from_the_raw_diff() {
        let raw = ":000000 120000 0000000 1111111 A\0.sdd/runs/x.html\0:000000 100644 0000000 2222222 A\0.sdd/runs/x.md\0";
        assert_eq!(staged_links(raw), [".sdd/runs/x.html"]);
    }

    #[test]
    fn a_file_turned_into_a_link_is_picked() {
        let raw = ":100644 120000 3333333 1111111 T\0.sdd/issues.md\0";
        assert_eq!(staged_links(raw), [".sdd/issues.md"]);
    }

    #[test]
    fn nothing_staged_picks_nothing() {
        assert!(staged_links("").is_empty());
    }
}
