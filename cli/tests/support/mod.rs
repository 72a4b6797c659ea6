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

/// A small BVH clip (2 joints, 10 frames) named `name` in `dir`.
#[allow(dead_code)] // not every test binary that includes this module writes BVH clips
pub fn small_bvh(dir: &Path, name: &str) -> PathBuf {
    let mut t = String::from(
        "HIERARCHY\nROOT hip\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition \
         Zrotation Xrotation Yrotation\n JOINT knee\n {\n  OFFSET 0 -1 0\n  CHANNELS 3 Zrotation \
         Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 -1 0\n  }\n }\n}\nMOTION\nFrames: 10\n\
         Frame Time: 0.0333333\n",
    );
    for i in 0..10 {
        let a = i as f32 * 3.0;
        t += &format!("0 {} 0 {a} 0 0 {} 0 0\n", 1.0 + 0.01 * i as f32, a * 2.0);
    }
    let p = dir.join(name);
    std::fs::write(&p, t).unwrap();
    p
}
