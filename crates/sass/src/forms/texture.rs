//! Texture fetches, loads, gathers, gradient fetches and queries (`tex`, `tld4`, `txq`):
//! TEX, TLD, TLD4, TXD and TXQ, found by the generated PTX corpus (issue 12) and probed
//! with nvdisasm on ptxas's words, bit by bit and field by field, on SM75 and SM90.
//!
//! Layout (every SM, every operation): the predicate 81-83 (the `|p` residency result,
//! printed first, hidden when PT; TXQ ignores those bits), the second destination 64-71,
//! the destination 16-23, the sources Ra 24-31 and Rb 32-39 (TXQ ignores Rb), the
//! dimension 61-63 (TXQ: the query 62-63), the component mask 72-75, `.NODEP` 90. SM75-SM89
//! words (opcodes 0x361, 0x367, 0x364, 0x36d, 0x370) are the bindless `.B` form (bit 59
//! set; clear, nvdisasm rejects them), whose handle is a register among the sources; SM90
//! words (0xf60, 0xf66, 0xf63, 0xf6c, 0xf6f) take the handle as a uniform register pair
//! 40-45 followed by an 8-bit immediate 46-53, as the surface instructions do, and bit 91
//! set (clear, nvdisasm rejects them; pre-SM90 words with it set too). Modifiers: `.SCR`
//! 60, the f16 result rounding 79-80, the cache operation 84-86 (as LDGSTS's), and per
//! operation the level-of-detail mode 87-89 (TEX, TLD), the gather component 87-88 (TLD4),
//! `.LC` 87 (TXD), `.AOFFI` 76 (TLD4: 76-77 is the offset mode, `.AOFFI` or `.PTP`), `.DC`
//! 78 (TEX, TLD4), `.NDV` 77 (TEX), `.MS` 78 and `.CL` 77 (TLD). The print order of the
//! modifiers was read from nvdisasm with several set at once.
//!
//! The dimension (and TXQ's query) prints as an operand, `2D`: one form per value, whose
//! fixed operand text selects it (as DEPBAR's `SB0`), so the dimension is in the form and
//! the registers each source covers (`roles::texture_width`) follow from the form and the
//! mask operand.

use super::*;

/// The f16 result rounding, bits 79-80 (3 prints `.INVALID3`).
const F16: &[(u64, &str)] = &[(0, ""), (1, ".F16.RN"), (2, ".F16.RZ")];

/// The cache operation, bits 84-86: the same field and values as LDG's (6 and 7 print
/// `.INVALIDn`).
use super::memory::CACHE_OPS as CACHE;

/// The one-bit modifiers (clear prints nothing).
const AOFFI: &[(u64, &str)] = &[(0, ""), (1, ".AOFFI")];
const DC: &[(u64, &str)] = &[(0, ""), (1, ".DC")];

/// TEX's level-of-detail mode, bits 87-89 (7 prints `.INVALID7`).
const TEX_LOD: &[(u64, &str)] = &[
    (0, ""),
    (1, ".LZ"),
    (2, ".LB"),
    (3, ".LL"),
    (4, ".LC"),
    (5, ".LB.LC"),
    (6, ".LC.FDV"),
];

/// TLD's level-of-detail mode, bits 87-89 (the others print `.INVALIDn`).
const TLD_LOD: &[(u64, &str)] = &[(1, ".LZ"), (3, ".LL")];

/// TLD4's gathered component, bits 87-88.
const TLD4_COMPONENT: &[(u64, &str)] = &[(0, ".R"), (1, ".G"), (2, ".B"), (3, ".A")];

/// TLD4's gathered component before SM90, followed by the bindless `.B`.
const TLD4_COMPONENT_BINDLESS: &[(u64, &str)] =
    &[(0, ".R.B"), (1, ".G.B"), (2, ".B.B"), (3, ".A.B")];

/// TLD4's offset mode, bits 76-77 (3 prints `.INVALID3`).
const TLD4_OFFSETS: &[(u64, &str)] = &[(0, ""), (1, ".AOFFI"), (2, ".PTP")];

