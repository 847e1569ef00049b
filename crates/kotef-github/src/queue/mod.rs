//! The durable queue between the webhook and the workers: the job a delivery becomes
//! ([`job`]) and the SQLite store that keeps each delivery once ([`store`]).

pub mod job;
pub mod store;
