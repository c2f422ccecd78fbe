mod download;
pub mod media;
mod payments;
pub mod push;
mod screenshot;
mod sms;
mod storage;
mod video;
