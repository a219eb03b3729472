//! What a function's form allows: a structured function has no lowered-only operation (the
//! warp barriers and `exit`); a lowered function has no merge annotation. The rules of the
//! structured form itself (constructs, maximal reconvergence) are in `structure.rs` and run
//! only for structured functions.

use super::{Location, Point, Rule, Sink};
use crate::module::{Form, Func, Function};
use crate::ops::Forms;

pub(super) fn check(f: Func, func: &Function, form: Form, sink: &mut Sink) {
    for &b in &func.layout {
        let block = &func.blocks[b];
        if form == Form::Structured {
            for (k, &i) in block.insts.iter().enumerate() {
                let inst = &func.insts[i];
                if inst.op.forms() == Forms::LoweredOnly {
                    sink.report(
                        Rule::Form,
                        Location {
                            func: Some(f),
                            block: Some(b),
                            point: Some(Point::Inst(k)),
                            value: inst.result,
                        },
                        format!(
                            "`{}` is allowed only in lowered functions",
                            inst.op.mnemonic()
                        ),
                    );
                }
            }
        }
        if form == Form::Lowered && block.merge.is_some() {
            sink.report(
                Rule::Form,
                Location {
                    func: Some(f),
                    block: Some(b),
                    point: Some(Point::Terminator),
                    value: None,
                },
                "a lowered function has no merge annotations",
            );
        }
    }
}
