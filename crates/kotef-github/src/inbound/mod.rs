//! The inbound edge, pure: signature checks ([`signature`]), what a delivery asks for
//! ([`trigger`]), whether a push may have changed a repository's config ([`push`]), and the
//! text the agent may see of GitHub Markdown ([`sanitize`], [`visible`]). The HTTP server that
//! receives deliveries is an entry point (`crate::entry::server`).

pub mod decide;
pub mod goal;
pub mod payload;
pub mod push;
pub mod sanitize;
pub mod signature;
pub mod trigger;
pub mod visible;
