//! The built-in clip set `animcomp bench` uses when given no path: procedurally generated clips
//! (deterministic) covering the cases real data has, so the command works on a fresh machine.

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::RawClip;

/// The built-in clips: name and clip (default precision 0.01 and shell 3.0 on every joint).
pub fn clips() -> Vec<RawClip> {
    let base = GenerateOptions::default();
    let specs: [(&str, GenerateOptions); 5] = [
        // A humanoid-sized rig at mocap rate, deep chains.
        (
            "humanoid_60hz",
            GenerateOptions {
                joints: 60,
                samples: 240,
                sample_rate: 60.0,
                max_depth: 10,
                seed: 11,
                ..base.clone()
            },
        ),
        // Every joint carries animated translation, like 6-channel BVH (bandai).
        (
            "translation_30hz",
            GenerateOptions {
                joints: 30,
                samples: 150,
                animated_translation: true,
                seed: 12,
                ..base.clone()
            },
        ),
        // Animated non-uniform scale on some joints.
        (
            "scale_30hz",
            GenerateOptions {
                joints: 25,
                samples: 120,
                scale: true,
                seed: 13,
                ..base.clone()
            },
        ),
        // A minute of motion.
        (
            "long_30hz",
            GenerateOptions {
                joints: 40,
                samples: 1800,
                max_depth: 8,
                seed: 14,
                ..base.clone()
            },
        ),
        // The last sample repeats the first.
        (
            "loop_30hz",
            GenerateOptions {
                joints: 30,
                samples: 61,
                looping: true,
                seed: 15,
                ..base
            },
        ),
    ];
    specs
        .into_iter()
        .map(|(name, opts)| {
            let mut clip = generate_clip(&opts);
            clip.name = name.to_string();
            clip
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_clips_are_valid_and_distinct() {
        let clips = clips();
        assert_eq!(clips.len(), 5);
        let mut names: Vec<_> = clips.iter().map(|c| c.name.clone()).collect();
        names.dedup();
        assert_eq!(names.len(), 5);
        for mut c in clips {
            c.validate().unwrap();
        }
        assert!(super::clips()[2].has_scale(1e-4));
        assert_eq!(super::clips()[0].sample_rate, 60.0);
    }
}
