//! Decoding words into instructions, printing them as nvdisasm does, and encoding them.

use crate::floats::{
    format_bf16, format_f16, format_f32, format_f64, parse_bf16, parse_f16, special_bits,
};
use crate::form::{get_pieces, set_pieces, Form, MemFmt, Opnd, OpndKind, GUARD_BITS, OP_BITS};
use crate::{forms, Arch, Control, SassError, Word};

/// A decoded instruction: its form, its word and its address.
#[derive(Clone, Debug)]
pub struct Inst {
    /// The architecture it was decoded for.
    pub arch: Arch,
    /// The form that explains every bit of the word.
    pub form: &'static Form,
    /// The word.
    pub word: Word,
    /// Byte address (branch targets are printed relative to it).
    pub addr: u64,
    /// The text, rendered once at decode time.
    text: String,
}

/// Decodes `w` at byte address `addr`. A word whose bits no form explains (or whose fields
/// hold values the form does not list) is refused with [`SassError::UnknownForm`], and so is
/// a word whose text does not assemble back to it (two encodings that print alike, such as
/// an IADD3 whose first carry-out is PT and second is not).
pub fn decode(arch: Arch, w: Word, addr: u64) -> Result<Inst, SassError> {
    let inst = decode_unchecked(arch, w, addr)?;
    let ctl = Control::decode(w);
    match crate::text::encode_text(arch, inst.as_text(), ctl, addr, 1) {
        // A NaN immediate's payload is not in its text (`+QNAN`): the assembler writes the
        // canonical NaN, and a word that differs from it only there is still this text.
        // Nor are a constant-bank offset's two low bits (the text rounds it to a word).
        Ok(back) if (back.0 ^ w.0) & !unprinted_bits(inst.form, w) == 0 => Ok(inst),
        Ok(back) => Err(SassError::UnknownForm {
            arch: arch.to_string(),
            opcode: w.get(0, 12) as u16,
            detail: format!(
                " ({}: its text assembles to another word, {back})",
                inst.form.name
            ),
        }),
        Err(e) => Err(SassError::UnknownForm {
            arch: arch.to_string(),
            opcode: w.get(0, 12) as u16,
            detail: format!(" ({}: its text does not assemble: {e})", inst.form.name),
        }),
    }
}

/// Whether `other` is `w` but for bits nvdisasm's text does not show ([`unprinted_bits`]:
/// NaN payloads, a constant-bank offset's low bits, the SM80-SM89 descriptor register), so
/// that both print alike: the relation between a decoded word and the word its text
/// assembles to. False when `w` does not decode.
pub fn same_but_unprinted(arch: Arch, w: Word, other: Word, addr: u64) -> bool {
    decode(arch, w, addr).is_ok_and(|inst| {
        (w.0 ^ other.0) & !unprinted_bits(inst.form, w) == 0 && inst.form.matches(other)
    })
}

/// What `form` alone prints for `w` at `addr`: `None` when the control code, the form's
/// constant bits or a field table refuse the word. No table lookup and no round trip: for
/// tools that test one form apart from the table (the bit probe's mutated forms).
pub fn decode_as(arch: Arch, form: &'static Form, w: Word, addr: u64) -> Option<Inst> {
    let ctl = Control::decode(w);
    if !ctl.is_legal()
        || w.get(crate::control::bits::SPARE, 2) != 0
        || !form.control_ok(ctl)
        || !form.matches(w)
    {
        return None;
    }
    let mut inst = Inst {
        arch,
        form,
        word: w,
        addr,
        text: String::new(),
    };
    inst.text = inst.try_text(None)?;
    Some(inst)
}

