//! The repository as the planner, researcher and coder prompts list it, in a size that does
//! not grow with the tree: a small repository file by file (path, short hash, bytes); a large
//! one as the files this run is about (those the goal and the failure name, the test files
//! the command runs), the files at its root, and its folders with how many files each holds,
//! for `list_files` and `search` to open. Plus kotef's backlog (`.sdd/issues.md`), offered as
//! the backlog it is, never as a project file.

use crate::graph::memory::state::RunState;
use crate::graph::prompt::messages as m;
use kotef_tools::RepoSnapshot;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Up to this many files a repository is listed whole.
pub const LISTED_FILES: usize = 40;
/// Files named by the run shown for a large repository at most.
pub const RUN_FILES: usize = 12;
/// Files at a large repository's root shown at most.
pub const ROOT_FILES: usize = 12;
/// Folders shown for a large repository at most.
pub const FOLDERS: usize = 16;

/// The repository part of a prompt; `run_files` are the files this run is about (see
/// [`crate::graph::prompt::context::repo_state`]).
pub fn listing(snapshot: &RepoSnapshot, state: &RunState, run_files: &[String]) -> String {
    // Every file of the project (the run's hashes), else the snapshot's own listing.
    let project: Vec<&String> = if state.file_hashes.is_empty() {
        snapshot.files.iter().map(|f| &f.path).collect()
    } else {
        state
            .file_hashes
            .keys()
            .filter(|p| !kotef_tools::is_build_artifact(p))
            .collect()
    };
    let mut s = if project.len().max(snapshot.total_files) <= LISTED_FILES {
        whole(snapshot)
    } else {
        summary(snapshot, &project, run_files)
    };
    if let Some(bytes) = snapshot.backlog_bytes {
        let bytes = bytes.to_string();
        let _ = write!(s, "{}", m::ListingBacklog { bytes: &bytes });
    }
    s
}

fn whole(snapshot: &RepoSnapshot) -> String {
    let mut s = m::ListingFilesSection.to_string();
    for f in &snapshot.files {
        let file = m::ListingFile {
            path: &f.path,
            hash: &f.short_hash,
            bytes: &f.size.to_string(),
        };
        let _ = write!(s, "{file}");
    }
    s
}

/// A large repository: the run's files, the root's files, the folders.
fn summary(snapshot: &RepoSnapshot, project: &[&String], run: &[String]) -> String {
    let total = project.len().max(snapshot.total_files);
    let total = total.to_string();
    let mut s = m::ListingSummarySection { total: &total }.to_string();
    if !run.is_empty() {
        let _ = write!(s, "{}", m::ListingRunFiles);
        for p in run.iter().take(RUN_FILES) {
            let _ = write!(s, "{}", m::ListItem { item: p });
        }
    }
    let root: Vec<&&String> = project.iter().filter(|p| !p.contains('/')).collect();
    if !root.is_empty() {
        let _ = write!(s, "{}", m::ListingRootFiles);
        for p in root.iter().take(ROOT_FILES) {
            let _ = write!(s, "{}", m::ListItem { item: p });
        }
        if root.len() > ROOT_FILES {
            let count = (root.len() - ROOT_FILES).to_string();
            let _ = write!(s, "{}", m::ListingMore { count: &count });
        }
    }
    let _ = write!(s, "{}", m::ListingFolders);
    for (dir, n) in folders(project) {
        let count = n.to_string();
        let _ = write!(
            s,
            "{}",
            m::ListingFolder {
                dir: &dir,
                count: &count
            }
        );
    }
    s
}

/// The folders holding most files, first and second level, at most [`FOLDERS`], in path order.
fn folders(project: &[&String]) -> Vec<(String, usize)> {
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for p in project {
        let parts: Vec<&str> = p.split('/').collect();
        for depth in 1..parts.len().min(3) {
            *count.entry(parts[..depth].join("/")).or_insert(0) += 1;
        }
    }
    let mut by_size: Vec<(String, usize)> = count.into_iter().collect();
    // Top-level folders first, then the largest.
    by_size.sort_by(|(a, na), (b, nb)| {
        a.contains('/')
            .cmp(&b.contains('/'))
            .then(nb.cmp(na))
            .then(a.cmp(b))
    });
    by_size.truncate(FOLDERS);
    by_size.sort();
    by_size
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_tools::FileEntry;

    fn state_of(files: &[String]) -> RunState {
        let hashes = files.iter().map(|f| (f.clone(), "h".to_string())).collect();
        let mut s = RunState::new(
            "Fix pkg/core.py: the redirect limit",
            kotef_core::Profile::Strict,
            hashes,
        );
        s.test_command = Some("python3 -m unittest tests.test_core".into());
        s
    }

    fn snapshot_of(files: &[String]) -> RepoSnapshot {
        RepoSnapshot {
            files: files
                .iter()
                .take(150)
                .map(|p| FileEntry {
                    path: p.clone(),
                    short_hash: "abcdef123456".into(),
                    size: 10,
                })
                .collect(),
            total_files: files.len(),
            truncated: files.len() > 150,
            backlog_bytes: None,
        }
    }

    fn run_files(_: &[String]) -> Vec<String> {
        vec!["pkg/core.py".into(), "tests/test_core.py".into()]
    }

    fn repo(n: usize) -> Vec<String> {
        let mut f: Vec<String> = vec![
            "README.md".into(),
            "setup.py".into(),
            "pkg/core.py".into(),
            "tests/test_core.py".into(),
        ];
        f.extend((0..n).map(|i| format!("pkg/mod{}/m{i}.py", i % 7)));
        f
    }

    #[test]
    fn a_small_repository_is_listed_file_by_file() {
        let files = repo(3);
        let text = listing(&snapshot_of(&files), &state_of(&files), &run_files(&files));
        assert!(
            text.contains("- pkg/mod0/m0.py (abcdef123456, 10 B)"),
            "{text}"
        );
    }

    #[test]
    fn a_large_repository_is_its_run_files_root_files_and_folders_in_a_bounded_size() {
        let sizes: Vec<usize> = [100, 1000, 3000]
            .iter()
            .map(|n| {
                let files = repo(*n);
                listing(&snapshot_of(&files), &state_of(&files), &run_files(&files)).len()
            })
            .collect();
        let files = repo(3000);
        let text = listing(&snapshot_of(&files), &state_of(&files), &run_files(&files));
        assert!(
            text.contains("### Files this run is about\n- pkg/core.py\n- tests/test_core.py\n")
                && text.contains("- README.md\n- setup.py\n")
                && text.contains("- pkg/ (3001)\n")
                && text.contains("- pkg/mod3/ (429)\n"),
            "{text}"
        );
        assert!(sizes[2] <= sizes[0] + 40, "{sizes:?}");
    }

    #[test]
    fn the_backlog_is_offered_as_the_backlog() {
        let files = repo(3);
        let mut snap = snapshot_of(&files);
        snap.backlog_bytes = Some(120);
        let text = listing(&snap, &state_of(&files), &[]);
        assert!(
            text.contains(
                "## Backlog\n- `.sdd/issues.md` (120 B): notes earlier kotef runs left for a human"
            ),
            "{text}"
        );
    }
}
