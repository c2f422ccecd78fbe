//! What a subscription's proof rests on: its `proofCode` (the text burnt into its video) and
//! its video's key frames, which the screenshot verifier looks for.
//!
//! A proof code is the poster's referral code, a hyphen and a tag of the subscription:
//! `K7M9QX2P-ACEF`. Tags use 18 symbols that neither people nor tesseract confuse with
//! another (no 0 O Q D 9 6 G, 8 S B 5 3, 1 I L J, 2 Z), and one poster's codes are kept at
//! least [`MIN_CODE_DISTANCE`] edits apart, so OCR that reads one code within its tolerated
//! edit can never read another of the poster's.

use super::super::state::AdvertisingState;
use crate::providers::screenshot::{ocr::code_distance, Fraction, VideoRef};
use crate::providers::storage::StorageKey;
use crate::providers::video::VideoError;
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::path::Path;
use uuid::Uuid;

pub const TAG_ALPHABET: &[u8] = b"ACEFHKMNPRTUVWXY47";
pub const TAG_LEN: usize = 4;
/// Edits between any two proof codes of one poster (OCR may be one off: 1 + 1 + 1).
pub const MIN_CODE_DISTANCE: usize = 3;
/// Tries per tag length before a longer tag is used (a poster with very many subscriptions).
const TRIES: usize = 64;

/// A proof code for a new subscription of the poster with `referral`, far enough from the
/// poster's `taken` codes.
pub fn new_code(referral: &str, taken: &[String]) -> String {
    let mut rng = rand::rng();
    let mut len = TAG_LEN;
    loop {
        for _ in 0..TRIES {
            let tag: String = (0..len)
                .map(|_| TAG_ALPHABET[rng.random_range(0..TAG_ALPHABET.len())] as char)
                .collect();
            let code = format!("{referral}-{tag}");
            if taken
                .iter()
                .all(|t| code_distance(t, &code) >= MIN_CODE_DISTANCE)
            {
                return code;
            }
        }
        len += 1;
    }
}

/// Key frames per video: one a second, at least 4, at most 8.
pub fn frame_count(duration_secs: f64) -> u32 {
    (duration_secs.ceil() as u32).clamp(4, 8)
}

/// `proof_frames` as stored (JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProofFrames {
    /// The storage key of the key frames, side by side in one JPEG.
    pub key: String,
    pub frames: u32,
    /// None for videos made before the box was placed by us.
    pub code_box: Option<Fraction>,
}

impl ProofFrames {
    pub fn parse(raw: Option<&str>) -> Option<Self> {
        raw.and_then(|r| serde_json::from_str(r).ok())
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The frames for the verifier, read from storage.
    pub async fn load(&self, st: &AdvertisingState) -> Result<VideoRef, String> {
        let key = StorageKey::parse(&self.key).map_err(|e| e.to_string())?;
        let sprite = st
            .media
            .storage
            .get(&key)
            .await
            .map_err(|e| e.to_string())?;
        Ok(VideoRef {
            sprite: sprite.to_vec(),
            frames: self.frames,
            code_box: self.code_box,
        })
    }
}

/// Why the frames could not be made, and whether trying again may help.
#[derive(Debug)]
pub struct FramesFailed {
    pub permanent: bool,
    pub detail: String,
}

/// Takes the key frames of the personalised video at `video` and stores them.
pub async fn make_frames(
    st: &AdvertisingState,
    sub: Uuid,
    video: &Path,
    duration_secs: f64,
    code_box: Option<Fraction>,
) -> Result<ProofFrames, FramesFailed> {
    let tool = |e: VideoError| FramesFailed {
        permanent: e.is_permanent(),
        detail: e.to_string(),
    };
    let strip = st
        .media
        .video
        .key_frames(video, frame_count(duration_secs))
        .await
        .map_err(tool)?;
    let key = StorageKey::parse(&format!("videos/personalised/{sub}.frames.jpg")).map_err(|e| {
        FramesFailed {
            permanent: true,
            detail: e.to_string(),
        }
    })?;
    st.media
        .storage
        .put(&key, strip.jpeg.into())
        .await
        .map_err(|e| FramesFailed {
            permanent: false,
            detail: e.to_string(),
        })?;
    Ok(ProofFrames {
        key: key.as_str().to_owned(),
        frames: strip.frames,
        code_box,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_posters_codes_stay_apart_and_use_the_tag_alphabet() {
        let mut taken = Vec::new();
        for _ in 0..120 {
            let code = new_code("K7M9QX2P", &taken);
            let (referral, tag) = code.split_once('-').unwrap();
            assert_eq!(referral, "K7M9QX2P");
            assert!(tag.len() >= TAG_LEN);
            assert!(tag.bytes().all(|b| TAG_ALPHABET.contains(&b)), "{code}");
            for t in &taken {
                assert!(code_distance(t, &code) >= MIN_CODE_DISTANCE, "{t} {code}");
            }
            taken.push(code);
        }
    }

    #[test]
    fn frames_follow_the_length_of_the_video() {
        assert_eq!(frame_count(2.0), 4);
        assert_eq!(frame_count(6.5), 7);
        assert_eq!(frame_count(60.0), 8);
    }
}
