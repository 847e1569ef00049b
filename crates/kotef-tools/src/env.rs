//! The command environment: the parent's variables scrubbed to an allowlist, with anything whose
//! name looks secret dropped even when listed. Pure functions over explicit inputs so tests never
//! touch the process environment.

use kotef_core::redact::is_secret_var;

/// Variables passed through to commands (when set in the parent and not secret by name).
pub const ENV_ALLOWLIST: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TERM",
    "TZ",
    "TMPDIR",
    "CI",
    "NO_COLOR",
    "SOURCE_DATE_EPOCH",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "RUST_BACKTRACE",
    "GOPATH",
    "GOCACHE",
    "GOROOT",
    "GOMODCACHE",
    "GOFLAGS",
    "GOPROXY",
    "JAVA_HOME",
    "PYTHONPATH",
    "PYTHONDONTWRITEBYTECODE",
    "VIRTUAL_ENV",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "NODE_PATH",
    "NVM_DIR",
];

/// Keeps the allowlisted, non-secret variables of `parent`, then adds `extra` (also guarded
/// against secret names; a later entry of the same name wins).
pub fn scrub_env<I>(parent: I, extra: &[(String, String)]) -> Vec<(String, String)>
where
    I: IntoIterator<Item = (String, String)>,
{
    let mut out: Vec<(String, String)> = parent
        .into_iter()
        .filter(|(k, _)| ENV_ALLOWLIST.contains(&k.as_str()) && !is_secret_var(k))
        .collect();
    for (k, v) in extra {
        if is_secret_var(k) || k.starts_with("KOTEF_") {
            tracing::warn!(name = %k, "refusing to pass a secret-looking variable to a command");
            continue;
        }
        out.retain(|(ok, _)| ok != k);
        out.push((k.clone(), v.clone()));
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(k: &str, v: &str) -> (String, String) {
        (k.to_string(), v.to_string())
    }

    #[test]
    fn keeps_allowlist_and_drops_secrets() {
        let parent = vec![
            kv("PATH", "/bin"),
            kv("HOME", "/root"),
            kv("GITHUB_TOKEN", "ghp_x"),
            kv("OPENAI_API_KEY", "sk-x"),
            kv("KOTEF_WEBHOOK_SECRET", "s"),
            kv("AWS_SECRET_ACCESS_KEY", "a"),
            kv("RANDOM_THING", "r"),
        ];
        let env = scrub_env(
            parent,
            &[kv("CI", "true"), kv("MY_API_KEY", "x"), kv("KOTEF_X", "y")],
        );
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, vec!["CI", "HOME", "PATH"]);
    }

    #[test]
    fn extra_overrides_parent() {
        let env = scrub_env(vec![kv("CI", "false")], &[kv("CI", "true")]);
        assert_eq!(env, vec![kv("CI", "true")]);
    }
}
