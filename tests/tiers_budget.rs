//! A set of clips sharing one byte budget per tier (`animcomp::offline::tiers::budget`): the
//! resident blobs the writer writes fit the budget whenever the plan says it is reached, the
//! thresholds are the smallest that fit, a budget that cannot be met removes every removable
//! sample and says so, a loose budget changes nothing against the per-clip mode, the candidates'
//! byte and sample counts are those of the blobs written, and every clip still decodes bit for
//! bit like its blob without tiers with every level attached.

#![cfg(feature = "compress")]

#[path = "support/emulated.rs"]
mod emulated;

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::offline::tiers::{
    compress_tiered_budget, compress_tiered_fidelities, plan_budget, tier_candidates, TierBudget,
    TierCandidates,
};
use animcomp::runtime::{DecompressOptions, Decompressor, Looping, OpenBlob, Rounding, TierSet};
use animcomp::{compress, compress_tiered, AlignedBlob, CompressSettings, RawClip, TierSettings};

/// Clips of different smoothness (120 Hz: many samples leave cheaply; 30 Hz: few), so that a
/// shared budget takes more from some clips than from others. Under qemu
/// (`ANIMCOMP_TEST_EMULATED=1`, docs/ci.md) each clip has half its samples.
fn clips() -> Vec<RawClip> {
    let div = if emulated::emulated() { 2 } else { 1 };
    [
        (6, 90, 120.0, false, 1),
        (17, 75, 120.0, true, 2),
        (9, 60, 30.0, false, 3),
        (24, 50, 60.0, false, 4),
    ]
    .into_iter()
    .map(|(joints, samples, rate, scale, seed)| {
        generate_clip(&GenerateOptions {
            joints,
            samples: samples / div,
            sample_rate: rate,
            bone_length: 1.0,
            scale,
            animated_translation: seed == 4,
            seed,
            ..Default::default()
        })
    })
    .collect()
}

fn candidates(clips: &[RawClip], tiers: &TierSettings) -> Vec<TierCandidates> {
    let s = CompressSettings::default();
    clips
        .iter()
        .map(|c| tier_candidates(c, &s, tiers).unwrap())
        .collect()
}

fn full_bytes(clips: &[RawClip]) -> usize {
    let s = CompressSettings {
        codec: animcomp::CodecChoice::Vbr,
        ..Default::default()
    };
    clips.iter().map(|c| compress(c, &s).unwrap().len()).sum()
}

fn poses(set: Option<&TierSet>, blob: &[u8]) -> Vec<u32> {
    let blob = AlignedBlob::from_bytes(blob);
    let mut d = match set {
        Some(set) => Decompressor::bind_tiers(set),
        None => Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap(),
    };
    let n = d.header().num_samples;
    let rate = d.header().sample_rate;
    let mut out = Vec::new();
    for k in 0..2 * n {
        d.seek(k as f32 * 0.5 / rate, Looping::Clamp, Rounding::None)
            .unwrap();
        let mut p = vec![0.0f32; d.num_joints() * 10];
        d.sample_pose(&mut p, 10).unwrap();
        out.extend(p.iter().map(|x| x.to_bits()));
    }
    out
}

#[test]
fn the_candidates_count_what_the_writer_writes() {
    let clips = clips();
    let tiers = TierSettings::default();
    let cands = candidates(&clips, &tiers);
    let s = CompressSettings::default();
    for (clip, cand) in clips.iter().zip(&cands) {
        assert_eq!(
            cand.full_bytes as usize,
            compress(
                clip,
                &CompressSettings {
                    codec: animcomp::CodecChoice::Vbr,
                    ..s
                }
            )
            .unwrap()
            .len()
        );
        // At thresholds from the per-clip default to every removable sample, the samples each
        // fidelity stores and the resident bytes: an upper bound, above by at most the slack
        // and the padding (to 16 bytes) the counted base holds.
        for (medium, resident) in [(3.0, 10.0), (1.0, 1.0), (5.0, 40.0), (40.0, f32::MAX)] {
            let t = TierSettings {
                levels: 2,
                resident_factor: resident,
                medium_factor: medium,
            };
            let b = compress_tiered_fidelities(clip, &s, &t).unwrap();
            assert_eq!(cand.stored_samples(resident), b.stored[0], "{t:?}");
            assert_eq!(cand.stored_samples(medium), b.stored[1], "{t:?}");
            assert_eq!(cand.stored_samples(-1.0), b.stored[2], "{t:?}");
            let model = cand.resident_bytes(resident);
            let actual = b.blobs.resident.len() as u64;
            assert!(
                actual <= model && model <= actual + cand.slack + 15,
                "{t:?}: written {actual}, counted {model} (slack {})",
                cand.slack
            );
            assert!(cand.resident_bytes(medium) >= b.fidelities[1].len() as u64);
        }
    }
    // The set must exercise removals: some segment of some clip has steps.
    assert!(cands
        .iter()
        .any(|c| c.segments.iter().any(|s| !s.keys.is_empty())));
}

