//! The `#[repr(C)]` structs and constants of the C ABI.
//!
//! Enum-like inputs are `uint32_t` fields (never Rust enums, so any value C passes is defined
//! behaviour) and are range-checked on entry. Every input struct ends in reserved fields that must
//! be zero: a later minor version may give them a meaning in which zero keeps today's behaviour,
//! without changing the struct's size (see docs/integrating.md, "ABI evolution").

/// Floats per joint in a sampled pose and in a bind pose: `qx qy qz qw tx ty tz sx sy sz`.
pub const ANIMCOMP_FLOATS_PER_JOINT: u32 = 10;
/// Required alignment in bytes of blobs, of compression output buffers and of
/// `AnimcompDecompressor`.
pub const ANIMCOMP_ALIGNMENT: u32 = 16;
/// The blob format version of `fixed` and `keys` blobs and of blobs without joints (see
/// `animcomp_blob_format_version`).
pub const ANIMCOMP_BLOB_FORMAT_VERSION: u32 = 2;
/// The blob format version of every `vbr` blob with joints (the grouped layout), the newest this
/// library reads.
pub const ANIMCOMP_BLOB_FORMAT_VERSION_GROUPED: u32 = 5;
/// Most joints a clip may have.
pub const ANIMCOMP_MAX_JOINTS: u32 = 16383;
/// Most samples a clip may have (2^24).
pub const ANIMCOMP_MAX_SAMPLES: u32 = 16777216;
/// Blob flag: the clip has non-unit scale (otherwise scale decodes as exactly 1).
pub const ANIMCOMP_BLOB_FLAG_HAS_SCALE: u32 = 1;
/// Blob flag: default sub-tracks are the bind pose, which `animcomp_decompressor_init` must be
/// given (`AnimcompDecompressOptions::bind_pose` and `bind_pose_len`).
pub const ANIMCOMP_BLOB_FLAG_DEFAULTS_ARE_BIND_POSE: u32 = 2;
/// Blob flag: the clip was a loop whose repeated last sample was removed (`optimize_loops`).
pub const ANIMCOMP_BLOB_FLAG_LOOPING: u32 = 4;
/// Blob flag: the blob is the resident part of a clip compressed with quality tiers; tier blobs
/// attach to it through an `AnimcompTierSet` (docs/tiers.md).
pub const ANIMCOMP_BLOB_FLAG_HAS_TIERS: u32 = 8;

const _: () = {
    use crate::format::BlobFlags;
    assert!(ANIMCOMP_FLOATS_PER_JOINT as usize == crate::math::FLOATS_PER_JOINT);
    assert!(ANIMCOMP_ALIGNMENT as usize == crate::format::BLOB_ALIGNMENT);
    assert!(ANIMCOMP_BLOB_FORMAT_VERSION == crate::format::FORMAT_VERSION as u32);
    assert!(
        ANIMCOMP_BLOB_FORMAT_VERSION_GROUPED
            == crate::format::header::GROUPED_FORMAT_VERSION as u32
    );
    assert!(ANIMCOMP_MAX_JOINTS as usize == crate::format::limits::MAX_JOINTS);
    assert!(ANIMCOMP_MAX_SAMPLES as usize == crate::format::limits::MAX_SAMPLES);
    assert!(ANIMCOMP_MAX_CURVES as usize == crate::format::MAX_CURVES);
    assert!(ANIMCOMP_BLOB_FLAG_HAS_SCALE == BlobFlags::HAS_SCALE);
    assert!(ANIMCOMP_BLOB_FLAG_DEFAULTS_ARE_BIND_POSE == BlobFlags::DEFAULTS_ARE_BIND_POSE);
    assert!(ANIMCOMP_BLOB_FLAG_LOOPING == BlobFlags::LOOPING);
    assert!(ANIMCOMP_BLOB_FLAG_HAS_TIERS == BlobFlags::HAS_TIERS);
};

/// Order of the elements of the track arrays of an `AnimcompRawClip`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnimcompLayout {
    /// All joints of sample 0, then all joints of sample 1, ...: element (joint j, sample i) is
    /// at index `i * num_joints + j`.
    SampleMajor = 0,
    /// All samples of joint 0, then all samples of joint 1, ...: element (joint j, sample i) is
    /// at index `j * num_samples + i`.
    JointMajor = 1,
}

