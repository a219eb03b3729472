//! Reads a SPIR-V binary and prints its IR and verifier report (development aid).
fn main() {
    let path = std::env::args().nth(1).expect("usage: read <file.spv>");
    let bytes = std::fs::read(path).unwrap();
    match tangle_spirv::reader::read_binary(&bytes) {
        Ok(m) => {
            print!("{}", tangle_ir::text::print(&m));
            if let Err(e) = tangle_ir::verify::verify(&m) {
                print!("{e}");
            }
            if let Some(out) = std::env::args().nth(2) {
                let words = tangle_spirv::writer::write(&m).unwrap();
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                std::fs::write(out, bytes).unwrap();
            }
        }
        Err(e) => println!("error: {e}"),
    }
}