/// The dimensions, bits 61-63 (6 prints `INVALID6`), one table for every operation; each
/// operation's list below names the ones it accepts (the others print `INVALIDn`).
const DIMENSIONS: &[(u64, &str)] = &[
    (0, "1D"),
    (1, "2D"),
    (2, "3D"),
    (3, "CUBE"),
    (4, "ARRAY_1D"),
    (5, "ARRAY_2D"),
    (7, "ARRAY_CUBE"),
];
const TEX_DIMS: &[&str] = &[
    "1D",
    "2D",
    "3D",
    "CUBE",
    "ARRAY_1D",
    "ARRAY_2D",
    "ARRAY_CUBE",
];
const TLD_DIMS: &[&str] = &["1D", "2D", "3D", "ARRAY_1D", "ARRAY_2D"];
const TLD4_DIMS: &[&str] = &["2D", "CUBE", "ARRAY_2D", "ARRAY_CUBE"];
const TXD_DIMS: &[&str] = &["1D", "2D", "ARRAY_1D", "ARRAY_2D"];

/// TXQ's queries, bits 62-63 (3 prints `INVALID3`).
const TXQ_QUERIES: &[(u64, &str)] = &[
    (0, "TEX_HEADER_DIMENSION"),
    (1, "TEX_HEADER_TEXTURE_TYPE"),
    (2, "TEX_HEADER_SAMPLER_POS"),
];

/// The number of coordinates (array index included) of a dimension's text.
pub(crate) fn coordinates(dim: &str) -> u8 {
    match dim {
        "1D" => 1,
        "2D" | "ARRAY_1D" => 2,
        "3D" | "CUBE" | "ARRAY_2D" => 3,
        "ARRAY_CUBE" => 4,
        _ => 0,
    }
}

/// One operation: its name, ptxas sample words before SM90 and on SM90 (dimension bits
/// cleared), the field of its dimension operand (or TXQ's query): its values' texts, the
/// texts the operation accepts (empty: all of them) and its first bit; and its modifiers
/// (in print order, after `.SCR` and `.B`).
struct Family {
    name: &'static str,
    pre90: (u64, u64),
    sm90: (u64, u64),
    texts: &'static [(u64, &'static str)],
    dims: &'static [&'static str],
    dim_at: u8,
    mods: fn(Form) -> Form,
}

fn tex_mods(f: Form) -> Form {
    f.m(79, 2, F16)
        .m(87, 3, TEX_LOD)
        .m(76, 1, AOFFI)
        .m(78, 1, DC)
        .m(84, 3, CACHE)
        .m(77, 1, &[(0, ""), (1, ".NDV")])
}

fn tld_mods(f: Form) -> Form {
    f.m(79, 2, F16)
        .m(87, 3, TLD_LOD)
        .m(76, 1, AOFFI)
        .m(84, 3, CACHE)
        .m(78, 1, &[(0, ""), (1, ".MS")])
        .m(77, 1, &[(0, ""), (1, ".CL")])
}

fn tld4_mods(f: Form) -> Form {
    f.m(79, 2, F16)
        .m(76, 2, TLD4_OFFSETS)
        .m(78, 1, DC)
        .m(84, 3, CACHE)
}

fn txd_mods(f: Form) -> Form {
    f.m(79, 2, F16)
        .m(87, 1, &[(0, ""), (1, ".LC")])
        .m(76, 1, AOFFI)
        .m(84, 3, CACHE)
}

fn txq_mods(f: Form) -> Form {
    f
}

