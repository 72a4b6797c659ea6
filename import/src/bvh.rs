//! BVH (Biovision Hierarchy) importer.
//!
//! Conventions (those of Blender and of the files in `shared/data`):
//! - `End Site` blocks are not joints (their OFFSET only hints at bone length).
//! - A joint's local rotation is the product of its rotation channels in the order they are
//!   listed: `CHANNELS 3 Zrotation Yrotation Xrotation` gives `R = Rz · Ry · Rx` (degrees).
//! - A joint's local translation is its position channels where it has them (they hold the
//!   absolute local position and replace OFFSET component by component), else its OFFSET.
//! - The sample rate is `1 / Frame Time`, snapped to the nearest integer when within 1e-4
//!   (relative), so `0.016667` gives exactly 60 Hz.
//! - Frame lines beyond the declared `Frames:` count are ignored; fewer is an error.

use crate::error::ParseError;
use animcomp::clip::{Joint, Skeleton, Track};
use animcomp::math::{Quat, Transform, Vec3};
use animcomp::RawClip;
use glam::{DQuat, DVec3};

/// One animated degree of freedom of a joint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Channel {
    PosX,
    PosY,
    PosZ,
    RotX,
    RotY,
    RotZ,
}

impl Channel {
    fn parse(s: &str) -> Option<Channel> {
        Some(match s.to_ascii_lowercase().as_str() {
            "xposition" => Channel::PosX,
            "yposition" => Channel::PosY,
            "zposition" => Channel::PosZ,
            "xrotation" => Channel::RotX,
            "yrotation" => Channel::RotY,
            "zrotation" => Channel::RotZ,
            _ => return None,
        })
    }
}

/// A joint as declared in the HIERARCHY section.
#[derive(Debug, Clone)]
struct BvhJoint {
    name: String,
    parent: Option<u32>,
    offset: Vec3,
    channels: Vec<Channel>,
    /// Index of this joint's first channel in a frame line.
    first_channel: usize,
}

/// A line-aware token reader over the text.
struct Tokens<'a> {
    lines: std::iter::Enumerate<std::str::Lines<'a>>,
    current: std::str::SplitAsciiWhitespace<'a>,
    line: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        Tokens {
            lines: text.lines().enumerate(),
            current: "".split_ascii_whitespace(),
            line: 0,
        }
    }

    /// Next token with its 1-based line, or `None` at end of text.
    fn next(&mut self) -> Option<(&'a str, usize)> {
        loop {
            if let Some(t) = self.current.next() {
                return Some((t, self.line));
            }
            let (i, l) = self.lines.next()?;
            self.line = i + 1;
            self.current = l.split_ascii_whitespace();
        }
    }

    /// Next token, or an error mentioning what was expected.
    fn expect_any(&mut self, what: &str) -> Result<(&'a str, usize), ParseError> {
        self.next().ok_or_else(|| {
            ParseError::at(
                self.line.max(1),
                format!("file ends where {what} was expected"),
            )
        })
    }

    /// Next token, which must equal `word` (ASCII case-insensitive).
    fn expect(&mut self, word: &str) -> Result<usize, ParseError> {
        let (t, l) = self.expect_any(&format!("\"{word}\""))?;
        if t.eq_ignore_ascii_case(word) {
            Ok(l)
        } else {
            Err(ParseError::at(
                l,
                format!("expected \"{word}\", found \"{t}\""),
            ))
        }
    }

    /// Rest of the current line (used for names with spaces).
    fn rest_of_line(&mut self) -> Vec<&'a str> {
        self.current.by_ref().collect()
    }

    /// Next token parsed as a finite number.
    fn number(&mut self, what: &str) -> Result<f64, ParseError> {
        let (t, l) = self.expect_any(what)?;
        parse_number(t).ok_or_else(|| ParseError::at(l, format!("expected {what}, found \"{t}\"")))
    }

    /// Skips the rest of the current line; the remaining lines stay available.
    fn finish_line(&mut self) -> Option<(&'a str, usize)> {
        self.current.next().map(|t| (t, self.line))
    }
}

