//! The words of names, to tell which code a failing test is about by what both are called:
//! `test_facebook_login` → `facebook`, `login`; `HTTPHeaders.parse_line` → `http`,
//! `headers`, `parse`, `line`. A definition's words are its name's, those of the definitions
//! around it (its class) and its file's (`tornado/auth.py` → `auth`). Pure; any language
//! whose names are `snake_case` or `camelCase`.

use kotef_tools::outline::Outlined;
use std::collections::BTreeSet;

/// Words too common in tests and code to tell one function from another.
const COMMON: &[&str] = &[
    "test", "tests", "testcase", "self", "cls", "assert", "equal", "equals", "true", "false",
    "none", "init", "setup", "teardown", "case",
];

/// The fewest letters a word has.
const MIN_LETTERS: usize = 3;

/// The lower-case words of every name in `text`: split at anything but a letter and where
/// the case changes from lower to upper, an upper-case run ending before its last letter
/// when a lower-case one follows (`HTTPHeaders` → `http`, `headers`); at least
/// [`MIN_LETTERS`] letters, none of [`COMMON`].
pub fn words(text: &str) -> BTreeSet<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = BTreeSet::new();
    let mut word = String::new();
    let keep = |w: &mut String, out: &mut BTreeSet<String>| {
        if w.len() >= MIN_LETTERS && !COMMON.contains(&w.as_str()) {
            out.insert(std::mem::take(w));
        }
        w.clear();
    };
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphabetic() {
            keep(&mut word, &mut out);
            continue;
        }
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        let starts = c.is_ascii_uppercase()
            && match prev {
                Some(p) if p.is_ascii_lowercase() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
        if starts {
            keep(&mut word, &mut out);
        }
        word.push(c.to_ascii_lowercase());
    }
    keep(&mut word, &mut out);
    out
}

/// The words of the definition holding 1-based `line` of the file at `path` whose
/// definitions are `outline`: the names of every definition holding the line (the function,
/// the class around it) and the file's stem.
pub fn of_definition(path: &str, outline: &[Outlined], line: usize) -> BTreeSet<String> {
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let mut out = words(stem);
    for d in outline.iter().filter(|d| d.first <= line && line <= d.last) {
        out.extend(words(&d.name));
    }
    out
}

/// How many words `a` and `b` share.
pub fn shared(a: &BTreeSet<String>, b: &BTreeSet<String>) -> usize {
    a.intersection(b).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kotef_tools::outline::outline;

    fn list(s: &BTreeSet<String>) -> Vec<&str> {
        s.iter().map(String::as_str).collect()
    }

    #[test]
    fn a_test_id_gives_the_words_of_its_module_class_and_function() {
        let w = words("tornado.test.auth_test.AuthTest.test_facebook_login");
        assert_eq!(list(&w), ["auth", "facebook", "login", "tornado"]);
    }

    #[test]
    fn camel_case_and_upper_case_runs_split_into_words() {
        assert_eq!(list(&words("HTTPHeaders")), ["headers", "http"]);
        assert_eq!(list(&words("parseLine2Ok")), ["line", "parse"]);
        assert_eq!(
            list(&words("ERROR_TOO_MANY_REDIRECTS")),
            ["error", "many", "redirects", "too"]
        );
    }

    #[test]
    fn short_and_common_words_are_left_out() {
        assert!(words("self.assertEqual(x, None) or test_a").is_empty());
    }

    #[test]
    fn a_methods_words_are_its_name_its_class_and_its_file() {
        let text = "import os\n\n\nclass FacebookMixin:\n    @property\n    def get_user(self):\n        return 1\n\n\ndef other():\n    pass\n";
        let o = outline(text);
        let method = of_definition("tornado/auth.py", &o, 5);
        assert_eq!(list(&method), ["auth", "facebook", "get", "mixin", "user"]);
        assert_eq!(
            list(&of_definition("tornado/auth.py", &o, 10)),
            ["auth", "other"]
        );
        assert_eq!(shared(&words("test_facebook_login"), &method), 1);
    }
}
