//! `animcomp inspect`: a blob's header, body sections and how each sub-track is stored.

use crate::table::{thousands, Table};
use crate::CliError;
use animcomp::format::{validate_blob, BlobFlags, Header};
use animcomp::{AdditiveFormat, AlignedBlob};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `animcomp inspect`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The blob file (written by `animcomp compress`), or a tier blob (`animcomp tiers build`).
    pub blob: PathBuf,
    /// With a tier blob: the resident blob to check it against (whether it attaches).
    #[arg(long, value_name = "BLOB")]
    pub resident: Option<PathBuf>,
    /// Only the header, sections and a per-storage summary, not one line per sub-track.
    #[arg(long)]
    pub brief: bool,
}

/// Reads a file into aligned memory, unvalidated.
pub fn read_file(path: &Path) -> Result<AlignedBlob, CliError> {
    if !path.exists() {
        return Err(CliError(format!(
            "{}: no such file or directory",
            path.display()
        )));
    }
    let bytes = std::fs::read(path)
        .map_err(|e| CliError(format!("{}: cannot read file: {e}", path.display())))?;
    Ok(AlignedBlob::from_bytes(&bytes))
}

/// Reads a blob file into aligned memory and validates it (checksum included).
pub fn read_blob(path: &Path) -> Result<(AlignedBlob, Header), CliError> {
    let blob = read_file(path)?;
    let (h, _) = validate_blob(blob.as_bytes(), true).map_err(|e| match e {
        animcomp::Error::BadMagic => CliError(format!(
            "{}: {e}; source files (.bvh, .gltf/.glb, .fbx, .acl.sjson, .csv, .npy) are read by \
             `animcomp compress`, which writes the blob this command reads",
            path.display()
        )),
        e => CliError(format!("{}: {e}", path.display())),
    })?;
    Ok((blob, h))
}

/// The additive format of a blob, in words: `none`, or ACL's name of the format.
fn additive_name(h: &Header) -> &'static str {
    match AdditiveFormat::from_u8(h.additive) {
        Some(AdditiveFormat::None) | None => "none",
        Some(f) => f.name(),
    }
}

