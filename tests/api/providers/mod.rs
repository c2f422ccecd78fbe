mod download;
pub mod media;
pub mod push;
mod screenshot;
mod sms;
mod storage;
mod video;
