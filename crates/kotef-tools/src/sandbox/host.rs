//! What of the host a sandboxed command sees: an allow-list, never the host minus a list.
//! The system's programs and libraries (`/usr`, `/bin`, `/lib*`), a filtered `/etc`, the
//! toolchains a runner or image provides (the hosted tool cache under `/opt`, and toolchains
//! kept in a home directory such as `~/.pyenv` or `~/.rustup`), and what the operator names.
//! Everything else (the rest of a home directory, `/run` and its sockets, `/var`, `/srv`,
//! `RUNNER_TEMP`, kotef's data directory, the operator's files) does not exist inside.
//!
//! [`system_mounts`] is pure over a [`Lookup`] of the host, so the list is tested without
//! depending on what this machine has installed.

use std::path::{Path, PathBuf};

/// What a host path is (not following a final symlink).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir,
    File,
    /// A symlink and what it points to (as written).
    Link(PathBuf),
}

/// How the sandbox gets one host path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mount {
    /// `--ro-bind SRC DEST`.
    ReadOnly { src: PathBuf, dest: PathBuf },
    /// `--symlink TARGET AT` (a merged-`/usr` system's `/bin -> usr/bin`).
    Symlink { target: PathBuf, at: PathBuf },
}

/// The host as the allow-list sees it: what a path is, and the names in a directory.
pub trait Lookup {
    fn entry(&self, path: &Path) -> Option<Entry>;
    fn names(&self, dir: &Path) -> Vec<String>;
}

/// The real host (`lstat` and `read_dir`; never a work tree).
pub struct RealHost;

impl Lookup for RealHost {
    fn entry(&self, path: &Path) -> Option<Entry> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        if meta.file_type().is_symlink() {
            return std::fs::read_link(path).ok().map(Entry::Link);
        }
        if meta.is_dir() {
            Some(Entry::Dir)
        } else if meta.is_file() {
            Some(Entry::File)
        } else {
            None
        }
    }

    fn names(&self, dir: &Path) -> Vec<String> {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = rd
            .take(4096)
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect();
        names.sort();
        names
    }
}

/// Top-level system directories: bound read-only, or recreated as the symlink they are.
const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/nix",
];

/// Hosted tool caches (GitHub's runners keep setup-python's, setup-node's, ... here).
const TOOL_CACHES: &[&str] = &["/opt/hostedtoolcache", "/opt/actionarchivecache"];

/// `/etc` entries programs need to start, resolve users, find libraries, check certificates
/// and pick a locale or time zone, and the machine's own package-manager settings (`pip.conf`,
/// `npmrc`: which index, which CA bundle). Not `shadow`, `ssh/`, `environment`, `gitconfig`,
/// `sudoers`, credentials of any kind.
const ETC: &[&str] = &[
    "alternatives",
    "ca-certificates",
    "ca-certificates.conf",
    "crypto-policies",
    "debian_version",
    "fonts",
    "gai.conf",
    "group",
    "host.conf",
    "hostname",
    "hosts",
    "inputrc",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "locale.alias",
    "locale.conf",
    "localtime",
    "lsb-release",
    "magic",
    "magic.mime",
    "mime.types",
    "npmrc",
    "nsswitch.conf",
    "os-release",
    "passwd",
    "pip.conf",
    "pki",
    "protocols",
    "resolv.conf",
    "services",
    "shells",
    "ssl",
    "terminfo",
    "timezone",
];

/// `/etc` entries named after a language runtime's or build tool's own configuration
/// (`java-17-openjdk`, `python3.11`, `perl`, `maven`: Debian links `/usr/share/maven/conf`
/// there): kept, since the tool does not start without them.
const ETC_PREFIXES: &[&str] = &[
    "java", "python", "perl", "ruby", "php", "R", "node", "maven", "gradle", "ant", "sbt",
    "dotnet", "mono",
];

/// Toolchains kept in a home directory (relative to it). Not `.cargo/credentials*` nor
/// `.cargo/config*` (registry tokens), `.m2/settings.xml`, `.gradle/gradle.properties`,
/// `.npmrc`, `.pypirc`, `.ssh`, `.config`, `.docker`, `.aws`, `.git-credentials`.
const HOME_TOOLCHAINS: &[&str] = &[
    ".pyenv",
    ".rustup",
    ".cargo/bin",
    ".cargo/registry",
    ".cargo/git",
    ".nvm",
    ".volta",
    ".bun",
    ".deno",
    ".sdkman",
    ".asdf",
    ".dotnet",
    ".rbenv",
    ".ghcup",
    ".elan",
    ".juliaup",
    ".pub-cache",
    ".local/bin",
    ".local/lib",
    ".local/share/pipx",
    "go/bin",
    "go/pkg/mod",
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper",
];

