//! A Python class written with only some of its methods. A small model asked for the corrected
//! function often copies the class around it, and stops before the class ends: the class it
//! wrote is the methods it changed, not a class without the rest. Put in place whole, it would
//! delete every method it left out (an abstract method's override, a helper the tests call).

use super::definitions::{definitions, keep_docstring, python_header_and_doc, Definition};
use crate::defs::{defined_name, definition_end, indent_of};

/// A definition taken out of a written class: its name, its def line's indent, its lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Piece {
    pub(super) name: String,
    pub(super) indent: usize,
    pub(super) lines: Vec<String>,
}

/// The file's class with a partial written class merged in, and the written methods that
/// the class lacks but the file defines elsewhere (a model that named the wrong class): they
/// go where their name is.
pub(super) struct Merged {
    pub(super) class: Vec<String>,
    pub(super) elsewhere: Vec<Piece>,
}

/// `class` (the file's class, header first, indented as in the file) with `written` (the
/// model's class of the same name, already re-indented to the file's) merged into it, when
/// `written` leaves out a method `class` has: each written method replaces the class's method
/// of its name (or, if `defined_elsewhere` says the file has it outside the class, goes
/// there; else it is added at the class's end), a changed header replaces the header, and a
/// written class-level assignment replaces the class's of its name (or is added after the
/// header). `None` when either is not a Python class or `written` holds every method: then it
/// is the whole class and replaces it as it is.
pub(super) fn merged_class(
    class: &[&str],
    written: &[String],
    defined_elsewhere: impl Fn(&str) -> bool,
) -> Option<Merged> {
    let written: Vec<&str> = written.iter().map(String::as_str).collect();
    let at = written.iter().position(|l| is_class(l))?;
    let written = &written[at..];
    if !class.first().is_some_and(|l| is_class(l)) {
        return None;
    }
    let (class_head, _) = python_header_and_doc(class)?;
    let theirs = body_definitions(class);
    let ours = body_definitions(written);
    if ours.is_empty() && theirs.is_empty() {
        return None;
    }
    if theirs.iter().all(|t| ours.iter().any(|o| o.name == t.name)) {
        return None;
    }
    let mut out: Vec<String> = class.iter().map(|l| l.to_string()).collect();
    let mut elsewhere = Vec::new();
    for d in &ours {
        let lines = &written[d.start..d.end];
        let own = theirs.iter().any(|t| t.name == d.name);
        if !own && defined_elsewhere(&d.name) {
            elsewhere.push(piece(written, d));
        } else {
            put_method(&mut out, &d.name, lines);
        }
    }
    if !ours.is_empty() && elsewhere.len() == ours.len() {
        // Every method belongs to another class: this one was named by mistake.
        let class = class.iter().map(|l| l.to_string()).collect();
        return Some(Merged { class, elsewhere });
    }
    let (written_head, written_doc) = python_header_and_doc(written)?;
    let body_from = written_doc.map_or(written_head, |(_, end)| end);
    for line in assignments(written, body_from, &ours) {
        put_assignment(&mut out, line);
    }
    if written[..written_head] != class[..class_head] {
        out.splice(
            ..class_head,
            written[..written_head].iter().map(|l| l.to_string()),
        );
    }
    Some(Merged {
        class: out,
        elsewhere,
    })
}

/// The methods of a written class (`lines` start at or before its `class` line), each to be
/// put where its name is: a class the file does not have, written around methods it has.
/// Empty when `lines` is not a Python class.
pub(super) fn methods(lines: &[&str]) -> Vec<Piece> {
    let Some(at) = lines.iter().position(|l| is_class(l)) else {
        return Vec::new();
    };
    let written = &lines[at..];
    body_definitions(written)
        .iter()
        .map(|d| piece(written, d))
        .collect()
}

/// A definition of `lines` (its range `d`) as a piece to put in place.
pub(super) fn piece(lines: &[&str], d: &Definition) -> Piece {
    Piece {
        name: d.name.clone(),
        indent: d.indent,
        lines: lines[d.start..d.end]
            .iter()
            .map(|l| l.to_string())
            .collect(),
    }
}

