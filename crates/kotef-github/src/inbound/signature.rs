//! Webhook authenticity: `X-Hub-Signature-256` (HMAC-SHA256 of the raw body) checked in
//! constant time against every configured secret (several allow rotation), before any parsing.

use crate::secret::{ExposeSecret, Secret};
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The header GitHub signs deliveries with.
pub const SIGNATURE_HEADER: &str = "x-hub-signature-256";

/// `sha256=<hex>` for `body` under `secret` (what GitHub sends; used by tests and the fake).
pub fn sign(secret: &str, body: &[u8]) -> String {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = HmacSha256::new_from_slice(secret.as_bytes()).expect("hmac takes any key size");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Whether `header` (the raw `X-Hub-Signature-256` value) is a valid signature of `body` under
/// at least one of `secrets`. Malformed headers and empty secret lists are simply invalid.
pub fn verify(secrets: &[Secret], header: Option<&str>, body: &[u8]) -> bool {
    let Some(header) = header else {
        return false;
    };
    let Some(hex_sig) = header.trim().strip_prefix("sha256=") else {
        return false;
    };
    let Ok(sig) = hex::decode(hex_sig) else {
        return false;
    };
    let mut ok = false;
    for secret in secrets.iter().filter(|s| !s.expose_secret().is_empty()) {
        let Ok(mut mac) = HmacSha256::new_from_slice(secret.expose_secret().as_bytes()) else {
            continue;
        };
        mac.update(body);
        // `verify_slice` compares in constant time; every secret is tried so timing does not
        // reveal which one matched.
        ok |= mac.verify_slice(&sig).is_ok();
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(list: &[&str]) -> Vec<Secret> {
        list.iter().map(|s| Secret::from(*s)).collect()
    }

    #[test]
    fn github_documented_example_verifies() {
        // From GitHub's "Validating webhook deliveries" documentation.
        let sig = sign("It's a Secret to Everybody", b"Hello, World!");
        assert_eq!(
            sig,
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        );
        assert!(verify(
            &secrets(&["It's a Secret to Everybody"]),
            Some(&sig),
            b"Hello, World!"
        ));
    }

    #[test]
    fn any_of_several_secrets_is_accepted() {
        let body = br#"{"zen":"x"}"#;
        let sig = sign("new-secret", body);
        assert!(verify(
            &secrets(&["old-secret", "new-secret"]),
            Some(&sig),
            body
        ));
        assert!(!verify(&secrets(&["old-secret"]), Some(&sig), body));
    }

    #[test]
    fn missing_malformed_or_tampered_signatures_fail() {
        let s = secrets(&["k"]);
        let body = b"{}";
        assert!(!verify(&s, None, body));
        assert!(!verify(&s, Some("sha1=abcd"), body));
        assert!(!verify(&s, Some("sha256=zz"), body));
        assert!(!verify(&s, Some(&sign("k", b"{ }")), body));
        assert!(!verify(&[], Some(&sign("k", body)), body));
        assert!(!verify(&secrets(&[""]), Some(&sign("", body)), body));
    }
}
