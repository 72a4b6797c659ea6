//! Runtime figures of `animcomp bench` (issue 10), per codec run, through the Rust API of the
//! linked library: warm ns/pose, cold ns/pose, bind ns and subset ns/pose, with a hot `memcpy`
//! of a raw pose as the floor. Method (shared with `ab_runtime`, see `animcomp_bench::timing`):
//! - warm: per clip, the same 1000 random times (fixed seed) in a row, seek (clamp, interpolate)
//!   + whole-pose sample, timed in chunks of 50 poses, median chunk then median of rounds;
//! - cold: one pose per clip round-robin over every clip of the run, each timed alone, 32 MB
//!   written between passes; median over passes per clip;
//! - bind: binding a decompressor to a blob already opened (validated) once, ns per call;
//! - subset: 10 % of the joints spread evenly, sampled into their own slots of a whole pose;
//! - playback (issue 25): 64 instances, instance `i` playing clip `i mod clips` with its own
//!   decompressor and pose buffer from a random phase, all advanced by 1/60 s per frame (wrap)
//!   and sampled once per frame, 300 frames per round; without and with a playback cache per
//!   instance, rounds interleaved.
//!
//! Set figures are medians over clips.

use crate::measure::Input;
use crate::table::Table;
use animcomp::decompress::{
    DecompressOptions, Decompressor, Looping, OpenBlob, Rounding, CHANNELS_ALL,
};
use animcomp::math::FLOATS_PER_JOINT;
use animcomp::AlignedBlob;
use animcomp_bench::timing::{
    calibrate, cold_pass, interleave, median, memcpy_floor, random_times, time_batch, warm_pass,
    CacheFlusher, FLUSH_BYTES, TIMES_SEED, WARM_TIMES,
};
use serde::Serialize;
use std::time::Duration;

/// Rounds of the warm and subset passes per clip.
const WARM_ROUNDS: usize = 5;
/// Cold passes over the whole run.
const COLD_PASSES: usize = 21;
/// Playback: instances, frames per round, rounds.
const PLAYBACK_INSTANCES: usize = 64;
const PLAYBACK_FRAMES: usize = 300;
const PLAYBACK_ROUNDS: usize = 5;
/// Rounds of batched bind timings per clip, and the least duration of one batch.
const BIND_ROUNDS: usize = 5;
const BIND_BATCH: Duration = Duration::from_micros(100);

/// One clip's runtime figures (ns).
#[derive(Debug, Clone, Serialize)]
pub struct ClipRuntime {
    /// Clip name.
    pub name: String,
    /// Warm seek + whole-pose sample.
    pub warm_ns_per_pose: f64,
    /// Cold seek + whole-pose sample.
    pub cold_ns_per_pose: f64,
    /// Binding a decompressor to the opened blob.
    pub bind_ns: f64,
    /// Warm seek + sample of 10 % of the joints.
    pub subset10_ns_per_pose: f64,
    /// Hot `memcpy` of a raw pose (joints x 10 floats).
    pub memcpy_ns: f64,
}

/// A run's runtime figures: medians over its clips, and the clips.
#[derive(Debug, Clone, Serialize)]
pub struct Runtime {
    /// Median warm ns per pose.
    pub warm_ns_per_pose: f64,
    /// Median cold ns per pose.
    pub cold_ns_per_pose: f64,
    /// Median bind ns.
    pub bind_ns: f64,
    /// Median warm ns per pose of a 10 % joint subset.
    pub subset10_ns_per_pose: f64,
    /// Median per-clip ratio of the 10 % subset to the whole pose (same rounds).
    pub subset10_over_full: f64,
    /// Median hot `memcpy` of a raw pose.
    pub memcpy_ns: f64,
    /// Playback pattern, ns per pose: without a cache, and with a playback cache per instance.
    pub playback_ns_per_pose: f64,
    pub playback_cached_ns_per_pose: f64,
    /// Per clip.
    pub clips: Vec<ClipRuntime>,
}

/// Seek and whole-pose sample.
fn pose(d: &mut Decompressor, t: f32, out: &mut [f32]) {
    d.seek(t, Looping::Clamp, Rounding::None).unwrap();
    d.sample_pose(out, FLOATS_PER_JOINT).unwrap();
}

/// Seek and sample of `joints` into their own slots.
fn subset_pose(d: &mut Decompressor, t: f32, joints: &[u32], out: &mut [f32]) {
    d.seek(t, Looping::Clamp, Rounding::None).unwrap();
    d.sample_joints(joints, Some(joints), CHANNELS_ALL, out, FLOATS_PER_JOINT)
        .unwrap();
}

/// 10 % of `n` joints (at least one), evenly spread.
fn even_tenth(n: usize) -> Vec<u32> {
    let k = (n as f64 / 10.0).round().max(1.0) as usize;
    (0..k).map(|i| (i * n / k) as u32).collect()
}

