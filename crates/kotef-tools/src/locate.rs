//! Finding code in a repository of many files: which files are the project's source and which
//! are vendored, generated or fixtures (ranked last by search), the files that define a name
//! (`def name`, `class name`: where a block that names no file goes), and the files that use
//! a set of names, ranked (where a repair that keeps failing in one file looks next). Every
//! walk goes through [`crate::Tree`] and is bounded in files and bytes.

use crate::snapshot::{is_build_artifact, walk_files};
use crate::WorkDir;

/// Bytes of one file read when looking for names; a larger file is skipped (generated).
pub const LOCATE_FILE_BYTES: u64 = 1024 * 1024;
/// Bytes one look-up reads in all at most (source first, so a cut leaves out the rest).
pub const LOCATE_BYTES: u64 = 64 * 1024 * 1024;
/// Files read by one look-up at most.
pub const LOCATE_FILES: usize = 20_000;

/// Where a path stands for search and localisation: 0 the project's source, 1 its tests (in
/// a `tests`-like folder, `pending_tests/` and `integration_tests/` too, or named like one),
/// 2 vendored, generated or installed code (`vendor/`, `third_party/`, `node_modules/`,
/// `build/`, `dist/`, `.venv`, `site-packages`, `*_pb2.py`, minified `.js`), test fixtures and
/// the examples of the documentation (`docs/`, `examples/`: a `def read_root()` there is a
/// tutorial's, not the code a failing test runs).
pub fn rank(path: &str) -> u8 {
    let lower = path.to_lowercase();
    let parts: Vec<&str> = lower.split('/').collect();
    let name = parts.last().copied().unwrap_or_default();
    let vendored = parts[..parts.len().saturating_sub(1)].iter().any(|c| {
        matches!(
            *c,
            "vendor"
                | "vendored"
                | "_vendor"
                | "third_party"
                | "third-party"
                | "thirdparty"
                | "external"
                | "node_modules"
                | "build"
                | "dist"
                | "site-packages"
                | "dist-packages"
                | ".venv"
                | "venv"
                | ".tox"
                | ".eggs"
                | "fixtures"
                | "__snapshots__"
                | "generated"
                | "docs"
                | "doc"
                | "docs_src"
                | "examples"
                | "example"
        )
    });
    let generated = name.ends_with("_pb2.py")
        || name.ends_with("_pb2_grpc.py")
        || name.ends_with(".min.js")
        || name.ends_with(".min.css")
        || name.ends_with(".bundle.js")
        || name.ends_with(".map")
        || name.ends_with(".lock");
    if vendored || generated || is_build_artifact(path) {
        return 2;
    }
    let dirs = &parts[..parts.len().saturating_sub(1)];
    let test = parts
        .iter()
        .any(|c| matches!(*c, "test" | "tests" | "testing" | "spec" | "__tests__"))
        || (dirs.iter()).any(|c| c.ends_with("_tests") || c.ends_with("_test"))
        || name.starts_with("test_")
        || name.contains("_test.")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name == "conftest.py";
    u8::from(test)
}

/// Whether `path` is code kotef looks into for names: a source file of a language whose
/// definitions it reads.
fn is_code(path: &str) -> bool {
    [
        ".py", ".pyi", ".rs", ".js", ".mjs", ".ts", ".tsx", ".jsx", ".go", ".rb", ".java", ".kt",
        ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".php", ".sh", ".swift", ".scala",
    ]
    .iter()
    .any(|e| path.ends_with(e))
}

/// The repository's code files (no links, no build output), ranked source first, with their
/// text; at most [`LOCATE_FILES`], each read within [`LOCATE_FILE_BYTES`], all within
/// [`LOCATE_BYTES`].
pub fn code_files(wd: &WorkDir) -> Vec<(String, String)> {
    let (_, walked) = walk_files(wd.root(), &[".sdd"]);
    let mut paths: Vec<String> = walked
        .into_iter()
        .filter(|w| w.link.is_none() && is_code(&w.rel) && rank(&w.rel) < 2)
        .map(|w| w.rel)
        .take(LOCATE_FILES)
        .collect();
    paths.sort_by_key(|p| rank(p));
    let tree = wd.tree();
    let mut read_so_far = 0u64;
    paths
        .into_iter()
        .map_while(|p| {
            if read_so_far >= LOCATE_BYTES {
                return None;
            }
            let read = tree.read(&p, LOCATE_FILE_BYTES).ok();
            read_so_far += read.as_ref().map_or(0, |r| r.bytes.len() as u64);
            Some(
                read.filter(|r| !r.truncated)
                    .map(|r| (p, String::from_utf8_lossy(&r.bytes).into_owned())),
            )
        })
        .flatten()
        .collect()
}

