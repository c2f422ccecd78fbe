mod download;
pub mod media;
mod payments;
pub mod push;
mod screenshot;
mod sms;
pub mod storage;
mod video;
