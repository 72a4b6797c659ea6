//! Regenerates the C# bindings from `include/animcomp.h`:
//!
//! ```sh
//! cargo run -p animcomp-csharp-gen
//! ```
//!
//! writes `bindings/csharp/Runtime/NativeMethods.g.cs` (the raw P/Invoke layer) and
//! `bindings/csharp/tests/layout.g.c` (prints every struct's C size and field offsets, which the
//! mono test compares with the C# layout). `tests/fresh.rs` fails when either file is stale.

use std::fs;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let header =
        fs::read_to_string(root.join("include/animcomp.h")).expect("read include/animcomp.h");
    let api = animcomp_csharp_gen::parse(&header).expect("parse include/animcomp.h");
    for (path, text) in animcomp_csharp_gen::outputs(&api) {
        let path = root.join(path);
        if fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            fs::write(&path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
            println!("wrote {}", path.display());
        }
    }
}
