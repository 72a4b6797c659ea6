//! The `keys` codec: key reduction and curve fitting with a playback-ordered key stream.
//!
//! Each joint channel (rotation, translation, and scale when the clip has scale) is stored as a
//! default, a constant, or a set of keys chosen by linear key removal (Unreal-style) or
//! Catmull-Rom fitting (the League of Legends scheme), whichever needs fewer keys. All keys live
//! in one stream sorted by the time playback first needs them, so a forward [`crate::runtime::KeyCursor`] reads
//! it once, front to back; a per-track key index gives stateless random access. See
//! `docs/keys.md` for the algorithms, the layout and the error guarantee.
//!
//! Files: `format/keys/quant.rs` (48-bit key payloads), [`crate::format::keys::interp`] (linear / Catmull-Rom evaluation shared
//! by encoder and decoders), [`tolerance`], [`reduce`] (trivial, every-Nth and linear key
//! removal), [`catmull`] (fitting), [`stream`] (body writer, playback order), [`crate::format::keys::layout`]
//! (layout and validation), `runtime/keys.rs` (stateless sampling), [`crate::runtime::KeyCursor`]
//! (playback cursor), [`encode`].

pub mod catmull;
pub mod encode;
pub mod reduce;
pub mod stream;
pub mod tolerance;

pub use catmull::Split;
pub use encode::{encode_with, EncodeStats, InterpChoice, KeysOptions};
pub use tolerance::ToleranceMode;

use crate::format::Header;
use crate::offline::blob_writer::EncodedBody;
use crate::offline::EncodeContext;
use crate::offline::{BodyDescription, TrackDescription};
use crate::Result;

use crate::format::keys::layout as format;
use format::{channels, Kind, Layout, ENTRY_SIZE};

pub(crate) fn encode(ctx: &EncodeContext) -> Result<EncodedBody> {
    encode_with(ctx, &KeysOptions::for_level(ctx.settings.level)).map(|(b, _)| b)
}

pub(crate) fn describe(h: &Header, body: &[u8]) -> Result<BodyDescription> {
    format::validate(h, body)?;
    let lay = Layout::read(body);
    let nch = channels(h);
    let mut d = BodyDescription::default();
    d.sections
        .push(("slot table".into(), lay.pool - format::BODY_HEADER));
    d.sections.push(("pool".into(), lay.index - lay.pool));
    d.sections
        .push(("key index".into(), lay.stream - lay.index));
    d.sections.push(("key stream".into(), lay.end - lay.stream));
    let n = h.num_samples.max(1) as f32;
    for s in 0..lay.slots {
        let slot = lay.slot(body, s);
        let (storage, bits) = match slot.kind {
            Kind::Default => ("default".to_string(), 0.0),
            Kind::Constant => ("constant".to_string(), 0.0),
            Kind::Animated => (
                format!("{} keys, {}", slot.count, slot.interp.name()),
                (slot.count * ENTRY_SIZE + format::index_bytes(slot.count, slot.wide)) as f32 * 8.0
                    / n,
            ),
        };
        d.tracks.push(TrackDescription {
            joint: s / nch,
            channel: ["rotation", "translation", "scale"][s % nch],
            storage,
            bits_per_sample: bits,
        });
    }
    Ok(d)
}