/// The files that define any of `names`, source before tests, at most `cap`.
pub fn files_defining(wd: &WorkDir, names: &[String], cap: usize) -> Vec<String> {
    if names.is_empty() {
        return Vec::new();
    }
    code_files(wd)
        .into_iter()
        .filter(|(_, text)| names.iter().any(|n| crate::outline::defines(text, n)))
        .map(|(p, _)| p)
        .take(cap)
        .collect()
}

/// The files holding `needle` (a block's SEARCH text), at most `cap`.
pub fn files_holding(wd: &WorkDir, needle: &str, cap: usize) -> Vec<String> {
    let needle = needle.trim();
    if needle.is_empty() {
        return Vec::new();
    }
    code_files(wd)
        .into_iter()
        .filter(|(_, text)| text.contains(needle))
        .map(|(p, _)| p)
        .take(cap)
        .collect()
}

/// A file where some of the names a failure mentions are defined or used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub path: String,
    /// Names it defines (a definition counts most).
    pub defines: Vec<String>,
    /// Lines that use one of the names.
    pub uses: usize,
    /// 1-based lines of its [`PLACE_LINES`] weightiest uses and definitions (see
    /// [`line_weight`]), the weightiest first, to show the code around them.
    pub lines: Vec<usize>,
    /// The names it defines or uses, each once.
    pub names: Vec<String>,
}

/// How much a name found in `holding` of `files` code files says of where the fix is, in
/// thousandths: a name few files hold (`_FrozenOrderedDict`) says much, one most files hold
/// (`loads`, `get`) little (inverse document frequency, as search engines weigh words).
fn weight(holding: usize, files: usize) -> u64 {
    let idf = ((files as f64 + 1.0) / (holding as f64 + 0.5))
        .ln()
        .max(0.0);
    (idf * 1000.0) as u64
}

/// Lines of a place shown at most.
pub const PLACE_LINES: usize = 4;
/// Lines of a file with hits that are weighed to choose [`PLACE_LINES`] of them, at most.
const WEIGHED_LINES: usize = 400;

/// A line's weight from the names it holds: a definition counts three times, as in [`score`].
fn line_weight(hit: &Hit, weights: &std::collections::HashMap<String, u64>) -> u64 {
    let named: u64 = hit
        .names
        .iter()
        .map(|n| weights.get(n).copied().unwrap_or(0))
        .sum();
    if hit.defines {
        3 * named
    } else {
        named
    }
}

/// A line holding some of the names.
struct Hit {
    line: usize,
    names: Vec<String>,
    defines: bool,
}

/// A place's score from the weights of its names: a name it defines counts three times one
/// it only uses; the number of uses breaks ties.
fn score(place: &Place, weights: &std::collections::HashMap<String, u64>) -> (u64, usize) {
    let of = |n: &String| weights.get(n).copied().unwrap_or(0);
    let defined: u64 = place.defines.iter().map(of).sum();
    let named: u64 = place.names.iter().map(of).sum();
    (named + 2 * defined, place.uses.min(20))
}

/// The files where `names` are defined or used, best first: source before tests, then by
/// the names they hold, each weighed by how few files hold it ([`weight`]), a definition
/// most; vendored and generated files are not looked at. At most `cap`.
pub fn places(wd: &WorkDir, names: &[String], cap: usize) -> Vec<Place> {
    let words: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| n.len() >= 3)
        .collect();
    if words.is_empty() {
        return Vec::new();
    }
    let code = code_files(wd);
    let mut holding: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut found: Vec<(u8, Place, Vec<Hit>)> = Vec::new();
    for (path, text) in &code {
        let mut place = Place {
            path: path.clone(),
            defines: Vec::new(),
            uses: 0,
            lines: Vec::new(),
            names: Vec::new(),
        };
        let mut hits: Vec<Hit> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let hit: Vec<&str> = words
                .iter()
                .copied()
                .filter(|w| contains_word(line, w))
                .collect();
            if hit.is_empty() {
                continue;
            }
            for w in &hit {
                if !place.names.iter().any(|n| n == w) {
                    place.names.push(w.to_string());
                }
            }
            let defined = crate::outline::outline(line)
                .into_iter()
                .find(|d| hit.contains(&d.name.as_str()));
            let defines = defined.is_some();
            match defined {
                Some(d) if !place.defines.contains(&d.name) => place.defines.push(d.name),
                _ => place.uses += 1,
            }
            if hits.len() < WEIGHED_LINES {
                hits.push(Hit {
                    line: i + 1,
                    names: hit.iter().map(|w| w.to_string()).collect(),
                    defines,
                });
            }
        }
        for n in &place.names {
            *holding.entry(n.clone()).or_insert(0) += 1;
        }
        if !hits.is_empty() {
            found.push((rank(path), place, hits));
        }
    }
    let weights: std::collections::HashMap<String, u64> = holding
        .into_iter()
        .map(|(w, n)| (w, weight(n, code.len())))
        .collect();
    let mut found: Vec<(u8, Place)> = found
        .into_iter()
        .map(|(r, mut place, mut hits)| {
            // The weightiest lines first, the earliest first among equals.
            hits.sort_by_key(|h| (std::cmp::Reverse(line_weight(h, &weights)), h.line));
            place.lines = hits.iter().take(PLACE_LINES).map(|h| h.line).collect();
            (r, place)
        })
        .collect();
    found.sort_by(|(ra, a), (rb, b)| {
        ra.cmp(rb)
            .then(score(b, &weights).cmp(&score(a, &weights)))
            .then(a.path.cmp(&b.path))
    });
    found.into_iter().map(|(_, p)| p).take(cap).collect()
}

