//! A minimal SVG writer (no font or system dependencies): lines, polylines, rectangles, text.

use std::fmt::Write;

/// An SVG document being built.
pub struct Svg {
    width: f64,
    height: f64,
    body: String,
}

/// Escapes text for XML.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl Svg {
    /// An empty white canvas.
    pub fn new(width: f64, height: f64) -> Self {
        let mut s = Svg {
            width,
            height,
            body: String::new(),
        };
        s.rect(0.0, 0.0, width, height, "#ffffff", None);
        s
    }

    /// A filled rectangle, optionally outlined.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, stroke: Option<&str>) {
        let stroke = stroke
            .map(|c| format!(r#" stroke="{c}" stroke-width="1""#))
            .unwrap_or_default();
        let _ = writeln!(
            self.body,
            r#"<rect x="{x:.2}" y="{y:.2}" width="{:.2}" height="{:.2}" fill="{fill}"{stroke}/>"#,
            w.max(0.0),
            h.max(0.0)
        );
    }

    /// A straight line; `dash` like `"6 4"`.
    pub fn line(
        &mut self,
        (x1, y1): (f64, f64),
        (x2, y2): (f64, f64),
        stroke: &str,
        width: f64,
        dash: Option<&str>,
    ) {
        let dash = dash
            .map(|d| format!(r#" stroke-dasharray="{d}""#))
            .unwrap_or_default();
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1:.2}" y1="{y1:.2}" x2="{x2:.2}" y2="{y2:.2}" stroke="{stroke}" stroke-width="{width}"{dash}/>"#
        );
    }

    /// A polyline through `points`.
    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str, width: f64) {
        let mut p = String::with_capacity(points.len() * 16);
        for (x, y) in points {
            let _ = write!(p, "{x:.1},{y:.1} ");
        }
        let _ = writeln!(
            self.body,
            r#"<polyline fill="none" stroke="{stroke}" stroke-width="{width}" stroke-linejoin="round" points="{}"/>"#,
            p.trim_end()
        );
    }

    /// Text; `anchor` is `start`, `middle` or `end`.
    pub fn text(&mut self, x: f64, y: f64, size: f64, anchor: &str, content: &str) {
        let _ = writeln!(
            self.body,
            r##"<text x="{x:.2}" y="{y:.2}" font-family="sans-serif" font-size="{size}" text-anchor="{anchor}" fill="#222">{}</text>"##,
            escape(content)
        );
    }

    /// The frame of a plot of errors over time at `(left, top)`, `w` by `h`: its background,
    /// a grid line and label per error tick up to `y_max`, and a mark and label per time tick
    /// up to `duration` seconds.
    pub fn time_plot_frame(
        &mut self,
        (left, top): (f64, f64),
        (w, h): (f64, f64),
        y_max: f64,
        duration: f64,
    ) {
        self.rect(left, top, w, h, "#fafafa", Some("#999"));
        for t in ticks(y_max) {
            let y = top + h * (1.0 - (t / y_max).min(1.0));
            self.line((left, y), (left + w, y), "#e4e4e4", 1.0, None);
            self.text(left - 6.0, y + 4.0, 11.0, "end", &format!("{t:.4}"));
        }
        for t in ticks_n(duration, 10) {
            if t > duration * 1.0001 {
                break;
            }
            let x = left + w * t / duration;
            self.line((x, top + h), (x, top + h + 5.0), "#666", 1.0, None);
            self.text(x, top + h + 18.0, 11.0, "middle", &format!("{t:.2}"));
        }
    }

    /// The finished document.
    pub fn finish(self) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n{}</svg>\n",
            self.body,
            w = self.width,
            h = self.height
        )
    }
}

/// About five "nice" tick values from 0 to at least `max` (1, 2 or 5 times a power of ten apart).
pub fn ticks(max: f64) -> Vec<f64> {
    ticks_n(max, 5)
}

/// About `count` "nice" tick values from 0 to at least `max`.
pub fn ticks_n(max: f64, count: usize) -> Vec<f64> {
    if !(max.is_finite() && max > 0.0) {
        return vec![0.0, 1.0];
    }
    let raw = max / count.max(1) as f64;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p);
    let n = (max / step - 1e-9).ceil() as usize;
    (0..=n).map(|i| i as f64 * step).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_cover_max_with_round_steps() {
        let t = ticks(1.0);
        assert_eq!(t.len(), 6);
        assert!((t[1] - 0.2).abs() < 1e-12 && (t[5] - 1.0).abs() < 1e-12);
        let t = ticks(0.037);
        assert!(*t.last().unwrap() >= 0.037);
        assert!(t.len() >= 4 && t.len() <= 7, "{t:?}");
        // A max that is already a tick is the last tick (no extra tick past it).
        let t = ticks(0.15);
        assert!((t.last().unwrap() - 0.15).abs() < 1e-12, "{t:?}");
    }

    #[test]
    fn text_is_escaped() {
        let mut s = Svg::new(10.0, 10.0);
        s.text(0.0, 0.0, 10.0, "start", "a<b & \"c\"");
        let doc = s.finish();
        assert!(doc.contains("a&lt;b &amp; &quot;c&quot;"));
        assert!(doc.starts_with("<?xml"));
        assert!(doc.trim_end().ends_with("</svg>"));
    }
}
