//! What kotef knows of particular languages and test runners, kept apart from the graph so the
//! graph's rules stay language-neutral: today, how Python's unittest reports failures and
//! which name a Python module lacks, the frames of a traceback, and the fix templates'
//! rewrites of Python statements (type repairs, pattern, condition and name mutants, the
//! bindings of a name no module statement binds), and the words of names (which code a
//! failing test is named like).

pub mod condition_mutation;
#[cfg(test)]
mod condition_mutation_tests;
pub mod missing_name;
#[cfg(test)]
mod missing_name_tests;
pub mod name_mutation;
#[cfg(test)]
mod name_mutation_tests;
pub mod python;
pub mod regex_mutation;
#[cfg(test)]
mod regex_mutation_tests;
pub mod traceback;
pub mod type_repair;
#[cfg(test)]
mod type_repair_tests;
pub mod unittest;
pub mod words;
