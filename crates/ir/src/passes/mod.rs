//! Passes over one function, one per file, each a plain `run` function that returns whether
//! it changed the function. [`crate::pipeline`] registers them by name.

pub mod dead_code;
pub mod reverse_post_order;