/// The bits of `w` that `form`'s text does not show, so that words differing only there
/// print alike: NaN payloads ([`nan_payload_bits`]), the two low bits (38-39) of a
/// `c[bank][offset]` operand's offset and the memory descriptor register of an SM80-SM89
/// global address printed without `desc[..]` ([`Opnd::desc`]) and silent modifiers
/// ([`crate::Mod::is_silent`]). The typed instruction keeps them; the assembler writes them
/// as zero (the descriptor as UR4, a silent modifier as its first value).
pub(crate) fn unprinted_bits(form: &Form, w: Word) -> u128 {
    let mut bits = nan_payload_bits(form, w);
    for m in form.mods.iter().filter(|m| m.is_silent()) {
        bits |= crate::form::pieces_mask(&m.pieces);
    }
    for op in &form.ops {
        if op.kind == OpndKind::CBank {
            bits |= u128::from(cbank_unprinted(form)) << 38;
        }
        if let Some((at, width)) = op.desc {
            bits |= crate::word::mask(at as u32, width as u32);
        }
    }
    bits
}

/// The memory descriptor register the assembler writes where nvdisasm's text does not show
/// it ([`Opnd::desc`]): UR4, where ptxas keeps the descriptor of its own code.
pub(crate) const CANONICAL_DESC: u64 = 4;

/// The low bits of a `c[bank][offset]` offset field that `form`'s text leaves out: two for
/// an operand of arithmetic (printed rounded to a word), none for ULDC's byte address.
fn cbank_unprinted(form: &Form) -> u64 {
    if form.op == crate::Op::Uldc {
        0
    } else {
        3
    }
}

/// The bits of `w` that hold the payload of a NaN immediate: for each float-immediate
/// operand of `form` whose value in `w` is a NaN, its fraction bits below the quiet bit.
/// nvdisasm prints `+QNAN` or `-SNAN` whatever they hold (probed on every width), so words
/// that differ only there print alike; the typed instruction keeps them, the text cannot.
pub(crate) fn nan_payload_bits(form: &Form, w: Word) -> u128 {
    let mut mask = 0u128;
    for op in &form.ops {
        // (width of the value, fraction bits in it, implied low zero bits)
        let (bits, frac, scale) = match op.kind {
            OpndKind::F32 => (32u32, 23u32, u32::from(op.scale)),
            // The high word of a double: 20 of its 52 fraction bits.
            OpndKind::F64Hi => (32, 20, 0),
            OpndKind::F16 => (16, 10, 0),
            OpndKind::Bf16 => (16, 7, 0),
            _ => continue,
        };
        let v = get_pieces(w, &op.pieces) << scale;
        let exp = ((1u64 << (bits - 1 - frac)) - 1) << frac;
        if v & exp != exp || v & ((1 << frac) - 1) == 0 {
            continue;
        }
        for i in scale..frac - 1 {
            let mut m = Word(0);
            set_pieces(&mut m, &op.pieces, 1u64 << (i - scale));
            mask |= m.0;
        }
    }
    mask
}

/// [`decode`] without the round-trip check (used by the assembler's own check).
pub(crate) fn decode_unchecked(arch: Arch, w: Word, addr: u64) -> Result<Inst, SassError> {
    let opcode = w.get(0, 12) as u16;
    let mut close = Vec::new();
    let ctl = Control::decode(w);
    if !ctl.is_legal() {
        close.push(format!(
            "control code {} is illegal (yield needs stall 1-11)",
            Control::decode(w)
        ));
    } else if w.get(crate::control::bits::SPARE, 2) == 0 {
        for form in forms::for_opcode(arch, opcode) {
            if !form.control_ok(Control::decode(w)) {
                close.push(format!(
                    "{}: takes no scoreboard, the control code sets one",
                    form.name
                ));
                continue;
            }
            if !form.matches(w) {
                let diff = (w.0 ^ form.sample.0) & form.const_mask();
                close.push(format!("{}: constant bits {:#x} differ", form.name, diff));
                continue;
            }
            let mut inst = Inst {
                arch,
                form,
                word: w,
                addr,
                text: String::new(),
            };
            match inst.try_text(None) {
                Some(t) => {
                    inst.text = t;
                    return Ok(inst);
                }
                None => close.push(format!("{}: a field value is not in the table", form.name)),
            }
        }
    } else {
        close.push("bits 126-127 are not zero".to_string());
    }
    Err(SassError::UnknownForm {
        arch: arch.to_string(),
        opcode,
        detail: if close.is_empty() {
            String::new()
        } else {
            format!(" ({})", close.join("; "))
        },
    })
}

