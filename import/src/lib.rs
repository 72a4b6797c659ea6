//! Importers (being written).