impl AnimcompLayout {
    /// From the integer id.
    pub fn from_u32(v: u32) -> Option<Self> {
        match v {
            0 => Some(AnimcompLayout::SampleMajor),
            1 => Some(AnimcompLayout::JointMajor),
            _ => None,
        }
    }
}

/// A raw clip described in place: the library reads the caller's arrays (it copies them once,
/// inside `animcomp_compress`, and keeps no pointer afterwards).
///
/// Track element (joint j, sample i) of an array is at float offset `index * stride`, where
/// `index` follows `layout` and `stride` is the array's stride in floats (0 = tightly packed:
/// 4 for rotations, 3 for translations and scales). Interleaved transforms of 10 floats
/// (`qx qy qz qw tx ty tz sx sy sz`) are passed as `rotations = base`, `translations = base + 4`,
/// `scales = base + 7`, all with stride 10. Zero-initialise the struct (`= {0}`), then fill it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct AnimcompRawClip {
    /// Number of joints, 1..=`ANIMCOMP_MAX_JOINTS`.
    pub num_joints: u32,
    /// Number of samples per track, 1..=`ANIMCOMP_MAX_SAMPLES`.
    pub num_samples: u32,
    /// Samples per second, in [1e-4, 1e5].
    pub sample_rate: f32,
    /// `ANIMCOMP_LAYOUT_SAMPLE_MAJOR` (0) or `ANIMCOMP_LAYOUT_JOINT_MAJOR` (1).
    pub layout: u32,
    /// `num_joints` parent indices; -1 marks a root; a parent comes before its children.
    pub parents: *const i32,
    /// Optional (NULL = 0.01 each): per-joint precision, the largest acceptable error of the
    /// joint's virtual vertices, in clip units.
    pub precisions: *const f32,
    /// Optional (NULL = 3.0 each): per-joint virtual vertex distance (shell distance), in clip
    /// units.
    pub shell_distances: *const f32,
    /// Optional: bind pose, 10 floats per joint (`qx qy qz qw tx ty tz sx sy sz`), tightly packed.
    /// Required for `ANIMCOMP_DEFAULT_MODE_BIND_POSE` to have an effect.
    pub bind_pose: *const f32,
    /// Local rotations, unit quaternions `x y z w` (normalised if within 5% of unit length).
    pub rotations: *const f32,
    /// Local translations `x y z`.
    pub translations: *const f32,
    /// Optional (NULL = unit scale): local scales `x y z`.
    pub scales: *const f32,
    /// Floats from one rotation element to the next; 0 = 4.
    pub rotation_stride: u32,
    /// Floats from one translation element to the next; 0 = 3.
    pub translation_stride: u32,
    /// Floats from one scale element to the next; 0 = 3.
    pub scale_stride: u32,
    /// Must be zero.
    pub reserved0: u32,
    /// Number of scalar curves, 0..=`ANIMCOMP_MAX_CURVES` (`num_joints` may be 0 when this is
    /// not: a curves-only clip).
    pub num_curves: u32,
    /// Floats from one curve value to the next (element (curve c, sample i) indexed by `layout`
    /// as for joints); 0 = 1.
    pub curve_stride: u32,
    /// Curve values (required when `num_curves` > 0), `num_curves` x `num_samples` elements.
    pub curve_values: *const f32,
    /// Optional (NULL = every curve with id = its index, the settings' precision, no default,
    /// no magnitude): `num_curves` curve descriptions.
    pub curves: *const AnimcompCurveDesc,
    /// Must be zero.
    pub reserved: [u64; 2],
}

/// Most scalar curves a clip may have.
pub const ANIMCOMP_MAX_CURVES: u32 = 65535;

/// One scalar curve of an `AnimcompRawClip` (morph-target weight, gameplay curve).
/// Zero-initialise it, then fill it.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AnimcompCurveDesc {
    /// Id the engine chooses (stored in the blob; see `animcomp_curve_id`).
    pub id: u32,
    /// Largest acceptable absolute error of the curve; 0 = the settings' `curve_precision`.
    pub precision: f32,
    /// Default value, used when `has_default` is 1: a curve that never leaves it by more than its
    /// precision costs no data.
    pub default_value: f32,
    /// 0 or 1.
    pub has_default: u32,
    /// Morph target's largest vertex displacement (0 = none): with the settings'
    /// `morph_position_precision` P, the curve's precision becomes P / magnitude.
    pub magnitude: f32,
    /// Must be zero.
    pub reserved: u32,
}

