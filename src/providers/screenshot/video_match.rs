//! Finding a subscription's video inside a screenshot: where a frame of the personalised
//! video sits (scaled, anywhere, inside app chrome, recompressed), how much it looks like
//! the video, and how much the burnt-in code's box looks like this subscription's.
//!
//! The method is multi-scale normalised cross-correlation (NCC) of grey key frames,
//! coarse to fine:
//! 1. every key frame, at every frame width from 30 % to 100 % of the screenshot's width in
//!    6 % steps, slides over the screenshot shrunk to [`COARSE_SIDE`] pixels (window sums
//!    from integral images, so each position costs one dot product);
//! 2. the best few places are refined at [`MEDIUM_SIDE`] pixels, ±2 % in size and a few
//!    pixels in place;
//! 3. the winner is cut out of the full screenshot, shrunk to the key frames' size and
//!    compared with every key frame: the best NCC outside the code's box is the video
//!    score, the NCC inside the box the code-box score.
//!
//! NCC ignores brightness and contrast, so light and dark chrome, JPEG and mild colour
//! changes move the score little; a different picture lands near 0.

use image::{imageops, GrayImage};

/// The screenshot's longer side in the coarse search.
pub const COARSE_SIDE: u32 = 112;
/// The screenshot's longer side while refining.
pub const MEDIUM_SIDE: u32 = 448;
/// Frame widths tried, as fractions of the screenshot's width.
const MIN_WIDTH_FRACTION: f32 = 0.30;
const WIDTH_STEP: f32 = 1.06;
/// Places refined after the coarse search.
const CANDIDATES: usize = 4;
/// Templates smaller than this (either side, in coarse pixels) say too little.
const MIN_TEMPLATE_SIDE: u32 = 8;

/// A grey picture as f32 samples (0 to 255), row by row.
#[derive(Debug, Clone)]
pub struct Plane {
    pub w: usize,
    pub h: usize,
    pub px: Vec<f32>,
}

impl Plane {
    pub fn from_luma(img: &GrayImage) -> Self {
        Self {
            w: img.width() as usize,
            h: img.height() as usize,
            px: img.as_raw().iter().map(|&v| f32::from(v)).collect(),
        }
    }

    fn row(&self, y: usize) -> &[f32] {
        &self.px[y * self.w..(y + 1) * self.w]
    }
}

/// A rectangle as fractions of a frame's width and height.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fraction {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

/// A rectangle in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

impl Rect {
    /// The part of `self` that `f` names.
    pub fn part(&self, f: Fraction) -> Rect {
        let x = self.x as f32 + f.x * self.w as f32;
        let y = self.y as f32 + f.y * self.h as f32;
        Rect {
            x: x.round().max(0.0) as u32,
            y: y.round().max(0.0) as u32,
            w: (f.w * self.w as f32).round().max(1.0) as u32,
            h: (f.h * self.h as f32).round().max(1.0) as u32,
        }
    }

    /// `self` grown by `by` of its size on every side, kept inside `w`×`h`.
    pub fn grown(&self, by: f32, w: u32, h: u32) -> Rect {
        let dx = (self.w as f32 * by).round() as u32;
        let dy = (self.h as f32 * by).round() as u32;
        let x = self.x.saturating_sub(dx);
        let y = self.y.saturating_sub(dy);
        let right = (self.x + self.w + dx).min(w);
        let bottom = (self.y + self.h + dy).min(h);
        Rect {
            x,
            y,
            w: right.saturating_sub(x).max(1),
            h: bottom.saturating_sub(y).max(1),
        }
    }

    fn overlap(&self, o: &Rect) -> f32 {
        let ix = (self.x + self.w)
            .min(o.x + o.w)
            .saturating_sub(self.x.max(o.x));
        let iy = (self.y + self.h)
            .min(o.y + o.h)
            .saturating_sub(self.y.max(o.y));
        let inter = ix as f32 * iy as f32;
        let union = (self.w * self.h + o.w * o.h) as f32 - inter;
        if union <= 0.0 {
            0.0
        } else {
            inter / union
        }
    }
}

/// A subscription's key frames, all one size, and where its code's box sits in them.
pub struct KeyFrames {
    pub frames: Vec<GrayImage>,
    /// None for videos made before the box was placed by us (the code is then looked for
    /// anywhere inside the found frame).
    pub code_box: Option<Fraction>,
}

/// Where the video was found and how well it matched.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Located {
    /// The key frame that matched best (0-based).
    pub frame: usize,
    /// The frame's place in the screenshot, in its pixels.
    pub rect: Rect,
    /// NCC (−1 to 1) of the frame outside the code's box.
    pub score: f32,
    /// NCC of the code's box with this subscription's, when the box is known.
    pub code_box_score: Option<f32>,
    /// The code's box in the screenshot, in its pixels.
    pub code_rect: Option<Rect>,
}

