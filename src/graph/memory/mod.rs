//! The run's memory, the graph's lowest layer: `RunState` (`state`), the facts derived from it
//! when asked (`facts`, `progress`), a failing verification read once (`failure`), what one
//! node leaves for a later one (`handoff`), the statements line attempts offer and what one
//! repair step leaves the next of them (`line_offers`), the model calls it sent (`sent_calls`), what the
//! failing tests ran (`spectrum`), the failing test's neighbours at the start (`neighbours`)
//! and the run's events (`events`). It imports no other part of the graph.

pub mod events;
pub mod facts;
pub mod failure;
pub mod handoff;
pub mod line_offers;
pub mod neighbours;
pub mod progress;
mod progress_tests;
pub mod sent_calls;
pub mod spectrum;
pub mod state;
#[cfg(test)]
pub mod testing;
