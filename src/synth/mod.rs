//! Generators and encoders: synthetic datasets and the files of each format written from them,
//! for fixtures, tests, benchmarks and the built-in example. Above formats and model in the flow
//! (it writes what their readers read, using their public types), beside the CLI.

pub mod bytes;
pub mod dcpi;
pub mod hpcrun;
pub mod rng;
pub mod uftrace_recording;
