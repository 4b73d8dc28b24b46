#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| hpcscope_fuzz::run("hpctoolkit_metrics_yaml", data));
