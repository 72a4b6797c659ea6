//! One error type for the whole library, and its mapping to the C status codes.
//!
//! Every fallible function returns [`Error`]; the C layer turns it into a [`Status`] with
//! [`Error::status`]. Each status has a fixed human-readable message ([`Status::message`]).

use thiserror::Error;

/// Everything that can go wrong, with enough context to act on it.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Error {
    /// A required pointer argument was null.
    #[error("a required pointer argument was null ({0})")]
    NullPointer(&'static str),
    /// An argument is out of its documented range.
    #[error("invalid argument: {0}")]
    InvalidArgument(&'static str),
    /// An enum-like integer from C is not one of the defined values.
    #[error("invalid enum value {value} for {what}")]
    InvalidEnum {
        /// Which parameter.
        what: &'static str,
        /// The value received.
        value: u32,
    },
    /// The output buffer is too small; `required` bytes are needed.
    #[error("output buffer too small: {required} bytes required")]
    BufferTooSmall {
        /// Bytes required.
        required: usize,
    },
    /// A buffer or blob is not 16-byte aligned.
    #[error("buffer is not 16-byte aligned")]
    Misaligned,
    /// The skeleton has no joints.
    #[error("the clip has no joints")]
    NoJoints,
    /// The clip has no samples.
    #[error("the clip has no samples")]
    NoSamples,
    /// More joints than [`crate::format::limits::MAX_JOINTS`].
    #[error("too many joints: {0} (limit {limit})", limit = crate::format::limits::MAX_JOINTS)]
    TooManyJoints(usize),
    /// More samples than [`crate::format::limits::MAX_SAMPLES`].
    #[error("too many samples: {0} (limit {limit})", limit = crate::format::limits::MAX_SAMPLES)]
    TooManySamples(usize),
    /// Sample rate not finite, not positive or out of the supported range.
    #[error("invalid sample rate {0}")]
    InvalidSampleRate(f32),
    /// A track value is NaN or infinite (or beyond [`crate::format::limits::MAX_ABS_VALUE`]).
    #[error("non-finite or out-of-range value in joint {joint} sample {sample} ({channel})")]
    NonFiniteValue {
        /// Joint index.
        joint: usize,
        /// Sample index.
        sample: usize,
        /// "rotation", "translation" or "scale".
        channel: &'static str,
    },
    /// A parent index is out of range or does not come before its child.
    #[error("joint {joint} has invalid parent {parent} (parents must come before children)")]
    InvalidParent {
        /// Joint index.
        joint: usize,
        /// The parent index given.
        parent: i64,
    },
    /// A rotation quaternion is too far from unit length to be normalised safely.
    #[error(
        "rotation of joint {joint} at sample {sample} is not a unit quaternion (length {length})"
    )]
    NonUnitQuaternion {
        /// Joint index.
        joint: usize,
        /// Sample index.
        sample: usize,
        /// Its length.
        length: f32,
    },
    /// A joint's precision is not finite and positive.
    #[error("joint {0} has an invalid precision (must be finite and > 0)")]
    InvalidPrecision(usize),
    /// A joint's shell distance is not finite and positive.
    #[error("joint {0} has an invalid shell distance (must be finite and > 0)")]
    InvalidShellDistance(usize),
    /// Array lengths in the clip do not agree with its declared counts.
    #[error("inconsistent clip data: {0}")]
    InconsistentClip(&'static str),
    /// The codec cannot represent this clip (e.g. a limit specific to the codec).
    #[error("the codec cannot encode this clip: {0}")]
    Unsupported(&'static str),
    /// The blob does not start with the animcomp magic tag.
    #[error("not an animcomp blob (bad magic tag)")]
    BadMagic,
    /// The blob's format version is not one this library reads.
    #[error(
        "unsupported blob format version {0} (this library reads version 5 for vbr blobs with \
         joints and version 2 for the others; convert a vbr blob without loss: compress its clip \
         again, or regroup its version 2 blob with `animcomp regroup`, animcomp_regroup_blob or \
         Python Blob.regrouped())"
    )]
    UnsupportedVersion(u32),
    /// The blob is shorter than its header says, or its header size is inconsistent.
    #[error("blob size mismatch: {0}")]
    BadSize(&'static str),
    /// The body checksum does not match.
    #[error("blob checksum mismatch (corrupted data)")]
    ChecksumMismatch,
    /// An internal offset, count or bit width in the blob is out of bounds.
    #[error("corrupt blob: {0}")]
    CorruptBlob(&'static str),

    /// A tier blob that names another resident blob (another clip, or another compression of it).
    #[error("the tier blob belongs to another resident blob (another clip or compression)")]
    TierMismatch,
    /// A joint index is out of range.
    #[error("joint index {0} out of range")]
    JointOutOfRange(u32),
    /// A time value is NaN or infinite.
    #[error("sample time is not finite")]
    InvalidTime,
    /// The blob's default sub-tracks refer to the bind pose and none was given.
    #[error("this blob stores default tracks as bind pose: a bind pose must be given")]
    BindPoseRequired,
    /// The decompressor was not initialised (or was initialised on another blob layout).
    #[error("decompressor is not initialised")]
    NotInitialized,
    /// A Rust panic was caught at the C boundary. This is a bug in animcomp.
    #[error("internal error (a panic was caught at the C boundary)")]
    Internal,
}

/// Status codes returned by every C entry point. `ANIMCOMP_STATUS_OK` is zero.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Success.
    Ok = 0,
    /// A required pointer argument was null.
    NullPointer = 1,
    /// An argument is out of its documented range.
    InvalidArgument = 2,
    /// An enum-like integer is not one of the defined values.
    InvalidEnum = 3,
    /// The output buffer is too small; the required size has been written.
    BufferTooSmall = 4,
    /// A buffer or blob is not 16-byte aligned.
    Misaligned = 5,
    /// The clip has no joints.
    NoJoints = 6,
    /// The clip has no samples.
    NoSamples = 7,
    /// The clip has more joints than supported.
    TooManyJoints = 8,
    /// The clip has more samples than supported.
    TooManySamples = 9,
    /// The sample rate is invalid.
    InvalidSampleRate = 10,
    /// A track value is NaN, infinite or absurdly large.
    NonFiniteValue = 11,
    /// A parent index is out of range or not before its child.
    InvalidParent = 12,
    /// A rotation is too far from unit length.
    NonUnitQuaternion = 13,
    /// A precision value is invalid.
    InvalidPrecision = 14,
    /// A shell distance is invalid.
    InvalidShellDistance = 15,
    /// Clip array sizes are inconsistent.
    InconsistentClip = 16,
    /// The codec cannot encode this clip.
    Unsupported = 17,
    /// Not an animcomp blob.
    BadMagic = 18,
    /// Unsupported blob format version.
    UnsupportedVersion = 19,
    /// Blob size inconsistent or truncated.
    BadSize = 20,
    /// Blob checksum mismatch.
    ChecksumMismatch = 21,
    /// Blob internally inconsistent.
    CorruptBlob = 22,
    /// Joint index out of range.
    JointOutOfRange = 23,
    /// Time is not finite.
    InvalidTime = 24,
    /// A bind pose is required to decode this blob.
    BindPoseRequired = 25,
    /// The decompressor is not initialised.
    NotInitialized = 26,
    /// Internal error (caught panic).
    Internal = 27,
    /// A tier blob names another resident blob.
    TierMismatch = 28,
}

