//! Everything kotef sends out: the GitHub REST client with safe retries ([`client`],
//! [`retry`]), the text of comments and pull requests ([`render`], [`links`]), the git workspace that is
//! cloned, committed and pushed ([`workspace`]). The secret type that keeps tokens out of logs is
//! [`crate::secret`], shared with the webhook check.

pub mod client;
pub mod links;
pub mod render;
pub mod retry;
pub mod workspace;
