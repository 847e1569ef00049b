//! What kotef knows of Python's failures beyond a test runner's report: the name a module
//! lacks (`cannot import name`, `has no attribute`), so the coder's task can say "add it".

/// `(name, module)` from a Python failure that says a module lacks a name: `cannot import name
/// 'median' from 'stats'`, `module 'stats' has no attribute 'median'`.
pub fn missing_python_name(key: &str) -> Option<(String, String)> {
    let quoted = |s: &str| -> Option<(String, usize)> {
        let open = s.find('\'')?;
        let close = s[open + 1..].find('\'')?;
        Some((s[open + 1..open + 1 + close].to_string(), open + close + 2))
    };
    let (name, module) = if let Some(at) = key.find("cannot import name ") {
        let rest = &key[at..];
        let (name, used) = quoted(rest)?;
        let (module, _) = quoted(rest[used..].strip_prefix(" from ")?)?;
        (name, module)
    } else {
        let at = key.find("module '")?;
        let rest = &key[at..];
        let (module, used) = quoted(rest)?;
        let (name, _) = quoted(rest[used..].strip_prefix(" has no attribute ")?)?;
        (name, module)
    };
    let simple = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    (simple(&name) && module.split('.').all(simple)).then(|| (name, module.replace('.', "/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_python_name_is_read_from_import_and_attribute_errors() {
        assert_eq!(
            missing_python_name(
                "ImportError: cannot import name 'median' from 'stats' (/w/stats.py)"
            ),
            Some(("median".into(), "stats".into()))
        );
        assert_eq!(
            missing_python_name("AttributeError: module 'pkg.text' has no attribute 'slug'"),
            Some(("slug".into(), "pkg/text".into()))
        );
        assert_eq!(missing_python_name("AssertionError: 1 != 2"), None);
    }
}
