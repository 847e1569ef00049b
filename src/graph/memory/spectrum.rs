//! A spectrum of what the failing tests ran (measured by `nodes::repair::spectrum`'s traced
//! run): each function's and line's Ochiai score, `failed(x) / sqrt(failed * (failed(x) +
//! passed(x)))`, over the tests that called or ran it: 1 for code only the failing tests ran,
//! less the more passing tests ran it too, none for code they did not run. Pure.

use std::collections::{BTreeMap, BTreeSet};

/// The functions that may share a score at least as high as a function's for it to be told
/// apart ([`Spectrum::telling`]).
pub const FUNCTION_POOL: usize = 6;

/// Each function's score and the lines the failing tests ran in it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spectrum {
    /// (path, first line) → Ochiai score in (0, 1], for the functions the failing tests ran.
    functions: BTreeMap<(String, usize), f64>,
    /// (path, 1-based line) → Ochiai score in (0, 1], for the lines the failing tests ran.
    lines: BTreeMap<(String, usize), f64>,
    /// The failing tests traced, and the passing ones.
    pub failing: u32,
    pub passing: u32,
    /// Whether the tracer ended the run once the failing tests had run, past its deadline
    /// (the tests after them untraced).
    pub cut: bool,
}

/// How far the failing tests went their own way in a function ([`Spectrum::path_key`]).
type PathKey = (f64, usize, f64);

/// The tracer's record: test function → file → function (its first line) → lines run.
type Record = BTreeMap<String, BTreeMap<String, BTreeMap<String, Vec<usize>>>>;