impl Inst {
    /// The control bits.
    pub fn control(&self) -> Control {
        Control::decode(self.word)
    }

    /// The instruction text as nvdisasm prints it, without the trailing `;`.
    pub fn text(&self) -> String {
        self.text.clone()
    }

    /// The instruction text, borrowed.
    pub fn as_text(&self) -> &str {
        &self.text
    }

    /// The address of the instruction's branch target (BRA, BSSY, CALL, RET), if it has one.
    pub fn target(&self) -> Option<u64> {
        let op = self.form.ops.iter().find(|o| o.kind == OpndKind::Target)?;
        Some(target_addr(op, self.word, self.addr) as u64)
    }

    /// The text with the branch target named by `name` (nvdisasm's cubin syntax:
    /// `` BRA `(.L_x_3) ``); where `name` gives no name the absolute address is printed.
    pub fn text_with_labels(&self, name: &dyn Fn(u64) -> Option<String>) -> String {
        if self.target().is_none() {
            return self.text.clone();
        }
        self.try_text(Some(name))
            .unwrap_or_else(|| self.text.clone())
    }

    fn try_text(&self, labels: Option<&dyn Fn(u64) -> Option<String>>) -> Option<String> {
        let w = self.word;
        let form = self.form;
        // Reuse flags on slots without an operand are unexplained bits.
        if Control::decode(w).reuse & !form.reuse_slots() != 0 {
            return None;
        }
        let mut s = String::new();
        let g = w.get(12, 3);
        let gn = w.bit(15);
        if g != 7 || gn {
            s.push('@');
            if gn {
                s.push('!');
            }
            s.push_str(&pred_name(g, if form.uniform_guard { "U" } else { "" }));
            s.push(' ');
        }
        s.push_str(form.name);
        for m in &form.mods {
            let v = m.value(w);
            let (_, t) = m.values.iter().find(|(x, _)| *x == v)?;
            s.push_str(t);
        }
        let mut first = true;
        for op in &form.ops {
            let Some(t) = print_opnd(self.form, op, w, self.addr, self.arch, labels)? else {
                continue;
            };
            let sep = if first || op.blank_before { " " } else { ", " };
            s.push_str(sep);
            first = false;
            s.push_str(&t);
        }
        // A special float last (`FADD R5, R0, +INF `) leaves nvdisasm's blank at the end,
        // which is not part of the instruction (the text is compared normalised).
        s.truncate(s.trim_end().len());
        Some(s)
    }
}

fn pred_name(v: u64, u: &str) -> String {
    if v == 7 {
        format!("{u}PT")
    } else {
        format!("{u}P{v}")
    }
}

fn reg_name(v: u64) -> String {
    if v == 255 {
        "RZ".to_string()
    } else {
        format!("R{v}")
    }
}

fn ureg_name(v: u64) -> Option<String> {
    match v {
        63 => Some("URZ".to_string()),
        0..=62 => Some(format!("UR{v}")),
        _ => None,
    }
}

pub(crate) fn sext(v: u64, width: u32) -> i64 {
    if width == 0 {
        // A field of no bits (a memory operand without an offset).
        0
    } else if width >= 64 {
        v as i64
    } else {
        let s = 64 - width;
        ((v << s) as i64) >> s
    }
}

pub(crate) fn hex_signed(v: i64) -> String {
    if v < 0 {
        format!("-0x{:x}", v.unsigned_abs())
    } else {
        format!("0x{v:x}")
    }
}

/// Whether special register `v` has a name on `arch` as an S2UR operand: every value
/// 0-255 does (see [`crate::sregs`]).
pub fn sureg_on(v: u64, arch: Arch) -> bool {
    crate::sregs::sreg_name(v, arch).is_some()
}

pub(crate) fn mem_offset(op: &Opnd, w: Word) -> i64 {
    let width = op.offset.iter().map(|p| p.1 as u32).sum();
    sext(get_pieces(w, &op.offset), width)
}