fn parse_number(t: &str) -> Option<f64> {
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Parses the HIERARCHY section into joints (End Sites dropped).
fn parse_hierarchy(tok: &mut Tokens<'_>) -> Result<Vec<BvhJoint>, ParseError> {
    let (t, l) = tok.expect_any("HIERARCHY")?;
    if !t.eq_ignore_ascii_case("HIERARCHY") {
        return Err(ParseError::at(
            l,
            format!("expected \"HIERARCHY\" at the start of a BVH file, found \"{t}\""),
        ));
    }
    let mut joints: Vec<BvhJoint> = Vec::new();
    let mut num_channels = 0usize;
    loop {
        let (t, l) = tok.expect_any("ROOT or MOTION")?;
        if t.eq_ignore_ascii_case("MOTION") {
            if joints.is_empty() {
                return Err(ParseError::at(l, "MOTION before any ROOT joint"));
            }
            return Ok(joints);
        }
        if !t.eq_ignore_ascii_case("ROOT") {
            return Err(ParseError::at(
                l,
                format!("expected \"ROOT\" or \"MOTION\", found \"{t}\""),
            ));
        }
        parse_joint(tok, l, None, &mut joints, &mut num_channels)?;
    }
}

/// Parses one `ROOT`/`JOINT` block, the keyword already consumed.
fn parse_joint(
    tok: &mut Tokens<'_>,
    keyword_line: usize,
    parent: Option<u32>,
    joints: &mut Vec<BvhJoint>,
    num_channels: &mut usize,
) -> Result<(), ParseError> {
    let mut parts = tok.rest_of_line();
    let brace_on_name_line = parts.last() == Some(&"{");
    if brace_on_name_line {
        parts.pop();
    }
    let name = parts.join(" ");
    if name.is_empty() {
        return Err(ParseError::at(keyword_line, "joint has no name"));
    }
    if joints.len() >= animcomp::clip::MAX_JOINTS {
        return Err(ParseError::at(keyword_line, "too many joints"));
    }
    let index = joints.len() as u32;
    joints.push(BvhJoint {
        name,
        parent,
        offset: Vec3::ZERO,
        channels: Vec::new(),
        first_channel: *num_channels,
    });
    if !brace_on_name_line {
        tok.expect("{")?;
    }
    let mut seen_offset = false;
    let mut seen_channels = false;
    loop {
        let (t, l) = tok.expect_any("OFFSET, CHANNELS, JOINT, End Site or \"}\"")?;
        if t == "}" {
            if !seen_offset {
                return Err(ParseError::at(
                    l,
                    format!("joint \"{}\" has no OFFSET", joints[index as usize].name),
                ));
            }
            return Ok(());
        } else if t.eq_ignore_ascii_case("OFFSET") {
            joints[index as usize].offset = read_offset(tok)?;
            seen_offset = true;
        } else if t.eq_ignore_ascii_case("CHANNELS") {
            if seen_channels {
                return Err(ParseError::at(l, "second CHANNELS line for the same joint"));
            }
            seen_channels = true;
            let (n_tok, nl) = tok.expect_any("the channel count")?;
            let n: usize = n_tok.parse().ok().filter(|&n| n <= 6).ok_or_else(|| {
                ParseError::at(
                    nl,
                    format!("expected a channel count from 0 to 6, found \"{n_tok}\""),
                )
            })?;
            let mut channels = Vec::with_capacity(n);
            for _ in 0..n {
                let (c, cl) = tok.expect_any("a channel name")?;
                let ch = Channel::parse(c).ok_or_else(|| {
                    ParseError::at(
                        cl,
                        format!("unknown channel \"{c}\" (expected Xposition … Zrotation)"),
                    )
                })?;
                if channels.contains(&ch) {
                    return Err(ParseError::at(cl, format!("channel \"{c}\" listed twice")));
                }
                channels.push(ch);
            }
            *num_channels += n;
            joints[index as usize].channels = channels;
        } else if t.eq_ignore_ascii_case("JOINT") {
            parse_joint(tok, l, Some(index), joints, num_channels)?;
        } else if t.eq_ignore_ascii_case("End") || t.eq_ignore_ascii_case("EndSite") {
            if t.eq_ignore_ascii_case("End") {
                tok.expect("Site")?;
            }
            tok.expect("{")?;
            loop {
                let (t, l) = tok.expect_any("OFFSET or \"}\" in End Site")?;
                if t == "}" {
                    break;
                } else if t.eq_ignore_ascii_case("OFFSET") {
                    read_offset(tok)?;
                } else {
                    return Err(ParseError::at(
                        l,
                        format!("unexpected \"{t}\" in End Site (only OFFSET is allowed)"),
                    ));
                }
            }
        } else {
            return Err(ParseError::at(
                l,
                format!(
                    "unexpected \"{t}\" (expected OFFSET, CHANNELS, JOINT, End Site or \"}}\")"
                ),
            ));
        }
    }
}

fn read_offset(tok: &mut Tokens<'_>) -> Result<Vec3, ParseError> {
    let x = tok.number("a number after OFFSET")?;
    let y = tok.number("a number after OFFSET")?;
    let z = tok.number("a number after OFFSET")?;
    Ok(Vec3::new(x as f32, y as f32, z as f32))
}

/// Sample rate from the frame time, snapped to an integer rate when within 1e-4 relative.
pub fn rate_from_frame_time(frame_time: f64) -> f32 {
    let r = 1.0 / frame_time;
    let rounded = r.round();
    if rounded > 0.0 && ((r - rounded) / rounded).abs() <= 1e-4 {
        rounded as f32
    } else {
        r as f32
    }
}

/// Reads `Frames: N` and `Frame Time: t` (the MOTION keyword already consumed).
fn parse_motion_header(tok: &mut Tokens<'_>) -> Result<(usize, f64), ParseError> {
    let (t, l) = tok.expect_any("\"Frames:\"")?;
    let frames_str = if t.eq_ignore_ascii_case("Frames:") {
        tok.expect_any("the frame count")?.0
    } else if t
        .get(..7)
        .is_some_and(|p| p.eq_ignore_ascii_case("Frames:"))
        && t.len() > 7
    {
        &t[7..]
    } else if t.eq_ignore_ascii_case("Frames") {
        tok.expect(":")?;
        tok.expect_any("the frame count")?.0
    } else {
        return Err(ParseError::at(
            l,
            format!("expected \"Frames:\", found \"{t}\""),
        ));
    };
    let line = tok.line;
    let frames: usize = frames_str.parse().map_err(|_| {
        ParseError::at(
            line,
            format!("expected a frame count, found \"{frames_str}\""),
        )
    })?;
    if frames == 0 {
        return Err(ParseError::at(line, "Frames: 0 — the clip has no samples"));
    }
    if frames > animcomp::clip::MAX_SAMPLES {
        return Err(ParseError::at(
            line,
            format!("{frames} frames is more than the supported maximum"),
        ));
    }
    tok.expect("Frame")?;
    let (t, l) = tok.expect_any("\"Time:\"")?;
    let ft = if t.eq_ignore_ascii_case("Time:") {
        tok.number("the frame time")?
    } else if t.eq_ignore_ascii_case("Time") {
        tok.expect(":")?;
        tok.number("the frame time")?
    } else if t.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("Time:")) && t.len() > 5 {
        parse_number(&t[5..])
            .ok_or_else(|| ParseError::at(l, format!("expected the frame time, found \"{t}\"")))?
    } else {
        return Err(ParseError::at(
            l,
            format!("expected \"Frame Time:\", found \"Frame {t}\""),
        ));
    };
    if ft <= 0.0 {
        return Err(ParseError::at(
            tok.line,
            format!("Frame Time must be positive, found {ft}"),
        ));
    }
    Ok((frames, ft))
}

