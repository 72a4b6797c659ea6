//! Sampling a validated curves section: no allocation, one pass over the curves per sample
//! (each stored curve costs at most one segment's worth of residuals).

use crate::format::curves::{
    quantized_header, segment_bounds, segment_samples, validate_section_counting, Descriptor,
    Geometry, Kind,
};
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::quantize::bits::read_bits;
use crate::runtime::SampleKey;
use crate::{Error, Result};

/// The value of grid index `k` (clamped to the input limits, so never infinite or NaN).
#[inline(always)]
pub(crate) fn grid_value(base: f32, step: f32, k: i32) -> f32 {
    clamp_value(base + k as f32 * step)
}

#[inline(always)]
fn clamp_value(v: f32) -> f32 {
    v.clamp(-MAX_ABS_VALUE, MAX_ABS_VALUE)
}

#[inline(always)]
fn signed(v: u32, w: u32) -> i32 {
    if w == 0 {
        0
    } else {
        ((v << (32 - w)) as i32) >> (32 - w)
    }
}

/// Grid index at position `j` of a quantised curve's payload that starts at `bit` (after the
/// header) in a segment. Wrapping arithmetic: a hostile stream gives a wrong value, never a panic.
#[inline]
pub(crate) fn grid_index(
    data: &[u8],
    bit: usize,
    mode: u32,
    gw: u32,
    w: u32,
    w1: u32,
    j: u32,
) -> i32 {
    let k0 = read_bits(data, bit, gw) as i32;
    let p = bit + gw as usize;
    let (j, w_us) = (j as usize, w as usize);
    match mode {
        0 => k0,
        1 => k0.wrapping_add(read_bits(data, p + j * w_us, w) as i32),
        2 => (0..j).fold(k0, |k, t| {
            k.wrapping_add(signed(read_bits(data, p + t * w_us, w), w))
        }),
        _ => {
            let mut d = signed(read_bits(data, p, w1), w1);
            let mut k = k0;
            let q = p + w1 as usize;
            for t in 1..=j {
                if t >= 2 {
                    d = d.wrapping_add(signed(read_bits(data, q + (t - 2) * w_us, w), w));
                }
                k = k.wrapping_add(d);
            }
            k
        }
    }
}

/// A validated curves section (or none: zero curves).
#[derive(Debug, Clone, Copy, Default)]
pub struct CurvesSection<'a> {
    bytes: &'a [u8],
    num_curves: u32,
    num_samples: u32,
    geometry: Geometry,
}

impl<'a> CurvesSection<'a> {
    /// Validates `bytes` as the section of `num_curves` curves over `num_samples` samples (linear
    /// in its size). With `num_curves` 0 the section must be empty.
    pub fn new(bytes: &'a [u8], num_curves: u32, num_samples: u32) -> Result<Self> {
        Self::new_counting(bytes, num_curves, num_samples, &mut 0)
    }

    /// [`Self::new`], adding the validation's work to `work` (see
    /// [`crate::format::curves::validate_section_counting`]).
    pub fn new_counting(
        bytes: &'a [u8],
        num_curves: u32,
        num_samples: u32,
        work: &mut usize,
    ) -> Result<Self> {
        if num_curves == 0 {
            if !bytes.is_empty() {
                return Err(Error::CorruptBlob("curves section without curves"));
            }
            return Ok(CurvesSection::default());
        }
        let geometry = validate_section_counting(bytes, num_curves, num_samples, work)?;
        Ok(CurvesSection {
            bytes,
            num_curves,
            num_samples,
            geometry,
        })
    }

    /// Binds to a section already validated for these counts (by [`crate::format::validate_blob`]):
    /// reads the geometry without checking again. An empty slice is no curves.
    pub(crate) fn from_validated(bytes: &'a [u8], num_curves: u32, num_samples: u32) -> Self {
        if num_curves == 0 || bytes.len() < 8 {
            return CurvesSection::default();
        }
        let rd =
            |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
        CurvesSection {
            bytes,
            num_curves,
            num_samples,
            geometry: Geometry {
                segment_len: rd(0),
                num_segments: rd(4),
            },
        }
    }