/// The definitions in a class's body (after its header and docstring), with their line
/// ranges in `class`.
fn body_definitions(class: &[&str]) -> Vec<Definition> {
    let Some((head, doc)) = python_header_and_doc(class) else {
        return Vec::new();
    };
    let from = doc.map_or(head, |(_, end)| end);
    definitions(&class[from..])
        .into_iter()
        .filter(|d| d.indent > indent_of(class[0]))
        .map(|d| Definition {
            start: from + d.start,
            end: from + d.end,
            ..d
        })
        .collect()
}

fn is_class(line: &str) -> bool {
    line.trim_start().starts_with("class ") && defined_name(line).is_some()
}

/// Puts `method` in place of the method of `name` in `class` (decorators included, its
/// docstring kept when `method` has none), or at the class's end when it has none.
fn put_method(class: &mut Vec<String>, name: &str, method: &[&str]) {
    let lines: Vec<&str> = class.iter().map(String::as_str).collect();
    let found = lines.iter().enumerate().skip(1).find(|(_, l)| {
        defined_name(l).as_deref() == Some(name) && indent_of(l) == indent_of(method_def(method))
    });
    let mut replacement: Vec<String> = method.iter().map(|l| l.to_string()).collect();
    while replacement.last().is_some_and(|l| l.trim().is_empty()) {
        replacement.pop();
    }
    let (start, end) = match found {
        Some((at, _)) => {
            let mut start = at;
            while start > 0 && lines[start - 1].trim_start().starts_with('@') {
                start -= 1;
            }
            let mut end = definition_end(&lines, at).max(at + 1);
            while end > at + 1 && lines[end - 1].trim().is_empty() {
                end -= 1;
            }
            keep_docstring(&mut replacement, &lines[start..end]);
            (start, end)
        }
        None => {
            let mut end = lines.len();
            while end > 1 && lines[end - 1].trim().is_empty() {
                end -= 1;
            }
            replacement.insert(0, String::new());
            (end, end)
        }
    };
    class.splice(start..end, replacement);
}

/// The definition line of a method (after its decorators).
fn method_def<'a>(method: &[&'a str]) -> &'a str {
    method
        .iter()
        .find(|l| defined_name(l).is_some())
        .copied()
        .unwrap_or_default()
}

/// The class-level `name = value` lines of `written`'s body (one line each; not inside a
/// method).
fn assignments<'a>(written: &[&'a str], from: usize, methods: &[Definition]) -> Vec<&'a str> {
    let indent = written[from..]
        .iter()
        .find(|l| !l.trim().is_empty())
        .map(|l| indent_of(l));
    (from..written.len())
        .filter(|i| !methods.iter().any(|d| (d.start..d.end).contains(i)))
        .map(|i| written[i])
        .filter(|l| Some(indent_of(l)) == indent && assigned(l).is_some())
        .collect()
}

/// The name a `name = value` line assigns (not `==`).
fn assigned(line: &str) -> Option<&str> {
    let (name, rest) = line.trim().split_once('=')?;
    let name = name.trim().split(':').next()?.trim();
    let word = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    (word && !rest.starts_with('=')).then_some(name)
}

