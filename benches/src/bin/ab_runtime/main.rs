//! A/B runtime benchmark of two builds of the animcomp C library, in one process, through the C
//! ABI only: a baseline (`--base`, e.g. commit 612727e built by `benches/ab/build_baseline.sh`)
//! and the new build (`--new`, default the workspace's `target/release/libanimcomp.so`).
//!
//! ```text
//! cargo build --release -p animcomp
//! cargo run --release -p animcomp-bench --bin ab_runtime -- \
//!     --base "$(bash benches/ab/build_baseline.sh 612727e)" /work/shared/data/cmu-cc /work/shared/data/bandai
//! ```
//!
//! Every folder is one set. Each clip is compressed by EACH build with its own default settings
//! (`animcomp_compress`, settings NULL), then, the two builds interleaved (alternating which goes
//! first each round) and medians taken:
//! - warm: per clip, the same 1000 random times (fixed seed) in a row, `animcomp_seek` (clamp,
//!   interpolate) + `animcomp_sample_pose`; ns per pose;
//! - cold ("cycle"): one pose per clip round-robin over the whole set, each pose timed alone,
//!   32 MB written between passes (ACL's style);
//! - bind: baseline `animcomp_decompressor_init`; new `animcomp_decompressor_init`,
//!   `animcomp_blob_open` and `animcomp_decompressor_bind` (when exported), ns per call, calls
//!   batched to beat the clock's resolution;
//! - subset (new build, when it exports `animcomp_sample_joints`): 10 % of the joints (evenly
//!   spread; contiguous), all joints, rotation only, against `animcomp_sample_pose`;
//! - floor: a hot `memcpy` of a raw pose (joints x 10 floats).
//!
//! Set ratios are medians of per-clip ratios. Options: `--json FILE`, `--per-clip`,
//! `--warm-rounds N`, `--cold-passes N`, `--bind-rounds N`, `--jobs N` (compression threads),
//! `--subset-only` (only the every-tenth-joint round, `proto::subset3`),
//! `--max-clips N`, `--no-cache` (blobs are cached per library file and clip content under
//! `target/ab-cache/`, see `cache.rs`).

mod cache;
mod measure;
mod playback;
mod proto;
mod report;

use animcomp_bench::capi::{Blob, CClip, Library};
use animcomp_bench::timing::{memcpy_floor, random_times, TIMES_SEED, WARM_TIMES};
use cache::BlobCache;
use measure::{Plan, Side};
use report::{ClipRow, SetReport};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

struct Args {
    base: PathBuf,
    new: PathBuf,
    sets: Vec<PathBuf>,
    json: Option<PathBuf>,
    per_clip: bool,
    plan: Plan,
    jobs: usize,
    max_clips: usize,
    /// Only clips of at most this many joints (the small rigs of the one-layout comparison).
    max_joints: usize,
    cache: Option<PathBuf>,
    new_given: bool,
    /// Only the playback pattern (and the cache's random-access check).
    playback_only: bool,
    /// Only the every-tenth-joint subsets (a quick loop while working on them).
    subset_only: bool,
    /// The new build writes the grouped layout (`vbr_layout` 1, format version 4).
    new_grouped: bool,
    /// The new build chooses the layout per clip (`vbr_layout` 2, `AUTO`).
    new_auto: bool,
    /// The base build too (an A/B of two builds of the grouped layout).
    base_grouped: bool,
    playback_rounds: usize,
    /// Instance counts of the playback pattern.
    instances: Vec<usize>,
}

fn usage() -> ! {
    eprintln!(
        "usage: ab_runtime --base LIB.so [--new LIB.so] [--json FILE] [--per-clip] [--warm-rounds N] \
         [--cold-passes N] [--bind-rounds N] [--jobs N] [--max-clips N] [--max-joints N] [--no-cache] \
         [--playback-only] [--subset-only] [--new-grouped] [--new-auto] [--base-grouped] [--playback-rounds N] [--instances N,N,...] FOLDER..."
    );
    std::process::exit(2)
}

