//! One channel of one group decoded alone: a group's first bit in a frame, the lane's
//! coefficients in a segment and its samples, and a whole pose's groups of one lane.

use super::*;

/// Fills `table` with every group's first bit in a frame of `a`'s segment, then of `b`'s (the
/// same when both lie in one segment): the widths of the groups before each, summed once for a
/// selection of several channels instead of per lane. Returns the filled part.
#[inline(always)]
pub(super) fn start_table<'t, S>(
    lone: &Lone<S>,
    groups: usize,
    table: &'t mut [u32; 2 * TABLE_GROUPS],
) -> &'t [u32] {
    if groups == 0 || groups > TABLE_GROUPS {
        return &[];
    }
    let fill = |pos: &Pos<S>, out: &mut [u32]| {
        let mut bit = 0;
        let last = out.len() - 1;
        for (h, x) in out.iter_mut().enumerate() {
            if h > 0 && h % STARTS_EVERY == 0 {
                bit = stored_start(lone, pos, h / STARTS_EVERY);
            }
            *x = bit as u32;
            if (h + 1) % STARTS_EVERY != 0 && h < last {
                bit += group_bits(lone, pos, h);
            }
        }
    };
    let (ta, tb) = table.split_at_mut(groups);
    fill(&lone.a, ta);
    if lone.one_sample || lone.same_segment {
        tb[..groups].copy_from_slice(&ta[..groups]);
    } else {
        fill(&lone.b, &mut tb[..groups]);
    }
    &table[..2 * groups]
}

/// Bit where group `g` starts in a frame of the segment of `pos`: the segment stores it for
/// every [`STARTS_EVERY`]th group, and the widths of the groups between are added.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn start<S>(lone: &Lone<S>, pos: &Pos<S>, g: usize) -> usize {
    let k = g / STARTS_EVERY;
    let mut bit = if k == 0 {
        0
    } else {
        stored_start(lone, pos, k)
    };
    for h in k * STARTS_EVERY..g {
        bit += group_bits(lone, pos, h);
    }
    bit
}

/// The `k`th first bit the segment of `pos` stores (`k` at least 1): group `k STARTS_EVERY`'s.
#[inline(always)]
fn stored_start<S>(lone: &Lone<S>, pos: &Pos<S>, k: usize) -> usize {
    let at = pos.meta + lone.starts_at + lone.start_bytes * (k - 1);
    (read_u64(lone.data, at) & lone.start_mask) as usize
}

/// Group `h`'s bits in a frame of the segment of `pos`: the widths of its rates.
#[inline(always)]
fn group_bits<S>(lone: &Lone<S>, pos: &Pos<S>, h: usize) -> usize {
    let [record_offset, meta] = lone.dir.at(h);
    let n = lone.data[record_offset as usize + 1] as usize;
    let m = pos.meta + meta as usize;
    let rb = (5 * n).div_ceil(8);
    widths(read_u64(lone.data, m), n)
        + widths(read_u64(lone.data, m + rb), n)
        + widths(read_u64(lone.data, m + 2 * rb), n)
}

/// Bit where group `g`, whose lane `x` is decoded in the segment of `pos`, starts in a frame
/// ([`start_less_width`]).
#[inline(always)]
fn start_of<S>(lone: &Lone<S>, pos: &Pos<S>, g: usize, x: &Lane) -> usize {
    let (bit, odd) = start_less_width(lone, pos, g);
    if odd {
        bit - x.width()
    } else {
        bit
    }
}

/// Where group `g` starts in a frame of the segment of `pos`, from what the segment stores:
/// `(bit, false)` for an even group, whose first bit is stored (but the first's, 0); for an odd
/// one `(bit, true)` with the next group's stored first bit (or, for the last group, the
/// frame's end), from which the caller subtracts the group's width: a lane's decode sums most
/// of its group's width anyway, where [`start`] sums the widths of the group before.
#[inline(always)]
pub(in crate::runtime::vbr::grouped) fn start_less_width<S>(
    lone: &Lone<S>,
    pos: &Pos<S>,
    g: usize,
) -> (usize, bool) {
    const _: () = assert!(STARTS_EVERY == 2);
    let k = g / STARTS_EVERY;
    if g.is_multiple_of(STARTS_EVERY) {
        (
            if k == 0 {
                0
            } else {
                stored_start(lone, pos, k)
            },
            false,
        )
    } else if g + 1 < lone.dir.groups() {
        (stored_start(lone, pos, k + 1), true)
    } else {
        (pos.fb, true)
    }
}

