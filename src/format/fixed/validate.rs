//! Validation of an untrusted `fixed` body. After [`validate`] passes, the sampling functions
//! index only inside the body.

use super::layout::{
    kinds_of, Cursor, Kind, Layout, CODEC_HEADER_SIZE, FRAME_PADDING, LAYOUT_VERSION, SECTION_ALIGN,
};
use crate::format::bytes::ByteReader;
use crate::format::quantize::{RotationFormat, VectorFormat};
use crate::format::{BlobFlags, Header};
use crate::{Error, Result};

/// Largest magnitude accepted for a stored translation or scale value or range minimum: the
/// input limit [`crate::format::limits::MAX_ABS_VALUE`] (range extents may reach twice it, so a range-reduced
/// value decodes within three times it; the decoder clamps animated vectors to the limit).
pub const VECTOR_LIMIT: f32 = crate::format::limits::MAX_ABS_VALUE;
/// Largest magnitude accepted for a stored rotation component or rotation range bound.
pub const ROTATION_LIMIT: f32 = 2.0;
/// Stored float quaternions must have a length within this of 1 (the encoder stores normalised
/// quaternions; decoded rotations are unit length within this).
pub const QUAT_NORM_TOLERANCE: f32 = 1.0e-3;

fn corrupt(msg: &'static str) -> Error {
    Error::CorruptBlob(msg)
}

fn check(ok: bool, msg: &'static str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(corrupt(msg))
    }
}

fn bounded(v: f32, limit: f32) -> bool {
    v.is_finite() && v.abs() <= limit
}

fn check_quat(a: [f32; 4]) -> Result<()> {
    check(
        a.iter().all(|&c| bounded(c, ROTATION_LIMIT)),
        "stored rotation out of range",
    )?;
    let len = a.iter().map(|c| c * c).sum::<f32>().sqrt();
    check(
        (len - 1.0).abs() <= QUAT_NORM_TOLERANCE,
        "stored rotation is not unit length",
    )
}

fn check_range(r: &mut ByteReader, limit: f32) -> Result<()> {
    let mut v = [0.0f32; 6];
    for x in &mut v {
        *x = r.finite_f32()?;
    }
    check(
        v[..3].iter().all(|&c| bounded(c, limit)),
        "range minimum out of bounds",
    )?;
    check(
        v[3..].iter().all(|&c| (0.0..=2.0 * limit).contains(&c)),
        "range extent out of bounds",
    )
}

/// The offsets of the sections and the body's size are exactly what the writer lays out
/// (`docs/formats.md`): each section starts at the first multiple of [`SECTION_ALIGN`] after the
/// previous one, the frames are followed by [`FRAME_PADDING`] bytes, then padding to
/// [`SECTION_ALIGN`] ends the body, and every byte between sections is zero. So the body holds no
/// byte that nothing reads. Costs one step per padding byte (fewer than 16 per gap, plus the
/// frame padding).
fn check_section_offsets(l: &Layout, body: &[u8], work: &mut usize) -> Result<()> {
    let len = body.len() as u64;
    let align = |end: u64| end.div_ceil(SECTION_ALIGN as u64) * SECTION_ALIGN as u64;
    check(
        l.kinds_offset == CODEC_HEADER_SIZE,
        "kinds do not follow the codec header",
    )?;
    let kinds_end = (l.kinds_offset + l.num_joints) as u64;
    check(
        l.constants_offset as u64 == align(kinds_end),
        "constants do not follow the kinds",
    )?;
    let const_end = l.constants_offset as u64 + 4 * l.num_constant_floats as u64;
    check(
        l.ranges_offset as u64 == align(const_end),
        "ranges do not follow the constants",
    )?;
    let range_end = l.ranges_offset as u64 + 4 * l.num_range_floats as u64;
    check(
        l.frames_offset as u64 == align(range_end),
        "frames do not follow the ranges",
    )?;
    let frames_end = l.frames_offset as u64 + l.num_samples as u64 * l.frame_size as u64;
    check(
        frames_end + FRAME_PADDING as u64 <= len,
        "frames past the end of the body",
    )?;
    check(
        len == align(frames_end + FRAME_PADDING as u64),
        "body size is not what its sections need",
    )?;
    // Every offset is now within the body.
    let gaps = [
        (kinds_end, l.constants_offset as u64),
        (const_end, l.ranges_offset as u64),
        (range_end, l.frames_offset as u64),
        (frames_end, len),
    ];
    for (start, end) in gaps {
        *work += (end - start) as usize;
        check(
            body[start as usize..end as usize].iter().all(|&b| b == 0),
            "non-zero padding in the body",
        )?;
    }
    Ok(())
}