/// Sums and sums of squares over any window of a plane in O(1).
struct Integrals {
    w: usize,
    sum: Vec<f64>,
    sq: Vec<f64>,
}

impl Integrals {
    fn of(p: &Plane) -> Self {
        let w = p.w + 1;
        let mut sum = vec![0.0f64; w * (p.h + 1)];
        let mut sq = vec![0.0f64; w * (p.h + 1)];
        for y in 0..p.h {
            let (mut rs, mut rq) = (0.0f64, 0.0f64);
            for (x, &v) in p.row(y).iter().enumerate() {
                rs += f64::from(v);
                rq += f64::from(v) * f64::from(v);
                sum[(y + 1) * w + x + 1] = sum[y * w + x + 1] + rs;
                sq[(y + 1) * w + x + 1] = sq[y * w + x + 1] + rq;
            }
        }
        Self { w, sum, sq }
    }

    /// (sum, sum of squares) of the `tw`×`th` window at (x, y).
    fn window(&self, x: usize, y: usize, tw: usize, th: usize) -> (f64, f64) {
        let at = |t: &[f64], xx: usize, yy: usize| t[yy * self.w + xx];
        let s =
            |t: &[f64]| at(t, x + tw, y + th) - at(t, x, y + th) - at(t, x + tw, y) + at(t, x, y);
        (s(&self.sum), s(&self.sq))
    }
}

/// A template ready to slide: zero-mean samples and their norm.
struct Template {
    w: usize,
    h: usize,
    px: Vec<f32>,
    norm: f64,
}

impl Template {
    fn of(img: &GrayImage) -> Option<Self> {
        let p = Plane::from_luma(img);
        let n = p.px.len() as f64;
        let mean = p.px.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
        let px: Vec<f32> = p.px.iter().map(|&v| v - mean as f32).collect();
        let norm = px
            .iter()
            .map(|&v| f64::from(v) * f64::from(v))
            .sum::<f64>()
            .sqrt();
        // A flat frame (one colour) matches any flat area: it proves nothing.
        (norm > 1e-3 * n.sqrt() * 255.0).then_some(Self {
            w: p.w,
            h: p.h,
            px,
            norm,
        })
    }

    /// NCC of the template at (x, y) in `s`.
    fn ncc_at(&self, s: &Plane, integ: &Integrals, x: usize, y: usize) -> f32 {
        let n = (self.w * self.h) as f64;
        let (sum, sq) = integ.window(x, y, self.w, self.h);
        let var = sq - sum * sum / n;
        if var <= 1e-6 * n {
            return 0.0;
        }
        let mut num = 0.0f64;
        for j in 0..self.h {
            let srow = &s.px[(y + j) * s.w + x..][..self.w];
            let trow = &self.px[j * self.w..][..self.w];
            num += f64::from(dot(trow, srow));
        }
        (num / (self.norm * var.sqrt())) as f32
    }
}

/// Dot product with eight running sums, so the compiler keeps it in vector registers.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let mut total: f32 = acc.iter().sum();
    for (x, y) in ra.iter().zip(rb) {
        total += x * y;
    }
    total
}

/// `img` shrunk (or grown) to `w`×`h`: area averaging for big reductions, then a triangle
/// filter for the exact size.
fn sized(img: &GrayImage, w: u32, h: u32) -> GrayImage {
    let (w, h) = (w.max(1), h.max(1));
    if img.width() >= w * 3 && img.height() >= h * 3 {
        let half = imageops::thumbnail(img, w * 2, h * 2);
        imageops::resize(&half, w, h, imageops::FilterType::Triangle)
    } else {
        imageops::resize(img, w, h, imageops::FilterType::Triangle)
    }
}

fn crop(img: &GrayImage, r: Rect) -> GrayImage {
    imageops::crop_imm(img, r.x, r.y, r.w, r.h).to_image()
}

/// The screenshot at a smaller size and what maps its pixels back.
struct Level {
    plane: Plane,
    integ: Integrals,
    /// Full-size pixels per level pixel.
    factor: f32,
}

