//! The ways in, each driving the layers below it (inbound → queue → pipeline → outbound): the
//! webhook server with its workers ([`server`]), the GitHub Action step ([`action`]) and the
//! dispatcher that hands runs to Actions runners ([`dispatch`]); the server's edge decisions
//! that need GitHub ([`edge`], with the repositories' trigger labels in [`labels`]);
//! [`leftovers`] clears what a crashed server left in its work dir, and `startup` is what the
//! server does once before it listens.

pub mod action;
pub mod dispatch;
pub mod edge;
pub mod labels;
pub mod leftovers;
pub mod server;
mod startup;
