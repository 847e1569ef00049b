//! Failures whose cause lies outside the repository: a host name that does not resolve, a
//! service that refuses connections, a network that cannot be reached, a missing file at an
//! absolute path outside the workspace. No change to the code can fix those where the tests
//! run, so the graph stops on them after a fair try. Pure text matching over a failure summary.

use std::path::Path;

/// Lower-case markers of a network failure, and what each one means to a maintainer (Node's
/// codes with the call before them: `enotfound` alone is inside `filenotfounderror`).
const NETWORK: &[(&str, &str)] = &[
    (
        "temporary failure in name resolution",
        "a network host name that does not resolve here",
    ),
    (
        "name or service not known",
        "a network host name that does not resolve here",
    ),
    (
        "nodename nor servname",
        "a network host name that does not resolve here",
    ),
    (
        "no address associated with hostname",
        "a network host name that does not resolve here",
    ),
    (
        "getaddrinfo enotfound",
        "a network host name that does not resolve here",
    ),
    (
        "getaddrinfo eai_again",
        "a network host name that does not resolve here",
    ),
    (
        "could not resolve host",
        "a network host name that does not resolve here",
    ),
    (
        "connection refused",
        "a network service that refuses connections here",
    ),
    (
        "econnrefused",
        "a network service that refuses connections here",
    ),
    (
        "network is unreachable",
        "a network that cannot be reached from here",
    ),
    ("enetunreach", "a network that cannot be reached from here"),
];

/// What the failure needs from outside the repository, or `None` when nothing in it points
/// there. `workspace` is the repository's root: a missing file under it is the code's to make.
pub fn outside_cause(failure: &str, workspace: &Path) -> Option<String> {
    let lower = failure.to_lowercase();
    if let Some((_, what)) = NETWORK.iter().find(|(marker, _)| lower.contains(marker)) {
        return Some((*what).to_string());
    }
    missing_outside_file(failure, workspace).map(|path| format!("the file `{path}`"))
}

/// The absolute path of a missing file the failure names (`No such file or directory:
/// '/etc/app.ini'`, `ENOENT: … open '/etc/app.ini'`), when it is outside `workspace`.
fn missing_outside_file(failure: &str, workspace: &Path) -> Option<String> {
    let line = failure
        .lines()
        .flat_map(|l| l.split("; "))
        .find(|l| l.contains("No such file or directory") || l.contains("ENOENT"))?;
    let quoted = line
        .split(['\'', '"'])
        .skip(1)
        .step_by(2)
        .find(|p| p.starts_with('/'))?;
    let path = Path::new(quoted);
    let inside = path.starts_with(workspace)
        || workspace
            .canonicalize()
            .is_ok_and(|root| path.starts_with(root));
    (!inside).then(|| quoted.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cause(failure: &str) -> Option<String> {
        outside_cause(failure, Path::new("/ws/repo"))
    }

    #[test]
    fn a_host_that_does_not_resolve_is_outside() {
        assert_eq!(
            cause("FAILED (errors=1); socket.gaierror: [Errno -3] Temporary failure in name resolution").as_deref(),
            Some("a network host name that does not resolve here")
        );
    }

    #[test]
    fn a_refused_connection_is_outside() {
        assert_eq!(
            cause("Error: connect ECONNREFUSED 127.0.0.1:5432").as_deref(),
            Some("a network service that refuses connections here")
        );
    }

    #[test]
    fn a_missing_file_outside_the_workspace_is_outside() {
        assert_eq!(
            cause("FAILED (errors=1); FileNotFoundError: [Errno 2] No such file or directory: '/etc/kotef-bench/settings.ini'").as_deref(),
            Some("the file `/etc/kotef-bench/settings.ini`")
        );
    }

    #[test]
    fn a_missing_file_inside_the_workspace_is_the_codes_to_make() {
        assert_eq!(
            cause("FileNotFoundError: [Errno 2] No such file or directory: '/ws/repo/data.txt'"),
            None
        );
    }

    #[test]
    fn a_relative_missing_file_is_the_codes_to_make() {
        assert_eq!(
            cause("FileNotFoundError: [Errno 2] No such file or directory: 'data.txt'"),
            None
        );
    }

    #[test]
    fn an_assertion_is_not_outside() {
        assert_eq!(cause("AssertionError: '1.0' != '2.0'"), None);
    }
}
