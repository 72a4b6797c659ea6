//! Every decoder writing each channel's rows anywhere ([`PoseRows`]: the f32 layouts of
//! `runtime::layout`), against the scalar decoder's ten-float pose, bit for bit, with nothing
//! written outside the rows.

use super::*;
use crate::runtime::PoseRows;

/// The whole pose of `p` at `key` with the decoder for `isa` into `rows`; false where this
/// machine or build does not have it.
fn sample_rows_isa(p: &GroupedClip, isa: Isa, key: &SampleKey, rows: PoseRows) -> bool {
    assert!(key.i0 < p.header.num_samples && key.i1 < p.header.num_samples);
    if !isa.available() {
        return false;
    }
    let v = p.view();
    // SAFETY (every arm): the ISA is available; the key was checked above, and the caller's
    // rows hold every joint.
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { avx2::sample_rows_512(&v, key, rows, 7) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::sample_rows(&v, key, rows, 7) },
        #[cfg(target_arch = "x86_64")]
        Isa::Sse2 => unsafe { sse2::sample_pose_rows(&v, key, rows) },
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => unsafe { neon::sample_pose_rows(&v, key, rows, 7) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Isa::Simd128 => unsafe { simd128::sample_pose_rows(&v, key, rows, 7) },
        Isa::Scalar => unsafe { scalar::sample_rows(&v, key, rows, 7) },
        #[allow(unreachable_patterns)]
        _ => return false,
    }
    true
}

/// Channel `c`'s floats per joint, and where they are in a ten-float row.
const CHANNELS: [(usize, usize); 3] = [(4, 0), (3, 4), (3, 7)];

/// Three arrays of rows with gaps: rotations 6 floats apart from float 1, translations 5
/// apart from float 2, scales 3 apart (packed) from float 0.
const LAYOUT: [(usize, usize); 3] = [(1, 6), (2, 5), (0, 3)];

#[test]
fn every_decoder_writes_rows_anywhere() {
    let isas: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.available()).collect();
    let mut checked = 0;
    // Groups of one to eight lanes, raw components and per-segment drops (the edited clip),
    // u16 joints (300 joints).
    for (joints, samples, edited) in [
        (3, 40, false),
        (12, 64, true),
        (23, 50, false),
        (300, 20, false),
    ] {
        let samples = shorter(samples);
        let blob = vbr_blob_with(joints, samples, true, |c| {
            if edited {
                edge_cases(c);
                held_still(c);
            }
        });
        let p = convert(blob.as_bytes()).unwrap();
        let n = samples as u32;
        let mut want = vec![0.0f32; joints * 10];
        let mut bufs: [Vec<f32>; 3] =
            core::array::from_fn(|c| vec![0.0f32; LAYOUT[c].0 + joints * LAYOUT[c].1 + 1]);
        for i in (0..n).step_by(3) {
            for (i0, i1, alpha) in [
                (i, i, 0.0),
                (i, (i + 1).min(n - 1), 0.375),
                (i, (i * 7 + 3) % n, 0.625),
            ] {
                let key = SampleKey { i0, i1, alpha };
                assert!(p.sample_pose_isa(Isa::Scalar, &key, &mut want, 10));
                for &isa in &isas {
                    for b in bufs.iter_mut() {
                        b.fill(f32::NAN);
                    }
                    let rows = PoseRows {
                        base: core::array::from_fn(|c| {
                            bufs[c].as_mut_ptr().wrapping_add(LAYOUT[c].0)
                        }),
                        stride: LAYOUT.map(|l| l.1),
                    };
                    assert!(sample_rows_isa(&p, isa, &key, rows));
                    checked += 1;
                    for (c, b) in bufs.iter().enumerate() {
                        let ((len, at), (first, stride)) = (CHANNELS[c], LAYOUT[c]);
                        for (f, &y) in b.iter().enumerate() {
                            let (j, k) = (
                                (f.wrapping_sub(first)) / stride,
                                (f.wrapping_sub(first)) % stride,
                            );
                            if f < first || j >= joints || k >= len {
                                assert!(y.is_nan(), "{isa:?}: channel {c} float {f} written");
                                continue;
                            }
                            let x = want[10 * j + at + k];
                            assert_eq!(
                                x.to_bits(),
                                y.to_bits(),
                                "{isa:?}, {joints} joints, channel {c}, joint {j}, key {key:?}"
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 0);
}
