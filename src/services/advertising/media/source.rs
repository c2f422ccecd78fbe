//! The largest source video an advertiser may give (`[services.advertising.media]`):
//! checked on ffprobe's report at upload, and again in the video job (a URL source is
//! seen only there).

use super::super::settings::MediaSettings;
use crate::providers::video::VideoInfo;

/// The limit a video is over, in words an advertiser reads (None when within them all).
pub fn over_limit(info: &VideoInfo, limits: &MediaSettings) -> Option<String> {
    let pixels = u64::from(info.width) * u64::from(info.height);
    if info.duration_secs > limits.max_duration_secs {
        return Some(format!(
            "is {:.0} s long; the longest allowed is {:.0} s",
            info.duration_secs, limits.max_duration_secs
        ));
    }
    if pixels > limits.max_pixels {
        return Some(format!(
            "is {}×{}; the largest allowed frame is {} pixels",
            info.width, info.height, limits.max_pixels
        ));
    }
    if info.frame_rate > limits.max_frame_rate {
        return Some(format!(
            "runs at {:.0} frames a second; the most allowed is {:.0}",
            info.frame_rate, limits.max_frame_rate
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(duration_secs: f64, width: u32, height: u32, frame_rate: f64) -> VideoInfo {
        VideoInfo {
            duration_secs,
            width,
            height,
            has_video: true,
            has_audio: false,
            video_codec: None,
            audio_codec: None,
            format_name: "mov,mp4,m4a,3gp,3g2,mj2".into(),
            frame_rate,
        }
    }

    #[test]
    fn each_limit_is_named_and_the_edges_pass() {
        let l = MediaSettings::default();
        assert_eq!(over_limit(&info(180.0, 3840, 2160, 60.0), &l), None);
        assert!(over_limit(&info(180.5, 640, 360, 30.0), &l)
            .unwrap()
            .contains("180 s"));
        assert!(over_limit(&info(10.0, 7680, 4320, 30.0), &l)
            .unwrap()
            .contains("7680×4320"));
        assert!(over_limit(&info(10.0, 640, 360, 120.0), &l)
            .unwrap()
            .contains("120 frames"));
    }
}
