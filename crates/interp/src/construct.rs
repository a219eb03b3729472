//! Construct instances and reconvergence: where a branch goes (on, or escaping to a wait
//! point), arrivals, releases, lanes ending, and the case instances of
//! [`FallthroughPolicy::Merge`](crate::FallthroughPolicy::Merge).

use tangle_ir::{Block, Merge, Terminator};

use crate::config::Variant;
use crate::error::R;
use crate::state::{lanes_of, Instance, Kind, Run, Subgroup, Tangle};
use crate::Mask;

/// Where a branch goes, seen from a tangle's construct stack.
enum Dest {
    /// Escape to (or arrive at) the instance at this stack index.
    Wait(usize),
    /// Just move there.
    Plain,
}

impl Run<'_, '_> {
    /// Pushes a new instance of `kind` with `t`'s lanes as participants onto `t`'s stack.
    pub(crate) fn push_instance(sg: &mut Subgroup, t: &mut Tangle, kind: Kind) {
        let instance = Instance {
            kind,
            participants: t.mask,
            arrivals: sg.spare.arrivals(),
            frames: sg.spare.frames(&t.frames),
            below: sg.spare.stack(&t.stack),
            order_dependent: false,
        };
        let id = sg.alloc(instance);
        t.stack.push(id);
    }

    /// For [`FallthroughPolicy::Merge`](crate::FallthroughPolicy::Merge): pushes a case
    /// instance for every case target that another case construct falls through into, onto
    /// the stacks of the groups that can reach it (its own group and those of the chain
    /// before it), farthest target first.
    pub(crate) fn case_instances(
        &mut self,
        sg: &mut Subgroup,
        t: &Tangle,
        groups: &[(Block, u64, Mask)],
        stacks: &mut [Vec<usize>],
    ) {
        let fr = t.frames.last().expect("frame");
        let func = &self.module().funcs[fr.func];
        let Some(Merge::Selection { merge, .. }) = func.blocks[fr.block].merge else {
            return;
        };
        let Terminator::Switch { default, cases, .. } = &func.blocks[fr.block].term else {
            return;
        };
        let mut targets = vec![*default];
        for (_, b) in cases {
            if !targets.contains(b) {
                targets.push(*b);
            }
        }
        targets.retain(|b| *b != merge);
        // into[i] = the target that target i falls through into (the construct tree's
        // executable fallthrough, decoded once per module).
        let facts = &self.it.facts[fr.func.as_u32() as usize];
        let pairs: &[(Block, Option<Block>)] = facts
            .fallthrough
            .iter()
            .find(|(h, _)| *h == fr.block)
            .map_or(&[], |(_, p)| p.as_slice());
        let into: Vec<Option<usize>> = targets
            .iter()
            .map(|&from| {
                let (_, to) = pairs.iter().find(|(b, _)| *b == from)?;
                let to = (*to)?;
                targets.iter().position(|&x| x == to && x != from)
            })
            .collect();
        // The targets reachable from each target along the chain, nearest first.
        let chain = |i: usize| {
            let mut v = vec![i];
            let mut k = i;
            while let Some(n) = into[k] {
                if v.contains(&n) {
                    break;
                }
                v.push(n);
                k = n;
            }
            v
        };
        let has_pred = |j: usize| into.contains(&Some(j));
        let mut participants = vec![0 as Mask; targets.len()];
        for (b, _, mask) in groups {
            if let Some(i) = targets.iter().position(|x| x == b) {
                for j in chain(i) {
                    participants[j] |= mask;
                }
            }
        }
        let mut ids = vec![None; targets.len()];
        for j in 0..targets.len() {
            if has_pred(j) && participants[j] != 0 {
                ids[j] = Some(sg.alloc(Instance {
                    kind: Kind::Case { target: targets[j] },
                    participants: participants[j],
                    arrivals: Vec::new(),
                    frames: t.frames.clone(),
                    below: t.stack.clone(),
                    order_dependent: false,
                }));
            }
        }
        for ((b, _, _), stack) in groups.iter().zip(stacks.iter_mut()) {
            if let Some(i) = targets.iter().position(|x| x == b) {
                for j in chain(i).into_iter().rev() {
                    if let Some(id) = ids[j] {
                        stack.push(id);
                    }
                }
            }
        }
        // Instances below a case instance on some stacks must list the right `below`.
        for j in 0..targets.len() {
            if let Some(id) = ids[j] {
                let mut below = t.stack.clone();
                for k in chain(j).into_iter().skip(1).rev() {
                    if let Some(o) = ids[k] {
                        below.push(o);
                    }
                }
                sg.inst_mut(id).below = below;
            }
        }
    }