/// The bits of each frame past its used bits (up to the byte boundary) are zero. One step per
/// sample, paid by the frame's last byte, and none when frames end on a byte boundary.
fn check_frame_pad_bits(l: &Layout, body: &[u8], work: &mut usize) -> Result<()> {
    let used = l.frame_bits % 8;
    if used == 0 {
        return Ok(());
    }
    for i in 0..l.num_samples {
        *work += 1;
        let last = body[l.frames_offset + (i + 1) * l.frame_size - 1];
        check(last >> used == 0, "non-zero padding bits in a frame")?;
    }
    Ok(())
}

/// Checks every count, offset, size, format id, kind and stored float of a `fixed` body.
pub fn validate(h: &Header, body: &[u8]) -> Result<()> {
    validate_counting(h, body, &mut 0)
}

/// [`validate`], adding to `work` one unit per loop iteration it runs (also when it fails). Every
/// loop runs over a count the body's bytes pay for: the kind loops over the kind bytes (one per
/// joint), the constant and range checks over stored floats, and the frame check over the stored
/// raw floats of the animated float channels only (`samples x channels`, each 12 or 16 bytes per
/// frame): a blob whose frames are 0 bytes, whatever its sample count, checks no frame. So `work`
/// stays within the body size in bytes (`tests/robust/linear_validation.rs`).
pub fn validate_counting(h: &Header, body: &[u8], work: &mut usize) -> Result<()> {
    let mut r = ByteReader::new(body);
    let head = r.take(CODEC_HEADER_SIZE)?;
    check(
        RotationFormat::from_u32(head[0] as u32).is_some(),
        "unknown rotation format",
    )?;
    check(
        VectorFormat::from_u32(head[1] as u32).is_some(),
        "unknown translation format",
    )?;
    check(
        VectorFormat::from_u32(head[2] as u32).is_some(),
        "unknown scale format",
    )?;
    check(head[3] == LAYOUT_VERSION, "unknown fixed layout version")?;
    check(
        head[44..48] == [0; 4],
        "reserved fixed header bytes are not zero",
    )?;
    let l = Layout::read(body);
    check(
        l.num_joints == h.num_joints as usize,
        "fixed joint count differs from the header",
    )?;
    check(
        l.num_samples == h.num_samples as usize,
        "fixed sample count differs from the header",
    )?;
    check_section_offsets(&l, body, work)?;

    // Kinds, and the sizes they imply.
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    let kinds = &body[l.kinds_offset..l.kinds_offset + l.num_joints];
    let mut total = Cursor::default();
    for &k in kinds {
        *work += 1;
        check(
            k & 0xC0 == 0 && (0..3).all(|c| (k >> (2 * c)) & 3 != 3),
            "invalid sub-track kind",
        )?;
        check(
            has_scale || kinds_of(k)[2] == Kind::Default,
            "scale stored in a blob without scale",
        )?;
        total.advance(&l, k);
    }
    check(
        total.constant == l.num_constant_floats,
        "constant count differs from the kinds",
    )?;
    check(
        total.range == l.num_range_floats,
        "range count differs from the kinds",
    )?;
    check(
        total.bit == l.frame_bits,
        "frame bits differ from the kinds",
    )?;
    check(
        l.frame_size == l.frame_bits.div_ceil(8),
        "frame size differs from the frame bits",
    )?;
    check_frame_pad_bits(&l, body, work)?;

    // Constants and ranges: finite and in range.
    let mut cr = ByteReader::at(body, l.constants_offset)?;
    let mut rr = ByteReader::at(body, l.ranges_offset)?;
    for &k in kinds {
        *work += 1;
        let [kr, kt, ks] = kinds_of(k);
        match kr {
            Kind::Default => {}
            Kind::Constant => check_quat([
                cr.finite_f32()?,
                cr.finite_f32()?,
                cr.finite_f32()?,
                cr.finite_f32()?,
            ])?,
            Kind::Animated => {
                if l.rotation.uses_range() {
                    check_range(&mut rr, ROTATION_LIMIT)?;
                }
            }
        }
        for (kind, format) in [(kt, l.translation), (ks, l.scale)] {
            match kind {
                Kind::Default => {}
                Kind::Constant => {
                    for _ in 0..3 {
                        check(
                            bounded(cr.finite_f32()?, VECTOR_LIMIT),
                            "stored constant out of range",
                        )?;
                    }
                }
                Kind::Animated => {
                    if format.uses_range() {
                        check_range(&mut rr, VECTOR_LIMIT)?;
                    }
                }
            }
        }
    }

    // Frames holding raw floats: every stored float finite and in range. Joint by joint, and
    // for each animated float channel sample by sample: joints without one cost one step (paid by
    // their kind byte), each float channel checked costs one step per frame and is paid by its
    // 12 or 16 bytes in every frame (a loop over samples x joints would not be: a body with 0-byte
    // frames may declare 2^24 samples).
    let float_rot = matches!(
        l.rotation,
        RotationFormat::Float128 | RotationFormat::Float96NoW
    );
    let float_t = l.translation == VectorFormat::Float96;
    let float_s = l.scale == VectorFormat::Float96;
    if !(float_rot || float_t || float_s) || l.frame_bits == 0 {
        return Ok(());
    }
    let frames = &body[l.frames_offset..l.frames_offset + l.num_samples * l.frame_size];
    let f = |i: usize, bit: usize| {
        let o = i * l.frame_size + bit / 8;
        f32::from_le_bytes([frames[o], frames[o + 1], frames[o + 2], frames[o + 3]])
    };
    let mut bit = 0usize;
    for &k in kinds {
        *work += 1;
        let [kr, kt, ks] = kinds_of(k);
        if kr == Kind::Animated {
            if float_rot {
                let comps = if l.rotation == RotationFormat::Float128 {
                    4
                } else {
                    3
                };
                for i in 0..l.num_samples {
                    *work += 1;
                    let mut a = [0.0f32, 0.0, 0.0, 1.0];
                    for (c, x) in a.iter_mut().enumerate().take(comps) {
                        *x = f(i, bit + 32 * c);
                    }
                    check(
                        a.iter().all(|&c| bounded(c, ROTATION_LIMIT)),
                        "stored rotation out of range",
                    )?;
                    if comps == 4 {
                        check_quat(a)?;
                    }
                }
            }
            bit += l.rotation.bits_per_sample() as usize;
        }
        for (kind, format, is_float) in [(kt, l.translation, float_t), (ks, l.scale, float_s)] {
            if kind != Kind::Animated {
                continue;
            }
            if is_float {
                for i in 0..l.num_samples {
                    *work += 1;
                    for c in 0..3 {
                        check(
                            bounded(f(i, bit + 32 * c), VECTOR_LIMIT),
                            "stored vector out of range",
                        )?;
                    }
                }
            }
            bit += format.bits_per_sample() as usize;
        }
    }
    Ok(())
}