impl Status {
    /// Every status, in numeric order.
    pub const ALL: [Status; 29] = [
        Status::Ok,
        Status::NullPointer,
        Status::InvalidArgument,
        Status::InvalidEnum,
        Status::BufferTooSmall,
        Status::Misaligned,
        Status::NoJoints,
        Status::NoSamples,
        Status::TooManyJoints,
        Status::TooManySamples,
        Status::InvalidSampleRate,
        Status::NonFiniteValue,
        Status::InvalidParent,
        Status::NonUnitQuaternion,
        Status::InvalidPrecision,
        Status::InvalidShellDistance,
        Status::InconsistentClip,
        Status::Unsupported,
        Status::BadMagic,
        Status::UnsupportedVersion,
        Status::BadSize,
        Status::ChecksumMismatch,
        Status::CorruptBlob,
        Status::JointOutOfRange,
        Status::InvalidTime,
        Status::BindPoseRequired,
        Status::NotInitialized,
        Status::Internal,
        Status::TierMismatch,
    ];

    /// A fixed, NUL-terminated, human-readable message for this status.
    pub fn message(self) -> &'static str {
        match self {
            Status::Ok => "success\0",
            Status::NullPointer => "a required pointer argument was null\0",
            Status::InvalidArgument => "an argument is out of its documented range\0",
            Status::InvalidEnum => "an enum value is not one of the defined constants\0",
            Status::BufferTooSmall => {
                "a buffer or array is too small (animcomp_compress and \
                 animcomp_compress_additive wrote the required size to *out_size; other \
                 functions wrote nothing)\0"
            }
            Status::Misaligned => "a buffer or blob is not 16-byte aligned\0",
            Status::NoJoints => "the clip has no joints\0",
            Status::NoSamples => "the clip has no samples\0",
            Status::TooManyJoints => "the clip has more joints than supported\0",
            Status::TooManySamples => "the clip has more samples than supported\0",
            Status::InvalidSampleRate => {
                "the sample rate is not finite or outside the supported range\0"
            }
            Status::NonFiniteValue => "a track value is NaN, infinite or out of range\0",
            Status::InvalidParent => {
                "a parent index is out of range or does not come before its child\0"
            }
            Status::NonUnitQuaternion => "a rotation is too far from a unit quaternion\0",
            Status::InvalidPrecision => "a precision is not finite and positive\0",
            Status::InvalidShellDistance => "a shell distance is not finite and positive\0",
            Status::InconsistentClip => "clip array sizes or strides are inconsistent\0",
            Status::Unsupported => "the codec cannot encode this clip\0",
            Status::BadMagic => "not an animcomp blob (bad magic tag)\0",
            Status::UnsupportedVersion => {
                "unsupported blob format version (this library reads version 5 for vbr blobs \
                 with joints and version 2 for the others; convert a vbr blob without loss: \
                 compress its clip again, or regroup its version 2 blob with `animcomp regroup`, \
                 animcomp_regroup_blob or Python Blob.regrouped())\0"
            }
            Status::BadSize => "blob size is inconsistent or the blob is truncated\0",
            Status::ChecksumMismatch => "blob checksum mismatch (corrupted data)\0",
            Status::CorruptBlob => "blob is internally inconsistent (bad offset or count)\0",
            Status::JointOutOfRange => "joint index out of range\0",
            Status::InvalidTime => "sample time is not finite\0",
            Status::BindPoseRequired => "this blob needs a bind pose to be decoded\0",
            Status::NotInitialized => "the decompressor is not initialised\0",
            Status::Internal => "internal error (a panic was caught at the C boundary)\0",
            Status::TierMismatch => {
                "the tier blob belongs to another resident blob (another clip or compression)\0"
            }
        }
    }

    /// Status from its integer value, if it is one.
    pub fn from_i32(v: i32) -> Option<Status> {
        Status::ALL.get(usize::try_from(v).ok()?).copied()
    }
}