fn parse_args() -> Args {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut a = Args {
        base: PathBuf::new(),
        new: workspace.join("target/release/libanimcomp.so"),
        sets: Vec::new(),
        json: None,
        per_clip: false,
        plan: Plan {
            warm_rounds: 15,
            cold_passes: 201,
            bind_rounds: 7,
            bind_batch: Duration::from_micros(200),
        },
        jobs: 2,
        max_clips: usize::MAX,
        max_joints: usize::MAX,
        cache: Some(workspace.join("target/ab-cache")),
        new_given: false,
        playback_only: false,
        subset_only: false,
        new_grouped: false,
        new_auto: false,
        base_grouped: false,
        playback_rounds: 7,
        instances: vec![8, 64, 256],
    };
    let mut it = std::env::args().skip(1);
    let num =
        |v: Option<String>| -> usize { v.and_then(|s| s.parse().ok()).unwrap_or_else(|| usage()) };
    while let Some(s) = it.next() {
        match s.as_str() {
            "--base" => a.base = it.next().map(PathBuf::from).unwrap_or_else(|| usage()),
            "--new" => {
                a.new = it.next().map(PathBuf::from).unwrap_or_else(|| usage());
                a.new_given = true;
            }
            "--json" => a.json = Some(it.next().map(PathBuf::from).unwrap_or_else(|| usage())),
            "--per-clip" => a.per_clip = true,
            "--warm-rounds" => a.plan.warm_rounds = num(it.next()).max(1),
            "--cold-passes" => a.plan.cold_passes = num(it.next()).max(1),
            "--bind-rounds" => a.plan.bind_rounds = num(it.next()).max(1),
            "--jobs" => a.jobs = num(it.next()).max(1),
            "--max-clips" => a.max_clips = num(it.next()).max(1),
            "--max-joints" => a.max_joints = num(it.next()).max(1),
            "--no-cache" => a.cache = None,
            "--playback-only" => a.playback_only = true,
            "--subset-only" => a.subset_only = true,
            "--new-grouped" => a.new_grouped = true,
            "--new-auto" => a.new_auto = true,
            "--base-grouped" => a.base_grouped = true,
            "--playback-rounds" => a.playback_rounds = num(it.next()).max(1),
            "--instances" => {
                a.instances = it
                    .next()
                    .unwrap_or_else(|| usage())
                    .split(',')
                    .map(|x| x.parse().unwrap_or_else(|_| usage()))
                    .collect()
            }
            "-h" | "--help" => usage(),
            f if f.starts_with('-') => usage(),
            _ => a.sets.push(PathBuf::from(s)),
        }
    }
    if a.base.as_os_str().is_empty() || a.sets.is_empty() {
        usage();
    }
    a
}

/// Opens both builds. The loader would hand back the same handle for one file opened twice, so
/// when `--new` is the same file as `--base` (the A/A sanity run) it is copied first.
fn open_libraries(a: &Args) -> Result<(Library, Library), String> {
    for p in [&a.base, &a.new] {
        if !p.is_file() {
            return Err(format!(
                "{}: no such library (build it: `cargo build --release -p animcomp`, or \
                 `bash benches/ab/build_baseline.sh` for the baseline)",
                p.display()
            ));
        }
    }
    let canon = |p: &Path| std::fs::canonicalize(p).map_err(|e| format!("{}: {e}", p.display()));
    let mut new_path = a.new.clone();
    if canon(&a.base)? == canon(&a.new)? {
        let copy =
            std::env::temp_dir().join(format!("ab_runtime_{}_libanimcomp.so", std::process::id()));
        std::fs::copy(&a.new, &copy).map_err(|e| format!("{}: {e}", copy.display()))?;
        eprintln!(
            "ab_runtime: --new is --base: loading a copy, {}",
            copy.display()
        );
        new_path = copy;
    }
    let mut base = Library::open(&a.base).map_err(|e| e.0)?;
    base.vbr_layout = a.base_grouped as u32;
    let mut new = Library::open(&new_path).map_err(|e| e.0)?;
    new.vbr_layout = if a.new_auto { 2 } else { a.new_grouped as u32 };
    Ok((base, new))
}

