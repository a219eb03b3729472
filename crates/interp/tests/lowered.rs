//! The interpreter refuses lowered functions with a configuration error, not a panic.

use tangle_interp::{Config, InterpError, Interpreter};

#[test]
fn an_entry_point_reaching_a_lowered_function_is_refused() {
    let text = include_str!("../../ir/tests/modules/lowered_barriers.tir");
    let module = tangle_ir::text::parse(text).unwrap();
    tangle_ir::verify::verify(&module).unwrap();
    match Interpreter::new(&module, "main", Config::default()) {
        Err(InterpError::Config(message)) => assert_eq!(
            message,
            "function f0 is lowered; the reference interpreter runs structured functions only"
        ),
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("a lowered function was accepted"),
    }
}
