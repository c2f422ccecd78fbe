mod sms;
