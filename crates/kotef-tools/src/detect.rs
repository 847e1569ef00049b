//! Test-command detection: the verifier's command when the config names none, guessed from the
//! files at the repository root.

use crate::tree::{Kind, Tree};
use std::path::Path;

/// Manifests are small; a larger one is not worth reading.
const MANIFEST_CAP: u64 = 4 * 1024 * 1024;

/// The repository root as the detector sees it: through [`Tree`], so a manifest that is a
/// link or a FIFO counts as absent.
struct Root(Option<Tree>);

impl Root {
    fn join(&self, name: &str) -> Entry<'_> {
        Entry(self, name.to_string())
    }
}

struct Entry<'a>(&'a Root, String);

impl Entry<'_> {
    fn regular(&self) -> bool {
        self.0
             .0
            .as_ref()
            .is_some_and(|t| matches!(t.kind(&self.1), Ok(Kind::File { .. })))
    }
    fn folder(&self) -> bool {
        self.0
             .0
            .as_ref()
            .is_some_and(|t| matches!(t.kind(&self.1), Ok(Kind::Dir)))
    }
}

fn read(root: &Root, name: &str) -> Option<String> {
    let c = root.0.as_ref()?.read(name, MANIFEST_CAP).ok()?;
    if c.truncated {
        return None;
    }
    String::from_utf8(c.bytes).ok()
}

/// The npm placeholder `npm init` writes, which is no test at all.
fn is_npm_placeholder(script: &str) -> bool {
    script.contains("no test specified")
}

fn has_makefile_test_target(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_end();
        l.starts_with("test:") || l.starts_with("test ::") || l.starts_with("test :")
    })
}

fn is_executable(e: &Entry<'_>) -> bool {
    e.0 .0.as_ref().is_some_and(|t| t.is_executable(&e.1))
}

