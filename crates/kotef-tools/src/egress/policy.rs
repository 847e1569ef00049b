//! Which destinations the repository's `setup` may reach: public addresses by default, never
//! loopback, link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254), the private
//! ranges or other special-purpose ones, unless the operator names a host itself. Pure: the
//! operator's words in, a decision per resolved address out.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The operator's rule for `setup`'s network (`KOTEF_SETUP_NETWORK`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EgressPolicy {
    /// Any public address may be reached.
    pub public: bool,
    /// Hosts (and optionally ports) the operator allows whatever their address: a package
    /// mirror on the private network, a fake registry in a test.
    pub hosts: Vec<(String, Option<u16>)>,
}

impl Default for EgressPolicy {
    /// The public internet, nothing else.
    fn default() -> Self {
        Self {
            public: true,
            hosts: Vec::new(),
        }
    }
}

impl EgressPolicy {
    /// No network at all.
    pub fn off() -> Self {
        Self {
            public: false,
            hosts: Vec::new(),
        }
    }

    /// Parses `KOTEF_SETUP_NETWORK`: `public` (the default), `off`, or a comma-separated list
    /// of `public` and `host[:port]` entries (`pypi.internal:443,public`).
    pub fn parse(value: &str) -> Result<Self, String> {
        let value = value.trim();
        if value.is_empty() || value.eq_ignore_ascii_case("public") {
            return Ok(Self::default());
        }
        if value.eq_ignore_ascii_case("off") || value.eq_ignore_ascii_case("none") {
            return Ok(Self::off());
        }
        let mut policy = Self::off();
        for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if item.eq_ignore_ascii_case("public") {
                policy.public = true;
                continue;
            }
            policy.hosts.push(parse_host(item)?);
        }
        Ok(policy)
    }

    /// Whether anything at all may be reached.
    pub fn any(&self) -> bool {
        self.public || !self.hosts.is_empty()
    }

    /// The operator named this host (and port) itself.
    pub fn names(&self, host: &str, port: u16) -> bool {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        self.hosts
            .iter()
            .any(|(h, p)| h.eq_ignore_ascii_case(host) && p.is_none_or(|p| p == port))
    }

    /// Why `ip` may not be reached (`None`: it may), for a host the operator did not name.
    pub fn refuses(&self, ip: IpAddr) -> Option<&'static str> {
        match special_range(ip) {
            Some(range) => Some(range),
            None if self.public => None,
            None => Some("not on the operator's list"),
        }
    }
}

fn parse_host(item: &str) -> Result<(String, Option<u16>), String> {
    let bad = || format!("KOTEF_SETUP_NETWORK: `{item}` is not `public`, `off` or host[:port]");
    let (host, port) = if let Some(rest) = item.strip_prefix('[') {
        let (h, after) = rest.split_once(']').ok_or_else(bad)?;
        (h, after.strip_prefix(':'))
    } else if item.matches(':').count() == 1 {
        let (h, p) = item.split_once(':').ok_or_else(bad)?;
        (h, Some(p))
    } else {
        (item, None)
    };
    if host.is_empty() || host.contains(['/', ' ', '@']) {
        return Err(bad());
    }
    let port = match port {
        Some(p) => Some(p.parse::<u16>().map_err(|_| bad())?),
        None => None,
    };
    Ok((host.to_ascii_lowercase(), port))
}

/// The special-purpose range `ip` is in (`None`: a public address).
pub fn special_range(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => special_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => special_v4(v4),
            None => special_v6(v6),
        },
    }
}

fn special_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    Some(match () {
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_link_local() => "link-local (cloud metadata)",
        _ if ip.is_private() => "a private range",
        _ if ip.is_unspecified() || a == 0 => "the unspecified range",
        _ if a == 100 && (64..128).contains(&b) => "carrier-grade NAT",
        _ if ip.is_multicast() || ip.is_broadcast() || a >= 240 => "multicast or reserved",
        _ if a == 192 && b == 0 && ip.octets()[2] == 0 => "IETF protocol assignments",
        _ if a == 198 && (18..20).contains(&b) => "benchmarking",
        _ => return None,
    })
}

fn special_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let seg = ip.segments();
    Some(match () {
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_unspecified() => "the unspecified range",
        _ if seg[0] & 0xffc0 == 0xfe80 => "link-local",
        _ if seg[0] & 0xfe00 == 0xfc00 => "unique local (cloud metadata)",
        _ if seg[0] & 0xff00 == 0xff00 => "multicast",
        _ if seg[0] == 0x64 && seg[1] == 0xff9b => "NAT64",
        _ if seg[0] == 0x2002 => "6to4",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(policy: &EgressPolicy, ip: &str) -> Option<&'static str> {
        policy.refuses(ip.parse().unwrap())
    }

    #[test]
    fn metadata_loopback_and_private_addresses_are_refused_by_default() {
        let p = EgressPolicy::default();
        for ip in [
            "169.254.169.254",
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00:ec2::254",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
        ] {
            assert!(refused(&p, ip).is_some(), "{ip}");
        }
    }

    #[test]
    fn public_addresses_are_allowed_by_default() {
        let p = EgressPolicy::default();
        for ip in ["151.101.0.223", "140.82.112.3", "2a04:4e42::223"] {
            assert_eq!(refused(&p, ip), None, "{ip}");
        }
    }

    #[test]
    fn off_refuses_everything() {
        let p = EgressPolicy::parse("off").unwrap();
        assert!(!p.any());
        assert!(refused(&p, "151.101.0.223").is_some());
    }

    #[test]
    fn named_hosts_are_allowed_on_their_port_only() {
        let p = EgressPolicy::parse("127.0.0.1:8080, mirror.internal").unwrap();
        assert!(!p.public);
        assert!(p.names("127.0.0.1", 8080));
        assert!(!p.names("127.0.0.1", 8081));
        assert!(p.names("MIRROR.internal", 443));
    }

    #[test]
    fn a_bad_entry_is_named() {
        let e = EgressPolicy::parse("public,http://x/").unwrap_err();
        assert!(e.contains("`http://x/`"), "{e}");
    }
}
