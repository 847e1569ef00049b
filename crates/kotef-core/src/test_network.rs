//! The `[test]` table of `kotef.toml`: whether the project's commands may reach services on
//! the machine's loopback (a database, a cache started by the job), and on which ports. Never
//! the outside world: in the sandbox each allowed port is forwarded, nothing else is there.

use serde::{Deserialize, Serialize};

/// Most loopback ports one run may forward.
pub const MAX_LOOPBACK_PORTS: usize = 16;

/// `[test]` in `kotef.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestConfig {
    /// `none` (default): commands have no network at all; `loopback`: they reach the listed
    /// ports on the machine's loopback.
    pub network: Option<TestNetwork>,
    /// The loopback ports (`[5432, 6379]`). Ports of `localhost`/`127.0.0.1` URLs in the
    /// commands' variables (`DATABASE_URL = "postgres://localhost:5432/test"`) are added.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<u16>,
    /// The operator's ceiling on a server (`KOTEF_LOOPBACK_PORTS`): the only ports a
    /// repository may reach. `None`: the repository is the operator. Not a config field.
    #[serde(skip)]
    pub ceiling: Option<Vec<u16>>,
}

/// How the project's commands reach the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TestNetwork {
    None,
    Loopback,
}

impl TestConfig {
    pub fn is_unset(&self) -> bool {
        self.network.is_none() && self.ports.is_empty()
    }

    /// The loopback ports the run's commands reach: none unless `network = "loopback"`; the
    /// listed ones plus those of loopback URLs among `values`, within the ceiling, sorted, at
    /// most [`MAX_LOOPBACK_PORTS`]. Pure.
    pub fn loopback_ports<'a>(&self, values: impl IntoIterator<Item = &'a str>) -> Vec<u16> {
        if self.network != Some(TestNetwork::Loopback) {
            return Vec::new();
        }
        let mut ports: Vec<u16> = self
            .ports
            .iter()
            .copied()
            .chain(values.into_iter().filter_map(loopback_url_port))
            .filter(|p| *p != 0)
            .filter(|p| self.ceiling.as_ref().is_none_or(|c| c.contains(p)))
            .collect();
        ports.sort_unstable();
        ports.dedup();
        ports.truncate(MAX_LOOPBACK_PORTS);
        ports
    }
}

/// The port of a URL-like value naming the loopback (`postgres://u:p@localhost:5432/db`,
/// `redis://127.0.0.1:6379`, `localhost:8080`). Pure.
pub fn loopback_url_port(value: &str) -> Option<u16> {
    let rest = value.split_once("://").map_or(value, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = host_port.rsplit_once(':')?;
    let loopback = matches!(host, "localhost" | "127.0.0.1" | "[::1]");
    loopback.then(|| port.parse().ok()).flatten()
}

/// Parses an operator's port list (`"5432, 6379"`); `Err` names the bad entry.
pub fn parse_ports(list: &str) -> Result<Vec<u16>, String> {
    list.split([',', ' '])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.parse::<u16>()
                .ok()
                .filter(|n| *n != 0)
                .ok_or_else(|| format!("`{p}` is not a port"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loopback(ports: &[u16]) -> TestConfig {
        TestConfig {
            network: Some(TestNetwork::Loopback),
            ports: ports.to_vec(),
            ceiling: None,
        }
    }

    #[test]
    fn without_loopback_no_port_is_reached() {
        let t = TestConfig {
            ports: vec![5432],
            ..TestConfig::default()
        };
        assert!(t.loopback_ports(["postgres://localhost:5432/x"]).is_empty());
    }

    #[test]
    fn loopback_urls_in_the_variables_add_their_ports() {
        let t = loopback(&[6379]);
        let values = [
            "postgres://kotef:pw@localhost:5432/test",
            "http://example.com:8080/",
            "redis://127.0.0.1:6379/0",
        ];
        assert_eq!(t.loopback_ports(values), [5432, 6379]);
    }

    #[test]
    fn the_operators_ceiling_bounds_the_ports() {
        let mut t = loopback(&[5432, 22]);
        t.ceiling = Some(vec![5432]);
        assert_eq!(t.loopback_ports([]), [5432]);
    }

    #[test]
    fn a_port_list_names_its_bad_entry() {
        assert_eq!(parse_ports("5432, 6379"), Ok(vec![5432, 6379]));
        assert_eq!(parse_ports("5432,x"), Err("`x` is not a port".into()));
    }

    #[test]
    fn a_url_without_a_port_or_off_loopback_names_none() {
        assert_eq!(loopback_url_port("postgres://localhost/test"), None);
        assert_eq!(loopback_url_port("db.internal:5432"), None);
        assert_eq!(loopback_url_port("localhost:8080"), Some(8080));
    }
}
