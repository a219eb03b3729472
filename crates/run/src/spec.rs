//! Specialization values given as text (`--spec id=value`), typed by the module.

use tangle_ir::{Module, TypeData};

/// The bit pattern of `text` as the value of the specialization constant with `SpecId` `id`
/// in `module`: `true`/`false` for booleans, a decimal or `0x` integer that fits the width
/// (as signed or unsigned) for integers, a decimal number for 32- and 64-bit floats (or
/// `0x` raw bits of the float's width).
pub fn spec_value_bits(module: &Module, id: u32, text: &str) -> Result<u64, String> {
    let (_, constant) = module
        .consts
        .iter()
        .find(|(_, c)| c.spec && c.spec_id == Some(id))
        .ok_or_else(|| format!("the module has no specialization constant with SpecId {id}"))?;
    let bad = |what: &str| format!("SpecId {id}: `{text}` is not {what}");
    let hex = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .map(|h| u64::from_str_radix(h, 16));
    match module.types.get(constant.ty) {
        TypeData::Bool => match text {
            "true" | "1" => Ok(1),
            "false" | "0" => Ok(0),
            _ => Err(bad("a boolean (true or false)")),
        },
        TypeData::Int { width, signed } => {
            let width = *width as u32;
            let what = format!("a {}{width} value", if *signed { "i" } else { "u" });
            let value: i128 = match hex {
                Some(h) => h.map_err(|_| bad(&what))? as i128,
                None => text.parse().map_err(|_| bad(&what))?,
            };
            let lo = -(1i128 << (width - 1));
            let hi = (1i128 << width) - 1;
            if !(lo..=hi).contains(&value) {
                return Err(bad(&what));
            }
            Ok((value as u64) & (u64::MAX >> (64 - width)))
        }
        TypeData::Float { width } => {
            let what = format!("an f{width} value");
            if let Some(h) = hex {
                let bits = h.map_err(|_| bad(&what))?;
                return if *width == 64 || bits >> *width == 0 {
                    Ok(bits)
                } else {
                    Err(bad(&what))
                };
            }
            let v: f64 = text.parse().map_err(|_| bad(&what))?;
            match width {
                32 => Ok((v as f32).to_bits() as u64),
                64 => Ok(v.to_bits()),
                _ => Err(format!(
                    "SpecId {id}: give the f{width} value as raw bits (0x...)"
                )),
            }
        }
        _ => Err(format!(
            "SpecId {id} is not a scalar specialization constant"
        )),
    }
}
