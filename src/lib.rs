//! hpcscope: a performance-data viewer. Data flows one way:
//! bytes -> formats -> model -> analysis -> session -> wasm -> JS views (see ../shared/STYLE.md).

pub mod analysis;
pub mod block_cache;
pub mod bytes;
pub mod cli;
pub mod error;
pub mod export;
pub mod formats;
pub mod model;
pub mod session;
pub mod sort;
pub mod synth;
pub mod work;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::{Error, ErrorKind, Result, Warning};
