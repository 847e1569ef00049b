//! Host tools a test needs (a browser, npm): present, the test runs; missing, it fails under
//! CI (`CI` set, as every CI service sets it), where a missing tool is a broken runner, and
//! otherwise skips saying so, so a laptop without chromium still runs the suite.

use std::process::Command;

/// Whether the test should go on: true when one of `names` runs with `version_arg`; when none
/// does, panics under `CI` and otherwise prints why the test is skipped and returns false.
pub fn require_tool(names: &[&str], version_arg: &str) -> bool {
    found_tool(names, version_arg).is_some()
}

/// The first of `names` that runs with `version_arg`, under the same rule as
/// [`require_tool`]: none under `CI` fails the test, none elsewhere prints a skip and is `None`.
pub fn found_tool(names: &[&str], version_arg: &str) -> Option<String> {
    let found = names.iter().find(|n| {
        Command::new(n)
            .arg(version_arg)
            .output()
            .is_ok_and(|o| o.status.success())
    });
    match found {
        Some(n) => Some(n.to_string()),
        None => match missing(names, std::env::var_os("CI").is_some()) {
            Ok(skip) => {
                eprintln!("{skip}");
                None
            }
            Err(failure) => panic!("{failure}"),
        },
    }
}

/// A headless-capable Chromium (any of its usual names), under the rule of [`found_tool`].
pub fn chromium() -> Option<String> {
    found_tool(
        &["chromium", "chromium-browser", "google-chrome"],
        "--version",
    )
}

/// Whether npm runs, under the rule of [`require_tool`].
pub fn npm() -> bool {
    require_tool(&["npm"], "--version")
}

/// What a missing tool means: under CI a failure (`Err`), elsewhere a skip (`Ok`), each with
/// the sentence to show.
fn missing(names: &[&str], ci: bool) -> Result<String, String> {
    let what = names.join(" or ");
    if ci {
        Err(format!(
            "{what} is not installed, and CI is set: the runner must install it"
        ))
    } else {
        Ok(format!(
            "skipped: {what} is not installed (CI installs it; with CI set this test fails)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_that_runs_is_found() {
        assert_eq!(
            found_tool(&["no-such-tool-kotef", "true"], "--version"),
            Some("true".to_string())
        );
    }

    #[test]
    fn a_missing_tool_fails_under_ci() {
        assert_eq!(
            missing(&["chromium", "google-chrome"], true),
            Err("chromium or google-chrome is not installed, and CI is set: the runner must install it".into())
        );
    }

    #[test]
    fn a_missing_tool_skips_outside_ci_saying_so() {
        assert_eq!(
            missing(&["npm"], false),
            Ok(
                "skipped: npm is not installed (CI installs it; with CI set this test fails)"
                    .into()
            )
        );
    }
}