/// The absolute address a target operand names (the field is a signed offset from the next
/// instruction).
pub(crate) fn target_addr(op: &Opnd, w: Word, addr: u64) -> i64 {
    let v = get_pieces(w, &op.pieces);
    let off = sext(v, op.width()) << op.scale;
    (addr as i64).wrapping_add(16).wrapping_add(off)
}

/// Prints one operand; `Some(None)` when it is hidden, `None` when a value is not printable.
fn print_opnd(
    form: &Form,
    op: &Opnd,
    w: Word,
    addr: u64,
    arch: Arch,
    labels: Option<&dyn Fn(u64) -> Option<String>>,
) -> Option<Option<String>> {
    let v = get_pieces(w, &op.pieces);
    if matches!(op.kind, OpndKind::Reg | OpndKind::UReg | OpndKind::Mem(_))
        && op.align > 1
        && v % op.align as u64 != 0
        && v != 255
        && !(op.kind == OpndKind::UReg && v == 63)
    {
        return None;
    }
    if !op.rz_ok && (v == 255 || (op.kind == OpndKind::UReg && v == 63)) {
        return None;
    }
    if op.hide == Some(v)
        && !op.neg.is_some_and(|b| w.bit(b as u32))
        && !op.not.is_some_and(|b| w.bit(b as u32))
    {
        return Some(None);
    }
    let neg = op.neg.is_some_and(|b| w.bit(b as u32));
    let not = op.not.is_some_and(|b| w.bit(b as u32));
    let abs = op.abs.is_some_and(|b| w.bit(b as u32));
    let reuse = op
        .reuse
        .is_some_and(|s| Control::decode(w).reuse >> s & 1 == 1);
    let mut s = String::new();
    let body = match op.kind {
        OpndKind::Reg => reg_name(v),
        OpndKind::UReg => ureg_name(v)?,
        OpndKind::Pred => pred_name(v, ""),
        OpndKind::UPred => pred_name(v, "U"),
        OpndKind::Bar => format!("B{v}"),
        OpndKind::UImm => format!("0x{:x}", v << op.scale),
        OpndKind::SImm => hex_signed(sext(v, op.width()) << op.scale),
        OpndKind::F32 => format_f32((v << op.scale) as u32)?,
        OpndKind::F64Hi => format_f64(v << 32)?,
        OpndKind::F16 => format_f16(v as u16)?,
        OpndKind::Bf16 => format_bf16(v as u16)?,
        OpndKind::SbList => format_sb_list(v),
        OpndKind::CBank => {
            // The offset is signed: nvdisasm prints 0x8000-0xffff as -0x8000..-0x1 (found
            // by the random-field test on every SM and every form with a constant operand).
            // An operand of arithmetic prints its two low bits (38-39) rounded away:
            // nvdisasm rounds the field down to a word before the sign (0x29 prints 0x28,
            // 0xffff -0x4, 0x8003 -0x8000; found by the bit probe, held by the
            // random-field test). ULDC, a load of 8 to 64 bits, prints the byte offset.
            let off = sext(w.get(38, 16) & !cbank_unprinted(form), 16);
            let bank = w.get(54, 5);
            let blank = if op.cb_blank { " " } else { "" };
            format!("c[0x{bank:x}]{blank}[{}]", hex_signed(off))
        }
        OpndKind::SReg | OpndKind::SUReg => crate::sregs::sreg_name(v, arch)?,
        OpndKind::Target => {
            let a = target_addr(op, w, addr);
            match labels.and_then(|f| u64::try_from(a).ok().and_then(f)) {
                Some(name) => format!("`({name})"),
                None => hex_signed(a),
            }
        }
        OpndKind::Mem(fmt) => print_mem(fmt, op, w, v)?,
        OpndKind::Fixed(text) => text.to_string(),
        OpndKind::RpcHalf => crate::typed::RpcHalf::from_field(v).name().to_string(),
    };
    if neg {
        s.push('-');
    }
    if not {
        s.push(if matches!(op.kind, OpndKind::Pred | OpndKind::UPred) {
            '!'
        } else {
            '~'
        });
    }
    if abs {
        s.push('|');
    }
    s.push_str(&body);
    // nvdisasm writes `|R6|.reuse`, but `R8.reuse.B1` (R2P's byte select after the flag).
    let reuse_inside = reuse && !op.suffix.is_empty();
    if reuse_inside {
        s.push_str(".reuse");
    }
    s.push_str(op.suffix);
    // A half-precision swizzle follows the reuse flag and `|..|` of a register
    // (`|R4|.reuse.H0_H0`) but stands inside the bars of a constant
    // (`|c[0x2] [0x0].H0_H0|`; found by the random-field test).
    let swz = match op.swz {
        Some(b) => {
            let z = crate::typed::Swizzle::from_field(w.get(b as u32, 2));
            if z == crate::typed::Swizzle::F32 && !op.swz_f32 {
                return None;
            }
            z.text()
        }
        None => "",
    };
    let cbank = op.kind == OpndKind::CBank;
    if cbank {
        s.push_str(swz);
    }
    if abs {
        s.push('|');
    }
    if reuse && !reuse_inside {
        s.push_str(".reuse");
    }
    if !cbank {
        s.push_str(swz);
    }
    Some(Some(s))
}

