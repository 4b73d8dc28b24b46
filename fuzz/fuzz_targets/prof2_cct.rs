#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| hpcscope_fuzz::run("prof2_cct", data));
