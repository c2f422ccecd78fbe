mod push;
mod sms;
