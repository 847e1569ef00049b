//! Secret values (webhook secrets, tokens, private keys) are [`secrecy::SecretString`]: `Debug`
//! prints `[REDACTED]`, the value is reachable only through [`ExposeSecret::expose_secret`],
//! and it is zeroed on drop.

pub use secrecy::ExposeSecret;

/// A secret string (webhook secret, token, private key).
pub type Secret = secrecy::SecretString;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_value() {
        let s = Secret::from("hunter2-very-secret");
        let shown = format!("{s:?}");
        assert!(shown.contains("[REDACTED]"), "{shown}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert_eq!(s.expose_secret(), "hunter2-very-secret");
    }
}
