//! Latency classes: groups of operations that share a pipe and, by measurement, a latency.

use std::fmt;

use crate::op::Op;

macro_rules! classes {
    ($($v:ident = $s:literal: $doc:literal,)*) => {
        /// The latency class of an operation: operations of one class issue to the same
        /// functional unit and were measured (`tools/latency`, `docs/sass.md`) to need the
        /// same stall before a dependent instruction, or the same scoreboard use.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum LatencyClass {
            $(
                #[doc = $doc]
                $v,
            )*
        }

        impl LatencyClass {
            /// Every class.
            pub const ALL: &'static [LatencyClass] = &[$(LatencyClass::$v,)*];

            /// The class's name in the latency tables (`crates/sass/data/latency-sm_XX.tsv`).
            pub fn name(self) -> &'static str {
                match self {
                    $(LatencyClass::$v => $s,)*
                }
            }

            /// The class named `s` in the latency tables.
            pub fn from_name(s: &str) -> Option<LatencyClass> {
                match s {
                    $($s => Some(LatencyClass::$v),)*
                    _ => None,
                }
            }
        }
    };
}

classes! {
    IntAlu = "int_alu": "Integer add, logic, shift, select, min/max, LEA, PRMT, IABS, moves (IADD3, LOP3, SHF, SEL, IMNMX, LEA, PRMT, IABS, VIADD, VIMNMX, MOV).",
    IntMad = "int_mad": "Integer multiply-add (IMAD and its aliases).",
    IntCompare = "int_compare": "Integer compare to predicates (ISETP).",
    BitCount = "bit_count": "Population count, bit reverse, find leading one (POPC, BREV, FLO).",
    Fp32 = "fp32": "Single-precision add, multiply, FMA, min/max, select (FADD, FMUL, FFMA, FMNMX, FSEL).",
    Fp32Compare = "fp32_compare": "Single-precision compare to predicates (FSETP).",
    Fp16 = "fp16": "Half-precision pairs (HADD2, HMUL2, HFMA2, HMNMX2, HSET2, HSETP2).",
    Fp64 = "fp64": "Double precision (DADD, DMUL, DFMA, DSETP).",
    Transcendental = "mufu": "The multi-function unit (MUFU: RCP, RSQ, SIN, EX2, ...).",
    Conversion = "conversion": "Conversions between integer and float (F2I, I2F, I2FP).",
    PredLogic = "pred_logic": "Predicate logic and moves between predicates and registers (PLOP3, P2R, R2P).",
    Uniform = "uniform": "The uniform datapath's ALU (UIADD3, ULOP3, USHF, UISETP, UMOV, ...).",
    ToUniform = "to_uniform": "Moves from the vector to the uniform datapath (R2UR, VOTEU, REDUX).",
    SpecialReg = "special_reg": "Special-register reads (S2R, CS2R, S2UR).",
    Warp = "warp": "Warp-wide data exchange and votes (SHFL, VOTE, MATCH).",
    ConstLoad = "const_load": "Indexed constant loads (LDC, ULDC).",
    GlobalMem = "global_mem": "Global loads, stores, reductions and atomics.",
    SharedMem = "shared_mem": "Shared-memory loads, stores and atomics.",
    LocalMem = "local_mem": "Thread-local loads and stores.",
    Control = "control": "Branches, calls, convergence barriers, warp sync, exit.",
    Sync = "sync": "Block barriers, memory barriers, cache control, scoreboard waits.",
    Nop = "nop": "No operation.",
}

