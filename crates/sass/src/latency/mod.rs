//! Latencies: the class of every form and the measured figures per SM.

mod class;

pub use class::LatencyClass;
