//! The small fixed-format sections ptxas writes into every cubin: the two notes (toolkit
//! and tool), the call graph, the relocation action table and SM90's compatibility
//! attributes. Their layouts were read from ptxas 13.5's cubins (`docs/cubin.md`).

use tangle_sass::Arch;

use crate::info::CUDA_API_VERSION_135;

/// The owner name of NVIDIA's ELF notes.
const NOTE_OWNER: &[u8] = b"NVIDIA Corp\0";
/// Note type of `.note.nv.cuinfo`.
const NT_CUDA_INFO: u32 = 1000;
/// Note type of `.note.nv.tkinfo`.
const NT_TOOLKIT_INFO: u32 = 2000;

/// An ELF note: name size, descriptor size, type, the owner (padded to 4), the
/// descriptor (padded to 4).
fn note(kind: u32, desc: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend((NOTE_OWNER.len() as u32).to_le_bytes());
    v.extend((desc.len() as u32).to_le_bytes());
    v.extend(kind.to_le_bytes());
    v.extend(NOTE_OWNER);
    while v.len() % 4 != 0 {
        v.push(0);
    }
    v.extend(desc);
    while v.len() % 4 != 0 {
        v.push(0);
    }
    v
}

/// `.note.nv.cuinfo`: note version 2, the virtual SM, the toolkit version (13.5). cuobjdump
/// prints the header's `toolkit=` from it.
pub fn cuinfo(arch: Arch) -> Vec<u8> {
    let mut d = Vec::new();
    d.extend(2u16.to_le_bytes());
    d.extend((arch.number() as u16).to_le_bytes());
    d.extend(CUDA_API_VERSION_135.to_le_bytes());
    note(NT_CUDA_INFO, &d)
}

/// `.note.nv.tkinfo`: note version 2, then the offsets of four strings in a string blob
/// that follows (tool name, tool version, branch, command line). tangle names itself.
pub fn tkinfo(arch: Arch) -> Vec<u8> {
    let strings = [
        "tangle".to_string(),
        format!("tangle {}", env!("CARGO_PKG_VERSION")),
        "tangle-cubin".to_string(),
        format!("-arch {arch} -m 64 "),
    ];
    let mut blob = vec![0u8];
    let mut offsets = Vec::new();
    for s in &strings {
        offsets.push(blob.len() as u32);
        blob.extend(s.as_bytes());
        blob.push(0);
    }
    // ptxas pads the blob to whole words inside the descriptor; nvdisasm refuses a
    // descriptor whose size is not a multiple of 4.
    while blob.len() % 4 != 0 {
        blob.push(0);
    }
    let mut d = Vec::new();
    d.extend(2u32.to_le_bytes());
    d.extend(0u32.to_le_bytes());
    for o in offsets {
        d.extend(o.to_le_bytes());
    }
    d.extend(blob);
    note(NT_TOOLKIT_INFO, &d)
}

/// `.nv.callgraph`: pairs of 32-bit (caller, callee) symbol numbers. ptxas writes four
/// entries `(0, -1)` .. `(0, -4)` in every cubin, and no more for kernels that call
/// nothing outside their own section, which is all this writer accepts.
pub fn callgraph() -> Vec<u8> {
    let mut v = Vec::new();
    for k in 1..=4i32 {
        v.extend(0u32.to_le_bytes());
        v.extend((-k).to_le_bytes());
    }
    v
}

/// `.nv.rel.action` (SM75-SM89): ptxas's relocation action table, the same 16 bytes in
/// every cubin it writes.
pub const REL_ACTION: [u8; 16] = [
    0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x25, 0, 0x05, 0x36,
];

/// `.nv.compat` (SM90): the compatibility attributes ptxas 13.5 writes for sm_90, in
/// `.nv.info`'s attribute encoding.
pub const SM90_COMPAT: [u8; 36] = [
    0x02, 0x09, 0x00, 0x00, 0x02, 0x0c, 0x00, 0x00, 0x02, 0x02, 0x01, 0x00, 0x03, 0x0d, 0x01, 0x01,
    0x02, 0x03, 0x00, 0x00, 0x04, 0x0b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x03, 0x0e, 0x40, 0x04,
];
