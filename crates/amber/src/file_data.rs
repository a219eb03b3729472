//! `BUFFER ... FILE TEXT|BINARY <path>`: a buffer's initial contents from a file.
//!
//! The parser records the path (relative to the script, as amber resolves it); the runner
//! reads the file and calls [`file_initial_bytes`]. A text file holds values as `DATA`
//! does (whitespace-separated, `#` comments, hex for raw bits); a binary file holds the
//! buffer's bytes as laid out in memory. As in amber, the file's data replaces what `SIZE`
//! declared when it holds more elements; when it holds fewer, the rest stays zero.

use crate::error::{AmberError, ErrorKind, Pos};
use crate::lexer::{Lexer, TokKind};
use crate::model::{Buffer, Literal};

/// The initial bytes of `buffer`, whose initializer is a `FILE`, from the file's
/// `contents`. Errors name the line and column in the data file.
pub fn file_initial_bytes(
    buffer: &Buffer,
    contents: &[u8],
    binary: bool,
) -> Result<Vec<u8>, AmberError> {
    let format = buffer.format;
    let stride = format.stride();
    let declared = buffer.size_in_bytes();
    if binary {
        let elements = contents.len().div_ceil(stride.max(1));
        let mut out = vec![0u8; declared.max(elements * stride)];
        out[..contents.len()].copy_from_slice(contents);
        return Ok(out);
    }
    let text = std::str::from_utf8(contents).map_err(|_| {
        AmberError::new(
            Pos::new(1, 1),
            ErrorKind::Invalid("the data file is not UTF-8 text".into()),
        )
    })?;
    let scalar = format.ty.scalar;
    let mut lx = Lexer::new(text);
    let mut values = Vec::new();
    loop {
        let t = lx.next_skip_eol();
        if t.kind == TokKind::Eof {
            break;
        }
        match Literal::parse(t.text).and_then(|l| scalar.encode(l)) {
            Some(bits) => values.push(bits),
            None => {
                return Err(AmberError::new(
                    t.pos,
                    ErrorKind::BadNumber {
                        what: format!("{} value", scalar.name()),
                        text: t.text.to_string(),
                    },
                ))
            }
        }
    }
    let n = format.ty.values_per_element();
    if values.len() % n != 0 {
        return Err(AmberError::new(
            Pos::new(1, 1),
            ErrorKind::Invalid(format!(
                "{} values do not make whole {} elements ({n} components each)",
                values.len(),
                format.ty
            )),
        ));
    }
    let elements = values.len() / n;
    let mut out = vec![0u8; declared.max(elements * stride)];
    let s = scalar.size();
    for (i, bits) in values.iter().enumerate() {
        let at = format.value_offset(i);
        out[at..at + s].copy_from_slice(&bits.to_le_bytes()[..s]);
    }
    Ok(out)
}
