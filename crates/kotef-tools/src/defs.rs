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
    while end < lines.len() {
        let l = lines[end];
        if !l.trim().is_empty() {
            if indent_of(l) <= indent && !l.trim_start().starts_with(')') {
                break;
            }
            last_code = end + 1;
        }
        end += 1;
    }
    last_code
}
