//! Writing ten-float rows into a checked layout's fields: element by element ([`Fields`],
//! [`scatter`]), or ozz blocks transposed in place ([`blocks_in_place`]).

use super::*;

/// Writes `v` (as the element type) at the start of `d`.
#[inline(always)]
pub(super) fn put(e: Element, d: &mut [u8], v: f32) {
    match e {
        Element::F32 => d[..4].copy_from_slice(&v.to_ne_bytes()),
        Element::F64 => d[..8].copy_from_slice(&(v as f64).to_ne_bytes()),
    }
}

/// `bytes` as floats (the caller checked its alignment to 4).
#[inline]
pub(super) fn as_floats(bytes: &mut [u8]) -> &mut [f32] {
    debug_assert!((bytes.as_ptr() as usize).is_multiple_of(4));
    // SAFETY: the buffer was checked aligned to the element size (4 or 8) and any bytes are a
    // valid f32; the length is rounded down.
    unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr() as *mut f32, bytes.len() / 4) }
}

/// The fields of an AoS or SoA layout as raw addresses: channel `c` of slot `j` at
/// `base[c] + j * stride[c]`, its components consecutive elements. Made from checked buffers;
/// the writers' callers keep `j` below the slots they were checked for.
#[derive(Clone, Copy)]
pub(super) struct Fields {
    base: [*mut u8; 3],
    stride: [usize; 3],
}

impl Fields {
    /// The fields of `layout` (AoS or SoA) over `out`.
    pub(super) fn new(layout: &PoseLayout, out: &mut [&mut [u8]]) -> Self {
        debug_assert!(layout.kind != LayoutKind::Soa4);
        let mut base = [std::ptr::null_mut(); 3];
        for (c, b) in base.iter_mut().enumerate() {
            let buf = if layout.kind == LayoutKind::Soa { c } else { 0 };
            *b = out[buf].as_mut_ptr().wrapping_add(layout.offsets[c]);
        }
        Fields {
            base,
            stride: layout.strides,
        }
    }

    /// The rows of an f32 layout (offsets and strides checked multiples of 4 bytes).
    #[inline]
    pub(super) fn rows(&self) -> crate::runtime::PoseRows {
        crate::runtime::PoseRows {
            base: self.base.map(|b| b.cast::<f32>()),
            stride: self.stride.map(|s| s / 4),
        }
    }

    /// Writes ten floats at slot `j`, `W`: widened to f64.
    ///
    /// # Safety
    /// Slot `j` is within the slots the buffers were checked for.
    #[inline(always)]
    pub(super) unsafe fn put<const W: bool>(&self, j: usize, t: &[f32; 10]) {
        for c in 0..3 {
            let d = self.base[c].add(j * self.stride[c]);
            let src = t.as_ptr().add(ROW_AT[c]);
            if W {
                for k in 0..COMPONENTS[c] {
                    (d as *mut f64).add(k).write_unaligned(*src.add(k) as f64);
                }
            } else {
                std::ptr::copy_nonoverlapping(src.cast::<u8>(), d, 4 * COMPONENTS[c]);
            }
        }
    }
}

/// Ten floats at `p` (unaligned).
///
/// # Safety
/// `p` is readable for 40 bytes.
#[inline(always)]
pub(super) unsafe fn read_row(p: *const u8) -> [f32; 10] {
    (p as *const [f32; 10]).read_unaligned()
}

/// Transposes the `n` ten-float rows at `p` (the caller's buffer, `ceil(n / 4)` blocks of 160
/// bytes) into f32 ozz blocks in place, with 4-lane vectors: each block's twelve loads
/// (rotations, then translations with the scales' `x`, then the scales' last three floats)
/// come before its ten stores, a last block's lanes past `n` are the identity, and every value
/// is moved, not computed, so the bits are the rows'. Returns false, having written nothing,
/// where the CPU has no such vectors ([`put_block`] then does it).
///
/// # Safety
/// `p` is valid for reads and writes of `ceil(n / 4) * 160` bytes, 4-byte aligned.
#[inline]
pub(super) unsafe fn blocks_in_place(p: *mut f32, n: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SSE2 is part of x86-64. Rows `a`..`d` as columns: lane `l` of result `k` is element
        // `k` of row `l`.
        let t = |[a, b, c, d]: [__m128; 4]| {
            let (t0, t1) = (_mm_unpacklo_ps(a, b), _mm_unpacklo_ps(c, d));
            let (t2, t3) = (_mm_unpackhi_ps(a, b), _mm_unpackhi_ps(c, d));
            [
                _mm_movelh_ps(t0, t1),
                _mm_movehl_ps(t1, t0),
                _mm_movelh_ps(t2, t3),
                _mm_movehl_ps(t3, t2),
            ]
        };
        soa4_blocks(p, n, |q| _mm_loadu_ps(q), |q, x| _mm_storeu_ps(q, x), t);
        true
    }
    #[cfg(target_arch = "aarch64")]
    {
        use std::arch::aarch64::*;
        // NEON is part of aarch64. The same transpose: `trn1`/`trn2` pair the rows' elements,
        // the halves are recombined.
        let t = |[a, b, c, d]: [float32x4_t; 4]| {
            let (ab, cd) = (vtrnq_f32(a, b), vtrnq_f32(c, d));
            [
                vcombine_f32(vget_low_f32(ab.0), vget_low_f32(cd.0)),
                vcombine_f32(vget_low_f32(ab.1), vget_low_f32(cd.1)),
                vcombine_f32(vget_high_f32(ab.0), vget_high_f32(cd.0)),
                vcombine_f32(vget_high_f32(ab.1), vget_high_f32(cd.1)),
            ]
        };
        soa4_blocks(p, n, |q| vld1q_f32(q), |q, x| vst1q_f32(q, x), t);
        true
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (p, n);
        false
    }
}

