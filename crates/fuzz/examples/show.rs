//! Prints the GLSL of one seed's program: `cargo run -p tangle-fuzz --example show -- SEED [NESTING]`.

fn main() {
    let mut args = std::env::args().skip(1);
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let nesting = args.next().and_then(|s| s.parse().ok()).unwrap_or(4);
    let program = tangle_fuzz::generate(
        seed,
        tangle_fuzz::GenConfig {
            nesting,
            size_budget: 40,
        },
    );
    print!("{}", tangle_fuzz::glsl::to_glsl(&program));
}