/// Compression settings. Initialise with `animcomp_compress_settings_default`, then change fields.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnimcompCompressSettings {
    /// An `ANIMCOMP_CODEC_*` value (default `ANIMCOMP_CODEC_VBR`).
    pub codec: u32,
    /// An `ANIMCOMP_LEVEL_*` value (search effort of the searching codecs).
    pub level: u32,
    /// `ANIMCOMP_CODEC_FIXED` only: an `ANIMCOMP_ROTATION_FORMAT_*` value.
    pub rotation_format: u32,
    /// `ANIMCOMP_CODEC_FIXED` only: an `ANIMCOMP_VECTOR_FORMAT_*` value for translations.
    pub translation_format: u32,
    /// `ANIMCOMP_CODEC_FIXED` only: an `ANIMCOMP_VECTOR_FORMAT_*` value for scales.
    pub scale_format: u32,
    /// An `ANIMCOMP_DEFAULT_MODE_*` value: what unstored (default) sub-tracks equal.
    pub default_mode: u32,
    /// 0 or 1: drop a last sample that repeats the first and mark the blob looping.
    pub optimize_loops: u32,
    /// If non-zero, the precision of every joint (overrides `AnimcompRawClip::precisions`).
    pub precision: f32,
    /// If non-zero, the shell distance of every joint (overrides
    /// `AnimcompRawClip::shell_distances`).
    pub shell_distance: f32,
    /// Absolute precision of every scalar curve without its own (default 0.001; 0 = 0.001).
    pub curve_precision: f32,
    /// If non-zero, a precision in displacement units for curves with a magnitude: such a curve
    /// gets the precision `morph_position_precision / magnitude`.
    pub morph_position_precision: f32,
    /// Reserved; every `vbr` blob is written in the grouped layout (format version 5). An
    /// `ANIMCOMP_VBR_LAYOUT_*` value, kept for compatibility: each writes the same blob; another
    /// value gives `ANIMCOMP_STATUS_INVALID_ENUM`.
    pub vbr_layout: u32,
    /// Must be zero.
    pub reserved: [u32; 4],
}

/// Options of `animcomp_decompressor_init`. Initialise with `animcomp_decompress_options_default`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct AnimcompDecompressOptions {
    /// 1 (default): verify the blob checksum; 0: skip it (only for blobs already validated with
    /// `animcomp_validate_blob`; every offset is bounds-checked either way).
    pub verify_checksum: u32,
    /// Must be zero.
    pub reserved0: u32,
    /// Optional: bind pose, 10 floats per joint, tightly packed. Required for blobs with
    /// `ANIMCOMP_BLOB_FLAG_DEFAULTS_ARE_BIND_POSE` (NULL for one gives
    /// `ANIMCOMP_STATUS_BIND_POSE_REQUIRED`); it is read during sampling, so it must outlive the
    /// decompressor. Always give its length in `bind_pose_len`.
    pub bind_pose: *const f32,
    /// Length of `bind_pose` in floats: 10 per joint x `AnimcompBlobInfo::num_joints`. Required
    /// with a bind pose: 0 (the default) with a non-NULL `bind_pose` gives
    /// `ANIMCOMP_STATUS_INVALID_ARGUMENT`, as does a non-zero length with a NULL `bind_pose`. The
    /// blob's joint count is checked against it before anything is read: fewer than 10 floats
    /// per joint gives `ANIMCOMP_STATUS_BUFFER_TOO_SMALL`.
    pub bind_pose_len: u64,
    /// Must be zero.
    pub reserved: [u64; 1],
}

