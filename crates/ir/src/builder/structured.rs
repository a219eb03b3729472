//! Structured control flow on a [`FunctionBuilder`]: each helper opens a construct with its
//! merge annotation and blocks, and closing it branches every still-open path to the merge
//! block, so what comes out follows SPIR-V's structured rules (checked by the tests with the
//! verifier). Branches out of a construct go only to the merge of the innermost loop or
//! switch (`break`) or the innermost loop's continue target (`continue`), as SPIR-V allows.
//!
//! ```text
//! let mut f = b.begin_if(cond, true);   // header: selection_merge, br_if
//! ...                                   // then
//! b.begin_else(&mut f);
//! ...                                   // else
//! b.end_if(f);                          // the cursor is in the merge block
//! ```

use spirv::{LoopControl, SelectionControl};

use super::FunctionBuilder;
use crate::module::{Block, Merge, Operand, Terminator};

/// An open if/else.
#[derive(Debug)]
pub struct IfElse {
    /// The header block.
    pub header: Block,
    /// The first block of the then branch.
    pub then_block: Block,
    /// The first block of the else branch, if there is one.
    pub else_block: Option<Block>,
    /// The merge block.
    pub merge: Block,
    /// The blocks that branched to the merge block when their branch closed.
    pub incoming: Vec<Block>,
}

/// An open loop.
#[derive(Debug)]
pub struct Loop {
    /// The loop header (`loop_merge`).
    pub header: Block,
    /// The first block of the body.
    pub body: Block,
    /// The continue target.
    pub continue_target: Block,
    /// The merge block.
    pub merge: Block,
}

/// An open switch.
#[derive(Debug)]
pub struct Switch {
    /// The header block.
    pub header: Block,
    /// The merge block.
    pub merge: Block,
    /// The targets in operand order: the default first (the merge block when there is no
    /// default case), then one per case literal.
    pub targets: Vec<Block>,
    /// How many targets have been entered.
    entered: usize,
    /// Whether the default is a case of its own (rather than the merge block).
    has_default: bool,
}

