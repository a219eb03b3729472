//! A GLSL shader as the front end reads it (copied from the IR filetests): a loop with break
//! and continue, a call, a switch with fallthrough, push constants, shared memory, a
//! barrier, an atomic, a ballot and a reduction. It must run under every schedule policy,
//! several subgroup sizes and spec-constant values, with the same tangles.

use tangle_interp::{Config, FallthroughPolicy, Interpreter, SchedulePolicy};

#[test]
fn glsl_shader_runs_with_the_same_tangles_under_every_policy() {
    let text = include_str!("data/glsl_loop.tir");
    let m = tangle_ir::text::parse(text).unwrap();
    tangle_ir::verify::verify(&m).unwrap();
    for (size, k, ft) in [4u32, 32]
        .into_iter()
        .flat_map(|s| [3u64, 5].map(|k| (s, k)))
        .flat_map(|(s, k)| {
            [FallthroughPolicy::Independent, FallthroughPolicy::Merge].map(|f| (s, k, f))
        })
    {
        {
            let mut base = None;
            for p in [
                SchedulePolicy::LowestLaneFirst,
                SchedulePolicy::NewestFirst,
                SchedulePolicy::Random(3),
            ] {
                let mut c = Config {
                    subgroup_size: size,
                    schedule_policy: p,
                    workgroups: [2, 1, 1],
                    fallthrough_policy: ft,
                    ..Config::default()
                };
                c.spec_constants.insert(0, k);
                let mut it = Interpreter::new(&m, "main", c).unwrap();
                let input: Vec<u8> = (0..64u32)
                    .flat_map(|i| (i * 7 % 11).to_le_bytes())
                    .collect();
                it.bind_buffer(0, 0, input);
                it.bind_buffer(0, 1, vec![0; 4 * 128]);
                it.set_push_constants(5u32.to_le_bytes().to_vec());
                let o = it
                    .run()
                    .unwrap_or_else(|e| panic!("size {size} k {k} {p:?}: {e}"));
                assert!(!o.trace.is_empty());
                let mut t = o.trace;
                t.sort();
                match &base {
                    None => base = Some(t),
                    Some(b) => assert_eq!(b, &t, "size {size} k {k} {p:?}"),
                }
            }
        }
    }
}
