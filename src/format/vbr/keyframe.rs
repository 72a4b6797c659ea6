//! Where a sample sits in a segment whose encoder dropped keyframes: a `vbr` segment's keyframe
//! mask (bit `s`: local sample `s` is stored; the first and the last always are) names the stored
//! samples, and a dropped one is the linear blend of its stored neighbours, computed on the stored
//! components before a rotation is rebuilt. The encoder measures with these functions and the
//! decoders compute the same operations.

/// Linear blend used for dropped keyframes (the decoders compute it lane by lane, the same
/// operations: bit for bit what the encoder measured).
#[inline(always)]
pub fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

/// Where a dropped local sample sits between its stored neighbours: (stored index of the
/// previous stored sample, blend weight towards the next). A stored sample gives weight 0.
#[inline(always)]
pub fn keyframe_position(mask: u32, local: u32) -> (u32, f32) {
    let low = (1u32 << local) - 1;
    let below = mask & low;
    if mask & (1u32 << local) != 0 {
        // Every sample before it stored (the encoder keeps every key unless told otherwise):
        // its index without the count, which is a software loop on the x86-64 baseline.
        return (
            if below == low {
                local
            } else {
                below.count_ones()
            },
            0.0,
        );
    }
    // Validation guarantees bit 0 and the last bit are set, so both neighbours exist.
    let prev = 31 - below.leading_zeros();
    let above = mask >> (local + 1);
    let next = local + 1 + above.trailing_zeros();
    let idx = below.count_ones() - 1;
    (idx, (local - prev) as f32 / (next - prev) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyframe_positions() {
        let mask = 0b1000_1001u32;
        assert_eq!(keyframe_position(mask, 0), (0, 0.0));
        assert_eq!(keyframe_position(mask, 3), (1, 0.0));
        assert_eq!(keyframe_position(mask, 1), (0, 1.0 / 3.0));
        assert_eq!(keyframe_position(mask, 5), (1, 0.5));
        assert_eq!(keyframe_position(mask, 7), (2, 0.0));
    }

    /// A stored sample's index is the count of stored samples before it, with or without the
    /// shortcut for a segment whose samples before it are all stored (every mask of a 16-sample
    /// segment, every stored sample; and 32-sample segments at their ends).
    #[test]
    fn a_stored_sample_index_is_the_count_before_it() {
        let check = |mask: u32, local: u32| {
            if mask & (1 << local) != 0 {
                let count = (mask & ((1u32 << local) - 1)).count_ones();
                assert_eq!(
                    keyframe_position(mask, local),
                    (count, 0.0),
                    "{mask:#x} {local}"
                );
            }
        };
        for mask in (0..1u32 << 16).filter(|m| m & 1 != 0 && m & (1 << 15) != 0) {
            (0..16).for_each(|local| check(mask, local));
        }
        for mask in [u32::MAX, u32::MAX - 2, 0x8000_0001, 0xFFFF_0FFF] {
            (0..32).for_each(|local| check(mask, local));
        }
    }
}
