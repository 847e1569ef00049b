//! What kotef knows of particular languages and test runners, kept apart from the graph so the
//! graph's rules stay language-neutral: today, how Python's unittest reports failures and
//! which name a Python module lacks.

pub mod python;
pub mod unittest;