    /// Curve count.
    pub fn num_curves(&self) -> u32 {
        self.num_curves
    }

    /// The engine id of curve `c` (`c` < [`Self::num_curves`]).
    pub fn id(&self, c: u32) -> Result<u32> {
        self.check_index(c)?;
        Ok(Descriptor::read_unchecked(self.bytes, c as usize).id)
    }

    /// The storage kind of curve `c` (for tools).
    pub fn kind(&self, c: u32) -> Result<Kind> {
        self.check_index(c)?;
        Ok(Descriptor::read_unchecked(self.bytes, c as usize).kind)
    }

    fn check_index(&self, c: u32) -> Result<()> {
        if c >= self.num_curves {
            return Err(Error::InvalidArgument("curve index out of range"));
        }
        Ok(())
    }

    /// Calls `f(curve, value)` for every curve up to `last` (inclusive) at sample `sample`.
    #[inline]
    fn walk(&self, sample: u32, last: u32, mut f: impl FnMut(usize, f32)) {
        let g = self.geometry;
        let nc = self.num_curves as usize;
        let s = (sample / g.segment_len) as usize;
        let j = sample % g.segment_len;
        let n = segment_samples(g.segment_len, self.num_samples, s);
        let (start, end) = segment_bounds(self.bytes, nc, g.num_segments as usize, s);
        let data = &self.bytes[start..end];
        let mut bit = 0usize;
        for c in 0..=last as usize {
            let d = Descriptor::read_unchecked(self.bytes, c);
            let v = match d.kind {
                Kind::Default | Kind::Constant => d.value,
                Kind::Raw => {
                    let v = f32::from_bits(read_bits(data, bit + 32 * j as usize, 32));
                    bit += 32 * n as usize;
                    v
                }
                Kind::Quantized => {
                    let (hb, mode, w, w1, total) = quantized_header(data, bit, d.gw, n);
                    let k = grid_index(data, bit + hb as usize, mode, d.gw, w, w1, j);
                    bit += total;
                    grid_value(d.value, d.step, k)
                }
            };
            f(c, v);
        }
    }

    /// Samples every curve at `key` into `out[..num_curves]` (interpolated between the key's two
    /// samples). `out` must hold at least [`Self::num_curves`] floats.
    pub fn sample_all(&self, key: &SampleKey, out: &mut [f32]) -> Result<()> {
        let nc = self.num_curves as usize;
        if out.len() < nc {
            return Err(Error::BufferTooSmall { required: nc * 4 });
        }
        if nc == 0 {
            return Ok(());
        }
        let last = self.num_curves - 1;
        self.walk(key.i0, last, |c, v| out[c] = v);
        if key.i1 != key.i0 && key.alpha != 0.0 {
            let a = key.alpha;
            self.walk(key.i1, last, |c, v| {
                out[c] = clamp_value(out[c] + (v - out[c]) * a)
            });
        }
        Ok(())
    }

    /// Samples curve `c` at `key`.
    pub fn sample_one(&self, key: &SampleKey, c: u32) -> Result<f32> {
        self.check_index(c)?;
        let at = |i: u32| {
            let mut r = 0.0;
            self.walk(i, c, |k, v| {
                if k == c as usize {
                    r = v
                }
            });
            r
        };
        let v0 = at(key.i0);
        if key.i1 != key.i0 && key.alpha != 0.0 {
            Ok(clamp_value(v0 + (at(key.i1) - v0) * key.alpha))
        } else {
            Ok(v0)
        }
    }

    /// Every curve's value at an exact sample index (tools, tests).
    pub fn values_at_sample(&self, sample: u32, out: &mut [f32]) -> Result<()> {
        let i = sample.min(self.num_samples.saturating_sub(1));
        self.sample_all(
            &SampleKey {
                i0: i,
                i1: i,
                alpha: 0.0,
            },
            out,
        )
    }
}
