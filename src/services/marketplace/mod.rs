pub mod vin;