impl FunctionBuilder<'_> {
    /// Branches to `target` if the current block is still open.
    fn close_to(&mut self, target: Block) -> Option<Block> {
        if self.is_open() {
            let b = self.current_block();
            self.br(target);
            b
        } else {
            None
        }
    }

    /// Ends the current block with `selection_merge` and `br_if cond`; the cursor moves to
    /// the then branch. Without `with_else`, a false condition goes to the merge block.
    pub fn begin_if(&mut self, cond: Operand, with_else: bool) -> IfElse {
        let header = self.current_block().expect("the builder is in a block");
        let then_block = self.create_detached_block();
        let else_block = with_else.then(|| self.create_detached_block());
        let merge = self.create_detached_block();
        self.function_mut().blocks[header].merge = Some(Merge::Selection {
            merge,
            control: SelectionControl::NONE,
        });
        self.br_if(cond, then_block, else_block.unwrap_or(merge));
        self.switch_to_block(then_block);
        IfElse {
            header,
            then_block,
            else_block,
            merge,
            incoming: if with_else { Vec::new() } else { vec![header] },
        }
    }

    /// Closes the then branch and moves to the else branch.
    pub fn begin_else(&mut self, f: &mut IfElse) {
        let e = f.else_block.expect("begin_if was asked for an else branch");
        f.incoming.extend(self.close_to(f.merge));
        self.switch_to_block(e);
    }

    /// Closes the open branch and moves to the merge block. A merge block nothing branches
    /// to stays unreachable (it ends in `unreachable` unless more code is added).
    pub fn end_if(&mut self, mut f: IfElse) -> IfElse {
        f.incoming.extend(self.close_to(f.merge));
        self.switch_to_block(f.merge);
        f
    }

    /// Branches to a new loop header (`loop_merge`, then `br` to the body) and moves to the
    /// body.
    pub fn begin_loop(&mut self) -> Loop {
        let header = self.create_detached_block();
        self.close_to(header);
        let body = self.create_detached_block();
        let continue_target = self.create_detached_block();
        let merge = self.create_detached_block();
        self.switch_to_block(header);
        self.function_mut().blocks[header].merge = Some(Merge::Loop {
            merge,
            continue_target,
            control: LoopControl::NONE,
            params: [0; 6],
        });
        self.br(body);
        self.switch_to_block(body);
        Loop {
            header,
            body,
            continue_target,
            merge,
        }
    }

    /// Leaves the loop: `br` to its merge block.
    pub fn loop_break(&mut self, l: &Loop) {
        self.br(l.merge);
    }

    /// Goes to the next iteration: `br` to the continue target.
    pub fn loop_continue(&mut self, l: &Loop) {
        self.br(l.continue_target);
    }

    /// Closes the body (an open block branches to the continue target) and moves to the
    /// continue target, where the continue construct is built.
    pub fn begin_continue(&mut self, l: &Loop) {
        self.close_to(l.continue_target);
        self.switch_to_block(l.continue_target);
    }

    /// Ends the continue construct with the back edge: `br_if repeat, header, merge`, or an
    /// unconditional `br header` when `repeat` is `None` (the loop is left by breaks only).
    /// Moves to the merge block. Calls [`Self::begin_continue`] first if it was not.
    pub fn end_loop(&mut self, l: Loop, repeat: Option<Operand>) {
        if self.is_detached(l.continue_target) {
            self.begin_continue(&l);
        }
        match repeat {
            Some(c) => self.br_if(c, l.header, l.merge),
            None => self.br(l.header),
        }
        self.switch_to_block(l.merge);
    }

    /// Ends the current block with `selection_merge` and a `switch` on `selector`: one case
    /// per literal and, with `has_default`, a default case (else the default target is the
    /// merge block). Move through the cases with [`Self::next_case`].
    pub fn begin_switch(
        &mut self,
        selector: Operand,
        literals: &[u64],
        has_default: bool,
    ) -> Switch {
        let header = self.current_block().expect("the builder is in a block");
        let merge = self.create_detached_block();
        let default = if has_default {
            self.create_detached_block()
        } else {
            merge
        };
        let cases: Vec<(u64, Block)> = literals
            .iter()
            .map(|&l| (l, self.create_detached_block()))
            .collect();
        self.function_mut().blocks[header].merge = Some(Merge::Selection {
            merge,
            control: SelectionControl::NONE,
        });
        let mut targets = vec![default];
        targets.extend(cases.iter().map(|c| c.1));
        self.terminate(Terminator::Switch {
            selector,
            default,
            cases,
        });
        Switch {
            header,
            merge,
            targets,
            entered: if has_default { 0 } else { 1 },
            has_default,
        }
    }

    /// Moves to the next case in operand order (the default first, if it is a case) and
    /// returns its block; `None` when every case has been entered. If the previous case is
    /// still open it falls through into this one.
    pub fn next_case(&mut self, s: &mut Switch) -> Option<Block> {
        let target = *s.targets.get(s.entered)?;
        let first = s.entered == if s.has_default { 0 } else { 1 };
        if !first {
            self.close_to(target);
        }
        s.entered += 1;
        self.switch_to_block(target);
        Some(target)
    }

    /// Leaves the switch: `br` to its merge block.
    pub fn switch_break(&mut self, s: &Switch) {
        self.br(s.merge);
    }

    /// Closes the open case (it branches to the merge block), gives every case not yet
    /// entered a `br` to the merge block, and moves to the merge block.
    pub fn end_switch(&mut self, mut s: Switch) {
        self.close_to(s.merge);
        while s.entered < s.targets.len() {
            let t = s.targets[s.entered];
            s.entered += 1;
            self.switch_to_block(t);
            self.br(s.merge);
        }
        self.switch_to_block(s.merge);
    }
}
