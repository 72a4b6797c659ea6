//! What several CLI test binaries generate alike.

use std::path::{Path, PathBuf};

/// A Live Link Face take of 2 curves and 30 rows (what the curve commands read).
pub fn face_csv(dir: &Path) -> PathBuf {
    let csv = dir.join("face.csv");
    let mut text = String::from("Timecode,BlendShapeCount,EyeBlinkLeft,JawOpen\n");
    for i in 0..30 {
        text.push_str(&format!(
            "00:00:00:{i:02}.0,2,{},{}\n",
            i as f32 / 30.0,
            0.5
        ));
    }
    std::fs::write(&csv, text).unwrap();
    csv
}
