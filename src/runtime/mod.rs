//! What ships in a game.

pub mod additive;
pub mod curves;
mod decompressor;
mod dispatch;
pub(crate) mod fixed;
pub mod key_cursor;
pub(crate) mod keys;
pub mod layout;
pub mod sampling;
pub mod seek;
pub mod segment_lines;
pub mod tiers;
pub mod vbr;

pub use decompressor::*;
pub use key_cursor::{cursor_state_size, KeyCursor};
pub use layout::{CheckedLayout, Element, LayoutKind, PoseLayout, Preset};
pub(crate) use sampling::PoseRows;
pub use sampling::{BodyHint, Defaults, JointSelection, PoseOut, SampleKey};
pub use seek::{clip_duration, Looping, Rounding};
pub use segment_lines::SegmentLines;
pub use tiers::TierSet;
