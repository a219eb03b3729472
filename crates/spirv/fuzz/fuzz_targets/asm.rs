//! Feeds arbitrary bytes to the SPIR-V assembler; `asm::fuzz::check` holds the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tangle_spirv::asm::fuzz::check(data);
});