fn axis_quat(ch: Channel, degrees: f64) -> DQuat {
    let r = degrees.to_radians();
    match ch {
        Channel::RotX => DQuat::from_rotation_x(r),
        Channel::RotY => DQuat::from_rotation_y(r),
        _ => DQuat::from_rotation_z(r),
    }
}

/// Parses a whole BVH file. `name` becomes the clip's name.
pub fn parse(text: &str, name: &str) -> Result<RawClip, ParseError> {
    let mut tok = Tokens::new(text);
    let joints = parse_hierarchy(&mut tok)?;
    let (frames, frame_time) = parse_motion_header(&mut tok)?;
    if let Some((t, l)) = tok.finish_line() {
        return Err(ParseError::at(
            l,
            format!("unexpected \"{t}\" after the frame time"),
        ));
    }
    let stride: usize = joints.iter().map(|j| j.channels.len()).sum();
    if frames.saturating_mul(joints.len()) > crate::MAX_JOINT_SAMPLES {
        return Err(ParseError::at(
            tok.line,
            format!(
                "{frames} frames x {} joints is more than this importer accepts",
                joints.len()
            ),
        ));
    }

    // Frame values, one line per frame.
    // Every value comes from the text, so the text's length bounds the allocation.
    let mut values: Vec<f64> = Vec::with_capacity((frames * stride).min(text.len() / 2 + 1));
    let mut frame = 0usize;
    let mut last_line = tok.line;
    for (i, l) in tok.lines.by_ref() {
        last_line = i + 1;
        if frame == frames {
            break;
        }
        let start = values.len();
        for t in l.split_ascii_whitespace() {
            let v = parse_number(t).ok_or_else(|| {
                ParseError::at(
                    i + 1,
                    format!("frame {}: expected a number, found \"{t}\"", frame + 1),
                )
            })?;
            values.push(v);
        }
        let n = values.len() - start;
        if n == 0 {
            continue; // blank line
        }
        if n != stride {
            return Err(ParseError::at(
                i + 1,
                format!(
                    "frame {} has {n} values, the hierarchy declares {stride} channels",
                    frame + 1
                ),
            ));
        }
        frame += 1;
    }
    if frame < frames {
        return Err(ParseError::at(
            last_line.max(1),
            format!("file ends after {frame} of the {frames} frames declared by \"Frames:\""),
        ));
    }

    let n = frames;
    let mut tracks = Vec::with_capacity(joints.len());
    for j in &joints {
        let mut rotations = Vec::with_capacity(n);
        let mut translations = Vec::with_capacity(n);
        for f in 0..n {
            let vals = &values[f * stride + j.first_channel..][..j.channels.len()];
            let mut q = DQuat::IDENTITY;
            let mut t = DVec3::new(j.offset.x as f64, j.offset.y as f64, j.offset.z as f64);
            for (&ch, &v) in j.channels.iter().zip(vals) {
                match ch {
                    Channel::PosX => t.x = v,
                    Channel::PosY => t.y = v,
                    Channel::PosZ => t.z = v,
                    _ => q *= axis_quat(ch, v),
                }
            }
            rotations.push(q.normalize().as_quat());
            translations.push(t.as_vec3());
        }
        tracks.push(Track {
            rotations,
            translations,
            scales: vec![Vec3::ONE; n],
        });
    }
    let bind: Vec<Transform> = joints
        .iter()
        .map(|j| Transform {
            rotation: Quat::IDENTITY,
            translation: j.offset,
            scale: Vec3::ONE,
        })
        .collect();
    let skeleton = Skeleton {
        joints: joints
            .iter()
            .map(|j| Joint::new(j.name.clone(), j.parent))
            .collect(),
        bind_pose: Some(bind),
    };
    Ok(RawClip {
        name: name.to_string(),
        skeleton,
        sample_rate: rate_from_frame_time(frame_time),
        num_samples: n,
        tracks,
    })
}