fn print_mem(fmt: MemFmt, op: &Opnd, w: Word, ra: u64) -> Option<String> {
    let off = mem_offset(op, w);
    let mut parts: Vec<String> = Vec::new();
    match fmt {
        MemFmt::Global | MemFmt::GlobalPlain | MemFmt::Global64 | MemFmt::GlobalDesc => {
            let plain = matches!(fmt, MemFmt::Global | MemFmt::GlobalPlain);
            let mut pre = String::new();
            if fmt == MemFmt::GlobalDesc {
                let u = op.ureg?;
                pre = format!("desc[{}]", ureg_name(w.get(u.0 as u32, u.1 as u32))?);
            }
            if plain && ra == 255 && off < 0 {
                // nvdisasm's spelling of a negative absolute address is unchecked.
                return None;
            }
            let wide = if plain { "" } else { ".64" };
            // SM75 drops RZ before a non-zero offset; SM80+ keeps `RZ.64`.
            if !(plain && ra == 255 && off != 0) {
                parts.push(format!("{}{wide}", reg_name(ra)));
            }
            if off != 0 {
                parts.push(hex_signed(off));
            }
            Some(format!("{pre}[{}]", parts.join("+")))
        }
        MemFmt::GlobalUr => {
            let wide = op.wide.is_some_and(|b| w.bit(b as u32));
            if ra == 255 && !wide {
                // nvdisasm prints `[UR4]` whether or not the base is 64-bit; ptxas sets the
                // bit, so that is the word the text stands for and the other is refused.
                return None;
            }
            if ra != 255 {
                parts.push(format!(
                    "{}{}",
                    reg_name(ra),
                    if wide { ".64" } else { ".U32" }
                ));
            }
            parts.push(ureg_name(w.get(op.ureg?.0 as u32, op.ureg?.1 as u32))?);
            if off != 0 {
                parts.push(hex_signed(off));
            }
            Some(format!("[{}]", parts.join("+")))
        }
        MemFmt::UrAddr => {
            // A negative offset prints as `[UR4+-0x10]` (probed on SM75 RED/ATOMG).
            parts.push(ureg_name(w.get(op.ureg?.0 as u32, op.ureg?.1 as u32))?);
            if off != 0 {
                parts.push(hex_signed(off));
            }
            Some(format!("[{}]", parts.join("+")))
        }
        MemFmt::Shared => {
            // An absolute address (RZ base, no uniform register) prints unsigned in
            // nvdisasm (`[0x800400]`); we print offsets signed, so refuse that case.
            if ra == 255 && op.ureg.is_none() && off < 0 {
                return None;
            }
            let scale = op.x4.map_or(0, |b| w.get(b as u32, 2));
            if scale != 0 && ra == 255 {
                // nvdisasm prints `[RZ]` whether or not the scale bits are set: ambiguous.
                return None;
            }
            if ra != 255 {
                let sfx = ["", ".X4", ".X8", ".X16"][scale as usize];
                parts.push(format!("{}{sfx}", reg_name(ra)));
            }
            if let Some(u) = op.ureg {
                parts.push(ureg_name(w.get(u.0 as u32, u.1 as u32))?);
            }
            if off != 0 {
                parts.push(hex_signed(off));
            }
            if parts.is_empty() {
                parts.push("RZ".to_string());
            }
            Some(format!("[{}]", parts.join("+")))
        }
        MemFmt::CIndexed => {
            // With an index register nvdisasm prints the offset signed (`R17+-0x10`); the
            // spelling of a "negative" offset without one is unchecked: refused.
            if ra == 255 && off < 0 {
                return None;
            }
            let bank = w.get(54, 5);
            if ra != 255 {
                parts.push(reg_name(ra));
            }
            if off != 0 {
                parts.push(hex_signed(off));
            }
            if parts.is_empty() {
                parts.push("RZ".to_string());
            }
            Some(format!("c[0x{bank:x}][{}]", parts.join("+")))
        }
    }
}

