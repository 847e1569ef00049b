use super::placed::Candidate;
use super::targets::{Target, Targets};
use super::templates::share;
use super::typed::candidates;
use crate::graph::prompt::code_view::Traceback;
use kotef_tools::Change;
use std::time::Duration;

fn trace(frames: &[(&str, usize)]) -> Traceback {
    Traceback {
        repo: frames.iter().map(|(p, l)| (p.to_string(), *l)).collect(),
        ..Traceback::default()
    }
}

fn replacements(found: &[Candidate]) -> Vec<String> {
    found
        .iter()
        .map(|c| match &c.block.change {
            Change::Replace { replace, .. } => replace.clone(),
            Change::Code { text } => text.clone(),
        })
        .collect()
}

const HTTPUTIL: &str = "\
from urllib.parse import urlparse


def url_concat(url, args):
    \"\"\"Concatenate url and arguments.\"\"\"
    parsed_url = urlparse(url)
    if isinstance(args, dict):
        query = list(args.items())
    else:
        err = \"'args' parameter should be dict, list or tuple. Not {0}\".format(type(args))
        raise TypeError(err)
    url = parsed_url.geturl() + '?' + '&'.join('%s=%s' % kv for kv in query)
    return url
";

const NONE_ARGS: &str = "Traceback (most recent call last):\n  File \"t.py\", line 3, in test\n\
    TypeError: 'args' parameter should be dict, list or tuple. Not <class 'NoneType'>\n";

#[test]
fn a_none_rejected_by_a_raise_in_the_function_the_test_calls_is_guarded_at_its_top() {
    let found = candidates(
        NONE_ARGS,
        &trace(&[("web/httputil.py", 11)]),
        &[("web/httputil.py".into(), HTTPUTIL.into())],
    );
    let got = replacements(&found);
    assert_eq!(
        got.first().map(String::as_str),
        Some("    if args is None:\n        args = {}\n    parsed_url = urlparse(url)")
    );
    assert!(got.contains(
        &"    if args is None:\n        return url\n    parsed_url = urlparse(url)".to_string()
    ));
    assert!(
        found[0].why.contains("web/httputil.py:6"),
        "{}",
        found[0].why
    );
}

#[test]
fn a_raise_checking_its_argument_sends_the_templates_to_its_caller_first() {
    let util = "def to_bytes(text):\n    if not isinstance(text, str):\n        raise TypeError('to_bytes must receive a unicode, str or bytes object, got %s' % type(text).__name__)\n    return text.encode()\n";
    let request = "def httprepr(parsed):\n    s = b'GET'\n    s += b\"Host: \" + to_bytes(parsed.hostname) + b\"\\r\\n\"\n    return s\n";
    let output = "TypeError: to_bytes must receive a unicode, str or bytes object, got NoneType\n";
    let found = candidates(
        output,
        &trace(&[("pkg/util.py", 3), ("pkg/request.py", 3)]),
        &[
            ("pkg/util.py".into(), util.into()),
            ("pkg/request.py".into(), request.into()),
        ],
    );
    assert_eq!(
        replacements(&found).first().map(String::as_str),
        Some("    s += b\"Host: \" + to_bytes(parsed.hostname or '') + b\"\\r\\n\"")
    );
}

#[test]
fn a_failure_no_template_knows_gives_no_candidate() {
    let found = candidates(
        "AssertionError: 'None' != None\n",
        &trace(&[("web/httputil.py", 11)]),
        &[("web/httputil.py".into(), HTTPUTIL.into())],
    );
    assert!(found.is_empty());
}

#[test]
fn the_templates_take_a_sixth_of_the_time_left_and_never_more_than_ninety_seconds() {
    assert_eq!(share(Duration::from_secs(300)), Duration::from_secs(50));
    assert_eq!(share(Duration::from_secs(3000)), Duration::from_secs(90));
}

const URL_BASENAME: &str = "import re\n\n\ndef url_basename(url):\n    m = re.match(r'(?:https?:|)//[^/]+/(?:[^/?#]+/)?([^/?#]+)/?(?:[?#]|$)', url)\n    if not m:\n        return ''\n    return m.group(1)\n";

/// The candidates without their statements' places.
fn placed(found: Vec<(usize, Candidate)>) -> Vec<Candidate> {
    found.into_iter().map(|(_, c)| c).collect()
}

fn offered(path: &str, text: &str, lines: &[usize]) -> Targets {
    Targets {
        frames: Vec::new(),
        sweep: lines
            .iter()
            .filter_map(|l| Target::around(path, text, *l))
            .collect(),
        ..Default::default()
    }
}