impl Level {
    fn of(shot: &GrayImage, longer_side: u32) -> Self {
        let longest = shot.width().max(shot.height()).max(1);
        let factor = (longest as f32 / longer_side as f32).max(1.0);
        let w = (shot.width() as f32 / factor).round().max(1.0) as u32;
        let h = (shot.height() as f32 / factor).round().max(1.0) as u32;
        let plane = Plane::from_luma(&sized(shot, w, h));
        let integ = Integrals::of(&plane);
        Self {
            plane,
            integ,
            factor,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Candidate {
    frame: usize,
    rect: Rect,
    score: f32,
}

/// Looks for any of `key`'s frames in `shot`. None when nothing frame-sized fits or every
/// key frame is flat; otherwise the best place found, however poor (the caller judges).
pub fn locate(shot: &GrayImage, key: &KeyFrames) -> Option<Located> {
    let first = key.frames.first()?;
    let aspect = first.height() as f32 / first.width().max(1) as f32;
    let coarse = Level::of(shot, COARSE_SIDE);
    let mut found: Vec<Candidate> = Vec::new();
    for (k, frame) in key.frames.iter().enumerate() {
        for tw in widths(coarse.plane.w as u32) {
            let th = (tw as f32 * aspect).round() as u32;
            if th as usize > coarse.plane.h || th < MIN_TEMPLATE_SIDE {
                continue;
            }
            let Some(t) = Template::of(&sized(frame, tw, th)) else {
                continue;
            };
            let best = best_in(
                &t,
                &coarse,
                0..=coarse.plane.w - t.w,
                0..=coarse.plane.h - t.h,
            );
            if let Some((score, x, y)) = best {
                found.push(Candidate {
                    frame: k,
                    rect: scaled_rect(x, y, t.w, t.h, coarse.factor),
                    score,
                });
            }
        }
    }
    found.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut picked: Vec<Candidate> = Vec::new();
    for c in found {
        if picked.iter().all(|p| p.rect.overlap(&c.rect) < 0.5) {
            picked.push(c);
        }
        if picked.len() == CANDIDATES {
            break;
        }
    }
    let medium = Level::of(shot, MEDIUM_SIDE);
    let refined = picked
        .into_iter()
        .map(|c| refine(c, &key.frames[c.frame], &medium, aspect, shot))
        .max_by(|a, b| a.score.total_cmp(&b.score))?;
    Some(judge(shot, key, refined.rect))
}

/// Frame widths to try at a level `w` pixels wide, widest first.
fn widths(w: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut f = 1.0f32;
    while f >= MIN_WIDTH_FRACTION {
        let tw = (w as f32 * f).round() as u32;
        if tw >= MIN_TEMPLATE_SIDE && out.last() != Some(&tw) {
            out.push(tw);
        }
        f /= WIDTH_STEP;
    }
    out
}

fn scaled_rect(x: usize, y: usize, w: usize, h: usize, factor: f32) -> Rect {
    let s = |v: usize| (v as f32 * factor).round() as u32;
    Rect {
        x: s(x),
        y: s(y),
        w: s(w),
        h: s(h),
    }
}

/// The best NCC of `t` over the positions given: (score, x, y).
fn best_in(
    t: &Template,
    level: &Level,
    xs: std::ops::RangeInclusive<usize>,
    ys: std::ops::RangeInclusive<usize>,
) -> Option<(f32, usize, usize)> {
    let mut best: Option<(f32, usize, usize)> = None;
    for y in ys {
        for x in xs.clone() {
            let score = t.ncc_at(&level.plane, &level.integ, x, y);
            if best.is_none_or(|(b, _, _)| score > b) {
                best = Some((score, x, y));
            }
        }
    }
    best
}

/// A coarse candidate sharpened at the medium level: ±2 % in size, a few pixels in place.
fn refine(
    c: Candidate,
    frame: &GrayImage,
    medium: &Level,
    aspect: f32,
    shot: &GrayImage,
) -> Candidate {
    let f = medium.factor;
    let base_w = c.rect.w as f32 / f;
    let slack = (COARSE_SIDE as f32).recip() * MEDIUM_SIDE as f32;
    let reach = slack.ceil() as i64 + 1;
    let mut best = c;
    best.score = f32::MIN;
    for step in [-2i32, -1, 0, 1, 2] {
        let tw = (base_w * (1.0 + 0.02 * step as f32)).round() as u32;
        let th = (tw as f32 * aspect).round() as u32;
        if tw as usize > medium.plane.w || th as usize > medium.plane.h || tw < MIN_TEMPLATE_SIDE {
            continue;
        }
        let Some(t) = Template::of(&sized(frame, tw, th)) else {
            continue;
        };
        let cx = (c.rect.x as f32 / f).round() as i64;
        let cy = (c.rect.y as f32 / f).round() as i64;
        let span = |centre: i64, room: usize| {
            let lo = (centre - reach).clamp(0, room as i64) as usize;
            let hi = (centre + reach).clamp(0, room as i64) as usize;
            lo..=hi
        };
        let xs = span(cx, medium.plane.w - t.w);
        let ys = span(cy, medium.plane.h - t.h);
        if let Some((score, x, y)) = best_in(&t, medium, xs, ys) {
            if score > best.score {
                let mut rect = scaled_rect(x, y, t.w, t.h, f);
                rect.w = rect.w.min(shot.width() - rect.x.min(shot.width()));
                rect.h = rect.h.min(shot.height() - rect.y.min(shot.height()));
                best = Candidate {
                    frame: c.frame,
                    rect,
                    score,
                };
            }
        }
    }
    if best.score == f32::MIN {
        c
    } else {
        best
    }
}

/// Scores the frame-sized `rect` of `shot` against every key frame at the key frames' size.
fn judge(shot: &GrayImage, key: &KeyFrames, rect: Rect) -> Located {
    let (fw, fh) = key.frames[0].dimensions();
    let seen = sized(&crop(shot, rect), fw, fh);
    let code_rows = key.code_box.map(|b| {
        let r = Rect {
            x: 0,
            y: 0,
            w: fw,
            h: fh,
        }
        .part(b)
        .grown(0.05, fw, fh);
        (r.y as usize, (r.y + r.h) as usize)
    });
    let keep_row = |y: usize| code_rows.is_none_or(|(top, bottom)| y < top || y >= bottom);
    let mut best = (f32::MIN, 0usize);
    for (k, frame) in key.frames.iter().enumerate() {
        let score = ncc_rows(&seen, frame, &keep_row);
        if score > best.0 {
            best = (score, k);
        }
    }
    let (code_box_score, code_rect) = match key.code_box {
        Some(b) => {
            let inner = Rect {
                x: 0,
                y: 0,
                w: fw,
                h: fh,
            }
            .part(b)
            .grown(0.02, fw, fh);
            let score = ncc_shifted(&seen, &key.frames[best.1], inner, BOX_SLACK);
            (Some(score), Some(rect.part(b)))
        }
        None => (None, None),
    };
    Located {
        frame: best.1,
        rect,
        score: best.0,
        code_box_score,
        code_rect,
    }
}

/// Pixels either way the code's box may be off (the frame is found to a pixel or two at
/// the key frames' size, and the box's strokes are about that thin).
const BOX_SLACK: i64 = 2;

/// Sizes tried for the code's box: the frame's size is found to a couple of per cent, and
/// over a box 300 pixels wide that moves its last letters by several pixels.
const BOX_SCALES: [f32; 5] = [0.97, 0.985, 1.0, 1.015, 1.03];

/// The best NCC of `b`'s part `r` with `a`'s part `r` resized by a few per cent about its
/// centre and moved by up to `slack` pixels.
fn ncc_shifted(a: &GrayImage, b: &GrayImage, r: Rect, slack: i64) -> f32 {
    let want = crop(b, r);
    let mut best = f32::MIN;
    for scale in BOX_SCALES {
        let (sw, sh) = (r.w as f32 * scale, r.h as f32 * scale);
        let (cx, cy) = (r.x as f32 + r.w as f32 / 2.0, r.y as f32 + r.h as f32 / 2.0);
        for dy in -slack..=slack {
            for dx in -slack..=slack {
                let x = (cx - sw / 2.0).round() as i64 + dx;
                let y = (cy - sh / 2.0).round() as i64 + dy;
                let (w, h) = (sw.round() as i64, sh.round() as i64);
                let fits = x >= 0
                    && y >= 0
                    && w > 0
                    && h > 0
                    && x + w <= i64::from(a.width())
                    && y + h <= i64::from(a.height());
                if fits {
                    let part = Rect {
                        x: x as u32,
                        y: y as u32,
                        w: w as u32,
                        h: h as u32,
                    };
                    let seen = sized(&crop(a, part), r.w, r.h);
                    best = best.max(ncc(&seen, &want));
                }
            }
        }
    }
    if best == f32::MIN {
        ncc(&crop(a, r), &want)
    } else {
        best
    }
}

/// NCC of two same-sized grey pictures.
pub fn ncc(a: &GrayImage, b: &GrayImage) -> f32 {
    ncc_rows(a, b, &|_| true)
}

/// NCC of two same-sized grey pictures over the rows `keep` admits.
fn ncc_rows(a: &GrayImage, b: &GrayImage, keep: &dyn Fn(usize) -> bool) -> f32 {
    let w = a.width().min(b.width()) as usize;
    let h = a.height().min(b.height()) as usize;
    let (ra, rb) = (a.as_raw(), b.as_raw());
    let (aw, bw) = (a.width() as usize, b.width() as usize);
    let mut m = Moments::default();
    for y in (0..h).filter(|&y| keep(y)) {
        for x in 0..w {
            m.add(ra[y * aw + x], rb[y * bw + x]);
        }
    }
    m.ncc().unwrap_or(0.0)
}

/// Running sums for the NCC of two sequences of grey samples.
#[derive(Debug, Default)]
pub struct Moments {
    n: f64,
    sa: f64,
    sb: f64,
    saa: f64,
    sbb: f64,
    sab: f64,
}

impl Moments {
    pub fn add(&mut self, a: u8, b: u8) {
        let (a, b) = (f64::from(a), f64::from(b));
        self.n += 1.0;
        self.sa += a;
        self.sb += b;
        self.saa += a * a;
        self.sbb += b * b;
        self.sab += a * b;
    }

    /// The NCC (−1 to 1); None when either side is flat (or there are no samples).
    pub fn ncc(&self) -> Option<f32> {
        let n = self.n;
        if n < 1.0 {
            return None;
        }
        let var = (self.saa - self.sa * self.sa / n) * (self.sbb - self.sb * self.sb / n);
        (var > 1e-9).then(|| ((self.sab - self.sa * self.sb / n) / var.sqrt()) as f32)
    }

    /// The difference of the two means.
    pub fn mean_gap(&self) -> f64 {
        ((self.sa - self.sb) / self.n.max(1.0)).abs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    /// A frame with structure at every scale: rings and bars.
    fn pattern(w: u32, h: u32, seed: u32) -> GrayImage {
        GrayImage::from_fn(w, h, |x, y| {
            let (fx, fy) = (x as f32 / w as f32, y as f32 / h as f32);
            let r = ((fx - 0.5).powi(2) + (fy - 0.4).powi(2)).sqrt();
            let v = 128.0
                + 60.0 * (r * 30.0 + seed as f32).sin()
                + 50.0 * ((fx * 7.0 + fy * (3.0 + seed as f32)).floor() % 2.0 - 0.5);
            Luma([v.clamp(0.0, 255.0) as u8])
        })
    }

    fn place(frame: &GrayImage, sw: u32, sh: u32, at: Rect) -> GrayImage {
        let mut shot = GrayImage::from_fn(sw, sh, |x, y| {
            Luma([((x / 7 + y / 11) % 3 * 40 + 30) as u8])
        });
        let scaled = imageops::resize(frame, at.w, at.h, imageops::FilterType::Triangle);
        imageops::overlay(&mut shot, &scaled, i64::from(at.x), i64::from(at.y));
        shot
    }

    #[test]
    fn a_scaled_frame_is_found_where_it_was_put() {
        let frame = pattern(320, 180, 1);
        let at = Rect {
            x: 130,
            y: 700,
            w: 780,
            h: 439,
        };
        let shot = place(&frame, 1080, 1920, at);
        let key = KeyFrames {
            frames: vec![pattern(320, 180, 4), frame],
            code_box: Some(Fraction {
                x: 0.1,
                y: 0.7,
                w: 0.8,
                h: 0.1,
            }),
        };
        let got = locate(&shot, &key).unwrap();
        assert_eq!(got.frame, 1);
        assert!(got.score > 0.95, "{got:?}");
        assert!(got.rect.overlap(&at) > 0.9, "{got:?}");
        assert!(got.code_box_score.unwrap() > 0.9, "{got:?}");
    }

    #[test]
    fn another_picture_scores_low() {
        // Blocky noise: nothing like the rings and bars.
        let noise = GrayImage::from_fn(320, 180, |x, y| {
            Luma([((x / 8 * 7919 + y / 8 * 104_729) % 251) as u8])
        });
        let shot = place(
            &noise,
            1080,
            1920,
            Rect {
                x: 100,
                y: 600,
                w: 800,
                h: 450,
            },
        );
        let key = KeyFrames {
            frames: vec![pattern(320, 180, 1)],
            code_box: None,
        };
        let got = locate(&shot, &key).unwrap();
        assert!(got.score < 0.6, "{got:?}");
    }

    #[test]
    fn flat_frames_prove_nothing() {
        let flat = GrayImage::from_pixel(320, 180, Luma([90]));
        let key = KeyFrames {
            frames: vec![flat.clone()],
            code_box: None,
        };
        assert!(locate(
            &place(
                &flat,
                1080,
                1920,
                Rect {
                    x: 0,
                    y: 0,
                    w: 900,
                    h: 506
                }
            ),
            &key
        )
        .is_none());
    }
}
