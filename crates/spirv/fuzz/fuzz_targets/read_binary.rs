//! Feeds arbitrary bytes to the SPIR-V binary reader; `reader::fuzz::check` holds the
//! invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tangle_spirv::reader::fuzz::check(data);
});