/// The first bits of group `g` in a frame of the key's two samples' segments (one sum when
/// both lie in one segment).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn starts<S>(lone: &Lone<S>, g: usize) -> (usize, usize) {
    if !lone.table.is_empty() {
        let half = lone.table.len() / 2;
        return (lone.table[g] as usize, lone.table[half + g] as usize);
    }
    let a = start(lone, &lone.a, g);
    (
        a,
        if lone.one_sample || lone.same_segment {
            a
        } else {
            start(lone, &lone.b, g)
        },
    )
}

/// The little-endian `u64` at byte `o`: every read here starts in a validated record,
/// segment metadata or frame, and the data holds 32 bytes of padding after the last segment
/// (the validator checks both), so 8 bytes from `o` lie in the data.
#[inline(always)]
fn read_u64(d: &[u8], o: usize) -> u64 {
    debug_assert!(o + 8 <= d.len());
    // SAFETY: see above.
    u64::from_le(unsafe { (d.as_ptr().add(o) as *const u64).read_unaligned() })
}

/// The `bits`-bit field (`mask` its low bits) at bit `bit` of `d`: one 8-byte read, as the
/// field ends by bit 7 + 32 of it.
#[inline(always)]
fn field(d: &[u8], bit: usize, mask: u32) -> u32 {
    (read_u64(d, bit >> 3) >> (bit & 7)) as u32 & mask
}

/// Sum of the widths of the first `k` (at most 8) 5-bit rate fields of `w`, two per lookup.
#[inline(always)]
fn widths(w: u64, k: usize) -> usize {
    let w = w & ((1u64 << (5 * k)) - 1);
    let t = |s: u32| PAIR_BITS[((w >> s) & 1023) as usize] as usize;
    (t(0) + t(10)) + (t(20) + t(30))
}

/// Each component's first bit relative to its group's in a frame, for lane `l` of a group of
/// `n` lanes whose components' 5-bit rates are the low bits of `w` (components are stored one
/// after the other, each lane by lane). (An SSE2 form, the rates spread to bytes and summed by
/// `psadbw`, takes a fifth fewer instructions per lane and no less time: a lone lane is bound by
/// its chain of dependent loads, `docs/runtime.md`.) Also returns the widths of the first two
/// components over every lane.
#[inline(always)]
fn offsets(w: [u64; 3], n: usize, l: usize) -> ([usize; 3], usize) {
    let t0 = widths(w[0], n);
    let t01 = t0 + widths(w[1], n);
    (
        [widths(w[0], l), t0 + widths(w[1], l), t01 + widths(w[2], l)],
        t01,
    )
}

/// Each 5-bit rate's field mask (raw: all 32 bits).
const MASKS: [u32; 32] = {
    let mut t = [0u32; 32];
    let mut r = 0;
    while r < 32 {
        t[r] = ((1u64 << rate_bits(r as u8)) - 1) as u32;
        r += 1;
    }
    t
};

/// One lane's decode in one segment: the `vbr` decoder's per-sub-track arithmetic
/// (`lanes`), so its values are bit for bit that decoder's.
struct Lane {
    mul: Vec4,
    add: Vec4,
    /// Each component's field mask.
    mask: [u32; 3],
    /// Which components are raw `f32`s (bit per component), 0 for none.
    raw: u32,
    /// Every component is constant over the segment.
    constant: bool,
    /// Bit of each component's field relative to the group's start in a frame.
    off: [usize; 3],
    drop: u8,
    /// The group's bits in a frame but those of its third component ([`Lane::width`]).
    first_two: usize,
    /// The third component's rates.
    rates2: u64,
    /// Lanes of the group.
    n: usize,
}

impl Lane {
    /// The group's bits in a frame.
    #[inline(always)]
    fn width(&self) -> usize {
        self.first_two
            + if self.n == 1 {
                PAIR_BITS[self.rates2 as usize & 31] as usize
            } else {
                widths(self.rates2, self.n)
            }
    }
}