/// What `animcomp_blob_info` reports about a blob.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AnimcompBlobInfo {
    /// Blob format version.
    pub format_version: u32,
    /// Codec that wrote the body: `ANIMCOMP_CODEC_FIXED`, `_VBR` or `_KEYS`.
    pub codec: u32,
    /// `ANIMCOMP_BLOB_FLAG_*` bits.
    pub flags: u32,
    /// Joints.
    pub num_joints: u32,
    /// Samples stored.
    pub num_samples: u32,
    /// Samples per second.
    pub sample_rate: f32,
    /// Playable duration in seconds under `ANIMCOMP_LOOPING_CLAMP`: `(samples - 1) / rate`, or
    /// `samples / rate` for a blob with `ANIMCOMP_BLOB_FLAG_LOOPING`.
    pub duration: f32,
    /// Scalar curves.
    pub num_curves: u32,
    /// Blob size in bytes.
    pub blob_size: u64,
    /// Uncompressed size in bytes, `40 * joints * samples` (ACL's convention; curves excluded).
    pub raw_size: u64,
    /// `ANIMCOMP_ADDITIVE_NONE` for a plain clip, else the additive format the blob was
    /// compressed in (`ANIMCOMP_ADDITIVE_RELATIVE`, `_ADDITIVE0`, `_ADDITIVE1`).
    pub additive_format: u32,
    /// Zero.
    pub reserved1: u32,
    /// Bytes of the blob's curves section (0 without curves); raw curve size is
    /// `4 * num_curves * num_samples`.
    pub curves_size: u64,
}

/// Number of 64-bit words in an `AnimcompDecompressor`.
pub const ANIMCOMP_DECOMPRESSOR_WORDS: usize = 16;

/// A decompressor: caller-owned, fixed-size, 16-byte aligned, no heap memory. Initialise it with
/// `animcomp_decompressor_init`; it then refers to the blob (and bind pose), which must outlive it.
/// It may be copied with `memcpy` (e.g. one copy per thread); it needs no destruction.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct AnimcompDecompressor {
    /// Private state; do not touch.
    pub opaque: [u64; ANIMCOMP_DECOMPRESSOR_WORDS],
}

/// Number of 64-bit words in an `AnimcompTierSet`.
pub const ANIMCOMP_TIER_SET_WORDS: usize = 32;

/// The tier slots of an opened resident blob (a blob compressed with quality tiers):
/// caller-owned, fixed-size, 16-byte aligned, no heap memory. Initialise it with
/// `animcomp_tier_set_init`, attach and detach tier blobs from any thread, and bind contexts to it
/// with `animcomp_decompressor_bind_tiers`. Unlike the other handles it must not be copied or
/// moved while contexts are bound to it (they refer to it), and it must outlive them.
#[repr(C, align(16))]
pub struct AnimcompTierSet {
    /// Private state; do not touch.
    pub opaque: [u64; ANIMCOMP_TIER_SET_WORDS],
}

/// Number of 64-bit words in an `AnimcompBlob`.
pub const ANIMCOMP_BLOB_WORDS: usize = 16;

/// A blob validated once by `animcomp_blob_open`: caller-owned, fixed-size, 16-byte aligned, no
/// heap memory. `animcomp_decompressor_bind` makes a context from it in constant time. It refers
/// to the blob (and bind pose), which must outlive it and every context bound from it; it may be
/// copied with `memcpy` and needs no destruction.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct AnimcompBlob {
    /// Private state; do not touch.
    pub opaque: [u64; ANIMCOMP_BLOB_WORDS],
}

/// `animcomp_sample_joints` channel bit: rotations (floats 0..4 of each joint).
pub const ANIMCOMP_CHANNEL_ROTATION: u32 = 1;
/// `animcomp_sample_joints` channel bit: translations (floats 4..7).
pub const ANIMCOMP_CHANNEL_TRANSLATION: u32 = 2;
/// `animcomp_sample_joints` channel bit: scales (floats 7..10).
pub const ANIMCOMP_CHANNEL_SCALE: u32 = 4;
/// `animcomp_sample_joints`: every channel.
pub const ANIMCOMP_CHANNEL_ALL: u32 = 7;