/// Detects the repository's test command:
/// `Cargo.toml` → `cargo test`; `package.json` with a real `scripts.test` → `npm test` (`bun
/// test` with a bun lock file and no such script); `deno.json(c)` → `deno test`; pytest
/// configuration (`pytest.ini`, `[tool.pytest...]` in `pyproject.toml`, `[tool:pytest]` in
/// `setup.cfg`, `tox.ini` with `[pytest]`) or a Python project with a `tests/` folder →
/// `pytest`; `tox.ini` → `tox`; `noxfile.py` → `nox`; `go.mod` → `go test ./...`; `gradlew` →
/// `./gradlew test`; `pom.xml` → `mvn test`; a Makefile with a `test:` target → `make test`;
/// an executable `script/test`, `scripts/test` or `test.sh` → that script.
pub fn detect_test_command(root: &Path) -> Option<String> {
    let root = &Root(Tree::open(root).ok());
    if root.join("Cargo.toml").regular() {
        return Some("cargo test".into());
    }
    if let Some(text) = read(root, "package.json") {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
            if let Some(script) = v.pointer("/scripts/test").and_then(|s| s.as_str()) {
                if !script.trim().is_empty() && !is_npm_placeholder(script) {
                    return Some("npm test".into());
                }
            }
        }
        if root.join("bun.lockb").regular() || root.join("bun.lock").regular() {
            return Some("bun test".into());
        }
    }
    if root.join("deno.json").regular() || root.join("deno.jsonc").regular() {
        return Some("deno test".into());
    }
    let pyproject = read(root, "pyproject.toml");
    let setup_cfg = read(root, "setup.cfg");
    let pytest_configured = root.join("pytest.ini").regular()
        || root.join("conftest.py").regular()
        || pyproject.as_deref().is_some_and(|t| t.contains("pytest"))
        || setup_cfg.as_deref().is_some_and(|t| t.contains("pytest"))
        || read(root, "tox.ini").is_some_and(|t| t.contains("[pytest]"));
    let python_project = pyproject.is_some()
        || setup_cfg.is_some()
        || root.join("setup.py").regular()
        || root.join("requirements.txt").regular();
    let has_tests_dir = root.join("tests").folder() || root.join("test").folder();
    if pytest_configured || (python_project && has_tests_dir) {
        return Some("pytest".into());
    }
    if root.join("tox.ini").regular() {
        return Some("tox".into());
    }
    if root.join("noxfile.py").regular() {
        return Some("nox".into());
    }
    if root.join("go.mod").regular() {
        return Some("go test ./...".into());
    }
    if root.join("gradlew").regular() {
        return Some("./gradlew test".into());
    }
    if root.join("pom.xml").regular() {
        return Some("mvn test".into());
    }
    for name in ["Makefile", "makefile", "GNUmakefile"] {
        if let Some(text) = read(root, name) {
            if has_makefile_test_target(&text) {
                return Some("make test".into());
            }
        }
    }
    ["script/test", "scripts/test", "test.sh"]
        .into_iter()
        .find(|p| is_executable(&root.join(p)))
        .map(|p| format!("./{p}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        for (p, c) in files {
            let path = t.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, c).unwrap();
        }
        t
    }

    type Case<'a> = (&'a [(&'a str, &'a str)], Option<&'a str>);

    #[test]
    fn detection_table() {
        let table: &[Case] = &[
            (
                &[("Cargo.toml", "[package]\nname='x'\n")],
                Some("cargo test"),
            ),
            (
                &[("package.json", r#"{"scripts":{"test":"jest"}}"#)],
                Some("npm test"),
            ),
            (
                &[(
                    "package.json",
                    r#"{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}"#,
                )],
                None,
            ),
            (&[("package.json", r#"{"name":"x"}"#)], None),
            (&[("package.json", "not json")], None),
            (
                &[("pyproject.toml", "[tool.pytest.ini_options]\n")],
                Some("pytest"),
            ),
            (&[("pytest.ini", "[pytest]\n")], Some("pytest")),
            (&[("setup.cfg", "[tool:pytest]\n")], Some("pytest")),
            (
                &[
                    ("pyproject.toml", "[project]\nname='x'\n"),
                    ("tests/test_a.py", ""),
                ],
                Some("pytest"),
            ),
            (&[("pyproject.toml", "[project]\nname='x'\n")], None),
            (&[("go.mod", "module x\n")], Some("go test ./...")),
            (
                &[("Makefile", "build:\n\tcc x.c\ntest: build\n\t./t\n")],
                Some("make test"),
            ),
            (&[("Makefile", "build:\n\tcc x.c\n")], None),
            (&[("README.md", "hi")], None),
            (
                &[("Cargo.toml", ""), ("Makefile", "test:\n\ttrue\n")],
                Some("cargo test"),
            ),
            (&[("tox.ini", "[tox]\nenvlist = py3\n")], Some("tox")),
            (&[("tox.ini", "[pytest]\n")], Some("pytest")),
            (&[("noxfile.py", "import nox\n")], Some("nox")),
            (&[("gradlew", "#!/bin/sh\n")], Some("./gradlew test")),
            (&[("pom.xml", "<project/>")], Some("mvn test")),
            (&[("deno.json", "{}")], Some("deno test")),
            (
                &[("package.json", r#"{"name":"x"}"#), ("bun.lockb", "")],
                Some("bun test"),
            ),
            (
                &[
                    ("package.json", r#"{"scripts":{"test":"jest"}}"#),
                    ("bun.lock", ""),
                ],
                Some("npm test"),
            ),
        ];
        for (files, want) in table {
            let t = repo(files);
            assert_eq!(detect_test_command(t.path()).as_deref(), *want, "{files:?}");
        }
    }

    fn make_executable(path: &Path) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn executable_test_scripts_are_detected() {
        for script in ["script/test", "scripts/test", "test.sh"] {
            let t = repo(&[(script, "#!/bin/sh\nexit 0\n")]);
            assert_eq!(
                detect_test_command(t.path()),
                None,
                "{script} is not executable"
            );
            make_executable(&t.path().join(script));
            assert_eq!(
                detect_test_command(t.path()),
                Some(format!("./{script}")),
                "{script}"
            );
        }
    }
}
