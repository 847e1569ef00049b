//! A long file seen the way a reader skims it: its outline (every definition's signature with
//! its line), and the definition around a line (the function a traceback's frame points
//! into), so one function of a 2,000-line file is shown, and replaced by a block holding that
//! function, without copying the file. Pure; Python and brace languages as
//! [`crate::defs`] reads them.

/// Which lines start inside a triple-quoted Python string (text, not code).
pub use crate::defs::in_string;
use crate::defs::{code_definitions, definition_end, indent_of};

/// One definition of a file, at any depth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outlined {
    pub name: String,
    /// The definition's first line, trimmed (`def f(a, b):`, `class C(Base):`).
    pub signature: String,
    /// 1-based first line (its decorators included) and last line, inclusive.
    pub first: usize,
    pub last: usize,
    /// Its indent, in columns (0 for a top-level definition).
    pub indent: usize,
}

impl Outlined {
    /// Whether it is a class (which holds functions).
    pub fn is_class(&self) -> bool {
        self.signature.starts_with("class ")
    }
}

/// Every definition of `text`, in file order (a class, then its methods).
pub fn outline(text: &str) -> Vec<Outlined> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, name) in code_definitions(&lines) {
        let l = lines[i];
        let mut first = i;
        while first > 0 && lines[first - 1].trim_start().starts_with('@') {
            first -= 1;
        }
        let end = definition_end(&lines, i).max(i + 1);
        let signature: String = l.trim().chars().take(160).collect();
        out.push(Outlined {
            name,
            signature,
            first: first + 1,
            last: end,
            indent: indent_of(l),
        });
    }
    out
}

/// The innermost definition holding 1-based `line` that is not a class (a method, not the
/// class around it); a class only when the line is in its own body (a class attribute).
pub fn enclosing(text: &str, line: usize) -> Option<Outlined> {
    let all = outline(text);
    let holding: Vec<&Outlined> = all
        .iter()
        .filter(|d| d.first <= line && line <= d.last)
        .collect();
    holding
        .iter()
        .filter(|d| !d.is_class())
        .max_by_key(|d| d.indent)
        .or_else(|| holding.iter().max_by_key(|d| d.indent))
        .map(|d| (*d).clone())
}

/// The definitions of `text` named `name`.
pub fn defined(text: &str, name: &str) -> Vec<Outlined> {
    outline(text)
        .into_iter()
        .filter(|d| d.name == name)
        .collect()
}

/// Whether `text` defines `name` (`def name`, `class name`, `fn name`, `function name`) at any
/// depth, without building the outline.
pub fn defines(text: &str, name: &str) -> bool {
    text.contains(name) && {
        let lines: Vec<&str> = text.lines().collect();
        code_definitions(&lines).iter().any(|(_, n)| n == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "import os\n\n\ndef top(a):\n    return a\n\n\nclass Tracer:\n    depth = 1\n\n    @property\n    def level(self):\n        x = 1\n        return x\n\n    def write(self, s):\n        print(s)\n";

    #[test]
    fn the_outline_lists_every_definition_with_its_lines() {
        let o: Vec<(String, usize, usize)> = outline(FILE)
            .into_iter()
            .map(|d| (d.signature, d.first, d.last))
            .collect();
        assert_eq!(
            o,
            [
                ("def top(a):".to_string(), 4, 5),
                ("class Tracer:".to_string(), 8, 17),
                ("def level(self):".to_string(), 11, 14),
                ("def write(self, s):".to_string(), 16, 17),
            ]
        );
    }

    #[test]
    fn a_line_inside_a_method_is_in_that_method_not_its_class() {
        assert_eq!(enclosing(FILE, 13).map(|d| d.name), Some("level".into()));
        assert_eq!(enclosing(FILE, 9).map(|d| d.name), Some("Tracer".into()));
        assert_eq!(enclosing(FILE, 1), None);
        assert!(defines(FILE, "write") && !defines(FILE, "read"));
    }
}