const _: () = {
    assert!(ANIMCOMP_CHANNEL_ROTATION == crate::runtime::CHANNEL_ROTATION);
    assert!(ANIMCOMP_CHANNEL_TRANSLATION == crate::runtime::CHANNEL_TRANSLATION);
    assert!(ANIMCOMP_CHANNEL_SCALE == crate::runtime::CHANNEL_SCALE);
    assert!(ANIMCOMP_CHANNEL_ALL == crate::runtime::CHANNELS_ALL);
};

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, size_of};

    #[test]
    fn struct_sizes_are_the_documented_abi() {
        #[cfg(target_pointer_width = "64")]
        {
            assert_eq!(size_of::<AnimcompRawClip>(), 128);
            assert_eq!(size_of::<AnimcompDecompressOptions>(), 32);
        }
        assert_eq!(size_of::<AnimcompCompressSettings>(), 64);
        assert_eq!(size_of::<AnimcompBlobInfo>(), 64);
        assert_eq!(size_of::<AnimcompCurveDesc>(), 24);
        assert_eq!(size_of::<AnimcompDecompressor>(), 128);
        assert_eq!(align_of::<AnimcompDecompressor>(), 16);
        assert_eq!(size_of::<AnimcompBlob>(), 128);
        assert_eq!(align_of::<AnimcompBlob>(), 16);
    }
}

/// Number of 64-bit words in an `AnimcompCheckedPoseLayout`.
pub const ANIMCOMP_CHECKED_POSE_LAYOUT_WORDS: usize = 8;

/// A pose layout checked once by `animcomp_pose_layout_check`, for the `_checked` sampling calls,
/// which then check only the buffers: caller-owned, fixed-size, 16-byte aligned, no heap memory,
/// needs no destruction. It is only read, so it may be shared between threads and copied with
/// `memcpy`. A struct that `animcomp_pose_layout_check` did not fill (or that was changed since)
/// is refused with `ANIMCOMP_STATUS_INVALID_ARGUMENT`.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct AnimcompCheckedPoseLayout {
    /// Private state; do not touch.
    pub opaque: [u64; ANIMCOMP_CHECKED_POSE_LAYOUT_WORDS],
}

/// `AnimcompPoseLayout::element`: 32-bit floats.
pub const ANIMCOMP_ELEMENT_F32: u32 = 0;
/// `AnimcompPoseLayout::element`: 64-bit floats (the exact widening of the decoded floats).
pub const ANIMCOMP_ELEMENT_F64: u32 = 1;
/// `AnimcompPoseLayout::kind`: one record per joint (array of structures), in `data0`.
pub const ANIMCOMP_POSE_LAYOUT_AOS: u32 = 0;
/// `AnimcompPoseLayout::kind`: three arrays, rotation in `data0`, translation in `data1`,
/// scale in `data2`, each with its own offset and stride.
pub const ANIMCOMP_POSE_LAYOUT_SOA: u32 = 1;
/// `AnimcompPoseLayout::kind`: ozz-animation `SoaTransform` blocks of four joints in `data0`
/// (translation x[4] y[4] z[4], rotation x[4] y[4] z[4] w[4], scale x[4] y[4] z[4]: 160 bytes
/// with f32), the joint count rounded up to 4; lanes past the last joint get the identity.
pub const ANIMCOMP_POSE_LAYOUT_SOA4: u32 = 2;
/// `animcomp_pose_layout_preset`: the ten-float pose (f32 AoS, 0, 16, 28, stride 40).
pub const ANIMCOMP_POSE_PRESET_TEN_FLOATS: u32 = 0;
/// `animcomp_pose_layout_preset`: Unreal Engine 5 `FTransform` (double, vectorized):
/// `Rotation`, `Translation`, `Scale3D` as `VectorRegister4Double` at bytes 0, 32, 64, stride 96
/// (the fourth double of translation and scale is not written).
pub const ANIMCOMP_POSE_PRESET_UNREAL5_TRANSFORM: u32 = 1;
/// `animcomp_pose_layout_preset`: Unreal Engine 4 `FTransform` (float, vectorized): three
/// `VectorRegister` at bytes 0, 16, 32, stride 48 (the fourth float of translation and scale is
/// not written).
pub const ANIMCOMP_POSE_PRESET_UNREAL4_TRANSFORM: u32 = 2;
/// `animcomp_pose_layout_preset`: Unity-style separate arrays (`NativeArray<quaternion>`,
/// `NativeArray<float3>` positions, `NativeArray<float3>` scales): strides 16, 12, 12.
pub const ANIMCOMP_POSE_PRESET_UNITY_SEPARATE: u32 = 3;
/// `animcomp_pose_layout_preset`: ozz-animation `SoaTransform` (f32 SoA4).
pub const ANIMCOMP_POSE_PRESET_OZZ_SOA_TRANSFORM: u32 = 4;

