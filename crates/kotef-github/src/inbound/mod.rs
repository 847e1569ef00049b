//! The inbound edge: the HTTP server and its webhook route ([`server`]), signature checks
//! ([`signature`]), what a delivery asks for ([`trigger`]), and the text the agent may see of
//! GitHub Markdown ([`sanitize`], [`visible`]).

pub mod sanitize;
pub mod server;
pub mod signature;
pub mod trigger;
pub mod visible;