/// Encodes a parsed instruction: `form` with operand and modifier texts. Used by the parser.
pub(crate) fn encode_parts(
    form: &'static Form,
    guard: (u64, bool),
    suffix: &str,
    operands: &[&str],
    control: Control,
    addr: u64,
) -> Option<Word> {
    let mut w = Word(form.sample.0 & form.const_mask());
    w.set(12, 3, guard.0);
    w.set_bit(15, guard.1);
    // Modifiers: match the suffix text by backtracking over each modifier's table.
    fn mods(form: &Form, i: usize, rest: &str, w: &mut Word) -> bool {
        if i == form.mods.len() {
            return rest.is_empty();
        }
        let m = &form.mods[i];
        for (v, t) in &m.values {
            if let Some(r) = rest.strip_prefix(t) {
                let saved = *w;
                if m.computed.is_none() {
                    set_pieces(w, &m.pieces, *v);
                }
                if mods(form, i + 1, r, w) {
                    return true;
                }
                *w = saved;
            }
        }
        false
    }
    if !mods(form, 0, suffix, &mut w) {
        return None;
    }
    if !control.is_legal() || !form.control_ok(control) {
        return None;
    }
    if !control.yield_bit && operands.iter().any(|o| o.contains(".reuse")) {
        return None;
    }
    let mut ctl = control;
    ctl.reuse = 0;
    // Operands: hidden ones may be absent.
    fn ops(form: &Form, i: usize, texts: &[&str], w: &mut Word, reuse: &mut u8, addr: u64) -> bool {
        if i == form.ops.len() {
            return texts.is_empty();
        }
        let op = &form.ops[i];
        if let Some(t) = texts.first() {
            let saved = (*w, *reuse);
            if parse_opnd(op, t.trim(), w, reuse, addr)
                && ops(form, i + 1, &texts[1..], w, reuse, addr)
            {
                return true;
            }
            (*w, *reuse) = saved;
        }
        if let Some(h) = op.hide {
            let saved = *w;
            set_pieces(w, &op.pieces, h);
            if ops(form, i + 1, texts, w, reuse, addr) {
                return true;
            }
            *w = saved;
        }
        false
    }
    let mut reuse = 0u8;
    if !ops(form, 0, operands, &mut w, &mut reuse, addr) {
        return None;
    }
    ctl.reuse = reuse;
    ctl.encode(&mut w);
    debug_assert_eq!(
        w.0 & OP_BITS & form.const_mask() & !GUARD_BITS,
        form.sample.0 & form.const_mask()
    );
    Some(w)
}

mod parse;
pub use parse::encode;
pub(crate) use parse::fits_signed;
use parse::parse_opnd;

/// A scoreboard mask as nvdisasm prints it: the numbers of its set bits, highest first,
/// in braces (`{5,4,3,2,1,0}`).
pub(crate) fn format_sb_list(mask: u64) -> String {
    let items: Vec<String> = (0..64)
        .rev()
        .filter(|i| mask >> i & 1 == 1)
        .map(|i| i.to_string())
        .collect();
    format!("{{{}}}", items.join(","))
}
