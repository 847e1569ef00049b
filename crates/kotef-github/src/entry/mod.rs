//! The other ways in besides the server's workers: the GitHub Action step ([`action`]) and the
//! dispatcher that hands runs to Actions runners ([`dispatch`]).

pub mod action;
pub mod dispatch;
