pub mod realtime;
