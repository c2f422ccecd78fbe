mod push;
mod media;
mod screenshot;
mod sms;
mod storage;
mod video;