/// Whether `c` may stand inside an identifier.
fn ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Where `word` starts in `text` with no identifier character before it (`urljoin` in
/// `x = urljoin(`, not in `my_urljoin(`): the offsets, for the caller to check what follows.
pub fn name_starts<'a>(text: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    text.match_indices(word)
        .map(|(at, _)| at)
        .filter(move |&at| !text[..at].chars().next_back().is_some_and(ident))
}

/// Whether `word` stands in `line` as a whole identifier (`ERROR_TOO_MANY_REDIRECTS` is not in
/// `ERROR_TOO_MANY_REDIRECTS_X`).
fn contains_word(line: &str, word: &str) -> bool {
    name_starts(line, word).any(|at| !line[at + word.len()..].chars().next().is_some_and(ident))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_ranks_before_tests_and_vendored_or_generated_code_last() {
        let ranks: Vec<u8> = [
            "httpie/client.py",
            "tests/test_redirects.py",
            "pending_tests/main.py",
            "vendor/requests/api.py",
            "third_party/x.py",
            "node_modules/a/index.js",
            "build/lib/httpie/core.py",
            "dist/app.js",
            "proto/api_pb2.py",
            "static/app.min.js",
            ".venv/lib/python3.11/site-packages/six.py",
            "tests/fixtures/sample.py",
            "docs/src/tutorial001.py",
            "examples/app.py",
        ]
        .iter()
        .map(|p| rank(p))
        .collect();
        assert_eq!(ranks, [0, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
    }

    use crate::workdir::with_files as tree;

    #[test]
    fn a_rare_name_outranks_many_uses_of_a_common_one() {
        let mut files: Vec<(String, String)> = (0..12)
            .map(|i| {
                (
                    format!("pkg/m{i}.py"),
                    "import json\n\ndef f(x):\n    a = json.loads(x)\n    return json.loads(a)\n"
                        .to_string(),
                )
            })
            .collect();
        files.push((
            "pkg/params.py".into(),
            "import json\n\ndef parse(x):\n    return _Frozen(json.loads(x))\n".into(),
        ));
        let borrowed: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let (_t, wd) = tree(&borrowed);
        let names = ["loads".to_string(), "_Frozen".to_string()];
        let found = places(&wd, &names, 3);
        assert_eq!(found[0].path, "pkg/params.py", "{found:?}");
    }

    #[test]
    fn a_file_defining_a_name_outranks_one_using_it() {
        let (_t, wd) = tree(&[
            (
                "pkg/a.py",
                "from pkg.b import ExitStatus\n\nx = ExitStatus.OK\ny = ExitStatus.ERROR\n",
            ),
            ("pkg/b.py", "class ExitStatus:\n    OK = 0\n"),
        ]);
        let found = places(&wd, &["ExitStatus".to_string()], 3);
        let paths: Vec<&str> = found.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["pkg/b.py", "pkg/a.py"]);
    }

    #[test]
    fn a_place_is_shown_around_its_rarest_names_not_its_first_hits() {
        let mut files: Vec<(String, String)> = (0..6)
            .map(|i| (format!("pkg/m{i}.py"), "import json\n".to_string()))
            .collect();
        let mut routing = String::from("import json\n");
        for i in 0..10 {
            routing.push_str(&format!("a{i} = json.dumps({i})\n"));
        }
        routing.push_str("def serialize(skip_defaults):\n    return skip_defaults\n");
        files.push(("pkg/routing.py".into(), routing));
        let borrowed: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let (_t, wd) = tree(&borrowed);
        let names = ["json".to_string(), "skip_defaults".to_string()];
        let found = places(&wd, &names, 1);
        assert_eq!(found[0].path, "pkg/routing.py");
        let lines = &found[0].lines;
        assert!(lines.contains(&12) && lines.contains(&13), "{found:?}");
    }

    #[test]
    fn a_name_is_a_whole_identifier() {
        assert!(contains_word(
            "return ExitStatus.ERROR_TOO_MANY_REDIRECTS",
            "ERROR_TOO_MANY_REDIRECTS"
        ));
        assert!(!contains_word(
            "X_ERROR_TOO_MANY_REDIRECTS",
            "ERROR_TOO_MANY_REDIRECTS"
        ));
    }
}