#[test]
fn the_budget_is_honoured_with_the_smallest_thresholds() {
    let clips = clips();
    let tiers = TierSettings::default();
    let cands = candidates(&clips, &tiers);
    let refs: Vec<&TierCandidates> = cands.iter().collect();
    let full = full_bytes(&clips) as f64;
    let s = CompressSettings::default();
    let mut raised = 0;
    for fraction in [0.95, 0.85, 0.75, 0.65, 0.55, 0.45] {
        let plan = plan_budget(
            &refs,
            &tiers,
            &TierBudget {
                resident: fraction,
                medium: None,
            },
        )
        .unwrap();
        let written: usize = clips
            .iter()
            .map(|c| compress_tiered(c, &s, &plan.tiers).unwrap().resident.len())
            .sum();
        assert!(written as u64 <= plan.resident_bytes, "{fraction}");
        if !plan.resident_reached {
            assert_eq!(plan.tiers.resident_factor, f32::MAX);
            continue;
        }
        assert!(
            written as f64 <= fraction * full,
            "{fraction}: {written} of {full}"
        );
        // The smallest threshold: the next key below it (down to the factor) does not fit.
        let t = plan.tiers.resident_factor;
        if t > tiers.resident_factor {
            raised += 1;
            let below = cands
                .iter()
                .flat_map(|c| c.segments.iter().flat_map(|s| s.keys.iter().copied()))
                .filter(|&k| k < t)
                .fold(tiers.resident_factor, f32::max);
            let at_below: u64 = cands.iter().map(|c| c.resident_bytes(below)).sum();
            assert!(
                at_below as f64 > fraction * full,
                "{fraction}: {below} fits too"
            );
        }
    }
    assert!(raised >= 2, "the budgets must raise the threshold");
}

#[test]
fn an_unreachable_budget_removes_every_removable_sample_and_says_so() {
    let clips = clips();
    let tiers = TierSettings::default();
    let cands = candidates(&clips, &tiers);
    let refs: Vec<&TierCandidates> = cands.iter().collect();
    let plan = plan_budget(
        &refs,
        &tiers,
        &TierBudget {
            resident: 0.01,
            medium: None,
        },
    )
    .unwrap();
    assert!(!plan.resident_reached);
    assert_eq!(plan.tiers.resident_factor, f32::MAX);
    let s = CompressSettings::default();
    for (clip, cand) in clips.iter().zip(&cands) {
        let b = compress_tiered_fidelities(clip, &s, &plan.tiers).unwrap();
        // Only what no removal can take stays: the samples of the segments' ends (and any
        // whose removal error is not finite).
        let left: usize = cand
            .segments
            .iter()
            .map(|s| s.stored as usize - s.keys.len())
            .sum();
        assert_eq!(b.stored[0], left);
        assert!(b.stored[0] < b.stored[2]);
    }
    // Bad budgets are refused.
    for bad in [
        TierBudget {
            resident: 0.0,
            medium: None,
        },
        TierBudget {
            resident: f64::NAN,
            medium: None,
        },
        TierBudget {
            resident: 0.5,
            medium: Some(0.4),
        },
    ] {
        assert!(plan_budget(&refs, &tiers, &bad).is_err(), "{bad:?}");
    }
    let one = TierSettings { levels: 1, ..tiers };
    let one_cands = candidates(&clips[..1], &one);
    assert!(plan_budget(
        &[&one_cands[0]],
        &one,
        &TierBudget {
            resident: 0.5,
            medium: Some(0.7)
        }
    )
    .is_err());
}