/// Measures every clip of a run (`blobs[i]` is the blob of `inputs[i]`; `None` = failed) on the
/// calling thread. `None` when no blob decompresses.
pub fn measure(inputs: &[Input], blobs: &[Option<&AlignedBlob>]) -> Option<Runtime> {
    let mut names = Vec::new();
    let mut ds = Vec::new();
    let mut times = Vec::new();
    let opts = DecompressOptions::default();
    for (i, (inp, b)) in inputs.iter().zip(blobs).enumerate() {
        let Some(open) = b.and_then(|b| OpenBlob::open(b.as_bytes(), &opts).ok()) else {
            continue;
        };
        names.push(inp.name.clone());
        times.push(random_times(
            inp.clip.duration(),
            WARM_TIMES,
            TIMES_SEED + i as u64,
        ));
        ds.push((Decompressor::bind(&open), open));
    }
    if ds.is_empty() {
        return None;
    }
    let max_joints = ds.iter().map(|(d, _)| d.num_joints()).max().unwrap_or(1);
    let mut out = vec![0.0f32; max_joints * FLOATS_PER_JOINT];
    let mut clips = Vec::with_capacity(ds.len());
    let mut subset_ratio = Vec::with_capacity(ds.len());
    for (c, (d, open)) in ds.iter_mut().enumerate() {
        let open: &OpenBlob = open;
        let nj = d.num_joints();
        let even = even_tenth(nj);
        let out = &mut out[..nj * FLOATS_PER_JOINT];
        let tc = &times[c];
        let cell = std::cell::RefCell::new((d, out));
        let mut full = || {
            let mut g = cell.borrow_mut();
            let (d, out) = &mut *g;
            warm_pass(tc, &mut |t| pose(d, t, out))
        };
        let mut sub = || {
            let mut g = cell.borrow_mut();
            let (d, out) = &mut *g;
            warm_pass(tc, &mut |t| subset_pose(d, t, &even, out))
        };
        let mut r = interleave(WARM_ROUNDS, &mut [&mut full, &mut sub]);
        let ratios: Vec<f64> = r[1].iter().zip(&r[0]).map(|(s, f)| s / f).collect();
        subset_ratio.push(median(&mut ratios.clone()));
        let mut f = || {
            std::hint::black_box(Decompressor::bind(std::hint::black_box(open)));
        };
        let n = calibrate(BIND_BATCH, &mut f);
        let mut b: Vec<f64> = (0..BIND_ROUNDS).map(|_| time_batch(n, &mut f)).collect();
        clips.push(ClipRuntime {
            name: names[c].clone(),
            warm_ns_per_pose: median(&mut r[0]),
            cold_ns_per_pose: 0.0,
            bind_ns: median(&mut b),
            subset10_ns_per_pose: median(&mut r[1]),
            memcpy_ns: memcpy_floor(nj * FLOATS_PER_JOINT, 1000, 5),
        });
    }
    let mut flusher = CacheFlusher::new(FLUSH_BYTES);
    let mut per_clip = vec![Vec::new(); ds.len()];
    for k in 0..COLD_PASSES {
        cold_pass(&mut flusher, &mut per_clip, &mut |c| {
            let (d, _) = &mut ds[c];
            let nj = d.num_joints();
            pose(
                d,
                times[c][k % WARM_TIMES],
                &mut out[..nj * FLOATS_PER_JOINT],
            );
        });
    }
    for (c, v) in clips.iter_mut().zip(&mut per_clip) {
        c.cold_ns_per_pose = median(v);
    }
    let (playback_ns_per_pose, playback_cached_ns_per_pose) = playback(&ds, &mut out);
    let med = |f: fn(&ClipRuntime) -> f64| median(&mut clips.iter().map(f).collect::<Vec<_>>());
    Some(Runtime {
        playback_ns_per_pose,
        playback_cached_ns_per_pose,
        warm_ns_per_pose: med(|c| c.warm_ns_per_pose),
        cold_ns_per_pose: med(|c| c.cold_ns_per_pose),
        bind_ns: med(|c| c.bind_ns),
        subset10_ns_per_pose: med(|c| c.subset10_ns_per_pose),
        subset10_over_full: median(&mut subset_ratio),
        memcpy_ns: med(|c| c.memcpy_ns),
        clips,
    })
}