/// [`blocks_in_place`] with 4-lane vectors `V`: `load` and `store` four floats (unaligned),
/// `t` transposes four rows into columns.
///
/// # Safety
/// As [`blocks_in_place`]; `load` and `store` are the CPU's.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
pub(super) unsafe fn soa4_blocks<V: Copy>(
    p: *mut f32,
    n: usize,
    load: impl Fn(*const f32) -> V,
    store: impl Fn(*mut f32, V),
    t: impl Fn([V; 4]) -> [V; 4],
) {
    // Block `q` whose first `rows` rows are joints (rows past the last joint read the
    // identity's).
    let block = |q: *mut f32, rows: usize| {
        let ld = |at: usize| {
            [0, 1, 2, 3].map(|l| {
                let from = if l < rows {
                    q.add(l * FLOATS_PER_JOINT).cast_const()
                } else {
                    IDENTITY_ROW.as_ptr()
                };
                load(from.add(at))
            })
        };
        let (r, v, w) = (ld(0), ld(4), ld(6));
        // Rotation x y z w; translation x y z and scale x; translation z, scale x y z.
        let (r, v, w) = (t(r), t(v), t(w));
        let st = |at: usize, x: V| store(q.add(at), x);
        st(0, v[0]);
        st(4, v[1]);
        st(8, v[2]);
        st(12, r[0]);
        st(16, r[1]);
        st(20, r[2]);
        st(24, r[3]);
        st(28, v[3]);
        st(32, w[2]);
        st(36, w[3]);
    };
    for b in 0..n / 4 {
        block(p.add(b * SOA4_BLOCK), 4);
    }
    if !n.is_multiple_of(4) {
        block(p.add(n / 4 * SOA4_BLOCK), n % 4);
    }
}

/// Sets the lanes past joint `n - 1` of the last of `ceil(n / 4)` f32 ozz blocks at `p` to the
/// identity transform (a decoder that writes blocks straight leaves them).
///
/// # Safety
/// `p` is valid for writes of `ceil(n / 4)` blocks of 40 floats.
#[inline]
pub(super) unsafe fn identity_lanes(p: *mut f32, n: usize) {
    let last = p.add(n / 4 * SOA4_BLOCK);
    for lane in n % 4..if n.is_multiple_of(4) { 0 } else { 4 } {
        for (c, &at) in SOA4_AT.iter().enumerate() {
            for k in 0..COMPONENTS[c] {
                *last.add(at + 4 * k + lane) = IDENTITY[ROW_AT[c] + k];
            }
        }
    }
}

/// [`IDENTITY`] with two more floats, so that a 4-float read at any of its first ten floats
/// stays in it.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
static IDENTITY_ROW: [f32; 12] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0];

/// Writes four ten-float rows as an ozz block at `d` (`W`: f64 elements).
///
/// # Safety
/// `d` is writable for the block (40 elements).
#[inline(always)]
pub(super) unsafe fn put_block<const W: bool>(d: *mut u8, rows: &[[f32; 10]; 4]) {
    // Element `SOA4_AT[c] + 4 k + lane` is component `k` of channel `c` of row `lane`.
    for c in 0..3 {
        for k in 0..COMPONENTS[c] {
            for (lane, r) in rows.iter().enumerate() {
                let e = SOA4_AT[c] + 4 * k + lane;
                let v = r[ROW_AT[c] + k];
                if W {
                    (d as *mut f64).add(e).write_unaligned(v as f64);
                } else {
                    (d as *mut f32).add(e).write_unaligned(v);
                }
            }
        }
    }
}

/// Writes the ten-float rows `rows` at slots `first..` of a checked AoS or SoA layout.
#[inline]
pub(super) fn scatter(layout: &PoseLayout, out: &mut [&mut [u8]], first: usize, rows: &[f32]) {
    let f = Fields::new(layout, out);
    for (i, t) in rows.chunks_exact(FLOATS_PER_JOINT).enumerate() {
        let t: &[f32; 10] = t.try_into().unwrap();
        // SAFETY: the buffers were checked for every joint of the pose.
        unsafe {
            match layout.element {
                Element::F64 => f.put::<true>(first + i, t),
                Element::F32 => f.put::<false>(first + i, t),
            }
        }
    }
}