#[test]
fn the_patterns_of_the_offered_statements_are_mutated_and_the_class_that_excludes_too_much_is_among_them(
) {
    let found = super::patterns::candidates(
        &offered("yt/utils.py", URL_BASENAME, &[7, 5]),
        "self.assertEqual(url_basename('http://media.w3.org/2010/05/sintel/trailer.mp4'), 'trailer.mp4')",
    );
    let got = replacements(&found);
    let fixed = "    m = re.match(r'(?:https?:|)//[^/]+/(?:[^?#]+/)?([^/?#]+)/?(?:[?#]|$)', url)";
    assert!(got.iter().any(|r| r == fixed), "{got:#?}");
    assert_eq!(
        got[0],
        "    m = re.match(r'(?:https?:|)//[^/]*/(?:[^/?#]+/)?([^/?#]+)/?(?:[?#]|$)', url)"
    );
}

#[test]
fn a_statement_without_a_raw_string_pattern_gives_no_mutant() {
    let found = super::patterns::candidates(&offered("yt/utils.py", URL_BASENAME, &[7, 8]), "");
    assert!(found.is_empty());
}

const IOLOOP: &str = "def start(self):\n    if current(instance=False) is None:\n        self.make_current()\n    for cb in self.callbacks:\n        cb()\n";

#[test]
fn the_conditions_of_the_offered_statements_are_mutated_in_their_order() {
    let found = placed(super::conditions::candidates(&offered(
        "io/ioloop.py",
        IOLOOP,
        &[4, 2],
    )));
    assert_eq!(
        replacements(&found),
        [
            "    if current(instance=False) is not None:",
            "    if not (current(instance=False) is None):",
        ]
    );
    assert!(found[0].why.contains("io/ioloop.py:2"), "{}", found[0].why);
}

#[test]
fn no_more_statements_than_the_cap_have_their_conditions_mutated() {
    let many: String = (0..10)
        .map(|i| format!("def f{i}(x):\n    if x == {i}:\n        return x\n\n\n"))
        .collect();
    let lines: Vec<usize> = (0..10).map(|i| 2 + 5 * i).collect();
    let found = placed(super::conditions::candidates(&offered(
        "m.py", &many, &lines,
    )));
    let places: std::collections::BTreeSet<String> = found
        .iter()
        .map(|c| c.why.rsplit(' ').next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(places.len(), super::conditions::MAX_STATEMENTS);
}

const LENGTH: &str = "def length(response, data):\n    if response.url is None:\n        return 0\n    return len(response.body)\n";

#[test]
fn the_names_of_the_offered_statements_are_swapped_for_the_projects() {
    let files = [("page.py".to_string(), LENGTH.to_string())];
    let project = || vec![("a.py".to_string(), "x = response.text\n".to_string())];
    let found = super::names::candidates(&offered("page.py", LENGTH, &[4]), &files, project);
    assert_eq!(
        replacements(&placed(found)),
        ["    return len(response.text)", "    return len(data.body)"]
    );
}

#[test]
fn a_statements_conditions_and_names_are_tried_before_the_next_statements() {
    let targets = offered("page.py", LENGTH, &[4, 2]);
    let files = [("page.py".to_string(), LENGTH.to_string())];
    let project = || vec![("a.py".to_string(), "x = response.text\n".to_string())];
    let names = super::names::candidates(&targets, &files, project);
    let conditions = super::conditions::candidates(&targets);
    let found = super::templates::by_statement(conditions, names);
    let places: Vec<&str> = found
        .iter()
        .map(|c| c.why.rsplit(':').next().unwrap_or_default())
        .collect();
    assert_eq!(places, ["4)", "4)", "2)", "2)", "2)", "2)"]);
    assert!(found[2].why.starts_with("condition"), "{}", found[2].why);
}

#[test]
fn the_tests_code_and_harness_are_never_changed_by_a_template() {
    for path in [
        "tests/util.py",
        "test_page.py",
        "conftest.py",
        "tornado/testing.py",
        "pkg/mytest.py",
    ] {
        assert!(crate::graph::prompt::context::tests_code(path), "{path}");
    }
    for path in [
        "scrapy/spiders/sitemap.py",
        "luigi/file.py",
        "pkg/contest/rules.py",
    ] {
        assert!(!crate::graph::prompt::context::tests_code(path), "{path}");
    }
}