fn flag_names(flags: u32) -> String {
    let mut names = Vec::new();
    for (f, n) in [
        (BlobFlags::HAS_SCALE, "has-scale"),
        (BlobFlags::DEFAULTS_ARE_BIND_POSE, "defaults-are-bind-pose"),
        (BlobFlags::LOOPING, "looping"),
        (BlobFlags::HAS_TIERS, "has-tiers"),
    ] {
        if flags & f != 0 {
            names.push(n);
        }
    }
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// One row of the storage summary.
struct Summary {
    channel: &'static str,
    class: String,
    count: usize,
    bits: f64,
    min: f64,
    max: f64,
}

impl Summary {
    fn new(channel: &'static str, class: String, bits: f64) -> Self {
        Summary {
            channel,
            class,
            count: 1,
            bits,
            min: bits,
            max: bits,
        }
    }

    fn add(&mut self, bits: f64) {
        self.count += 1;
        self.bits += bits;
        self.min = self.min.min(bits);
        self.max = self.max.max(bits);
    }
}

/// Channels in joint order.
fn channel_rank(channel: &str) -> usize {
    ["rotation", "translation", "scale"]
        .iter()
        .position(|c| *c == channel)
        .unwrap_or(3)
}

/// A storage description without its per-track figures: the text before any parenthesis, with
/// number words dropped (`variable (14.1 bits/sample, ...)` → `variable`, `12 keys, linear` →
/// `keys, linear`), so tracks stored alike share a summary row.
fn storage_class(storage: &str) -> String {
    let head = storage.split(" (").next().unwrap_or(storage);
    head.split(' ')
        .filter(|w| w.parse::<f64>().is_err())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs the command.
pub fn run(a: &Args) -> Result<ExitCode, CliError> {
    let file = read_file(&a.blob)?;
    if crate::tiers::is_tier(file.as_bytes()) {
        return crate::tiers::describe_tier(&a.blob, &file, a.resident.as_deref());
    }
    if a.resident.is_some() {
        return Err(CliError(format!(
            "{}: --resident is for a tier blob (magic ACTR); this is not one",
            a.blob.display()
        )));
    }
    let (blob, h) = read_blob(&a.blob)?;
    let (_, body) = validate_blob(blob.as_bytes(), false)?;
    let desc = animcomp::offline::describe(&h, body)
        .map_err(|e| CliError(format!("{}: {e}", a.blob.display())))?;
    // Curves (morph weights, face curves) beside the joints: count and ids from the blob (names
    // are the tools' and are not stored).
    let d = animcomp::decompress::Decompressor::new(
        blob.as_bytes(),
        &animcomp::decompress::DecompressOptions::default(),
    )
    .map_err(|e| CliError(format!("{}: {e}", a.blob.display())))?;
    let cs = d.curves();
    let nc = cs.num_curves();
    let ids: Vec<String> = (0..nc)
        .filter_map(|c| cs.id(c).ok().map(|i| i.to_string()))
        .collect();
    let raw =
        40u64 * h.num_joints as u64 * h.num_samples as u64 + 4 * nc as u64 * h.num_samples as u64;
    println!("file           {}", a.blob.display());
    println!("format version {}", h.version);
    println!("codec          {}", h.codec.name());
    println!(
        "total size     {} bytes (raw {} bytes, ratio {:.2} : 1)",
        thousands(h.total_size as u64),
        thousands(raw),
        raw as f64 / h.total_size as f64
    );
    println!("checksum       {:#010x} (verified)", h.checksum);
    println!("flags          {:#x} ({})", h.flags, flag_names(h.flags));
    println!("additive       {}", additive_name(&h));
    if let Some(line) = crate::tiers::describe_resident(&h, blob.as_bytes()) {
        println!("{line}");
    }
    println!("joints         {}", h.num_joints);
    if nc > 0 {
        println!("curves         {nc} (ids {})", ids.join(" "));
    } else {
        println!("curves         0");
    }
    println!("samples        {}", h.num_samples);
    println!("sample rate    {} Hz", h.sample_rate);
    println!(
        "duration       {:.4} s",
        animcomp::decompress::clip_duration(&h)
    );
    println!(
        "body           offset {}, {} bytes",
        h.body_offset,
        thousands(h.body_size as u64)
    );
    if nc > 0 {
        println!(
            "curves section offset {}, {} bytes",
            h.curves_offset,
            thousands(h.curves_size as u64)
        );
    }

    println!();
    let mut t = Table::new(&["section", "bytes", "share"]);
    let curves_row = (nc > 0).then(|| ("curves".to_string(), h.curves_size as usize));
    for (name, size) in desc.sections.iter().chain(&curves_row) {
        t.row(vec![
            name.clone(),
            thousands(*size as u64),
            format!("{:.1}%", 100.0 * *size as f64 / h.total_size.max(1) as f64),
        ]);
    }
    print!("{}", t.render());

    // Summary per channel and storage kind (the storage text without its per-track figures).
    let mut summary: Vec<Summary> = Vec::new();
    let mut bits_per_pose = 0.0f64;
    for tr in &desc.tracks {
        let class = storage_class(&tr.storage);
        let bits = tr.bits_per_sample as f64;
        bits_per_pose += bits;
        match summary
            .iter_mut()
            .find(|s| s.channel == tr.channel && s.class == class)
        {
            Some(s) => s.add(bits),
            None => summary.push(Summary::new(tr.channel, class, bits)),
        }
    }
    summary.sort_by(|a, b| {
        (channel_rank(a.channel), &a.class).cmp(&(channel_rank(b.channel), &b.class))
    });
    println!();
    let mut t = Table::new(&[
        "channel",
        "storage",
        "sub-tracks",
        "avg bits/sample",
        "min-max",
    ]);
    for s in &summary {
        t.row(vec![
            s.channel.to_string(),
            s.class.clone(),
            s.count.to_string(),
            format!("{:.2}", s.bits / s.count as f64),
            format!("{:.2}-{:.2}", s.min, s.max),
        ]);
    }
    print!("{}", t.render());
    println!(
        "animated bits per pose: {:.1} ({:.1} bytes)",
        bits_per_pose,
        bits_per_pose / 8.0
    );

    if !a.brief {
        println!();
        let mut t = Table::new(&["joint", "channel", "storage", "bits/sample"]);
        for tr in &desc.tracks {
            t.row(vec![
                tr.joint.to_string(),
                tr.channel.to_string(),
                tr.storage.clone(),
                format!("{:.2}", tr.bits_per_sample),
            ]);
        }
        print!("{}", t.render());
    }
    Ok(ExitCode::SUCCESS)
}