/// Puts a class-level assignment in place of the class's of the same name at the same
/// indent, or after the class's header and docstring.
fn put_assignment(class: &mut Vec<String>, line: &str) {
    let name = assigned(line);
    let at = class.iter().position(|l| {
        indent_of(l) == indent_of(line) && assigned(l) == name && !l.trim().is_empty()
    });
    match at {
        Some(at) => class[at] = line.to_string(),
        None => {
            let lines: Vec<&str> = class.iter().map(String::as_str).collect();
            let after = python_header_and_doc(&lines)
                .map_or(1, |(head, doc)| doc.map_or(head, |(_, end)| end));
            class.insert(after, line.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::replace_definitions;

    const FS: &str = "import os\n\n\nclass LocalFileSystem(FileSystem):\n    \"\"\"Doc.\"\"\"\n\n    def exists(self, path):\n        return os.path.exists(path)\n\n    def mkdir(self, path):\n        os.makedirs(path)\n\n    def move(self, old, new):\n        d = os.path.dirname(new)\n        if d and not os.path.exists(d):\n            self.fs.mkdir(d)\n        os.rename(old, new)\n\n\nclass LocalTarget:\n    fs = LocalFileSystem()\n";

    #[test]
    fn a_class_written_with_some_of_its_methods_changes_those_and_keeps_the_rest() {
        let code = "class LocalFileSystem(FileSystem):\n    def move(self, old, new):\n        d = os.path.dirname(new)\n        if d and not os.path.exists(d):\n            self.mkdir(d)\n        os.rename(old, new)\n";
        let out = replace_definitions(FS, code).unwrap();
        assert_eq!(
            out,
            FS.replace("            self.fs.mkdir(d)", "            self.mkdir(d)")
        );
    }

    #[test]
    fn a_class_written_whole_replaces_the_class() {
        let code = "class LocalFileSystem(FileSystem):\n    def exists(self, path):\n        return True\n\n    def mkdir(self, path):\n        pass\n\n    def move(self, old, new):\n        pass\n";
        let out = replace_definitions(FS, code).unwrap();
        assert!(out.contains("class LocalFileSystem(FileSystem):\n    \"\"\"Doc.\"\"\"\n    def exists(self, path):\n        return True\n"), "{out}");
        assert!(!out.contains("os.makedirs"), "{out}");
    }

    #[test]
    fn a_new_method_in_a_partial_class_is_added_at_the_class_end() {
        let code = "class LocalFileSystem(FileSystem):\n    def isdir(self, path):\n        return os.path.isdir(path)\n";
        let out = replace_definitions(FS, code).unwrap();
        assert!(out.contains("        os.rename(old, new)\n\n    def isdir(self, path):\n        return os.path.isdir(path)\n\n\nclass LocalTarget:"), "{out}");
        assert!(out.contains("def mkdir(self, path)"), "{out}");
    }

    #[test]
    fn a_partial_class_changes_its_header_and_class_level_assignments() {
        let code = "class LocalTarget(Base):\n    fs = OtherFileSystem()\n    mode = 'r'\n";
        let out = replace_definitions(FS, code);
        // `LocalTarget` has no method, so the class written is whole: replaced as it is.
        assert!(out
            .unwrap()
            .ends_with("class LocalTarget(Base):\n    fs = OtherFileSystem()\n    mode = 'r'\n"));
        let code = "class LocalFileSystem(Base):\n    root = '/'\n\n    def exists(self, path):\n        return False\n";
        let out = replace_definitions(FS, code).unwrap();
        assert!(out.contains("class LocalFileSystem(Base):\n    \"\"\"Doc.\"\"\"\n    root = '/'\n\n    def exists(self, path):\n        return False\n\n    def mkdir"), "{out}");
    }

    const TWO_CLASSES: &str = "class Worker:\n    def prune(self, config):\n        if self.last + config.delay < time.time():\n            return True\n\n\nclass Scheduler:\n    def add(self, task):\n        self.tasks.append(task)\n\n    def run(self):\n        pass\n";

    #[test]
    fn a_method_written_inside_the_wrong_class_goes_where_its_name_is_defined() {
        let code = "class Scheduler(object):\n    def prune(self, config):\n        if self.last and self.last + config.delay < time.time():\n            return True\n";
        let out = replace_definitions(TWO_CLASSES, code).unwrap();
        assert_eq!(
            out,
            TWO_CLASSES.replace(
                "if self.last + config",
                "if self.last and self.last + config"
            )
        );
    }

    #[test]
    fn a_class_the_file_does_not_have_is_read_as_the_methods_it_holds() {
        let code = "class Pruner:\n    def prune(self, config):\n        return False\n";
        let out = replace_definitions(TWO_CLASSES, code).unwrap();
        assert!(out.starts_with("class Worker:\n    def prune(self, config):\n        return False\n\n\nclass Scheduler:"), "{out}");
    }
}
