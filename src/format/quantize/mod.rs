//! Quantisation building blocks shared by every codec: bit packing, rotation formats (Unreal's
//! fixed formats, smallest-three), vector formats and range reduction.

pub mod bits;
pub mod range;
pub mod rotation;
pub mod small_float;
pub mod smallest_three;
pub mod vector;

pub use range::Range3;
pub use rotation::RotationFormat;
pub use vector::VectorFormat;
