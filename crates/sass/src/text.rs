//! Text: printing decoded words per address, and parsing instruction lines back to words.
//!
//! Printed lines look like nvdisasm's raw-word listing (`/*0070*/  @P0 EXIT ;`) and, with
//! control annotations on, carry `[B------:R-:W0:Y:S04]` before the instruction. The
//! assembler reads one instruction per line:
//! `[/*addr*/] [annotation] [@[!]Pn] MNEMONIC[.MOD...] [operand, ...] [;] [/* comment */]`.
//! Lines that are empty, comments or directives (`.type`, ...) are skipped. [`scan`] also
//! reads what nvdisasm prints for cubins: a `.section` directive starts a new section
//! (addresses from 0 again), `name:` defines a label at the next instruction's address, and
//! a branch target may name a label or symbol of the same section: `` BRA `(.L_x_3) ``.

use crate::inst::{decode_unchecked, encode_parts};
use crate::{decode, forms, Arch, Control, SassError, Word};

/// One parsed instruction line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The address given by a `/*addr*/` prefix, if any.
    pub addr: Option<u64>,
    /// The control annotation, if any.
    pub control: Option<Control>,
    /// The instruction text without the trailing `;`.
    pub text: String,
}

/// Normalises instruction text for comparison: trailing `;` and surrounding blanks removed.
pub fn normalize(text: &str) -> &str {
    text.trim().trim_end_matches(';').trim_end()
}

/// Parses one line; `Ok(None)` for lines without an instruction.
pub fn parse_line(line: &str, lineno: usize) -> Result<Option<Line>, SassError> {
    let mut s = line.trim();
    // Trailing hex comment and `//` comments.
    if let Some(i) = s.find("//") {
        s = s[..i].trim_end();
    }
    let mut addr = None;
    if let Some(r) = s.strip_prefix("/*") {
        let (a, rest) = r.split_once("*/").ok_or_else(|| SassError::Parse {
            line: lineno,
            col: 1,
            msg: "unterminated /* */".to_string(),
        })?;
        let a = a.trim();
        if let Ok(v) = u64::from_str_radix(a.trim_start_matches("0x"), 16) {
            addr = Some(v);
        } else if a.starts_with("0x") {
            return Ok(None);
        }
        s = rest.trim();
    }
    // Trailing comments: `/* ... */` and nvdisasm's annotations `(*"BRANCH_TARGETS ..."*)`.
    for c in ["/*", "(*"] {
        if let Some(i) = s.find(c) {
            s = s[..i].trim_end();
        }
    }
    if s.is_empty()
        || s.starts_with('.') && !s.contains(' ')
        || s.ends_with(':')
        || s.starts_with('.')
    {
        return Ok(None);
    }
    let mut control = None;
    if s.starts_with("[B") {
        let end = s.find(']').ok_or_else(|| SassError::Parse {
            line: lineno,
            col: 1,
            msg: "unterminated control annotation".to_string(),
        })?;
        control = Some(s[..=end].parse::<Control>()?);
        s = s[end + 1..].trim();
    }
    let text = normalize(s).to_string();
    if text.is_empty() {
        return Err(SassError::Parse {
            line: lineno,
            col: 1,
            msg: "annotation without instruction".to_string(),
        });
    }
    Ok(Some(Line {
        addr,
        control,
        text,
    }))
}

/// The label a line defines (`.L_x_3:`, `switches:`, `$loops$collatz_steps:`), if any.
pub fn label_def(line: &str) -> Option<&str> {
    let s = line.trim();
    let s = s.find("//").map_or(s, |i| s[..i].trim_end());
    let name = s.strip_suffix(':')?;
    (!name.is_empty() && !name.contains(char::is_whitespace) && !name.starts_with("/*"))
        .then_some(name)
}

/// The section a `.section name,...` directive starts, if the line is one.
fn section_def(line: &str) -> Option<&str> {
    let r = line.trim().strip_prefix(".section")?;
    if !r.starts_with(char::is_whitespace) {
        return None;
    }
    let r = r.trim_start();
    Some(r.split(',').next().unwrap_or(r).trim())
}

