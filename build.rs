//! Generates the typed prompt templates from `prompts/`: one struct per `## name` section of
//! the template files, with one `&str` field per `{field}` placeholder, rendered by its
//! `Display`. A misspelt or missing field is then a compile error, not a `{field}` left in a
//! prompt. The syntax (see the head of each template file):
//! - `## name` (lower-case, digits, `_`) opens a template; the text before the first one is
//!   the file's own description;
//! - a body between two lines "````" is taken verbatim (an empty line before the closing
//!   fence is a final newline, an empty first line a leading one); any other body is trimmed;
//! - `{name}` (lower-case, digits, `_`) is a field; any other brace is text.
//!
//! `src/graph/prompt/messages.rs` includes the output; its tests check every template against its
//! file.

use std::fmt::Write as _;
use std::path::Path;

/// The template files, in `prompts/` (the nodes' system prompts there are whole files).
const FILES: &[&str] = &["messages.md", "nodes.md", "state.md"];

/// The fence around a verbatim body.
const FENCE: &str = "````";

struct Template {
    file: &'static str,
    name: String,
    text: String,
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let mut all: Vec<Template> = Vec::new();
    for file in FILES {
        let path = Path::new("prompts").join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        let source = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        for t in sections(file, &source) {
            if let Some(other) = all.iter().find(|o| o.name == t.name) {
                panic!(
                    "template `{}` is in both prompts/{} and prompts/{file}",
                    t.name, other.file
                );
            }
            all.push(t);
        }
    }
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let code = generate(&all);
    std::fs::write(Path::new(&out).join("templates.rs"), code).expect("write templates.rs");
}

/// The `## name` sections of one file.
fn sections(file: &'static str, source: &str) -> Vec<Template> {
    let mut out = Vec::new();
    let mut lines = source.lines().peekable();
    // The file's description.
    while lines.peek().is_some_and(|l| !l.starts_with("## ")) {
        lines.next();
    }
    while let Some(head) = lines.next() {
        let name = head.trim_start_matches("## ").trim().to_string();
        if name.is_empty() || !name.chars().all(is_name_char) {
            panic!("prompts/{file}: `{head}` is not a template name (lower-case, digits, `_`)");
        }
        let mut body: Vec<&str> = Vec::new();
        while lines.peek().is_some_and(|l| l.trim().is_empty()) {
            lines.next();
        }
        let text = if lines.peek() == Some(&FENCE) {
            lines.next();
            loop {
                match lines.next() {
                    Some(FENCE) => break,
                    Some(l) => body.push(l),
                    None => panic!("prompts/{file}: `## {name}` has no closing {FENCE}"),
                }
            }
            let rest = lines.peek().map_or("", |l| l.trim());
            if !rest.is_empty() && !rest.starts_with("## ") {
                panic!("prompts/{file}: text after the closing {FENCE} of `## {name}`");
            }
            body.join("\n")
        } else {
            while lines.peek().is_some_and(|l| !l.starts_with("## ")) {
                body.extend(lines.next());
            }
            body.join("\n").trim().to_string()
        };
        while lines.peek().is_some_and(|l| l.trim().is_empty()) {
            lines.next();
        }
        out.push(Template { file, name, text });
    }
    out
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'
}

/// A template's text as literal pieces and fields, in order.
enum Piece<'a> {
    Text(&'a str),
    Field(&'a str),
}

fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut literal_from = 0;
    let mut at = 0;
    while let Some(open) = rest[at..].find('{').map(|o| at + o) {
        let after = &rest[open + 1..];
        let field = after
            .find('}')
            .map(|close| &after[..close])
            .filter(|f| !f.is_empty() && f.chars().all(is_name_char));
        match field {
            Some(f) => {
                if open > literal_from {
                    out.push(Piece::Text(&rest[literal_from..open]));
                }
                out.push(Piece::Field(f));
                rest = &rest[open + f.len() + 2..];
                literal_from = 0;
                at = 0;
            }
            None => at = open + 1,
        }
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    out
}

/// `fix_task` → `FixTask`.
fn type_name(name: &str) -> String {
    name.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn generate(all: &[Template]) -> String {
    let mut code = String::from("// Generated by build.rs from prompts/; do not edit.\n\n");
    let mut registry = String::from(
        "/// Every template: its file, name, text, fields, and a rendering with each field\n\
         /// given by a function of its name (for the tests).\n\
         #[cfg(test)]\n\
         pub(crate) const TEMPLATES: &[Template] = &[\n",
    );
    for t in all {
        let ty = type_name(&t.name);
        let parts = pieces(&t.text);
        let mut fields: Vec<&str> = Vec::new();
        for p in &parts {
            if let Piece::Field(f) = p {
                if !fields.contains(f) {
                    fields.push(f);
                }
            }
        }
        let _ = writeln!(
            code,
            "/// `## {}` of `prompts/{}`:\n///\n/// ````text",
            t.name, t.file
        );
        for line in t.text.lines() {
            let _ = writeln!(code, "/// {line}");
        }
        let _ = writeln!(code, "/// ````");
        if fields.is_empty() {
            let _ = writeln!(code, "#[derive(Debug, Clone, Copy)]\npub struct {ty};\n");
            let _ = writeln!(
                code,
                "impl std::fmt::Display for {ty} {{\n    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {{\n        f.write_str({:?})\n    }}\n}}\n",
                t.text
            );
        } else {
            let _ = writeln!(
                code,
                "#[derive(Debug, Clone, Copy)]\npub struct {ty}<'a> {{"
            );
            for f in &fields {
                let _ = writeln!(code, "    pub {f}: &'a str,");
            }
            let _ = writeln!(code, "}}\n");
            let _ = writeln!(
                code,
                "impl std::fmt::Display for {ty}<'_> {{\n    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {{"
            );
            for p in &parts {
                match p {
                    Piece::Text(s) => {
                        let _ = writeln!(code, "        f.write_str({s:?})?;");
                    }
                    Piece::Field(name) => {
                        let _ = writeln!(code, "        f.write_str(self.{name})?;");
                    }
                }
            }
            let _ = writeln!(code, "        Ok(())\n    }}\n}}\n");
        }
        let sample = if fields.is_empty() {
            format!("{{ let _ = value; {ty}.to_string() }}")
        } else {
            let values: Vec<String> = fields
                .iter()
                .map(|f| format!("{f}: &value({f:?})"))
                .collect();
            format!("{ty} {{ {} }}.to_string()", values.join(", "))
        };
        let _ = writeln!(
            registry,
            "    Template {{ file: {:?}, name: {:?}, text: {:?}, fields: &{:?}, render: |value| {sample} }},",
            t.file, t.name, t.text, fields
        );
    }
    registry.push_str("];\n");
    code.push_str(&registry);
    code
}
