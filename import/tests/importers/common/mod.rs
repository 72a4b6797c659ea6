//! Helpers shared by the importer tests.

#![allow(dead_code)] // the fuzz replay test (benches) uses part of it

pub mod additive_check;
pub mod fixtures;

/// Deterministic xorshift generator (no dependency, reproducible failures).
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    /// Next value in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "=",
    ":",
    ",",
    "\"",
    "\n",
    "\r\n",
    " ",
    "-",
    ".",
    "e",
    "1e39",
    "-1e400",
    "nan",
    "inf",
    "0",
    "-1",
    "99999999999",
    "JOINT X",
    "End Site",
    "OFFSET",
    "CHANNELS 6",
    "MOTION",
    "Frames: 3",
    "//",
    "/*",
    "\u{e9}",
    "\u{1F600}",
    "\0",
];

/// `text` with one to four random edits: deletions, insertions of syntax-ish tokens, byte swaps,
/// truncation. The result is always valid UTF-8.
pub fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut s: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(4) {
        if s.is_empty() {
            break;
        }
        let at = rng.below(s.len());
        match rng.below(5) {
            0 => {
                let len = 1 + rng.below(40);
                s.drain(at..(at + len).min(s.len()));
            }
            1 | 2 => {
                let tok = TOKENS[rng.below(TOKENS.len())];
                for (k, c) in tok.chars().enumerate() {
                    s.insert(at + k, c);
                }
            }
            3 => {
                let other = rng.below(s.len());
                s.swap(at, other);
            }
            _ => s.truncate(at),
        }
    }
    s.into_iter().collect()
}

/// A clip's bind pose as 10 floats per joint (what the decompressor takes), if it has one.
pub fn bind_floats(clip: &animcomp::RawClip) -> Option<Vec<f32>> {
    use animcomp::math::FLOATS_PER_JOINT;
    clip.skeleton.bind_pose.as_ref().map(|b| {
        let mut v = vec![0.0; b.len() * FLOATS_PER_JOINT];
        for (j, t) in b.iter().enumerate() {
            t.write_to(&mut v[j * FLOATS_PER_JOINT..]);
        }
        v
    })
}
