//! What the model is shown, above the run's memory: the templates of `prompts/` as typed
//! structs (`messages`), prompt building as snapshot + delta (`context`), the repository as the
//! prompts list it (`listing`) and the code as they show it (`code_view`). It imports only the
//! memory.

pub mod code_view;
pub mod context;
pub mod listing;
pub mod messages;