/// One instruction of a scanned text, its labels resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceInst {
    /// 1-based line number.
    pub line: usize,
    /// Byte address in its section.
    pub addr: u64,
    /// The control annotation, if any.
    pub control: Option<Control>,
    /// The instruction text, label operands replaced by absolute addresses
    /// (`` BRA `(.L_x_3) `` at 0x40 naming 0x90 reads `BRA 0x90`).
    pub text: String,
}

/// One section of a scanned text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceSection {
    /// The name given by `.section`; `None` for instructions before any `.section`.
    pub name: Option<String>,
    /// The labels defined in the section and their addresses.
    pub labels: std::collections::HashMap<String, u64>,
    /// Its instructions, at consecutive 16-byte addresses from 0.
    pub insts: Vec<SourceInst>,
}

/// Reads SASS text into sections: instructions at consecutive addresses (a `/*addr*/` prefix
/// must agree), labels defined by `name:` lines, label operands `` `(name) `` resolved to
/// the addresses of labels of the same section (defined before or after the use).
pub fn scan(text: &str) -> Result<Vec<SourceSection>, SassError> {
    let mut sections = vec![SourceSection::default()];
    let mut pending: Vec<(usize, Line)> = Vec::new();
    let flush = |sec: &mut SourceSection, pending: &mut Vec<(usize, Line)>| {
        for (lineno, l) in pending.drain(..) {
            let addr = sec.insts.len() as u64 * 16;
            let text = resolve_labels(&l.text, &sec.labels, lineno)?;
            sec.insts.push(SourceInst {
                line: lineno,
                addr,
                control: l.control,
                text,
            });
        }
        Ok::<(), SassError>(())
    };
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        let cur = sections.len() - 1;
        if let Some(name) = section_def(line) {
            flush(&mut sections[cur], &mut pending)?;
            sections.push(SourceSection {
                name: Some(name.to_string()),
                ..SourceSection::default()
            });
            continue;
        }
        let next = 16 * (sections[cur].insts.len() + pending.len()) as u64;
        if let Some(name) = label_def(line) {
            if sections[cur]
                .labels
                .insert(name.to_string(), next)
                .is_some()
            {
                return Err(SassError::Parse {
                    line: lineno,
                    col: 1,
                    msg: format!("label `{name}` defined twice in one section"),
                });
            }
            continue;
        }
        if let Some(l) = parse_line(line, lineno)? {
            if l.addr.is_some_and(|a| a != next) {
                return Err(SassError::Parse {
                    line: lineno,
                    col: 1,
                    msg: format!(
                        "address /*{:04x}*/ but the instruction lands at {next:#06x}",
                        l.addr.unwrap_or(0)
                    ),
                });
            }
            pending.push((lineno, l));
        }
    }
    let cur = sections.len() - 1;
    flush(&mut sections[cur], &mut pending)?;
    // Sections are resolved when they end: labels may be defined after their use.
    if sections.len() > 1 && sections[0].insts.is_empty() && sections[0].labels.is_empty() {
        sections.remove(0);
    }
    Ok(sections)
}

/// Replaces every label operand `` `(name) `` of `text` by the label's absolute address.
fn resolve_labels(
    text: &str,
    labels: &std::collections::HashMap<String, u64>,
    lineno: usize,
) -> Result<String, SassError> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("`(") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find(')').ok_or_else(|| SassError::Parse {
            line: lineno,
            col: text.len() - rest.len() + i + 1,
            msg: "unterminated label operand `(".to_string(),
        })?;
        let name = &after[..end];
        let addr = labels.get(name).ok_or_else(|| SassError::Parse {
            line: lineno,
            col: text.len() - rest.len() + i + 1,
            msg: format!("unknown label `{name}` (labels are per section)"),
        })?;
        out.push_str(&crate::inst::hex_signed(*addr as i64));
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Splits operand text at commas outside brackets; `R2 -0x300` (RET) splits at the blank.
fn split_operands(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let b = s.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'[' | b'(' | b'{' => depth += 1,
            b']' | b')' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < s.len() {
        out.push(s[start..].trim());
    }
    let mut res = Vec::new();
    for p in out {
        // `+INF ` is one operand; a blank between two tokens separates RET's operands.
        match p.split_once(' ') {
            Some((a, b)) if !a.is_empty() && !b.trim().is_empty() && !p.contains('[') => {
                res.push(a);
                res.push(b.trim());
            }
            _ => res.push(p),
        }
    }
    res.into_iter().filter(|p| !p.is_empty()).collect()
}

