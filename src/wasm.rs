//! The only file that knows about wasm-bindgen: the `Session` handle the Worker talks to.
