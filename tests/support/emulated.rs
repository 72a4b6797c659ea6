//! Whether the tests run under an emulator: `.ci/cross.sh` sets `ANIMCOMP_TEST_EMULATED=1` for
//! the aarch64 tests it runs under qemu, where floating-point code runs 20-40 times slower than
//! natively (docs/ci.md). The heaviest generated sweeps then run a share of their cases, chosen so
//! that each kind of case is still there (every codec, every bit position); x86-64 runs them all.

/// `true` when `ANIMCOMP_TEST_EMULATED=1`.
pub fn emulated() -> bool {
    std::env::var_os("ANIMCOMP_TEST_EMULATED").is_some_and(|v| v == "1")
}