/// Loads every clip of a folder, or generates the rigs a `gen:J,J,...` set names (four clips of
/// 300 samples at 30 Hz per joint count `J`, every joint rotating: the small rigs of the
/// one-layout comparison).
fn load_set(folder: &Path, max: usize, skipped: &mut Vec<String>) -> Vec<CClip> {
    if let Some(sizes) = folder.to_str().and_then(|s| s.strip_prefix("gen:")) {
        return generated_rigs(sizes, max);
    }
    let mut clips = Vec::new();
    for f in animcomp_import::collect_files(&[folder.to_path_buf()]) {
        match animcomp_import::load(&f, &animcomp_import::ImportOptions::default()) {
            Ok(v) => clips.extend(v.iter().map(|ic| CClip::from_clip(&ic.clip))),
            Err(e) => skipped.push(format!("{}: {e}", f.display())),
        }
        if clips.len() >= max {
            clips.truncate(max);
            break;
        }
    }
    clips
}

/// The clips of a `gen:` set: `sizes` is a comma-separated list of joint counts.
fn generated_rigs(sizes: &str, max: usize) -> Vec<CClip> {
    let mut clips = Vec::new();
    for j in sizes
        .split(',')
        .filter_map(|s| s.trim().parse::<usize>().ok())
    {
        for seed in 1..=4u64 {
            let mut c = CClip::from_clip(&animcomp_bench::generated_rig(j, seed));
            c.name = format!("gen{j}_{seed}");
            clips.push(c);
        }
    }
    clips.truncate(max);
    clips
}

/// The blob of `clip` by `lib`: from the cache, else compressed (and cached).
fn blob_of(lib: &Library, cache: &BlobCache, clip: &CClip) -> Result<Blob, String> {
    if let Some(b) = cache.get(clip) {
        return Ok(b);
    }
    let b = lib
        .compress(clip)
        .map_err(|e| format!("{}: {e}", clip.name))?;
    cache.put(clip, &b);
    Ok(b)
}

/// A clip's blobs by both builds, or why one failed.
type BlobPair = Result<(Blob, Blob), String>;

/// Compresses every clip with both builds on `jobs` threads; drops (and reports) clips either
/// build fails on. Returns the kept clips and their blobs per build.
fn compress_set(
    clips: Vec<CClip>,
    libs: [&Library; 2],
    caches: [&BlobCache; 2],
    jobs: usize,
    skipped: &mut Vec<String>,
) -> (Vec<CClip>, Vec<Blob>, Vec<Blob>) {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, BlobPair)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(c) = clips.get(i) else { break };
                let r = blob_of(libs[0], caches[0], c)
                    .and_then(|a| Ok((a, blob_of(libs[1], caches[1], c)?)));
                done.lock().unwrap().push((i, r));
            });
        }
    });
    let mut done = done.into_inner().unwrap();
    done.sort_by_key(|(i, _)| *i);
    let (mut kept, mut ba, mut bb) = (Vec::new(), Vec::new(), Vec::new());
    for (clip, (_, r)) in clips.into_iter().zip(done) {
        match r {
            Ok((a, b)) => {
                kept.push(clip);
                ba.push(a);
                bb.push(b);
            }
            Err(e) => skipped.push(e),
        }
    }
    (kept, ba, bb)
}

fn describe(lib: &Library) -> String {
    format!(
        "{} (blob format {}{}{}{})",
        lib.path.display(),
        lib.format_version(),
        match lib.vbr_layout {
            0 => String::new(),
            1 => ", vbr_layout grouped: vbr blobs of format 4".into(),
            // Builds whose `vbr_layout` still chose: auto grouped rigs of 16 joints or more.
            _ => ", vbr_layout auto: grouped from 16 joints".into(),
        },
        if lib.has_bind() {
            ", blob_open/bind"
        } else {
            ""
        },
        if lib.has_sample_joints() {
            ", sample_joints"
        } else {
            ""
        }
    )
}

/// A clip's row when only the subsets are measured (`--subset-only`): times not taken are NaN.
fn subset_row(
    clip: &CClip,
    c: usize,
    [base, new]: [&Side; 2],
    proto_bytes: Option<usize>,
    even10_3_ns: Option<[f64; 3]>,
    max_pose_difference: f32,
) -> ClipRow {
    ClipRow {
        name: clip.name.clone(),
        joints: clip.joints,
        samples: clip.samples,
        base_bytes: base.blobs[c].len,
        new_bytes: new.blobs[c].len,
        warm_base_ns: f64::NAN,
        warm_new_ns: f64::NAN,
        cold_base_ns: f64::NAN,
        cold_new_ns: f64::NAN,
        proto_bytes,
        warm_proto_ns: None,
        cold_proto_ns: None,
        even10_3_ns,
        init_base_ns: f64::NAN,
        init_new_ns: f64::NAN,
        open_new_ns: None,
        bind_new_ns: None,
        full_new_ns: None,
        all_joints_new_ns: None,
        even10_new_ns: None,
        contiguous10_new_ns: None,
        rotation_only_new_ns: None,
        subset_matches_pose: None,
        memcpy_ns: f64::NAN,
        max_pose_difference,
    }
}