/// Lane `l` of the group whose record is at `record_offset` and whose metadata is at `meta` of
/// a segment's group metadata, in the segment of `seg`.
#[inline(always)]
fn lane<S>(lone: &Lone<S>, seg: &Pos<S>, [record_offset, meta]: [u32; 2], l: usize) -> Lane {
    let r = record_offset as usize;
    let d = &lone.data;
    let head = read_u64(d, r);
    let (class, n, flags) = (head as u8, (head >> 8) as u8 as usize, (head >> 16) as u8);
    let per_segment = flags & RECORD_PER_SEGMENT != 0;
    let m = seg.meta + meta as usize;
    let rb = (5 * n).div_ceil(8);
    let ranges = r + record_head(1 + (flags & RECORD_WIDE_JOINTS != 0) as usize);
    let drop = if per_segment {
        (read_u64(d, m + 3 * rb + 6 * n) >> (2 * l)) as u8 & 3
    } else {
        (head >> (32 + 2 * l)) as u8 & 3
    };
    let w = [0, 1, 2].map(|c| read_u64(d, m + rb * c));
    let rates = w.map(|w| ((w >> (5 * l)) & 31) as u8);
    let (off, first_two) = if n == 1 {
        // A group of one lane: its components' widths, one after the other.
        let (r0, r1) = (rates[0] as usize, rates[1] as usize);
        let t01 = PAIR_BITS[r0 | r1 << 5] as usize;
        ([0, PAIR_BITS[r0] as usize, t01], t01)
    } else {
        offsets(w, n, l)
    };
    let fields = (0..3).fold(0u64, |f, c| {
        f | (read_u64(d, m + 3 * rb + 2 * n * c + 2 * l) & 0xFFFF) << (16 * c)
    });
    let (min, ext) = if class == 0 {
        // The stored slot `c` holds component `c + (c >= drop)` of a per-segment group's four.
        let word = |c: usize| {
            let k = if per_segment {
                c + (c >= drop as usize) as usize
            } else {
                c
            };
            read_u64(d, ranges + 4 * n * k + 4 * l) as u32 as u128
        };
        lanes::rotation_ranges(word(0) | word(1) << 32 | word(2) << 64)
    } else {
        let f = |k: usize| f32::from_bits(read_u64(d, ranges + 4 * n * k + 4 * l) as u32);
        (
            Vec4::new(f(0), f(1), f(2), 0.0),
            Vec4::new(f(3), f(4), f(5), 0.0),
        )
    };
    let inv_q = Vec4::new(
        inv_max_q(rates[0]),
        inv_max_q(rates[1]),
        inv_max_q(rates[2]),
        0.0,
    );
    let (mul, add) = lanes::coefficients(inv_q, fields, min, ext);
    let raw = (rates[0] == RATE_RAW) as u32
        | ((rates[1] == RATE_RAW) as u32) << 1
        | ((rates[2] == RATE_RAW) as u32) << 2;
    Lane {
        mul,
        add,
        mask: rates.map(|r| MASKS[r as usize & 31]),
        raw,
        constant: rates == [0; 3],
        off,
        drop,
        first_two,
        rates2: w[2],
        n,
    }
}

/// The lane's three components at the stored frame whose group starts at `bit`.
#[inline(always)]
fn frame(d: &[u8], bit: usize, x: &Lane, limit: f32) -> Vec4 {
    let q = [
        field(d, bit + x.off[0], x.mask[0]),
        field(d, bit + x.off[1], x.mask[1]),
        field(d, bit + x.off[2], x.mask[2]),
    ];
    let v = lanes::values(q, x.mul, x.add);
    if x.raw != 0 {
        let raw = [x.raw & 1 != 0, x.raw & 2 != 0, x.raw & 4 != 0];
        lanes::with_raw(v, q, raw, limit)
    } else {
        v
    }
}

/// The lane's sample at `pos` whose group starts at bit `start` of a frame (a dropped keyframe
/// blended from its stored neighbours).
#[inline(always)]
fn sample<'a, S: Src<'a>>(
    data: &'a [u8],
    pos: &Pos<S>,
    start: usize,
    x: &Lane,
    limit: f32,
) -> Vec4 {
    let a = frame(pos.data(data), pos.bit + start, x, limit);
    if pos.t > 0.0 {
        let (next, bit) = pos.next(data);
        let n = frame(next, bit + start, x, limit);
        return a + (n - a) * pos.t;
    }
    a
}

