//! hpcscope: a performance-data viewer. Data flows one way:
//! bytes -> formats -> model -> analysis -> wasm API -> JS views (see ../shared/STYLE.md).

pub mod analysis;
pub mod api;
pub mod block_cache;
pub mod bytes;
pub mod cli;
pub mod error;
pub mod export;
pub mod formats;
pub mod model;
pub mod staging;
pub mod synth;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::{Error, ErrorKind, Result, Warning};