/// Measures one set.
fn run_set(
    folder: &Path,
    libs: [&Library; 2],
    caches: [&BlobCache; 2],
    a: &Args,
) -> Result<SetReport, String> {
    let t0 = Instant::now();
    let mut skipped = Vec::new();
    // With a joint limit every clip is read, then the first `max_clips` of those kept.
    let read = if a.max_joints == usize::MAX {
        a.max_clips
    } else {
        usize::MAX
    };
    let mut clips = load_set(folder, read, &mut skipped);
    clips.retain(|c| c.joints <= a.max_joints);
    clips.truncate(a.max_clips);
    eprintln!(
        "{}: {} clips loaded, compressing with both builds (or reading the blob cache)",
        folder.display(),
        clips.len()
    );
    let (clips, blobs_a, blobs_b) = compress_set(clips, libs, caches, a.jobs, &mut skipped);
    if clips.is_empty() {
        return Err(format!(
            "{}: no clip could be compressed by both builds",
            folder.display()
        ));
    }
    let max_joints = clips.iter().map(|c| c.joints).max().unwrap_or(1);
    let mut base = Side::new(libs[0], blobs_a, max_joints)?;
    let mut new = Side::new(libs[1], blobs_b, max_joints)?;
    let mut proto = proto::ProtoSide::new(&new, max_joints);
    let times: Vec<Vec<f32>> = clips
        .iter()
        .enumerate()
        .map(|(i, c)| random_times(c.duration(), WARM_TIMES, TIMES_SEED + i as u64))
        .collect();
    eprintln!(
        "  compressed in {:.1} s; warm, subset and bind per clip",
        t0.elapsed().as_secs_f64()
    );
    let plan = a.plan;
    let mut rows = Vec::with_capacity(clips.len());
    for (c, clip) in clips
        .iter()
        .enumerate()
        .take(if a.playback_only { 0 } else { usize::MAX })
    {
        let j = clip.joints;
        let diff = measure::max_pose_difference(&mut base, &mut new, c, j, &times[c][..16]);
        proto.check(&mut new, c, j, &times[c][..16]);
        let sub3 = proto::subset3(&mut base, &mut new, &mut proto, c, j, &times[c], &plan);
        if a.subset_only {
            rows.push(subset_row(
                clip,
                c,
                [&base, &new],
                proto.bytes(c),
                sub3,
                diff,
            ));
            continue;
        }
        let (wb, wn, wp) = proto::warm3(&mut base, &mut new, &mut proto, c, j, &times[c], &plan);
        let w = measure::Warm { base: wb, new: wn };
        let sub = measure::subset(&mut new, c, j, &times[c], &plan);
        let b = measure::bind(&base, &new, c, &plan);
        rows.push(ClipRow {
            name: clip.name.clone(),
            joints: j,
            samples: clip.samples,
            base_bytes: base.blobs[c].len,
            new_bytes: new.blobs[c].len,
            warm_base_ns: w.base,
            warm_new_ns: w.new,
            cold_base_ns: 0.0,
            cold_new_ns: 0.0,
            proto_bytes: proto.bytes(c),
            warm_proto_ns: wp,
            even10_3_ns: sub3,
            cold_proto_ns: None,
            init_base_ns: b.base_init,
            init_new_ns: b.new_init,
            open_new_ns: b.new_open,
            bind_new_ns: b.new_bind,
            full_new_ns: sub.map(|s| s.full),
            all_joints_new_ns: sub.map(|s| s.all_joints),
            even10_new_ns: sub.map(|s| s.even10),
            contiguous10_new_ns: sub.map(|s| s.contiguous10),
            rotation_only_new_ns: sub.map(|s| s.rotation_only),
            subset_matches_pose: sub.map(|s| s.matches_pose),
            memcpy_ns: memcpy_floor(j * 10, 1000, 9),
            max_pose_difference: diff,
        });
    }
    if !a.playback_only && !a.subset_only {
        eprintln!("  {:.1} s; cold passes", t0.elapsed().as_secs_f64());
        let [ca, cb, cp] = proto::cold3(&mut base, &mut new, &mut proto, &clips, &times, &plan);
        for (c, (r, (x, y))) in rows.iter_mut().zip(ca.into_iter().zip(cb)).enumerate() {
            r.cold_base_ns = x;
            r.cold_new_ns = y;
            r.cold_proto_ns = proto.has(c).then(|| cp[c]);
        }
    }
    eprintln!("  {:.1} s; playback", t0.elapsed().as_secs_f64());
    let mut pb = Vec::new();
    let configs = a.instances.iter().map(|&n| (n, false)).chain([(64, true)]);
    let configs = configs.take(if a.subset_only { 0 } else { usize::MAX });
    for (n, flush) in configs {
        pb.push(playback::playback(
            &base,
            &new,
            &clips,
            n,
            flush,
            a.playback_rounds,
            &proto,
        )?);
    }
    let mut random = (Vec::new(), Vec::new());
    for (c, clip) in clips
        .iter()
        .enumerate()
        .take(if a.subset_only { 0 } else { 8 })
    {
        let r = playback::random_with_cache(&new, c, clip.joints, &times[c], plan.warm_rounds)?;
        if let Some((x, y)) = r {
            random.0.push(x);
            random.1.push(y);
        }
    }
    let random_cached = (!random.0.is_empty()).then(|| {
        (
            animcomp_bench::timing::median(&mut random.0),
            animcomp_bench::timing::median(&mut random.1),
        )
    });
    eprintln!("  done in {:.1} s", t0.elapsed().as_secs_f64());
    Ok(SetReport {
        set: folder.display().to_string(),
        base: describe(libs[0]),
        new: describe(libs[1]),
        skipped,
        summary: report::summarise(&rows, proto.mismatches),
        clips: rows,
        playback: pb,
        random_cached,
    })
}

