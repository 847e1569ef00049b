//! The graph's nodes, above the guards: the planner, the researcher, the coder (its tool
//! loop in `coder`, its repair loop in `repair`), the verifier and the snitch, and `llm`, the
//! one door through which they reach the model. Only the loop (`graph::run_graph`) imports
//! them.

pub mod coder;
pub mod llm;
pub mod planner;
pub mod repair;
pub mod researcher;
pub mod snitch;
pub mod verifier;
