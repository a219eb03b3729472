//! The state of one warp: registers of every file, per-lane convergence barriers and
//! break flags, each lane's status, and the partition of the ready lanes into groups.

use crate::memory::LOCAL_BYTES;

/// What a lane is doing (`../shared/barrier-semantics.md` §(a)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// In an issue group.
    Ready,
    /// Waiting at a `BSYNC Bk` with the mask `w` captured when it arrived.
    WaitB {
        /// The barrier index.
        k: u8,
        /// The lanes it waits for.
        w: u32,
    },
    /// Waiting at a `WARPSYNC` for the lanes of `mask`; `collective` is the target of
    /// `WARPSYNC.COLLECTIVE` (where the lane goes after the collective body).
    WaitW {
        /// The lanes to rendezvous with.
        mask: u32,
        /// `Some(T)` for `WARPSYNC.COLLECTIVE R, T`.
        collective: Option<u32>,
    },
    /// Waiting at a block-wide `BAR.SYNC`.
    WaitBar,
    /// Exited.
    Exited,
}

/// One lane's status and, while it waits, where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lane {
    /// The status.
    pub status: Status,
    /// The address it waits at (meaningful while not `Ready`).
    pub pc: u32,
}

/// Lanes that issue together at one program point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    /// A stable identity while the group lives.
    pub id: u64,
    /// Its lanes.
    pub mask: u32,
    /// Its program counter.
    pub pc: u32,
    /// The engine's step when it last issued (0: never).
    pub last_issued: u64,
}

/// Registers: 255 general (RZ reads zero), 63 uniform (URZ), 7 predicates (PT), 7 uniform
/// predicates (UPT), 16 convergence barriers, per lane.
///
/// Uniform registers and predicates are kept per lane (see `docs/sim.md`): a uniform
/// instruction writes the copies of the lanes of the group that issues it.
#[derive(Clone, Debug)]
pub struct Warp {
    /// The warp's index in its block.
    pub index: u32,
    /// `r[reg * 32 + lane]`.
    pub r: Vec<u32>,
    /// `ur[reg * 32 + lane]`.
    pub ur: Vec<u32>,
    /// Predicate `n` as a lane mask; `p[7]` is all ones.
    pub p: [u32; 8],
    /// Uniform predicate `n` as a lane mask (per-lane copies); `up[7]` is all ones.
    pub up: [u32; 8],
    /// `b[k * 32 + lane]`: lane `lane`'s copy of barrier `Bk`.
    pub b: Vec<u32>,
    /// `brk[k]`: the lanes whose break flag for `Bk` is set.
    pub brk: [u32; 16],
    /// Whether the barrier registers are one per warp (a rejected model).
    pub per_warp_b: bool,
    /// Each lane's status.
    pub lanes: [Lane; 32],
    /// The issue groups (a partition of the ready lanes).
    pub groups: Vec<Group>,
    /// Lanes whose group executed `YIELD` and has not issued since.
    pub yielded: u32,
    /// Each lane's local memory, grown on first use.
    pub local: Vec<Vec<u8>>,
    /// Each lane's thread index (x, y, z).
    pub tid: [[u32; 3]; 32],
    /// Hazard mode's state: lane clocks and registers in flight.
    pub hz: crate::hazard::HazardState,
}

/// Iterates the set bits of a mask, lowest first.
pub fn lanes(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

impl Warp {
    /// A warp whose lanes in `live` start ready at address 0 (the others are exited).
    pub fn new(index: u32, live: u32, tid: [[u32; 3]; 32], per_warp_b: bool, gid: u64) -> Warp {
        let mut lanes_state = [Lane {
            status: Status::Exited,
            pc: 0,
        }; 32];
        for l in lanes(live) {
            lanes_state[l].status = Status::Ready;
        }
        Warp {
            index,
            r: vec![0; 256 * 32],
            ur: vec![0; 64 * 32],
            p: [0, 0, 0, 0, 0, 0, 0, !0],
            up: [0, 0, 0, 0, 0, 0, 0, !0],
            b: vec![0; 16 * 32],
            brk: [0; 16],
            per_warp_b,
            lanes: lanes_state,
            groups: if live == 0 {
                Vec::new()
            } else {
                vec![Group {
                    id: gid,
                    mask: live,
                    pc: 0,
                    last_issued: 0,
                }]
            },
            yielded: 0,
            local: vec![Vec::new(); 32],
            tid,
            hz: crate::hazard::HazardState::new(),
        }
    }

    /// Lane `lane`'s copy of `Bk` (lane 0's slot for every lane under per-warp barriers).
    pub fn bget(&self, lane: usize, k: u8) -> u32 {
        let l = if self.per_warp_b { 0 } else { lane };
        self.b[k as usize * 32 + l]
    }

    /// Sets lane `lane`'s copy of `Bk`.
    pub fn bset(&mut self, lane: usize, k: u8, v: u32) {
        let l = if self.per_warp_b { 0 } else { lane };
        self.b[k as usize * 32 + l] = v;
    }

    /// The lanes with the given status predicate.
    pub fn mask_where(&self, f: impl Fn(&Status) -> bool) -> u32 {
        let mut m = 0;
        for (l, lane) in self.lanes.iter().enumerate() {
            if f(&lane.status) {
                m |= 1 << l;
            }
        }
        m
    }

    /// The exited lanes.
    pub fn exited(&self) -> u32 {
        self.mask_where(|s| *s == Status::Exited)
    }

    /// Whether every lane has exited.
    pub fn done(&self) -> bool {
        self.exited() == !0
    }

    /// Lane `lane`'s local memory, grown to cover `end` bytes (at most [`LOCAL_BYTES`]).
    pub fn local_mem(&mut self, lane: usize, end: u64) -> &mut Vec<u8> {
        let m = &mut self.local[lane];
        if end <= LOCAL_BYTES as u64 && (m.len() as u64) < end {
            m.resize(LOCAL_BYTES as usize, 0);
        }
        m
    }

    /// Adds a group of `mask` at `pc`, merging with nothing (its lanes' hazard clocks join).
    pub fn add_group(&mut self, id: u64, mask: u32, pc: u32, step: u64) {
        if mask != 0 {
            self.hz.join(mask);
            self.groups.push(Group {
                id,
                mask,
                pc,
                last_issued: step,
            });
        }
    }
}
