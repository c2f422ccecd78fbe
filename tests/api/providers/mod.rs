mod download;
pub mod media;
mod push;
mod screenshot;
mod sms;
mod storage;
mod video;
