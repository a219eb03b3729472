//! Helpers for GLSL sources that glslang 13.1.1 cannot compile as written.
//!
//! That glslang does not know `GL_EXT_maximal_reconvergence`. A source that asks for it
//! (`#extension GL_EXT_maximal_reconvergence : require` and/or `[[maximally_reconverges]]`
//! before `main`) is compiled without those, and the module is then patched:
//! [`prepare_maximal_reconvergence`] strips the source, [`patch_maximal_reconvergence`] adds
//! `OpExtension "SPV_KHR_maximal_reconvergence"` and `OpExecutionMode <entry>
//! MaximallyReconvergesKHR` to the module's assembly text.

/// Removes the `GL_EXT_maximal_reconvergence` extension directive and every
/// `[[maximally_reconverges]]` attribute from `src`; the flag says whether any was present.
/// Line numbers are kept (a removed directive leaves an empty line).
pub fn prepare_maximal_reconvergence(src: &str) -> (String, bool) {
    let mut found = false;
    let mut out = String::with_capacity(src.len());
    for line in src.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(after_hash) = trimmed.strip_prefix('#') {
            let directive: Vec<&str> = after_hash.split_whitespace().collect();
            if directive.first() == Some(&"extension")
                && directive
                    .get(1)
                    .is_some_and(|n| n.trim_end_matches(':') == "GL_EXT_maximal_reconvergence")
            {
                found = true;
                if line.ends_with('\n') {
                    out.push('\n');
                }
                continue;
            }
        }
        let mut rest = line;
        while let Some(at) = rest.find("[[") {
            let after = &rest[at + 2..];
            let Some(close) = after.find("]]") else { break };
            if after[..close].trim() == "maximally_reconverges" {
                found = true;
                out.push_str(&rest[..at]);
                rest = &after[close + 2..];
            } else {
                out.push_str(&rest[..at + 2]);
                rest = after;
            }
        }
        out.push_str(rest);
    }
    (out, found)
}

/// Adds `OpExtension "SPV_KHR_maximal_reconvergence"` (before the first `OpExtInstImport`,
/// or after the last `OpCapability`/`OpExtension`) and `OpExecutionMode %<entry>
/// MaximallyReconvergesKHR` for every `OpEntryPoint` to SPIR-V assembly text such as
/// spirv-dis prints. Returns `None` when the text has no `OpEntryPoint`.
pub fn patch_maximal_reconvergence(asm: &str) -> Option<String> {
    let lines: Vec<&str> = asm.lines().collect();
    let first_word = |l: &str| -> Option<String> {
        let mut words = l.split(';').next()?.split_whitespace();
        let w = words.next()?;
        if w.starts_with('%') {
            words.next();
            words.next().map(str::to_owned)
        } else {
            Some(w.to_owned())
        }
    };
    let ops: Vec<Option<String>> = lines.iter().map(|l| first_word(l)).collect();
    let entries: Vec<String> = lines
        .iter()
        .zip(&ops)
        .filter(|(_, op)| op.as_deref() == Some("OpEntryPoint"))
        .filter_map(|(l, _)| l.split_whitespace().nth(2).map(str::to_owned))
        .collect();
    if entries.is_empty() {
        return None;
    }
    let ext_at = ops
        .iter()
        .position(|op| op.as_deref() == Some("OpExtInstImport"))
        .or_else(|| {
            ops.iter()
                .rposition(|op| matches!(op.as_deref(), Some("OpCapability" | "OpExtension")))
                .map(|i| i + 1)
        })
        .unwrap_or(0);
    // Execution modes go after the last OpEntryPoint/OpExecutionMode(Id).
    let mode_at = ops
        .iter()
        .rposition(|op| {
            matches!(
                op.as_deref(),
                Some("OpEntryPoint" | "OpExecutionMode" | "OpExecutionModeId")
            )
        })
        .map_or(lines.len(), |i| i + 1);
    let mut out = String::with_capacity(asm.len() + 128);
    for (i, line) in lines.iter().enumerate() {
        if i == ext_at {
            out.push_str("OpExtension \"SPV_KHR_maximal_reconvergence\"\n");
        }
        if i == mode_at {
            for e in &entries {
                out.push_str(&format!("OpExecutionMode {e} MaximallyReconvergesKHR\n"));
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    if mode_at == lines.len() {
        for e in &entries {
            out.push_str(&format!("OpExecutionMode {e} MaximallyReconvergesKHR\n"));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_directive_and_attribute() {
        let src = "#version 450\n#extension GL_EXT_maximal_reconvergence : require\nvoid main() [[maximally_reconverges]] {}\n";
        let (out, found) = prepare_maximal_reconvergence(src);
        assert!(found);
        assert_eq!(out, "#version 450\n\nvoid main()  {}\n");
        let plain = "#version 450\nvoid main() { int a[[2]]; }\n";
        assert_eq!(
            prepare_maximal_reconvergence(plain),
            (plain.to_owned(), false)
        );
    }

    #[test]
    fn patches_assembly() {
        let asm = "OpCapability Shader\n%1 = OpExtInstImport \"GLSL.std.450\"\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n%void = OpTypeVoid\n";
        let out = patch_maximal_reconvergence(asm).unwrap();
        assert_eq!(
            out,
            "OpCapability Shader\nOpExtension \"SPV_KHR_maximal_reconvergence\"\n%1 = OpExtInstImport \"GLSL.std.450\"\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\nOpExecutionMode %main MaximallyReconvergesKHR\n%void = OpTypeVoid\n"
        );
        assert!(patch_maximal_reconvergence("OpCapability Shader\n").is_none());
    }
}
