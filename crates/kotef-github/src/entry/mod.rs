//! The ways in, each driving the layers below it (inbound → queue → pipeline → outbound): the
//! webhook server with its workers ([`server`]), the GitHub Action step ([`action`]) and the
//! dispatcher that hands runs to Actions runners ([`dispatch`]).

pub mod action;
pub mod dispatch;
pub mod server;
