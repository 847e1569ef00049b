//! Where a definition is in source text, line by line: the name a line defines (`def f(`,
//! `class C`, `fn f`, `function f`), its indent, and where the definition ends (its closing
//! brace, or Python's dedent). The ground both edit blocks and outlines stand on; pure and
//! without dependencies.

/// A line's indent, in bytes of leading whitespace.
pub fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The name a definition line defines (`def f(`, `async def f(`, `class C`, `fn f`,
/// `function f`), if it is one.
pub fn defined_name(line: &str) -> Option<String> {
    let t = line.trim_start();
    let t = t
        .strip_prefix("pub(crate) ")
        .or_else(|| t.strip_prefix("pub "))
        .or_else(|| t.strip_prefix("export "))
        .unwrap_or(t);
    let t = t.strip_prefix("async ").unwrap_or(t);
    let rest = ["def ", "class ", "fn ", "function "]
        .iter()
        .find_map(|k| t.strip_prefix(k))?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// For each line, whether it starts inside a triple-quoted Python string: a docstring's
/// example (`class MyTask(luigi.Task):`) is text, not a definition. A comment, or a quote
/// inside a one-line string, opens nothing.
pub fn in_string(lines: &[&str]) -> Vec<bool> {
    let mut strings = Strings::default();
    lines.iter().map(|l| strings.starts_inside(l)).collect()
}

/// Reads Python lines one after another and says which start inside a triple-quoted string
/// ([`in_string`], one line at a time).
#[derive(Debug, Default)]
struct Strings {
    open: Option<&'static [u8]>,
}

impl Strings {
    /// Whether `line` starts inside a string; then reads it.
    fn starts_inside(&mut self, line: &str) -> bool {
        let inside = self.open.is_some();
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if let Some(q) = self.open {
                if b[i..].starts_with(q) {
                    self.open = None;
                    i += 3;
                } else {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                continue;
            }
            match b[i] {
                b'#' => break,
                quote @ (b'"' | b'\'') => {
                    let triple: &'static [u8] = if quote == b'"' { b"\"\"\"" } else { b"'''" };
                    if b[i..].starts_with(triple) {
                        self.open = Some(triple);
                        i += 3;
                        continue;
                    }
                    i += 1;
                    while i < b.len() && b[i] != quote {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
        inside
    }
}

/// The definitions of `lines` that are code, not text inside a string: each line's index and
/// the name it defines.
pub fn code_definitions(lines: &[&str]) -> Vec<(usize, String)> {
    let text = in_string(lines);
    lines
        .iter()
        .enumerate()
        .filter(|(i, _)| !text[*i])
        .filter_map(|(i, l)| defined_name(l).map(|n| (i, n)))
        .collect()
}

/// Where a definition starting at `start` ends: for a brace language the line that closes
/// its first brace, otherwise (Python) before the next non-blank line indented no deeper.
pub fn definition_end(lines: &[&str], start: usize) -> usize {
    let indent = indent_of(lines[start]);
    let first = lines[start];
    let braces = first.contains('{') || lines.get(start + 1).is_some_and(|l| l.trim() == "{");
    if braces && !first.trim_end().ends_with(':') {
        let mut depth = 0i64;
        let mut opened = false;
        for (i, l) in lines.iter().enumerate().skip(start) {
            for c in l.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if opened && depth <= 0 {
                return i + 1;
            }
        }
        return lines.len();
    }
    let mut end = start + 1;
    let mut last_code = start + 1;
    // A line inside a multi-line string (a raw request, an expected output written at the
    // left margin) is the definition's text, however it is indented.
    let mut strings = Strings::default();
    strings.starts_inside(first);
    while end < lines.len() {
        let l = lines[end];
        if strings.starts_inside(l) {
            last_code = end + 1;
        } else if !l.trim().is_empty() {
            if indent_of(l) <= indent && !l.trim_start().starts_with(')') {
                break;
            }
            last_code = end + 1;
        }
        end += 1;
    }
    last_code
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(file: &str) -> Vec<(usize, String)> {
        let lines: Vec<&str> = file.lines().collect();
        code_definitions(&lines)
    }

    #[test]
    fn a_definition_inside_a_docstring_is_text() {
        let file = r#"class TupleParameter:
    """
    Example::

        class MyTask(luigi.Task):
            def run(self):
    """

    def parse(self, x):
        return x
"#;
        assert_eq!(
            names(file),
            [(0, "TupleParameter".to_string()), (8, "parse".to_string())]
        );
    }

    #[test]
    fn a_string_at_the_left_margin_does_not_end_the_function_holding_it() {
        let file = "class T:\n    def test_upper(self):\n        self.write(b\"\"\"\\\nPOST / HTTP/1.1\nTransfer-Encoding: Chunked\n\n\"\"\".replace(b'\\n', b'\\r\\n'))\n        self.assertEqual(body(), 'x')\n\n    def test_next(self):\n        pass\n";
        let lines: Vec<&str> = file.lines().collect();
        assert_eq!(definition_end(&lines, 1), 8, "{file}");
        assert_eq!(definition_end(&lines, 0), 11);
    }

    #[test]
    fn quotes_in_comments_and_one_line_strings_open_no_string() {
        let file = r#"x = '"""'  # a """ here
y = "it's"
def f():
    s = '''a
    def g(): pass
    '''
def h():
    pass
"#;
        assert_eq!(names(file), [(2, "f".to_string()), (6, "h".to_string())]);
    }
}