#[test]
fn a_loose_budget_is_the_per_clip_mode() {
    let clips = clips();
    let tiers = TierSettings::default();
    let cands = candidates(&clips, &tiers);
    // Exactly what the per-clip mode's resident blobs take (counted), and more.
    let per_clip: u64 = cands
        .iter()
        .map(|c| c.resident_bytes(tiers.resident_factor))
        .sum();
    let full: u64 = cands.iter().map(|c| c.full_bytes).sum();
    for fraction in [(per_clip as f64 + 0.5) / full as f64, 1.0, 2.0] {
        let set = compress_tiered_budget(
            &clips.iter().collect::<Vec<_>>(),
            &CompressSettings::default(),
            &tiers,
            &TierBudget {
                resident: fraction,
                medium: (fraction > 1.5).then_some(fraction),
            },
        )
        .unwrap();
        assert_eq!(set.plan.tiers, tiers, "{fraction}");
        for (clip, got) in clips.iter().zip(&set.clips) {
            let want = compress_tiered(clip, &CompressSettings::default(), &tiers).unwrap();
            assert_eq!(got, &want);
        }
        // The per-clip bounds: within the factors (the search's metric).
        for b in &set.bounds {
            assert!(
                b[0] <= tiers.resident_factor && b[1] <= tiers.medium_factor,
                "{b:?}"
            );
        }
    }
}

#[test]
fn a_shared_budget_decodes_like_the_blobs_without_tiers() {
    let clips = clips();
    let tiers = TierSettings::default();
    let budget = TierBudget {
        resident: 0.6,
        medium: Some(0.8),
    };
    let set = compress_tiered_budget(
        &clips.iter().collect::<Vec<_>>(),
        &CompressSettings::default(),
        &tiers,
        &budget,
    )
    .unwrap();
    assert!(
        set.plan.resident_reached && set.plan.medium_reached,
        "{:?}",
        set.plan
    );
    let full = full_bytes(&clips) as f64;
    let resident: usize = set.clips.iter().map(|b| b.resident.len()).sum();
    assert!(resident as f64 <= 0.6 * full);
    let s = CompressSettings::default();
    let mut medium = 0;
    for (clip, got) in clips.iter().zip(&set.clips) {
        let b = compress_tiered_fidelities(clip, &s, &set.plan.tiers).unwrap();
        medium += b.fidelities[1].len();
        let plain = compress(
            clip,
            &CompressSettings {
                codec: animcomp::CodecChoice::Vbr,
                ..s
            },
        )
        .unwrap();
        let r = AlignedBlob::from_bytes(&got.resident);
        let open = OpenBlob::open(r.as_bytes(), &DecompressOptions::default()).unwrap();
        let set = TierSet::new(&open).unwrap();
        let tiers: Vec<AlignedBlob> = got
            .tiers
            .iter()
            .map(|t| AlignedBlob::from_bytes(t))
            .collect();
        assert_eq!(
            poses(Some(&set), &got.resident),
            poses(None, &b.fidelities[0])
        );
        set.attach(tiers[0].as_bytes()).unwrap();
        assert_eq!(
            poses(Some(&set), &got.resident),
            poses(None, &b.fidelities[1])
        );
        set.attach(tiers[1].as_bytes()).unwrap();
        assert_eq!(poses(Some(&set), &got.resident), poses(None, &plain));
    }
    assert!(medium as f64 <= 0.8 * full, "{medium} of {full}");
}

#[test]
fn candidates_round_trip_through_bytes() {
    let clips = clips();
    let cands = candidates(&clips[..2], &TierSettings::default());
    for c in &cands {
        let b = c.to_bytes();
        assert_eq!(&TierCandidates::from_bytes(&b).unwrap(), c);
        assert!(TierCandidates::from_bytes(&b[..b.len() - 1]).is_err());
        let mut more = b.clone();
        more.push(0);
        assert!(TierCandidates::from_bytes(&more).is_err());
        assert!(TierCandidates::from_bytes(b"ACTX").is_err());
    }
}
