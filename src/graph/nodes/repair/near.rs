//! How near a function is to the failing test by name, to tell apart the many functions only
//! the failing test ran ([`crate::graph::memory::spectrum::Spectrum::telling_near`]): the
//! words ([`crate::lang::words`]) its name, its class's and its file's share with the failing
//! tests' ids (`tornado.test.auth_test.AuthTest.test_facebook_login` → `auth`, `facebook`,
//! `login`) and the failure's names. A spectrum whose failing test ran fifty functions its
//! neighbours did not says nothing of which; the test's name often does.
//!
//! Bounded: each file is read once, capped, through the tree (no link followed), and at most
//! [`MAX_FILES`] files are read; a function of a file past them is not near.

use crate::lang::words;
use kotef_tools::outline::{outline, Outlined};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// The most files whose definitions are read to tell how near their functions are.
pub const MAX_FILES: usize = 64;

/// Reads a file of the tree, capped; `None` when it cannot be read.
type Reader<'a> = Box<dyn Fn(&str) -> Option<String> + 'a>;

/// The words of the failing tests and the failure, and the files' definitions read so far.
pub(super) struct Near<'a> {
    query: BTreeSet<String>,
    read: Reader<'a>,
    outlines: RefCell<BTreeMap<String, Option<Vec<Outlined>>>>,
}

impl<'a> Near<'a> {
    /// Nearness to the failing tests `ids` (as the command names them or the failing run
    /// reported them: `pkg.test_x.T.test_y`, `test_y`) and the failure's `names`, reading
    /// files with `read`.
    pub(super) fn new<'t>(
        ids: impl IntoIterator<Item = &'t str>,
        names: &[String],
        read: impl Fn(&str) -> Option<String> + 'a,
    ) -> Self {
        let mut query = BTreeSet::new();
        for text in ids {
            query.extend(words::words(text));
        }
        for text in names {
            query.extend(words::words(text));
        }
        Near {
            query,
            read: Box::new(read),
            outlines: RefCell::default(),
        }
    }

    /// Nothing is near (no words to share).
    #[cfg(test)]
    pub(super) fn nothing() -> Near<'static> {
        Near {
            query: BTreeSet::new(),
            read: Box::new(|_| None),
            outlines: RefCell::default(),
        }
    }

    /// How many words the function at 1-based `first` of `path` shares with the failing
    /// tests and the failure ([`words::of_definition`]); 0 when its file cannot be read.
    pub(super) fn of(&self, path: &str, first: usize) -> usize {
        if self.query.is_empty() {
            return 0;
        }
        let mut outlines = self.outlines.borrow_mut();
        if !outlines.contains_key(path) {
            let read = (outlines.len() < MAX_FILES)
                .then(|| (self.read)(path))
                .flatten();
            outlines.insert(path.to_string(), read.map(|t| outline(&t)));
        }
        match outlines.get(path) {
            Some(Some(o)) => words::shared(&self.query, &words::of_definition(path, o, first)),
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AUTH: &str = "class FacebookMixin:\n    def facebook_request(self):\n        return 1\n\n\nclass TwitterMixin:\n    def twitter_request(self):\n        return 2\n";

    fn near() -> Near<'static> {
        Near::new(
            ["tornado.test.auth_test.AuthTest.test_facebook_login"],
            &[],
            |p| (p == "tornado/auth.py").then(|| AUTH.to_string()),
        )
    }

    #[test]
    fn a_function_named_like_the_failing_test_is_nearer_than_its_neighbours() {
        let n = near();
        assert_eq!(n.of("tornado/auth.py", 2), 2);
        assert_eq!(n.of("tornado/auth.py", 7), 1);
    }

    #[test]
    fn a_file_that_cannot_be_read_is_not_near() {
        assert_eq!(near().of("tornado/web.py", 2), 0);
    }

    #[test]
    fn the_failures_names_are_words_too() {
        let n = Near::new(["test_twitter_show"], &["Mixin".to_string()], |_| {
            Some(AUTH.to_string())
        });
        assert_eq!(n.of("tornado/auth.py", 7), 2);
    }
}
