//! Secret redaction: every text that leaves a run (logs, comments, reports, errors) passes
//! through a `Redactor` that knows the run's secrets.

/// Replaces known secret values with `[REDACTED]`.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    pub fn new() -> Self {
        Self::default()
    }

    /// Remembers a secret; values shorter than 6 characters are ignored (too likely to be words).
    pub fn add(&mut self, secret: impl Into<String>) {
        let s = secret.into();
        if s.trim().len() >= 6 && !self.secrets.contains(&s) {
            self.secrets.push(s);
            // Longest first, so a secret that contains another is replaced whole.
            self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
    }

    /// A redactor that knows the secret-bearing variables of this process's environment.
    pub fn from_env() -> Self {
        let mut r = Self::new();
        for (k, v) in std::env::vars() {
            if is_secret_var(&k) {
                r.add(v);
            }
        }
        // The ones `process::harden` moved out of the environment.
        for (_, v) in crate::process::kept_secrets() {
            r.add(v);
        }
        r
    }

    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), "[REDACTED]");
            }
        }
        out
    }
}

pub use crate::process::is_secret_var;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_every_occurrence_longest_first() {
        let mut r = Redactor::new();
        r.add("sk-abcdef");
        r.add("sk-abcdef123456");
        r.add("abc");
        assert_eq!(
            r.redact("key sk-abcdef123456 and sk-abcdef, abc"),
            "key [REDACTED] and [REDACTED], abc"
        );
    }

    #[test]
    fn secret_var_names() {
        assert!(is_secret_var("GITHUB_TOKEN"));
        assert!(is_secret_var("OPENAI_API_KEY"));
        assert!(is_secret_var("KOTEF_WEBHOOK_SECRET"));
        assert!(!is_secret_var("PATH"));
        assert!(!is_secret_var("HOME"));
    }
}
