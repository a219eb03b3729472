//! Keys of dynamic token instances: two lanes' instances converge exactly when their keys
//! are equal. Keys are interned, so equal chains (entry, loop counts, ...) get one id.

use std::cell::RefCell;
use std::collections::HashMap;

use tangle_ir::{Block, Func, Inst, Value};

/// The id of an interned key.
pub(crate) type KeyId = u32;

/// A program point in a function: instruction `idx` of `block`.
pub(crate) type Point = (Block, usize);

/// What a key stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum KeyData {
    /// The entry point's call frame: the lanes of a subgroup start converged.
    Root,
    /// The call frame made by one instance of a controlled call (`token`: its token's
    /// instance), so the callee's `conv_entry` converges the lanes that called together.
    Call {
        func: Func,
        inst: Inst,
        token: KeyId,
    },
    /// The call frame of an uncontrolled call (of a non-convergent function): one per lane
    /// and call, converged with nothing.
    Alone { serial: u64, depth: u32 },
    /// `conv_entry` in a call frame.
    Entry { frame: KeyId },
    /// The `count`-th execution of `conv_loop` `inst` with its token's instance `parent`.
    Loop {
        func: Func,
        inst: Inst,
        parent: KeyId,
        count: u32,
    },
    /// One release of anchor `inst` in call frame `frame`.
    Anchor {
        func: Func,
        inst: Inst,
        frame: KeyId,
        serial: u64,
    },
}

/// An interned key with the call frame it belongs to and that frame's depth.
#[derive(Clone, Copy, Debug)]
struct KeyInfo {
    data: KeyData,
    frame: KeyId,
    depth: u32,
}

/// A reachability question (`reach.rs`), cached per run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ReachQuery {
    pub(crate) func: Func,
    pub(crate) from: Point,
    pub(crate) to: Point,
    pub(crate) avoid: Option<Point>,
}

/// The token engine's state of one run: the keys, and caches of static facts. It is cloned
/// with the rest of the run at the exhaustive search's choice points.
#[derive(Clone, Debug)]
pub(crate) struct TokenState {
    keys: Vec<KeyInfo>,
    map: HashMap<KeyData, KeyId>,
    serial: u64,
    pub(crate) reach: RefCell<HashMap<ReachQuery, bool>>,
    pub(crate) points: RefCell<HashMap<(Func, Inst), Point>>,
}

impl Default for TokenState {
    fn default() -> Self {
        let mut s = TokenState {
            keys: Vec::new(),
            map: HashMap::new(),
            serial: 0,
            reach: RefCell::new(HashMap::new()),
            points: RefCell::new(HashMap::new()),
        };
        let root = s.intern(KeyData::Root);
        debug_assert_eq!(root, ROOT);
        s
    }
}

/// The key of the entry point's frame.
pub(crate) const ROOT: KeyId = 0;

impl TokenState {
    /// The id of `data`, interned.
    pub(crate) fn intern(&mut self, data: KeyData) -> KeyId {
        if let Some(&k) = self.map.get(&data) {
            return k;
        }
        let id = self.keys.len() as KeyId;
        let (frame, depth) = match data {
            KeyData::Root => (id, 0),
            KeyData::Call { token, .. } => (id, self.depth(self.frame_of(token)) + 1),
            KeyData::Alone { depth, .. } => (id, depth),
            KeyData::Entry { frame } | KeyData::Anchor { frame, .. } => (frame, self.depth(frame)),
            KeyData::Loop { parent, .. } => {
                let f = self.frame_of(parent);
                (f, self.depth(f))
            }
        };
        self.keys.push(KeyInfo { data, frame, depth });
        self.map.insert(data, id);
        id
    }

    /// A number never handed out before (anchor releases, uncontrolled calls).
    pub(crate) fn serial(&mut self) -> u64 {
        self.serial += 1;
        self.serial
    }

    /// What key `k` stands for.
    pub(crate) fn data(&self, k: KeyId) -> KeyData {
        self.keys[k as usize].data
    }

    /// The call frame key `k` belongs to.
    pub(crate) fn frame_of(&self, k: KeyId) -> KeyId {
        self.keys[k as usize].frame
    }

    /// The call depth (0: the entry point) of the frame key `k` belongs to.
    pub(crate) fn depth(&self, k: KeyId) -> u32 {
        self.keys[k as usize].depth
    }
}

/// A lane's token state in one call frame: the frame's key, the key of each token value
/// it holds, and its loop counters.
#[derive(Clone, Debug, Default)]
pub(crate) struct TokenFrame {
    /// The frame's key ([`ROOT`] in the entry point).
    pub(crate) frame: KeyId,
    values: Vec<(Value, KeyId)>,
    counts: Vec<(Inst, KeyId, u32)>,
}

impl TokenFrame {
    /// The key of token value `v`, if the lane has defined it in this frame.
    pub(crate) fn value(&self, v: Value) -> Option<KeyId> {
        self.values.iter().find(|(w, _)| *w == v).map(|(_, k)| *k)
    }

    /// Sets token value `v` to key `k`.
    pub(crate) fn set(&mut self, v: Value, k: KeyId) {
        match self.values.iter_mut().find(|(w, _)| *w == v) {
            Some(e) => e.1 = k,
            None => self.values.push((v, k)),
        }
    }

    /// `conv_loop` `inst`'s counter: the parent instance it counts for, and how many times
    /// the lane executed it with that parent.
    pub(crate) fn count(&self, inst: Inst) -> Option<(KeyId, u32)> {
        self.counts
            .iter()
            .find(|(i, _, _)| *i == inst)
            .map(|(_, p, c)| (*p, *c))
    }

    /// Counts one execution of `conv_loop` `inst` with parent instance `parent`: the
    /// counter restarts at 1 for a new parent instance. Returns the count.
    pub(crate) fn bump(&mut self, inst: Inst, parent: KeyId) -> u32 {
        match self.counts.iter_mut().find(|(i, _, _)| *i == inst) {
            Some(e) if e.1 == parent => {
                e.2 += 1;
                e.2
            }
            Some(e) => {
                *e = (inst, parent, 1);
                1
            }
            None => {
                self.counts.push((inst, parent, 1));
                1
            }
        }
    }
}
