//! The graph's rules as pure functions over the run's memory, above the prompts: budgets and
//! hard limits (`budgets`), the coder's in-step breakers (`breakers`), sizing a model call
//! (`pacing`), the coder's tasks (`tasks`), how a run ends (`endings`), how the coder writes
//! code (`edit_format`) and what a change to the tests' own code leaves to check
//! (`tests_touched`). The guards apply them; a rule never imports a guard.

pub mod breakers;
pub mod budgets;
pub mod contradiction;
pub mod edit_format;
pub mod endings;
mod endings_tests;
pub mod pacing;
pub mod tasks;
mod tasks_tests;
pub mod tests_touched;