/// Warns when the default new library looks older than the library sources.
fn warn_if_stale(a: &Args) {
    if a.new_given {
        return;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src");
    let so_time = std::fs::metadata(&a.new).and_then(|m| m.modified()).ok();
    let newest = walk_newest(&src);
    if let (Some(so), Some(src_t)) = (so_time, newest) {
        if src_t > so {
            eprintln!(
                "ab_runtime: WARNING: {} is older than the library sources; run `cargo build --release -p animcomp`",
                a.new.display()
            );
        }
    }
}

fn walk_newest(dir: &Path) -> Option<std::time::SystemTime> {
    let mut newest = None;
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        let t = if p.is_dir() {
            walk_newest(&p)
        } else {
            e.metadata().and_then(|m| m.modified()).ok()
        };
        newest = newest.max(t);
    }
    newest
}

fn main() {
    let a = parse_args();
    warn_if_stale(&a);
    let (base, new) = open_libraries(&a).unwrap_or_else(|e| {
        eprintln!("ab_runtime: {e}");
        std::process::exit(1)
    });
    let caches = [&base, &new].map(|l| BlobCache::new(a.cache.as_deref(), &l.path, l.vbr_layout));
    let mut reports = Vec::new();
    for set in &a.sets {
        match run_set(set, [&base, &new], [&caches[0], &caches[1]], &a) {
            Ok(r) => {
                if a.per_clip {
                    print!("\n{}", report::render_clips(&r.clips));
                }
                print!("{}", report::render_summary(&r));
                reports.push(r);
            }
            Err(e) => eprintln!("ab_runtime: {e}"),
        }
    }
    println!();
    for r in &reports {
        println!("{}", report::one_line(r));
    }
    if let Some(path) = &a.json {
        let text = serde_json::to_string_pretty(&reports).expect("serialisable");
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("ab_runtime: {}: {e}", path.display());
            std::process::exit(1);
        }
        println!("wrote {}", path.display());
    }
    if reports.len() < a.sets.len() {
        std::process::exit(1);
    }
}