/// Encodes one instruction's text (no annotation) at `addr`.
pub(crate) fn encode_text(
    arch: Arch,
    text: &str,
    control: Control,
    addr: u64,
    lineno: usize,
) -> Result<Word, SassError> {
    let text = normalize(text);
    let fail = |why: String| SassError::CannotEncode {
        line: lineno,
        text: text.to_string(),
        arch: arch.to_string(),
        why,
    };
    let mut s = text;
    let mut guard = (7u64, false);
    if let Some(r) = s.strip_prefix('@') {
        let (g, rest) = r
            .split_once(' ')
            .ok_or_else(|| fail("guard without instruction".into()))?;
        let (neg, g) = match g.strip_prefix('!') {
            Some(g) => (true, g),
            None => (false, g),
        };
        // `@UP0` on uniform-datapath forms; the round trip below checks which one the
        // form prints.
        let g = g.strip_prefix('U').unwrap_or(g);
        let p = match g {
            "PT" => 7,
            _ => g
                .strip_prefix('P')
                .and_then(|n| n.parse::<u64>().ok())
                .filter(|n| *n < 7)
                .ok_or_else(|| fail(format!("bad guard predicate `{g}`")))?,
        };
        guard = (p, neg);
        s = rest.trim_start();
    }
    let (mnemonic, rest) = match s.split_once(' ') {
        Some((m, r)) => (m, r.trim()),
        None => (s, ""),
    };
    let (name, suffix) = match mnemonic.find('.') {
        Some(i) => (&mnemonic[..i], &mnemonic[i..]),
        None => (mnemonic, ""),
    };
    let operands = split_operands(rest);
    let candidates: Vec<_> = forms::by_name(arch, name).collect();
    if candidates.is_empty() {
        return Err(fail(format!("no form named `{name}` on {arch}")));
    }
    for form in candidates {
        let enc = encode_parts(form, guard, suffix, &operands, control, addr);
        if let Some(w) = enc {
            // Round trip: only what decodes back to the same text is accepted.
            if let Ok(inst) = decode_unchecked(arch, w, addr) {
                if inst.as_text() == text {
                    return Ok(w);
                }
            }
        }
    }
    Err(fail(format!(
        "no `{name}` form takes these modifiers and operands"
    )))
}

/// Assembles one line. Returns `Ok(None)` for lines without an instruction. `addr` is the
/// address used for branch targets when the line has no `/*addr*/` prefix; without an
/// annotation the control bits are [`Control::default`].
pub fn assemble_line(
    arch: Arch,
    line: &str,
    lineno: usize,
    addr: u64,
) -> Result<Option<Word>, SassError> {
    let Some(l) = parse_line(line, lineno)? else {
        return Ok(None);
    };
    let addr = l.addr.unwrap_or(addr);
    let text = resolve_labels(&l.text, &Default::default(), lineno)?;
    encode_text(arch, &text, l.control.unwrap_or_default(), addr, lineno).map(Some)
}

/// Assembles a whole text (see [`scan`]): the words of every section, one after the other.
/// Within a section instructions are placed at consecutive 16-byte addresses from 0 (a
/// `/*addr*/` prefix must agree with that).
pub fn assemble(arch: Arch, text: &str) -> Result<Vec<Word>, SassError> {
    let mut out = Vec::new();
    for sec in scan(text)? {
        for i in &sec.insts {
            out.push(encode_text(
                arch,
                &i.text,
                i.control.unwrap_or_default(),
                i.addr,
                i.line,
            )?);
        }
    }
    Ok(out)
}

