//! Shared helpers for animcomp benchmarks.
