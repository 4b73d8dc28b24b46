//! Aggregations and layouts computed from the model: top-down / bottom-up / flat trees, flame-graph
//! rectangles, timeline sampling. Pure functions of the model; nothing here parses or draws.
pub mod timeline;