    /// Lanes of `t` end: they leave every instance.
    pub(crate) fn exit(&mut self, sg: &mut Subgroup, t: &Tangle) -> R<()> {
        if self.order.is_some() {
            self.order_exit(sg, t);
        }
        for lane in lanes_of(t.mask) {
            sg.lanes[lane].alive = false;
        }
        for &i in &t.stack {
            sg.inst_mut(i).participants &= !t.mask;
        }
        self.check_all(sg, &t.stack)
    }

    fn check_all(&mut self, sg: &mut Subgroup, stack: &[usize]) -> R<()> {
        for &i in stack.iter().rev() {
            if sg.instances[i].is_some() {
                self.check(sg, i)?;
            }
        }
        Ok(())
    }

    /// Where a branch from tangle `t` to `target` goes.
    fn dest(&self, sg: &Subgroup, t: &Tangle, target: Block) -> Dest {
        for (j, &i) in t.stack.iter().enumerate().rev() {
            match sg.inst(i).kind {
                Kind::Call { .. } => break,
                Kind::Iteration { cont } if cont == target => return Dest::Wait(j),
                Kind::Loop { merge, .. }
                | Kind::Selection { merge }
                | Kind::Case { target: merge }
                    if merge == target =>
                {
                    return Dest::Wait(j)
                }
                _ => {}
            }
        }
        Dest::Plain
    }

    /// Moves tangle `t` (positioned at the block it leaves) along an edge to `target`.
    pub(crate) fn branch(
        &mut self,
        sg: &mut Subgroup,
        mut t: Tangle,
        target: Block,
    ) -> R<Option<Tangle>> {
        let top = t.frames.last().expect("frame");
        let (from, fi) = (top.block, top.func.as_u32() as usize);
        let prev = &mut sg.values[fi].prev;
        for lane in lanes_of(t.mask) {
            prev[lane] = Some(from);
        }
        match self.dest(sg, &t, target) {
            Dest::Wait(j) => {
                self.escape(sg, &t, j, target)?;
                sg.spare.tangle(t);
                Ok(None)
            }
            Dest::Plain => {
                if self.it.config.variant == Variant::BreakNotSplitByIteration {
                    // Known-wrong: wait for the whole loop at the break block itself.
                    if let Some(j) = self.break_block_wait(sg, &t, target) {
                        self.escape(sg, &t, j, target)?;
                        sg.spare.tangle(t);
                        return Ok(None);
                    }
                }
                t.frames.last_mut().expect("frame").block = target;
                self.enter(sg, &mut t)?;
                Ok(Some(t))
            }
        }
    }

    /// For [`Variant::BreakNotSplitByIteration`]: if `target` is a break block (a block that
    /// branches straight to the merge of the innermost loop on the stack, entered by a
    /// conditional branch), the stack index of that loop.
    fn break_block_wait(&self, sg: &Subgroup, t: &Tangle, target: Block) -> Option<usize> {
        let func = &self.module().funcs[t.frames.last()?.func];
        let Terminator::Branch(next) = func.blocks[target].term else {
            return None;
        };
        for (j, &i) in t.stack.iter().enumerate().rev() {
            match sg.inst(i).kind {
                Kind::Call { .. } => return None,
                Kind::Loop { merge, .. } => return (merge == next).then_some(j),
                _ => {}
            }
        }
        None
    }