impl Spectrum {
    /// The spectrum of a tracer record (`{"tests": {test: {file: {first line: [lines]}}}}`),
    /// the tests of `failed` failing and the others passing; `None` when the record cannot be
    /// read or no failing test is in it. A function's and a line's score is the Ochiai score
    /// over the tests that called or ran it (the passing tests' lines are those of a
    /// function's first call in each); code run outside any test (imports, `<setup>`) is
    /// left out.
    pub fn read(record: &str, failed: &BTreeSet<String>) -> Option<Spectrum> {
        #[derive(serde::Deserialize)]
        struct Root {
            tests: Record,
            #[serde(default)]
            cut: bool,
        }
        let root: Root = serde_json::from_str(record).ok()?;
        let mut called: BTreeMap<(String, usize), (u32, u32)> = BTreeMap::new();
        let mut ran: BTreeMap<(String, usize), (u32, u32)> = BTreeMap::new();
        let (mut failing, mut passing) = (0, 0);
        let count = |e: &mut (u32, u32), fails: bool| {
            if fails {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        };
        for (test, files) in root.tests.iter().filter(|(t, _)| t.starts_with("test")) {
            let fails = failed.contains(test);
            if fails {
                failing += 1;
            } else {
                passing += 1;
            }
            for (path, defs) in files {
                for (first, lines) in defs {
                    let Ok(first) = first.parse::<usize>() else {
                        continue;
                    };
                    count(called.entry((path.clone(), first)).or_default(), fails);
                    for l in lines {
                        count(ran.entry((path.clone(), *l)).or_default(), fails);
                    }
                }
            }
        }
        if failing == 0 {
            return None;
        }
        let ochiai = |counts: BTreeMap<(String, usize), (u32, u32)>| {
            counts
                .into_iter()
                .filter(|(_, (f, _))| *f > 0)
                .map(|(k, (f, p))| {
                    let (f, p) = (f64::from(f), f64::from(p));
                    (k, f / (f64::from(failing) * (f + p)).sqrt())
                })
                .collect::<BTreeMap<_, _>>()
        };
        let (functions, lines) = (ochiai(called), ochiai(ran));
        Some(Spectrum {
            functions,
            lines,
            failing,
            passing,
            cut: root.cut,
        })
    }

    /// The best score of lines `first..=last` (1-based) of `path`; 0 when the failing tests
    /// ran none of them.
    pub fn of_lines(&self, path: &str, first: usize, last: usize) -> f64 {
        self.lines
            .range((path.to_string(), first)..=(path.to_string(), last))
            .map(|(_, s)| *s)
            .fold(0.0, f64::max)
    }

    /// How suspect the statement at lines `first..=last` (1-based) of `path` is: its best
    /// line's score, or that of the next line the failing tests ran in its function when that
    /// scores higher (the statement sent them down lines fewer passing tests ran:
    /// [`suspected`]); 0 when they ran none of its lines.
    pub fn suspicion(&self, path: &str, first: usize, last: usize) -> f64 {
        let own = self.of_lines(path, first, last);
        if own <= 0.0 {
            return 0.0;
        }
        let p = path.to_string();
        let function = (self.functions.range((p.clone(), 0)..=(p.clone(), first))).next_back();
        let Some(((_, start), _)) = function else {
            return own;
        };
        // A statement may run past the next function's first line (a lambda in a call).
        let end = self.next_function(path, *start);
        if end <= last + 1 {
            return own;
        }
        let next = self.lines.range((p.clone(), last + 1)..(p, end)).next();
        next.map_or(own, |(_, s)| own.max(*s))
    }

    /// The functions of files `source` accepts that the spectrum tells apart
    /// ([`Spectrum::telling_near`] with no function nearer than another), each with the lines
    /// the failing tests ran in it and its score: a score or a path shared by more than
    /// [`FUNCTION_POOL`] functions (the failing test having called what its neighbours
    /// called) tells nothing.
    pub fn telling(&self, source: impl Fn(&str) -> bool) -> Vec<Telling> {
        self.telling_near(source, |_, _| 0)
    }

    /// The functions the spectrum tells apart, by two rankings in turn (each function once):
    /// by score, functions of one score told apart by `near` (a function's path and first
    /// line → how near it is to the failing tests by name, higher nearer; asked only of the
    /// functions down to the first score too many share); and by the path the failing tests
    /// took alone in them ([`Spectrum::path_key`]). In each a function is told when at most
    /// [`FUNCTION_POOL`] functions rank as high as it. A function many passing tests called
    /// may still be where the failing test went its own way (a condition that sent it down
    /// lines no passing test ran), while fifty functions share the best score.
    pub fn telling_near(
        &self,
        source: impl Fn(&str) -> bool,
        near: impl Fn(&str, usize) -> usize,
    ) -> Vec<Telling> {
        let by_score = self.by_score(&source, near);
        let by_path = self.by_path(&source);
        let mut out: Vec<Telling> = Vec::new();
        for i in 0..by_score.len().max(by_path.len()) {
            for k in [by_score.get(i), by_path.get(i)].into_iter().flatten() {
                if !out.iter().any(|t| t.path == k.0 && t.first == k.1) {
                    let score = self.functions.get(k).copied().unwrap_or_default();
                    out.push(self.told(&k.0, k.1, score));
                }
            }
        }
        out
    }

    /// The functions told by score, then nearness ([`Spectrum::telling_near`]'s first ranking).
    fn by_score(
        &self,
        source: &impl Fn(&str) -> bool,
        near: impl Fn(&str, usize) -> usize,
    ) -> Vec<(String, usize)> {
        let mut all: Vec<(&(String, usize), f64)> = self
            .functions
            .iter()
            .filter(|((p, _), _)| source(p))
            .map(|(k, s)| (k, *s))
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut ranked: Vec<(&(String, usize), f64, usize)> = Vec::new();
        let mut start = 0;
        while let Some(&(_, score)) = all.get(start) {
            let end = all.partition_point(|(_, x)| *x >= score);
            for &(k, s) in &all[start..end] {
                ranked.push((k, s, near(&k.0, k.1)));
            }
            if end > FUNCTION_POOL {
                break;
            }
            start = end;
        }
        // Stable: equal ranks keep the file order.
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.cmp(&a.2)));
        let mut out = Vec::new();
        for &(k, score, n) in &ranked {
            let as_high =
                ranked.partition_point(|(_, s, m)| *s > score || (*s == score && *m >= n));
            if as_high > FUNCTION_POOL {
                break;
            }
            out.push(k.clone());
        }
        out
    }

    /// The functions told by [`Spectrum::path_key`] ([`Spectrum::telling_near`]'s second
    /// ranking); equal keys keep the file order.
    fn by_path(&self, source: &impl Fn(&str) -> bool) -> Vec<(String, usize)> {
        let mut ranked: Vec<(&(String, usize), PathKey)> = self
            .functions
            .iter()
            .filter(|((p, _), _)| source(p))
            .map(|(k, s)| (k, self.path_key(&k.0, k.1, *s)))
            .collect();
        let higher = |a: &PathKey, b: &PathKey| {
            b.0.total_cmp(&a.0)
                .then(b.1.cmp(&a.1))
                .then(b.2.total_cmp(&a.2))
        };
        ranked.sort_by(|a, b| higher(&a.1, &b.1));
        let mut out = Vec::new();
        for (k, key) in &ranked {
            let as_high = ranked.partition_point(|(_, x)| higher(x, key).is_le());
            if as_high > FUNCTION_POOL {
                break;
            }
            out.push((*k).clone());
        }
        out
    }

    /// How far the failing tests went their own way in the function of `path` at `first`
    /// (its score `score`): the best score of the lines they ran in it, how many of those
    /// lines score that, then the function's score.
    fn path_key(&self, path: &str, first: usize, score: f64) -> PathKey {
        let scores: Vec<f64> = self.lines_in(path, first).map(|(_, s)| s).collect();
        let best = scores.iter().copied().fold(0.0, f64::max);
        let at_best = scores.iter().filter(|s| **s >= best).count();
        (best, at_best, score)
    }

    /// The lines the failing tests ran in the function of `path` at `first`, with their scores.
    fn lines_in<'a>(&'a self, path: &str, first: usize) -> impl Iterator<Item = (usize, f64)> + 'a {
        let end = self.next_function(path, first);
        self.lines
            .range((path.to_string(), first)..(path.to_string(), end))
            .map(|((_, l), s)| (*l, *s))
    }

    /// The told function of `path` at `first`: its lines in file order, and in the order they
    /// are suspected in ([`Telling::suspected`]).
    fn told(&self, path: &str, first: usize, score: f64) -> Telling {
        let run: Vec<(usize, f64)> = self.lines_in(path, first).collect();
        Telling {
            path: path.to_string(),
            first,
            lines: run.iter().map(|(l, _)| *l).collect(),
            suspected: suspected(&run),
            score,
        }
    }

    /// The first line of the next function of `path` the failing tests ran after the one at
    /// `first` (a bound for that function's lines: a nested function's lines are its own).
    fn next_function(&self, path: &str, first: usize) -> usize {
        self.functions
            .range((path.to_string(), first + 1)..=(path.to_string(), usize::MAX))
            .next()
            .map(|((_, l), _)| *l)
            .unwrap_or(usize::MAX)
    }

    /// The files the failing tests ran, each with its best function's score, best first.
    pub fn files(&self) -> Vec<(String, f64)> {
        let mut best: BTreeMap<&str, f64> = BTreeMap::new();
        for ((p, _), s) in &self.functions {
            let e = best.entry(p.as_str()).or_insert(0.0);
            *e = e.max(*s);
        }
        let mut out: Vec<(String, f64)> = best.into_iter().map(|(p, s)| (p.into(), s)).collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

/// A function the spectrum tells apart ([`Spectrum::telling`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Telling {
    pub path: String,
    /// Its first line.
    pub first: usize,
    /// The lines the failing tests ran in it, in file order.
    pub lines: Vec<usize>,
    /// The same lines, most suspect first, each with its suspicion ([`suspected`]).
    pub suspected: Vec<(usize, f64)>,
    pub score: f64,
}

