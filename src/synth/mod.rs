//! Generators and encoders: synthetic datasets and the files of each format written from them,
//! for fixtures, tests, benchmarks and the built-in example. Above formats and model in the flow
//! (it writes what their readers read, using their public types), below the CLI and the API.

pub mod bytes;
mod db;
pub mod dcpi;
pub mod example;
pub mod hpcrun;
pub mod hpctoolkit;
pub mod hpctoolkit_xml;
mod names;
pub mod prof2;
pub mod rng;
mod sources;
pub mod spec;
mod trace;
pub mod tree;
pub mod uftrace;
pub mod uftrace_recording;
pub mod values;

pub use db::{SynthDb, CPUTIME_PER_SAMPLE};
pub use spec::SynthSpec;
pub use trace::TRACE_T0_NS;
pub use values::SynthStats;
