//! The `keys` codec's body: layout and validation, key payloads, interpolation (see
//! `docs/keys.md`).

pub mod interp;
pub mod layout;
pub(crate) mod quant;

pub use interp::Interp;