/// Disassembles words placed at `base`, one line per instruction:
/// `/*0070*/ [annotation ]text ;` or, for a refused word,
/// `/*0070*/ <refused: ...> /* 0x.. 0x.. */`.
pub fn disassemble(arch: Arch, words: &[Word], base: u64, control: bool) -> Vec<String> {
    words
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            let addr = base + 16 * i as u64;
            match decode(arch, w, addr) {
                Ok(inst) => {
                    if control {
                        format!("/*{addr:04x}*/ {} {} ;", inst.control(), inst.text())
                    } else {
                        format!("/*{addr:04x}*/ {} ;", inst.text())
                    }
                }
                Err(e) => format!("/*{addr:04x}*/ <refused: {e}> /* {w} */"),
            }
        })
        .collect()
}

/// Reads raw words: 16 little-endian bytes each.
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<Word>, SassError> {
    if bytes.len() % 16 != 0 {
        return Err(SassError::RawLength(bytes.len()));
    }
    Ok(bytes
        .chunks_exact(16)
        .map(|c| Word::from_le_bytes(c.try_into().expect("16-byte chunk")))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse() {
        let l = parse_line("/*0070*/ [B0-----:R-:W1:Y:S04] @P0 EXIT ; /* 0x1 */", 1)
            .unwrap()
            .unwrap();
        assert_eq!(l.addr, Some(0x70));
        assert_eq!(l.text, "@P0 EXIT");
        assert_eq!(l.control.unwrap().to_string(), "[B0-----:R-:W1:Y:S04]");
        assert_eq!(parse_line(".L_x_1:", 1).unwrap(), None);
        let brx = r#"/*00b0*/ BRX R4 -0xc0   (*"BRANCH_TARGETS .L_x_5,.L_x_6"*);"#;
        assert_eq!(parse_line(brx, 1).unwrap().unwrap().text, "BRX R4 -0xc0");
        assert_eq!(label_def(".L_x_1:"), Some(".L_x_1"));
        assert_eq!(
            label_def("$loops$collatz_steps:"),
            Some("$loops$collatz_steps")
        );
        assert_eq!(label_def("/*0010*/ NOP ;"), None);
        assert_eq!(parse_line("   ", 1).unwrap(), None);
        assert_eq!(parse_line("// hi", 1).unwrap(), None);
    }

    #[test]
    fn labels_resolve_per_section() {
        let text = "\
\t.section\t.text.k,\"ax\",@progbits
k:
        /*0000*/                   BRA `(.L_x_1) ;
.L_x_0:
        /*0010*/                   BRA `(.L_x_0) ;
.L_x_1:
        /*0020*/                   RET.REL.NODEC R2 `(k) ;
\t.section\t.text.j,\"ax\",@progbits
        /*0000*/                   BRA `(.L_x_9) ;
.L_x_9:
";
        let s = scan(text).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].name.as_deref(), Some(".text.k"));
        let texts: Vec<_> = s[0].insts.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(texts, ["BRA 0x20", "BRA 0x10", "RET.REL.NODEC R2 0x0"]);
        assert_eq!(s[1].insts[0].text, "BRA 0x10");
        let err = scan("BRA `(.L_x_7) ;").unwrap_err();
        assert!(err.to_string().contains("unknown label"), "{err}");
        assert!(assemble_line(Arch::Sm90, "BRA `(x) ;", 1, 0).is_err());
    }

    #[test]
    fn operands_split() {
        assert_eq!(
            split_operands("P0, PT, |R0|, +INF , PT"),
            vec!["P0", "PT", "|R0|", "+INF", "PT"]
        );
        assert_eq!(split_operands("R2 -0x300"), vec!["R2", "-0x300"]);
        assert_eq!(
            split_operands("R1, c[0x0][0x28]"),
            vec!["R1", "c[0x0][0x28]"]
        );
    }
}
