//! The texts the graph sends the model besides the nodes' system prompts: every template of
//! `prompts/messages.md`, `prompts/nodes.md` (each node's message skeleton) and
//! `prompts/state.md` (the run's state as the nodes show it), as one generated struct per
//! template with one `&str` field per `{field}` (see `build.rs`), rendered by `Display`. A
//! value is inserted as it is (code with braces in it is never read as a field), and a field
//! the template lacks does not compile:
//!
//! ```
//! use kotef::graph::prompt::messages::FixCode;
//! assert_eq!(FixCode { what: "`add`" }.to_string(), "Fix `add`");
//! ```
//!
//! ```compile_fail,E0560
//! use kotef::graph::prompt::messages::FixCode;
//! let _ = FixCode { wat: "`add`" }.to_string();
//! ```
//!
//! and neither does one left out:
//!
//! ```compile_fail,E0063
//! use kotef::graph::prompt::messages::AddMissingFunction;
//! let _ = AddMissingFunction { name: "add" }.to_string();
//! ```

/// One template, for the tests: where it is, its text and fields, and a rendering with each
/// field set by `render`'s argument.
#[cfg(test)]
pub(crate) struct Template {
    pub file: &'static str,
    pub name: &'static str,
    pub text: &'static str,
    pub fields: &'static [&'static str],
    pub render: fn(&FieldValue) -> String,
}

/// A field's value by the field's name.
#[cfg(test)]
pub(crate) type FieldValue = dyn Fn(&str) -> String;

include!(concat!(env!("OUT_DIR"), "/templates.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    /// The files' text, read here apart from the build script.
    fn file(name: &str) -> &'static str {
        match name {
            "messages.md" => include_str!("../../../prompts/messages.md"),
            "nodes.md" => include_str!("../../../prompts/nodes.md"),
            "state.md" => include_str!("../../../prompts/state.md"),
            other => panic!("unknown template file {other}"),
        }
    }

    /// The `{field}` names in `text`, in order of first use.
    fn placeholders(text: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (i, _) in text.match_indices('{') {
            let rest = &text[i + 1..];
            let Some(end) = rest.find('}') else { continue };
            let name = &rest[..end];
            let is_field = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if is_field && !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        }
        out
    }

    #[test]
    fn every_template_has_one_field_per_placeholder_of_its_file() {
        for t in TEMPLATES {
            let source = file(t.file);
            assert!(
                source.contains(&format!("\n## {}\n", t.name)),
                "prompts/{} has no `## {}`",
                t.file,
                t.name
            );
            assert!(
                source.contains(t.text),
                "`{}` is not the file's text",
                t.name
            );
            assert_eq!(t.fields, placeholders(t.text), "`{}`", t.name);
        }
    }

    #[test]
    fn every_section_of_the_files_is_a_template() {
        for name in ["messages.md", "nodes.md", "state.md"] {
            let mut fenced = false;
            let heads = file(name).lines().filter(|l| {
                fenced ^= *l == "````";
                !fenced && l.starts_with("## ")
            });
            for head in heads.map(|l| &l[3..]) {
                assert!(
                    TEMPLATES.iter().any(|t| t.name == head && t.file == name),
                    "`## {head}` of prompts/{name} has no template"
                );
            }
        }
    }

    #[test]
    fn a_template_renders_its_text_with_each_field_in_its_place() {
        for t in TEMPLATES {
            let marked = (t.render)(&|f| format!("{{{f}}}"));
            assert_eq!(marked, t.text, "`{}`", t.name);
            let filled = (t.render)(&|f| format!("<{f}>"));
            assert!(
                t.fields.iter().all(|f| filled.contains(&format!("<{f}>")))
                    && placeholders(&filled).is_empty(),
                "`{}` left a field: {filled}",
                t.name
            );
        }
    }

    #[test]
    fn a_value_with_braces_is_inserted_as_it_is() {
        assert_eq!(
            FixCode {
                what: "`f({what})`"
            }
            .to_string(),
            "Fix `f({what})`"
        );
    }

    #[test]
    fn a_verbatim_template_keeps_its_leading_and_final_newlines() {
        let t = TEMPLATES.iter().find(|t| t.name == "plan_section");
        assert!(t.is_some_and(|t| t.text.starts_with("\n## ") && t.text.ends_with('\n')));
    }
}
