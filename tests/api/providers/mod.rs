pub mod push;
mod sms;