const FAMILIES: [Family; 5] = [
    Family {
        name: "TEX",
        pre90: (0x0800000804047361, 0x004f4400019e19ff),
        sm90: (0x0000060804069f60, 0x02236200099e19ff),
        texts: DIMENSIONS,
        dims: TEX_DIMS,
        dim_at: 61,
        mods: tex_mods,
    },
    Family {
        name: "TLD",
        pre90: (0x1800000500047367, 0x004f4400009e09ff),
        sm90: (0x000006ff00069f66, 0x02236200089e09ff),
        texts: DIMENSIONS,
        dims: TLD_DIMS,
        dim_at: 61,
        mods: tld_mods,
    },
    Family {
        name: "TLD4",
        pre90: (0x1800000004047364, 0x004f4400001e09ff),
        sm90: (0x000006ff04069f63, 0x02236200081e09ff),
        texts: DIMENSIONS,
        dims: TLD4_DIMS,
        dim_at: 61,
        mods: tld4_mods,
    },
    Family {
        name: "TXD",
        pre90: (0x0800000c0808736d, 0x010f4400001e09ff),
        sm90: (0x000006040e0c9f6c, 0x02036200081e09ff),
        texts: DIMENSIONS,
        dims: TXD_DIMS,
        dim_at: 61,
        mods: txd_mods,
    },
    Family {
        name: "TXQ",
        pre90: (0x0800000004057370, 0x004f4400000001ff),
        sm90: (0x0000060000059f6f, 0x02236200080001ff),
        texts: TXQ_QUERIES,
        dims: &[],
        dim_at: 62,
        mods: txq_mods,
    },
];

pub(super) fn textures(v: &mut Vec<Form>) {
    for fam in &FAMILIES {
        let query = fam.name == "TXQ";
        let accepted = fam
            .texts
            .iter()
            .filter(|(_, t)| fam.dims.is_empty() || fam.dims.contains(t));
        for &(value, text) in accepted {
            for (arches, (lo, hi), sm90) in
                [(PRE90, fam.pre90, false), (&[Sm90][..], fam.sm90, true)]
            {
                let lo = lo & !(7 << fam.dim_at) | value << fam.dim_at;
                let mut f = fs(fam.name, arches, lo, hi);
                if !query && fam.name != "TXD" {
                    f = f.m(60, 1, &[(0, ""), (1, ".SCR")]);
                }
                if fam.name == "TLD4" && !sm90 {
                    // The blue component `.B` and the bindless `.B` print alike: one
                    // modifier, so the builder does not give one's text to the other.
                    f = f.m(87, 2, TLD4_COMPONENT_BINDLESS);
                } else if fam.name == "TLD4" {
                    f = f.m(87, 2, TLD4_COMPONENT);
                } else if !sm90 {
                    f = f.m(0, 0, &[(0, ".B")]);
                }
                f = (fam.mods)(f).m(90, 1, &[(0, ""), (1, ".NODEP")]);
                if !query {
                    f = f.o(p(81).hide(7));
                }
                let no_rz = |o: Opnd| Opnd { rz_ok: false, ..o };
                // Ra RZ prints `???255`; so does Rb before SM90 (where it holds at least
                // the handle) and in SM90's TXD. SM90's other operations leave Rb out
                // when it is RZ (no source beyond the coordinates).
                f = f.o(r(64)).o(r(16)).o(no_rz(r(24)));
                if !query {
                    f = f.o(match (sm90, fam.name) {
                        (true, "TXD") => r(32),
                        (true, _) => r(32).hide(255),
                        (false, _) => no_rz(r(32)),
                    });
                }
                // SM90's handle: URZ prints `???63`.
                let handle = |f: Form| {
                    if sm90 {
                        f.o(no_rz(ur(40))).o(uimm(46, 8))
                    } else {
                        f
                    }
                };
                f = if query {
                    handle(f.o(Opnd::fixed(text)))
                } else {
                    handle(f).o(Opnd::fixed(text))
                };
                // The mask of all four components is not printed (TXQ prints it).
                let mask = uimm(72, 4);
                v.push(f.o(if query { mask } else { mask.hide(15) }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dimension an operation names but the field has no value for would drop its forms
    /// without a word.
    #[test]
    fn every_accepted_dimension_is_a_value_of_the_field() {
        for fam in &FAMILIES {
            for d in fam.dims {
                assert!(
                    fam.texts.iter().any(|(_, t)| t == d),
                    "{}: {d} is not a value of the field",
                    fam.name
                );
            }
        }
    }
}
