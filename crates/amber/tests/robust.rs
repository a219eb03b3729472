//! The parser and checker never panic: every prefix of a script that uses every command,
//! and deterministic single-character mutations of it, parse to `Ok` or a positioned `Err`.

use tangle_amber::*;

const SCRIPT: &str = r#"#!amber
DEVICE_FEATURE SubgroupSizeControl.subgroupSizeControl
DEVICE_FEATURE SubgroupSizeControl.computeFullSubgroups
SET ENGINE_DATA fence_timeout_ms 10
VIRTUAL_FILE v.comp
void main() {}
END
SHADER compute s GLSL TARGET_ENV spv1.3
#version 450
void main() {}
END  # shader
SHADER compute t GLSL VIRTUAL_FILE v.comp
BUFFER a DATA_TYPE vec3<float> STD140 DATA 1 2 3 END
BUFFER b DATA_TYPE int16 SIZE 4 SERIES_FROM -2 INC_BY 3
BUFFER c DATA_TYPE vec3<float> STD140 SIZE 1 FILL 0.5
BUFFER f FORMAT R8G8B8A8_UINT
PIPELINE compute p
  ATTACH s ENTRY_POINT main SPECIALIZE 0 AS uint32 3
  BIND BUFFER a AS uniform DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER b AS push_constant
  SUBGROUP s
    FULLY_POPULATED on REQUIRED_SIZE 32
  END
END
DERIVE_PIPELINE q FROM p
END
RUN p 1 1 1
REPEAT 2
  COPY a TO c
  EXPECT a IDX 0 TOLERANCE 1% EQ 1 2 3
END
EXPECT b IDX 2 GE -5
EXPECT a EQ_BUFFER c
EXPECT a RMSE_BUFFER c TOLERANCE 1
"#;

fn exercise(text: &str) {
    if let Ok(s) = parse(text) {
        let bufs: Vec<(String, Vec<u8>)> = s
            .buffers
            .iter()
            .map(|b| (b.name.clone(), b.initial_bytes()))
            .collect();
        let get = |n: &str| bufs.iter().find(|(m, _)| m == n).map(|(_, v)| v.as_slice());
        for c in &s.commands {
            if let Command::Expect(e) = c {
                let _ = check_expect(e, &get);
            }
        }
    } else if let Err(e) = parse(text) {
        assert!(e.pos.line >= 1 && e.pos.column >= 1, "{e}");
        let lines = text.lines().count().max(1) as u32;
        assert!(e.pos.line <= lines + 1, "{e} beyond {lines} lines");
    }
}

#[test]
fn the_script_parses() {
    let s = parse(SCRIPT).unwrap();
    assert_eq!(s.commands.len(), 5);
}

#[test]
fn every_prefix() {
    for (i, _) in SCRIPT.char_indices() {
        exercise(&SCRIPT[..i]);
    }
}

#[test]
fn single_character_mutations() {
    let alphabet = [
        '\n', ' ', '#', '0', '9', '-', '.', 'x', '<', '>', '%', 'é', 'E', 'N', 'D',
    ];
    let chars: Vec<char> = SCRIPT.chars().collect();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..3000 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let at = (seed >> 33) as usize % chars.len();
        let with = alphabet[(seed >> 20) as usize % alphabet.len()];
        let mut m = chars.clone();
        m[at] = with;
        exercise(&m.iter().collect::<String>());
    }
}
