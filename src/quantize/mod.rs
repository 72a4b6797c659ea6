//! Quantisation building blocks shared by every codec: bit packing, rotation formats (Unreal's
//! fixed formats, smallest-three), vector formats and range reduction.

pub mod bits;
pub mod rotation;
pub mod vector;

pub use rotation::RotationFormat;
pub use vector::VectorFormat;
