//! Aggregations and layouts computed from the model: top-down / bottom-up / flat trees, flame-graph
//! rectangles, timeline sampling. Pure functions of the model; nothing here parses or draws.

pub mod bottomup;
pub mod derived;
pub mod diff;
pub mod flame;
pub mod flat;
pub mod folded;
pub mod frames;
pub mod names;
pub mod profile;
pub mod search;
pub mod source;
pub mod table;
pub mod timeline;
pub mod topdown;
pub mod values;

#[cfg(test)]
mod tests;
