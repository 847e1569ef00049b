//! kotef library