/// The lines `run` (the lines the failing tests ran in one function, in file order, with
/// their scores), most suspect first: a line whose next run line scores higher (fewer
/// passing tests went on there: the condition, loop or call that sent the failing tests down
/// their own path) is as suspect as that line and comes before the lines of that score; then
/// by score and file order.
pub fn suspected(run: &[(usize, f64)]) -> Vec<(usize, f64)> {
    let mut out: Vec<(usize, f64, bool)> = run
        .iter()
        .enumerate()
        .map(|(i, &(l, s))| match run.get(i + 1) {
            Some(&(_, next)) if next > s => (l, next, true),
            _ => (l, s, false),
        })
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
    out.into_iter().map(|(l, s, _)| (l, s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    /// `pkg/a.py`: `f` (line 10) called by all three tests, which all ran its line 11 and only
    /// the failing one its line 12; `g` (line 20) by the failing one only; `h` (line 30) by
    /// the failing one and one other; `<setup>` ran `k` (line 40).
    const RECORD: &str = r#"{"tests": {
        "<setup>": {"pkg/a.py": {"40": [40, 41]}},
        "test_upper": {"pkg/a.py": {"10": [10, 11, 12], "20": [20, 21], "30": [30, 31]}},
        "test_lower": {"pkg/a.py": {"10": [10, 11], "30": [30, 31]}},
        "test_plain": {"pkg/a.py": {"10": [10, 11]}}
    }}"#;

    fn spectrum() -> Spectrum {
        Spectrum::read(RECORD, &failed(&["test_upper"])).unwrap()
    }

    /// Eight one-line functions of `m.py` (lines 1 to 8) that only the failing test ran.
    fn eight_alike() -> Spectrum {
        let defs: Vec<String> = (1..=8).map(|i| format!(r#""{i}": [{i}]"#)).collect();
        let record = format!(
            r#"{{"tests": {{"test_a": {{"m.py": {{{}}}}}}}}}"#,
            defs.join(",")
        );
        Spectrum::read(&record, &failed(&["test_a"])).unwrap()
    }

    #[test]
    fn a_line_only_the_failing_test_ran_scores_one() {
        let s = spectrum();
        assert_eq!((s.failing, s.passing), (1, 2));
        assert_eq!(s.of_lines("pkg/a.py", 20, 21), 1.0);
        assert_eq!(s.of_lines("pkg/a.py", 12, 12), 1.0);
    }

    #[test]
    fn a_line_the_passing_tests_ran_too_scores_less() {
        let s = spectrum();
        assert!((s.of_lines("pkg/a.py", 31, 31) - 1.0 / 2f64.sqrt()).abs() < 1e-9);
        assert!((s.of_lines("pkg/a.py", 11, 11) - 1.0 / 3f64.sqrt()).abs() < 1e-9);
    }

    #[test]
    fn lines_the_failing_test_did_not_run_and_setup_lines_score_nothing() {
        let s = spectrum();
        assert_eq!(s.of_lines("pkg/a.py", 13, 19), 0.0);
        assert_eq!(s.of_lines("pkg/a.py", 40, 41), 0.0);
    }

    #[test]
    fn the_telling_functions_come_best_first_with_the_lines_run_in_them() {
        let told = spectrum().telling(|p| p == "pkg/a.py");
        let got: Vec<(usize, Vec<usize>)> =
            told.iter().map(|t| (t.lines[0], t.lines.clone())).collect();
        assert_eq!(
            got,
            [
                (20, vec![20, 21]),
                (30, vec![30, 31]),
                (10, vec![10, 11, 12])
            ]
        );
    }

    #[test]
    fn no_failing_test_in_the_record_is_no_spectrum() {
        assert_eq!(Spectrum::read(RECORD, &failed(&["test_other"])), None);
        assert_eq!(Spectrum::read("not json", &failed(&["test_upper"])), None);
    }

    #[test]
    fn a_score_many_functions_share_tells_nothing() {
        let s = eight_alike();
        assert!(s.telling(|_| true).is_empty());
    }

    #[test]
    fn among_functions_of_one_score_the_few_named_like_the_test_are_told() {
        let s = eight_alike();
        let near = |_: &str, first: usize| usize::from(first == 7) * 2 + usize::from(first == 3);
        let told: Vec<usize> = s
            .telling_near(|_| true, near)
            .iter()
            .map(|t| t.lines[0])
            .collect();
        assert_eq!(told, [7, 3]);
    }

    #[test]
    fn nearness_many_functions_share_tells_nothing_more() {
        let s = eight_alike();
        let told: Vec<usize> = s
            .telling_near(|_| true, |_, first| usize::from(first != 1))
            .iter()
            .map(|t| t.lines[0])
            .collect();
        assert!(told.is_empty());
    }

    #[test]
    fn a_better_score_is_told_before_a_nearer_name() {
        let told: Vec<usize> = spectrum()
            .telling_near(|p| p == "pkg/a.py", |_, first| usize::from(first == 10) * 5)
            .iter()
            .map(|t| t.lines[0])
            .collect();
        assert_eq!(told, [20, 30, 10]);
    }

    /// Eight two-line functions of `m.py` (at lines 10, 20, ... 80) that the failing test and
    /// one passing test called; in the one at `own` the failing test also ran a third line.
    fn eight_called_alike(own: usize) -> Spectrum {
        let (mut fails, mut passes) = (Vec::new(), Vec::new());
        for f in (10..=80).step_by(10) {
            let third = if f == own {
                format!(", {}", f + 2)
            } else {
                String::new()
            };
            fails.push(format!(r#""{f}": [{f}, {}{third}]"#, f + 1));
            passes.push(format!(r#""{f}": [{f}, {}]"#, f + 1));
        }
        let record = format!(
            r#"{{"tests": {{"test_a": {{"m.py": {{{}}}}}, "test_b": {{"m.py": {{{}}}}}}}}}"#,
            fails.join(","),
            passes.join(",")
        );
        Spectrum::read(&record, &failed(&["test_a"])).unwrap()
    }

    #[test]
    fn among_functions_of_one_score_the_one_the_failing_test_went_its_own_way_in_is_told() {
        let told: Vec<usize> = eight_called_alike(50)
            .telling(|_| true)
            .iter()
            .map(|t| t.first)
            .collect();
        assert_eq!(told, [50]);
    }

    #[test]
    fn a_line_whose_next_line_scores_higher_is_as_suspect_and_comes_first() {
        let run = [(1, 0.5), (2, 0.5), (4, 1.0), (5, 0.5)];
        assert_eq!(suspected(&run), [(2, 1.0), (4, 1.0), (1, 0.5), (5, 0.5)]);
    }

    #[test]
    fn a_statement_that_led_the_failing_test_its_own_way_is_as_suspect_as_where_it_went() {
        let s = eight_called_alike(50);
        assert_eq!(s.suspicion("m.py", 51, 51), 1.0);
        assert!((s.suspicion("m.py", 50, 50) - 1.0 / 2f64.sqrt()).abs() < 1e-9);
    }

    #[test]
    fn a_statement_borrows_no_suspicion_from_the_next_function() {
        let record = r#"{"tests": {
            "test_a": {"m.py": {"1": [1, 2], "5": [5, 6]}},
            "test_b": {"m.py": {"1": [1, 2], "5": [6]}}
        }}"#;
        let s = Spectrum::read(record, &failed(&["test_a"])).unwrap();
        assert!((s.suspicion("m.py", 2, 2) - 1.0 / 2f64.sqrt()).abs() < 1e-9);
        assert_eq!(s.suspicion("m.py", 3, 4), 0.0);
    }

    #[test]
    fn a_statement_past_its_function_or_before_any_in_its_file_keeps_its_own_score() {
        // `b.py`: a statement at lines 3 to 5 holding a lambda (its code at line 4); `a.py`'s
        // only function comes before, so nothing of `b.py` comes before line 2.
        let record = r#"{"tests": {
            "test_a": {"a.py": {"9": [9]}, "b.py": {"2": [2, 3, 6], "4": [4]}},
            "test_b": {"a.py": {"9": [9]}, "b.py": {"2": [2, 3], "4": [4]}}
        }}"#;
        let s = Spectrum::read(record, &failed(&["test_a"])).unwrap();
        let half = 1.0 / 2f64.sqrt();
        assert!((s.suspicion("b.py", 3, 5) - half).abs() < 1e-9);
        assert!((s.suspicion("b.py", 1, 3) - half).abs() < 1e-9);
        assert_eq!(s.suspicion("b.py", 6, 6), 1.0);
    }
}