/// The value of a group of one lane at `key` (whose samples lie at `a` and `b`, a pose of
/// case `case`), its record at `rec` and metadata at `meta` of a segment's group metadata,
/// its first bit in a frame of each sample's segment `starts`: the lone-lane decode, which
/// costs a few hundred instructions less than the eight-lane walk's for one lane (a root's
/// translation, the one animated vector of most rigs). Bit for bit the walk's value.
#[allow(clippy::too_many_arguments)]
#[cfg_attr(
    not(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )),
    allow(dead_code)
)]
#[inline(always)]
pub(in crate::runtime::vbr::grouped) fn lone_group<'a, S: Src<'a>>(
    view: &View<'a>,
    key: &SampleKey,
    (a, b): (Pos<S>, Pos<S>),
    case: u8,
    at: [u32; 2],
    starts: (usize, usize),
    rotation: bool,
) -> [f32; 4] {
    let lone = Lone {
        data: view.data,
        dir: Dir::EMPTY,
        starts_at: view.starts_at,
        start_bytes: view.start_bytes,
        start_mask: view.start_mask(),
        a,
        b,
        alpha: key.alpha,
        one_sample: case == ONE_SAMPLE,
        same_segment: case == SAME_SEGMENT,
        table: &[],
    };
    lane_value(&lone, at, starts, 0, rotation)
}

/// The bits of a group of one lane in a frame, its metadata at byte `meta` of the data (each
/// component's 5-bit rate in a byte of its own).
#[cfg_attr(
    not(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )),
    allow(dead_code)
)]
#[inline(always)]
pub(in crate::runtime::vbr::grouped) fn lone_bits(view: &View, meta: usize) -> usize {
    let r = read_u64(view.data, meta);
    let rate = |k: u32| ((r >> (8 * k)) & 31) as usize;
    PAIR_BITS[rate(0) | rate(1) << 5] as usize + PAIR_BITS[rate(2)] as usize
}

/// Lane `l` of the group at `at` (record and metadata offsets), whose first bits in a frame of
/// the key's segments are `(first_bit_a, first_bit_b)`, at the key of `lone`, one lane alone: a
/// rotation (`limit` 1) or a vector.
#[inline(never)]
fn lane_value<'a, S: Src<'a>>(
    lone: &Lone<'a, '_, S>,
    at: [u32; 2],
    (first_bit_a, first_bit_b): (usize, usize),
    l: usize,
    rotation: bool,
) -> [f32; 4] {
    lane_value_in(lone, at, l, rotation, |_, _, second| {
        if second {
            first_bit_b
        } else {
            first_bit_a
        }
    })
}

/// Lane `l` of group `g` ([`lane_value`]), the group's first bits found by the lane's decode
/// ([`start_of`]; a selection without the table of first bits).
#[inline(never)]
pub(super) fn lane_value_of<'a, S: Src<'a>>(
    lone: &Lone<'a, '_, S>,
    g: usize,
    l: usize,
    rotation: bool,
) -> [f32; 4] {
    debug_assert!(lone.table.is_empty());
    lane_value_in(lone, lone.dir.at(g), l, rotation, |pos, x, _| {
        start_of(lone, pos, g, x)
    })
}

/// [`lane_value`] with `start(pos, lane, second)` the group's first bit in a frame of the
/// segment of `pos` (`second`: the key's second sample, in another segment).
#[inline(always)]
fn lane_value_in<'a, S: Src<'a>>(
    lone: &Lone<'a, '_, S>,
    at: [u32; 2],
    l: usize,
    rotation: bool,
    start: impl Fn(&Pos<S>, &Lane, bool) -> usize,
) -> [f32; 4] {
    let (a, b) = (&lone.a, &lone.b);
    let limit = if rotation { 1.0 } else { MAX_ABS_VALUE };
    let xa = lane(lone, a, at, l);
    let first_bit_a = start(a, &xa, false);
    let va = sample(lone.data, a, first_bit_a, &xa, limit);
    let (vb, xb_drop) = if lone.one_sample {
        (va, xa.drop)
    } else if lone.same_segment {
        // The same segment: its group starts and decode, another frame.
        (sample(lone.data, b, first_bit_a, &xa, limit), xa.drop)
    } else {
        let xb = lane(lone, b, at, l);
        let first_bit_b = start(b, &xb, true);
        (sample(lone.data, b, first_bit_b, &xb, limit), xb.drop)
    };
    if rotation {
        let qa = lanes::from_stored(va, xa.drop);
        let q = if lone.one_sample || (lone.same_segment && xa.constant) {
            qa
        } else {
            nlerp_shortest(qa, lanes::from_stored(vb, xb_drop), lone.alpha)
        };
        q.to_array()
    } else {
        let v = clamp_value(if lone.one_sample {
            va
        } else {
            va.lerp(vb, lone.alpha)
        });
        [v.x, v.y, v.z, 0.0]
    }
}