impl LatencyClass {
    /// The class of `op`.
    pub fn of(op: Op) -> LatencyClass {
        use LatencyClass::*;
        match op {
            Op::Iadd3
            | Op::Lop3
            | Op::Shf
            | Op::Sel
            | Op::Imnmx
            | Op::Lea
            | Op::Prmt
            | Op::Iabs
            | Op::Viadd
            | Op::Viaddmnmx
            | Op::Vimnmx
            | Op::Sgxt
            | Op::Bmsk
            | Op::Mov => IntAlu,
            // Assumed, not measured: ptxas gives them no write scoreboard (fixed latency).
            Op::Vabsdiff | Op::Vabsdiff4 => IntAlu,
            Op::Fset => Fp32,
            // Assumed, not measured: ptxas gives them a write scoreboard.
            Op::Qspc => Warp,
            Op::B2r => SpecialReg,
            Op::Bpt => Control,
            Op::Pmtrig => Sync,
            // The tensor pipe, assumed: SM75 gives HMMA a write scoreboard, SM80 and later
            // a fixed latency; a scoreboarded class is the safe choice for both.
            Op::Hmma | Op::Dmma | Op::Imma | Op::Qmma => Fp64,
            // The asynchronous copy reads global memory (its class) and writes shared
            // memory behind the program's back; its commit and arrival are barriers.
            Op::Ldgsts => GlobalMem,
            // Assumed, not measured: the multimem load-reduce reads global memory.
            Op::Ldgmc => GlobalMem,
            Op::Ldgdepbar | Op::Arrives => Sync,
            // Assumed, not measured: ptxas gives MOVM (a transpose across the warp's
            // lanes) a write scoreboard, like the warp exchanges.
            Op::Movm => Warp,
            // Assumed: ELECT writes a uniform register from the vector pipe.
            Op::Elect => ToUniform,
            // Assumed: SM90's fences, cluster barriers, warpgroup and bulk-copy
            // bookkeeping wait on or order memory, as the barriers do.
            Op::Fence
            | Op::Preexit
            | Op::Acqbulk
            | Op::Warpgroup
            | Op::UcgabarArv
            | Op::UcgabarWait
            | Op::Utmacmdflush => Sync,
            // IDP (dp4a/dp2a) is put with IMAD by assumption, not measured.
            Op::Imad | Op::Idp => IntMad,
            Op::Isetp => IntCompare,
            Op::Popc | Op::Brev | Op::Flo => BitCount,
            Op::Fadd | Op::Fmul | Op::Ffma | Op::Fmnmx | Op::Fsel => Fp32,
            Op::Fchk => Fp32Compare,
            Op::Fsetp => Fp32Compare,
            Op::Hadd2 | Op::Hmul2 | Op::Hfma2 | Op::Hmnmx2 | Op::Hset2 | Op::Hsetp2 => Fp16,
            Op::Dadd | Op::Dfma | Op::Dmul | Op::Dsetp => Fp64,
            Op::Mufu => Transcendental,
            Op::F2i | Op::I2f | Op::I2fp | Op::F2f | Op::F2fp | Op::Frnd | Op::I2i | Op::I2ip => {
                Conversion
            }
            // Assumed, not measured: F2IP with the conversions, as I2IP.
            Op::F2ip => Conversion,
            Op::Plop3 | Op::P2r | Op::R2p => PredLogic,
            Op::Uiadd3
            | Op::Ulop3
            | Op::Ushf
            | Op::Uisetp
            | Op::Usel
            | Op::Uprmt
            | Op::Upopc
            | Op::Ubrev
            | Op::Ubmsk
            | Op::Uimad
            | Op::Umov
            | Op::Ulea
            | Op::Uflo
            | Op::Uplop3 => Uniform,
            // Assumed, not measured: the uniform twins of P2R/R2P on the uniform datapath.
            Op::Up2ur | Op::Ur2up => Uniform,
            Op::R2ur | Op::Voteu | Op::Redux => ToUniform,
            Op::S2r | Op::Cs2r | Op::S2ur => SpecialReg,
            Op::Shfl | Op::Vote | Op::Match => Warp,
            Op::Ldc | Op::Uldc => ConstLoad,
            Op::Ldg
            | Op::Stg
            | Op::Ld
            | Op::St
            | Op::Atom
            | Op::Red
            | Op::Redg
            | Op::Atomg
            | Op::Suld
            | Op::Sust
            | Op::Sured => GlobalMem,
            // Assumed, not measured (the latency probes have no texture): the texture
            // unit reads memory through its own cache, with a write scoreboard as loads.
            Op::Tex | Op::Tld | Op::Tld4 | Op::Txd | Op::Txq => GlobalMem,
            // Assumed, not measured: SM90's barrier operations are shared-memory atomics
            // on the barrier word, with a write scoreboard.
            Op::Syncs => SharedMem,
            // Assumed, not measured (no latency probe expresses them): SM90's bulk and
            // tensor-map copies move global memory behind the program's back, as LDGSTS
            // (their class); their remote stores and reductions into another block's
            // shared memory are shared-memory stores; the tensor map's cache control is
            // a barrier-like bookkeeping operation.
            Op::Utmaldg
            | Op::Utmastg
            | Op::Utmaredg
            | Op::Utmapf
            | Op::Ublkcp
            | Op::Ublkred
            | Op::Ublkpf => GlobalMem,
            Op::Stas | Op::Redas => SharedMem,
            Op::Utmacctl => Sync,
            Op::Lds | Op::Ldsm | Op::Sts | Op::Stsm | Op::Atoms => SharedMem,
            Op::Ldl | Op::Stl => LocalMem,
            Op::Bra
            | Op::Brx
            | Op::Call
            | Op::Ret
            | Op::Exit
            | Op::Endcollective
            | Op::Bssy
            | Op::Bsync
            | Op::Break
            | Op::Warpsync
            | Op::Yield
            | Op::Nanosleep
            | Op::Bmov
            | Op::Rpcmov => Control,
            Op::Bar
            | Op::Membar
            | Op::Errbar
            | Op::Cgaerrbar
            | Op::Cctl
            | Op::Cctll
            | Op::Depbar => Sync,
            Op::Nop => Nop,
        }
    }
}

impl fmt::Display for LatencyClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