    /// Lanes of `t` escape to the instance at stack index `j` and wait there at `at`.
    pub(crate) fn escape(&mut self, sg: &mut Subgroup, t: &Tangle, j: usize, at: Block) -> R<()> {
        if self.order.is_some() {
            self.order_escape(sg, t, j);
        }
        for &i in &t.stack[j + 1..] {
            sg.inst_mut(i).participants &= !t.mask;
        }
        let target = t.stack[j];
        let inst = sg.inst_mut(target);
        match inst.arrivals.iter_mut().find(|(b, _)| *b == at) {
            Some(a) => a.1 |= t.mask,
            None => inst.arrivals.push((at, t.mask)),
        }
        self.check_all(sg, &t.stack[j..])
    }

    /// Releases instance `id` if every participant has arrived; drops it if it has none.
    pub(crate) fn check(&mut self, sg: &mut Subgroup, id: usize) -> R<()> {
        let inst = sg.inst(id);
        let arrived = inst.arrivals.iter().fold(0, |m, a| m | a.1);
        if inst.participants != 0 && arrived != inst.participants {
            return Ok(());
        }
        let inst = sg.instances[id].take().expect("instance");
        sg.free.push(id);
        if inst.participants == 0 {
            sg.spare.keep_frames(inst.frames);
            sg.spare.keep_stack(inst.below);
            sg.spare.keep_arrivals(inst.arrivals);
            return Ok(());
        }
        match inst.kind {
            Kind::Call { .. } => {
                sg.spare.keep_arrivals(inst.arrivals);
                let mut frames = inst.frames;
                frames.last_mut().expect("caller").idx += 1;
                let serial = self.next_serial();
                sg.tangles.push(Tangle {
                    serial,
                    mask: arrived,
                    frames,
                    stack: inst.below,
                    at_barrier: false,
                });
            }
            _ => {
                let Instance {
                    kind,
                    mut arrivals,
                    frames: inst_frames,
                    below: mut inst_below,
                    order_dependent,
                    ..
                } = inst;
                if order_dependent && self.order.is_some() {
                    let fi = inst_frames.last().expect("frame").func.as_u32() as usize;
                    self.order_release(sg, fi, kind, arrived);
                }
                if arrivals.len() > 1 {
                    // Only under BreakNotSplitByIteration: the groups rejoin at the merge.
                    let Kind::Loop { merge, .. } = kind else {
                        unreachable!()
                    };
                    let r = sg.alloc(Instance {
                        kind: Kind::Selection { merge },
                        participants: arrived,
                        arrivals: Vec::new(),
                        frames: inst_frames.clone(),
                        below: inst_below.clone(),
                        order_dependent: false,
                    });
                    inst_below.push(r);
                }
                // The released instance's frames and stack move into the last new tangle
                // (the only one, but under BreakNotSplitByIteration): no copies.
                let n = arrivals.len();
                let (mut frames_left, mut below_left) = (Some(inst_frames), Some(inst_below));
                for (k, &(b, mask)) in arrivals.iter().enumerate() {
                    let (mut frames, stack) = if k + 1 == n {
                        (
                            frames_left.take().expect("moved once"),
                            below_left.take().expect("moved once"),
                        )
                    } else {
                        (
                            frames_left.clone().expect("not moved yet"),
                            below_left.clone().expect("not moved yet"),
                        )
                    };
                    frames.last_mut().expect("frame").block = b;
                    let serial = self.next_serial();
                    let t = Tangle {
                        serial,
                        mask,
                        frames,
                        stack,
                        at_barrier: false,
                    };
                    // The arrival block may itself be a wait point of an outer instance.
                    match self.dest(sg, &t, b) {
                        Dest::Wait(j) => {
                            self.escape(sg, &t, j, b)?;
                            sg.spare.tangle(t);
                        }
                        Dest::Plain => {
                            let mut t = t;
                            self.enter(sg, &mut t)?;
                            sg.tangles.push(t);
                        }
                    }
                }
                if let Some(o) = &mut self.order {
                    o.entering = 0;
                }
                arrivals.clear();
                sg.spare.keep_arrivals(arrivals);
            }
        }
        Ok(())
    }
}