impl Error {
    /// The C status code for this error.
    pub fn status(&self) -> Status {
        match self {
            Error::NullPointer(_) => Status::NullPointer,
            Error::InvalidArgument(_) => Status::InvalidArgument,
            Error::InvalidEnum { .. } => Status::InvalidEnum,
            Error::BufferTooSmall { .. } => Status::BufferTooSmall,
            Error::Misaligned => Status::Misaligned,
            Error::NoJoints => Status::NoJoints,
            Error::NoSamples => Status::NoSamples,
            Error::TooManyJoints(_) => Status::TooManyJoints,
            Error::TooManySamples(_) => Status::TooManySamples,
            Error::InvalidSampleRate(_) => Status::InvalidSampleRate,
            Error::NonFiniteValue { .. } => Status::NonFiniteValue,
            Error::InvalidParent { .. } => Status::InvalidParent,
            Error::NonUnitQuaternion { .. } => Status::NonUnitQuaternion,
            Error::InvalidPrecision(_) => Status::InvalidPrecision,
            Error::InvalidShellDistance(_) => Status::InvalidShellDistance,
            Error::InconsistentClip(_) => Status::InconsistentClip,
            Error::Unsupported(_) => Status::Unsupported,
            Error::BadMagic => Status::BadMagic,
            Error::UnsupportedVersion(_) => Status::UnsupportedVersion,
            Error::BadSize(_) => Status::BadSize,
            Error::ChecksumMismatch => Status::ChecksumMismatch,
            Error::CorruptBlob(_) => Status::CorruptBlob,
            Error::JointOutOfRange(_) => Status::JointOutOfRange,
            Error::InvalidTime => Status::InvalidTime,
            Error::BindPoseRequired => Status::BindPoseRequired,
            Error::NotInitialized => Status::NotInitialized,
            Error::Internal => Status::Internal,
            Error::TierMismatch => Status::TierMismatch,
        }
    }
}

/// Result alias used across the crate.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_dense_and_messages_nul_terminated() {
        for (i, s) in Status::ALL.iter().enumerate() {
            assert_eq!(*s as i32, i as i32);
            assert_eq!(Status::from_i32(i as i32), Some(*s));
            let m = s.message();
            assert!(m.ends_with('\0') && m.len() > 5);
            assert_eq!(m.matches('\0').count(), 1);
        }
        assert_eq!(Status::from_i32(-1), None);
        assert_eq!(Status::from_i32(Status::ALL.len() as i32), None);
    }
}