/// The read-only mounts for a command: the system, a filtered `/etc`, tool caches, the
/// toolchains under `home`, then the operator's `extra` paths (absolute; others ignored).
/// A path the host lacks is left out; `/etc/resolv.conf` pointing elsewhere (systemd's
/// stub under `/run`) is bound from where it points, since `/run` is not there.
pub fn system_mounts(host: &dyn Lookup, home: Option<&Path>, extra: &[PathBuf]) -> Vec<Mount> {
    let mut out = Vec::new();
    for dir in SYSTEM {
        let p = PathBuf::from(dir);
        match host.entry(&p) {
            Some(Entry::Link(target)) => out.push(Mount::Symlink { target, at: p }),
            Some(Entry::Dir) => out.push(ro(&p)),
            _ => {}
        }
    }
    let etc = Path::new("/etc");
    for name in host.names(etc) {
        let wanted =
            ETC.contains(&name.as_str()) || ETC_PREFIXES.iter().any(|p| name.starts_with(p));
        if !wanted {
            continue;
        }
        let p = etc.join(&name);
        match host.entry(&p) {
            Some(Entry::Link(target)) if name == "resolv.conf" => {
                let src = if target.is_absolute() {
                    target
                } else {
                    etc.join(target)
                };
                out.push(Mount::ReadOnly { src, dest: p });
            }
            Some(_) => out.push(ro(&p)),
            None => {}
        }
    }
    let caches = TOOL_CACHES.iter().map(PathBuf::from);
    for p in caches {
        if host.entry(&p) == Some(Entry::Dir) {
            out.push(ro(&p));
        }
    }
    if let Some(home) = home.filter(|h| h.is_absolute() && *h != Path::new("/")) {
        for rel in HOME_TOOLCHAINS {
            let p = home.join(rel);
            if host.entry(&p).is_some() {
                out.push(ro(&p));
            }
        }
    }
    for p in extra.iter().filter(|p| p.is_absolute()) {
        if host.entry(p).is_some() {
            out.push(ro(p));
        }
    }
    out
}

fn ro(p: &Path) -> Mount {
    Mount::ReadOnly {
        src: p.to_path_buf(),
        dest: p.to_path_buf(),
    }
}

/// The operator's extra read-only paths from `KOTEF_SANDBOX_BINDS` (`:`-separated, absolute
/// paths only; others are dropped with a warning). Pure.
pub fn parse_binds(value: &str) -> Vec<PathBuf> {
    value
        .split(':')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .filter_map(|s| {
            let p = PathBuf::from(s);
            if p.is_absolute() {
                Some(p)
            } else {
                tracing::warn!(path = %s, "KOTEF_SANDBOX_BINDS: not an absolute path, ignored");
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A host written as a map of paths.
    struct Fake(BTreeMap<PathBuf, Entry>);

    impl Fake {
        fn new(entries: &[(&str, Entry)]) -> Self {
            Fake(
                entries
                    .iter()
                    .map(|(p, e)| (PathBuf::from(p), e.clone()))
                    .collect(),
            )
        }
    }

    impl Lookup for Fake {
        fn entry(&self, path: &Path) -> Option<Entry> {
            self.0.get(path).cloned()
        }
        fn names(&self, dir: &Path) -> Vec<String> {
            self.0
                .keys()
                .filter(|p| p.parent() == Some(dir))
                .filter_map(|p| Some(p.file_name()?.to_str()?.to_string()))
                .collect()
        }
    }

    fn link(t: &str) -> Entry {
        Entry::Link(PathBuf::from(t))
    }

    fn dests(m: &[Mount]) -> Vec<String> {
        m.iter()
            .map(|m| match m {
                Mount::ReadOnly { dest, .. } => dest.display().to_string(),
                Mount::Symlink { at, .. } => format!("{} (link)", at.display()),
            })
            .collect()
    }

    fn runner_host() -> Fake {
        Fake::new(&[
            ("/usr", Entry::Dir),
            ("/bin", link("usr/bin")),
            ("/lib", link("usr/lib")),
            ("/etc/passwd", Entry::File),
            ("/etc/shadow", Entry::File),
            ("/etc/ssh", Entry::Dir),
            ("/etc/ssl", Entry::Dir),
            ("/etc/gitconfig", Entry::File),
            ("/etc/java-17-openjdk", Entry::Dir),
            (
                "/etc/resolv.conf",
                link("../run/systemd/resolve/stub-resolv.conf"),
            ),
            ("/opt/hostedtoolcache", Entry::Dir),
            ("/opt/microsoft", Entry::Dir),
            ("/home/runner/.pyenv", Entry::Dir),
            ("/home/runner/.cargo/bin", Entry::Dir),
            ("/home/runner/.cargo/credentials.toml", Entry::File),
            ("/home/runner/.ssh", Entry::Dir),
            ("/run/docker.sock", Entry::File),
        ])
    }

    #[test]
    fn a_runner_host_shows_the_system_toolchains_and_nothing_else() {
        let m = system_mounts(&runner_host(), Some(Path::new("/home/runner")), &[]);
        assert_eq!(
            dests(&m),
            [
                "/usr",
                "/bin (link)",
                "/lib (link)",
                "/etc/java-17-openjdk",
                "/etc/passwd",
                "/etc/resolv.conf",
                "/etc/ssl",
                "/opt/hostedtoolcache",
                "/home/runner/.pyenv",
                "/home/runner/.cargo/bin",
            ]
        );
    }

    #[test]
    fn a_resolv_conf_link_is_bound_from_its_target() {
        let m = system_mounts(&runner_host(), None, &[]);
        assert!(m.contains(&Mount::ReadOnly {
            src: PathBuf::from("/etc/../run/systemd/resolve/stub-resolv.conf"),
            dest: PathBuf::from("/etc/resolv.conf"),
        }));
    }

    #[test]
    fn the_operators_paths_are_added_when_they_exist() {
        let m = system_mounts(
            &runner_host(),
            None,
            &[
                PathBuf::from("/opt/microsoft"),
                PathBuf::from("/opt/absent"),
            ],
        );
        assert_eq!(dests(&m).last().map(String::as_str), Some("/opt/microsoft"));
        assert!(!dests(&m).iter().any(|d| d == "/opt/absent"));
    }

    #[test]
    fn binds_are_absolute_paths_separated_by_colons() {
        assert_eq!(
            parse_binds("/opt/a: relative :/srv/b:"),
            [PathBuf::from("/opt/a"), PathBuf::from("/srv/b")]
        );
    }
}