const _: () = {
    use crate::runtime::{Element, LayoutKind, Preset};
    assert!(ANIMCOMP_ELEMENT_F32 == Element::F32 as u32);
    assert!(ANIMCOMP_ELEMENT_F64 == Element::F64 as u32);
    assert!(ANIMCOMP_POSE_LAYOUT_AOS == LayoutKind::Aos as u32);
    assert!(ANIMCOMP_POSE_LAYOUT_SOA == LayoutKind::Soa as u32);
    assert!(ANIMCOMP_POSE_LAYOUT_SOA4 == LayoutKind::Soa4 as u32);
    assert!(ANIMCOMP_POSE_PRESET_TEN_FLOATS == Preset::TenFloats as u32);
    assert!(ANIMCOMP_POSE_PRESET_UNREAL5_TRANSFORM == Preset::Unreal5Transform as u32);
    assert!(ANIMCOMP_POSE_PRESET_UNREAL4_TRANSFORM == Preset::Unreal4Transform as u32);
    assert!(ANIMCOMP_POSE_PRESET_UNITY_SEPARATE == Preset::UnitySeparate as u32);
    assert!(ANIMCOMP_POSE_PRESET_OZZ_SOA_TRANSFORM == Preset::OzzSoaTransform as u32);
};

/// Where `animcomp_sample_pose_layout` and `animcomp_sample_joints_layout` write a pose. Fill it
/// with `animcomp_pose_layout_preset` or zero-initialise it (`= {0}`) and set the fields. Offsets
/// and strides are in bytes and multiples of the element size.
///
/// - `ANIMCOMP_POSE_LAYOUT_AOS`: joint `j`'s rotation (x y z w), translation (x y z) and scale
///   (x y z) at `data0 + j * record_stride + {rotation,translation,scale}_offset`; the fields
///   may not overlap and must fit in the record; the `*_stride` fields are 0.
/// - `ANIMCOMP_POSE_LAYOUT_SOA`: joint `j`'s rotation at `data0 + rotation_offset + j *
///   rotation_stride`, translation in `data1`, scale in `data2` likewise; `record_stride` is
///   0; each stride holds its field (16, 12, 12 bytes with f32).
/// - `ANIMCOMP_POSE_LAYOUT_SOA4`: every offset and stride 0.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AnimcompPoseLayout {
    /// `ANIMCOMP_ELEMENT_*`.
    pub element: u32,
    /// `ANIMCOMP_POSE_LAYOUT_*`.
    pub kind: u32,
    /// Byte offset of the rotation (x y z w).
    pub rotation_offset: u32,
    /// Byte offset of the translation (x y z).
    pub translation_offset: u32,
    /// Byte offset of the scale (x y z).
    pub scale_offset: u32,
    /// AoS: bytes from one joint's record to the next.
    pub record_stride: u32,
    /// SoA: bytes from one joint's rotation to the next.
    pub rotation_stride: u32,
    /// SoA: bytes from one joint's translation to the next.
    pub translation_stride: u32,
    /// SoA: bytes from one joint's scale to the next.
    pub scale_stride: u32,
    /// Must be zero.
    pub reserved: [u32; 3],
}

/// The caller's output buffers for a pose layout: one (`data0`) for AoS and SoA4, three
/// (rotation `data0`, translation `data1`, scale `data2`) for SoA; unused ones NULL with size 0.
/// Each must be aligned to the element size; sizes are in bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct AnimcompPoseBuffers {
    /// The first buffer (AoS records, SoA rotations, SoA4 blocks).
    pub data0: *mut std::os::raw::c_void,
    /// Its size in bytes.
    pub size0: usize,
    /// SoA translations (else NULL).
    pub data1: *mut std::os::raw::c_void,
    /// Its size in bytes (else 0).
    pub size1: usize,
    /// SoA scales (else NULL).
    pub data2: *mut std::os::raw::c_void,
    /// Its size in bytes (else 0).
    pub size2: usize,
}

impl AnimcompPoseBuffers {
    /// The three buffers and their sizes.
    pub fn arrays(&self) -> ([*mut std::os::raw::c_void; 3], [usize; 3]) {
        (
            [self.data0, self.data1, self.data2],
            [self.size0, self.size1, self.size2],
        )
    }
}