/// The playback pattern over the decompressors `ds` (see the module docs): median ns per pose
/// without and with a playback cache per instance.
fn playback(ds: &[(Decompressor, OpenBlob)], out: &mut [f32]) -> (f64, f64) {
    let phases = random_times(1.0, PLAYBACK_INSTANCES, TIMES_SEED ^ 0x9a7b);
    let mut inst: Vec<(Decompressor, f32, Vec<u128>)> = phases
        .iter()
        .enumerate()
        .map(|(i, ph)| {
            let d = ds[i % ds.len()].0;
            let cache = vec![0u128; d.playback_cache_size().div_ceil(16)];
            (d, ph * d.header().duration(), cache)
        })
        .collect();
    let mut plain: Vec<(Decompressor, f32)> = inst.iter().map(|(d, p, _)| (*d, *p)).collect();
    let mut poses = vec![out.to_vec(); PLAYBACK_INSTANCES];
    let poses = std::cell::RefCell::new(&mut poses);
    let mut frame_a = 0usize;
    let mut frame_b = 0usize;
    let mut a = || {
        let mut poses = poses.borrow_mut();
        let t0 = std::time::Instant::now();
        for _ in 0..PLAYBACK_FRAMES {
            let dt = frame_a as f32 / 60.0;
            frame_a += 1;
            for ((d, ph), out) in plain.iter_mut().zip(poses.iter_mut()) {
                let n = d.num_joints() * FLOATS_PER_JOINT;
                d.seek(*ph + dt, Looping::Wrap, Rounding::None).unwrap();
                d.sample_pose(&mut out[..n], FLOATS_PER_JOINT).unwrap();
            }
        }
        t0.elapsed().as_nanos() as f64 / (PLAYBACK_FRAMES * PLAYBACK_INSTANCES) as f64
    };
    let mut b = || {
        let mut poses = poses.borrow_mut();
        let t0 = std::time::Instant::now();
        for _ in 0..PLAYBACK_FRAMES {
            let dt = frame_b as f32 / 60.0;
            frame_b += 1;
            for ((d, ph, cache), out) in inst.iter_mut().zip(poses.iter_mut()) {
                let n = d.num_joints() * FLOATS_PER_JOINT;
                d.seek(*ph + dt, Looping::Wrap, Rounding::None).unwrap();
                // SAFETY: the cache's words viewed as bytes.
                let bytes = unsafe {
                    std::slice::from_raw_parts_mut(
                        cache.as_mut_ptr().cast::<u8>(),
                        cache.len() * 16,
                    )
                };
                d.sample_pose_cached(bytes, &mut out[..n], FLOATS_PER_JOINT)
                    .unwrap();
            }
        }
        t0.elapsed().as_nanos() as f64 / (PLAYBACK_FRAMES * PLAYBACK_INSTANCES) as f64
    };
    let mut r = interleave(PLAYBACK_ROUNDS, &mut [&mut a, &mut b]);
    (median(&mut r[0]), median(&mut r[1]))
}

/// One table row of a run's runtime medians (printed under the run's table).
pub fn render(codec: &str, r: &Runtime) -> String {
    let mut t = Table::new(&[
        "runtime",
        "warm ns/pose",
        "cold ns/pose",
        "bind ns",
        "10% joints ns/pose",
        "10%/full",
        "memcpy ns",
        "playback ns/pose",
        "+cache",
    ]);
    t.row(vec![
        format!("{codec} ({} clips)", r.clips.len()),
        format!("{:.0}", r.warm_ns_per_pose),
        format!("{:.0}", r.cold_ns_per_pose),
        if r.bind_ns < 100.0 {
            format!("{:.1}", r.bind_ns)
        } else {
            format!("{:.0}", r.bind_ns)
        },
        format!("{:.0}", r.subset10_ns_per_pose),
        format!("{:.3}", r.subset10_over_full),
        format!("{:.0}", r.memcpy_ns),
        format!("{:.0}", r.playback_ns_per_pose),
        format!(
            "{:.0} ({:.2}x)",
            r.playback_cached_ns_per_pose,
            r.playback_ns_per_pose / r.playback_cached_ns_per_pose
        ),
    ]);
    format!(
        "\n{}runtime: medians over clips; warm = 1000 random times in a row, cold = one pose per clip \
         round-robin with a 32 MB flush per pass, bind = decompressor bound to an opened blob, \
         10% = every tenth joint into its own slots, memcpy = hot copy of a raw pose, playback = \
         64 instances advanced by 1/60 s per frame, without / with a playback cache\n",
        t.render()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use animcomp::clip::{generate_clip, GenerateOptions};

    #[test]
    fn every_figure_is_measured() {
        let inputs: Vec<Input> = (0..2)
            .map(|i| Input {
                name: format!("c{i}"),
                path: "<test>".into(),
                clip: generate_clip(&GenerateOptions {
                    joints: 20,
                    samples: 30,
                    ..Default::default()
                }),
                units: "cm".into(),
            })
            .collect();
        let blobs: Vec<AlignedBlob> = inputs
            .iter()
            .map(|i| {
                let b = animcomp::compress(&i.clip, &Default::default()).unwrap();
                AlignedBlob::from_bytes(&b)
            })
            .collect();
        let r = measure(&inputs, &[Some(&blobs[0]), None]).unwrap();
        assert_eq!(r.clips.len(), 1, "the failed clip is left out");
        assert_eq!(r.clips[0].name, "c0");
        for v in [
            r.warm_ns_per_pose,
            r.cold_ns_per_pose,
            r.bind_ns,
            r.subset10_ns_per_pose,
            r.memcpy_ns,
            r.playback_ns_per_pose,
            r.playback_cached_ns_per_pose,
        ] {
            assert!(v > 0.0 && v.is_finite(), "{v}");
        }
        assert!(render("vbr", &r).contains("vbr (1 clips)"));
        assert!(measure(&inputs, &[None, None]).is_none());
        assert_eq!(
            even_tenth(100),
            (0..10).map(|i| i * 10).collect::<Vec<u32>>()
        );
        assert_eq!(even_tenth(4), vec![0]);
    }
}
