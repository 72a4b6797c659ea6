//! The `fixed` codec's body: layout and validation (see `docs/formats.md`).

pub mod layout;
pub mod validate;
