//! Tokens of LLVM IR text, with their line and column.

use super::ReadError;

/// A position in the text (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    /// The line.
    pub line: u32,
    /// The column (in characters).
    pub col: u32,
}

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// `%name`, `%7`, `%"quoted"`.
    Local(String),
    /// `@name`.
    Global(String),
    /// `#7` (an attribute group).
    AttrGroup(u32),
    /// `!name`, `!7` (metadata; skipped by the reader).
    Meta(String),
    /// `name:` at the start of a block.
    Label(String),
    /// A keyword or type name (`add`, `i32`, `label`, ...).
    Word(String),
    /// An integer literal.
    Int(i128),
    /// A floating-point literal: its bits as a double (decimal, or LLVM's `0x` hex forms).
    Float(f64),
    /// `"..."`.
    Str(String),
    /// Punctuation.
    Punct(char),
    /// The end of the text.
    Eof,
}

/// A token and where it starts.
#[derive(Clone, Debug)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Where it starts.
    pub pos: Pos,
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-')
}

/// Splits `text` into tokens; comments (`;` to the end of the line) are dropped.
pub fn lex(text: &str) -> Result<Vec<Token>, ReadError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let advance = |i: &mut usize, line: &mut u32, col: &mut u32, n: usize| {
        for _ in 0..n {
            if chars[*i] == '\n' {
                *line += 1;
                *col = 1;
            } else {
                *col += 1;
            }
            *i += 1;
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let pos = Pos { line, col };
        if c.is_whitespace() {
            advance(&mut i, &mut line, &mut col, 1);
            continue;
        }
        if c == ';' {
            while i < chars.len() && chars[i] != '\n' {
                advance(&mut i, &mut line, &mut col, 1);
            }
            continue;
        }
        let word_at = |start: usize| -> usize {
            let mut j = start;
            while j < chars.len() && is_ident_char(chars[j]) {
                j += 1;
            }
            j
        };
        let quoted_at = |start: usize| -> Result<(String, usize), ReadError> {
            let mut j = start + 1;
            let mut s = String::new();
            while j < chars.len() && chars[j] != '"' {
                s.push(chars[j]);
                j += 1;
            }
            if j >= chars.len() {
                return Err(ReadError::at(pos, "unterminated string"));
            }
            Ok((s, j + 1))
        };
        let (tok, end) = match c {
            '%' | '@' | '!' => {
                let (name, end) = if chars.get(i + 1) == Some(&'"') {
                    quoted_at(i + 1)?
                } else {
                    let end = word_at(i + 1);
                    (chars[i + 1..end].iter().collect(), end)
                };
                if name.is_empty() && c != '!' {
                    return Err(ReadError::at(pos, format!("`{c}` without a name")));
                }
                let tok = match c {
                    '%' => Tok::Local(name),
                    '@' => Tok::Global(name),
                    _ => Tok::Meta(name),
                };
                (tok, end)
            }
            '#' => {
                let end = word_at(i + 1);
                let digits: String = chars[i + 1..end].iter().collect();
                let n = digits
                    .parse()
                    .map_err(|_| ReadError::at(pos, "an attribute group is `#` and a number"))?;
                (Tok::AttrGroup(n), end)
            }
            '"' => {
                let (s, end) = quoted_at(i)?;
                if chars.get(end) == Some(&':') {
                    (Tok::Label(s), end + 1)
                } else {
                    (Tok::Str(s), end)
                }
            }
            c if c.is_ascii_digit()
                || (c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) =>
            {
                let end = word_at(i + 1);
                let text: String = chars[i..end].iter().collect();
                if chars.get(end) == Some(&':') && !text.starts_with('-') {
                    (Tok::Label(text), end + 1)
                } else {
                    (number(&text, pos)?, end)
                }
            }
            c if is_ident_char(c) => {
                let end = word_at(i);
                let text: String = chars[i..end].iter().collect();
                if chars.get(end) == Some(&':') {
                    (Tok::Label(text), end + 1)
                } else {
                    (Tok::Word(text), end)
                }
            }
            '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | ',' | '=' | '*' | ':' => {
                (Tok::Punct(c), i + 1)
            }
            other => {
                return Err(ReadError::at(
                    pos,
                    format!("unexpected character `{other}`"),
                ))
            }
        };
        out.push(Token { tok, pos });
        let n = end - i;
        advance(&mut i, &mut line, &mut col, n);
    }
    out.push(Token {
        tok: Tok::Eof,
        pos: Pos { line, col },
    });
    Ok(out)
}

/// An integer or float literal: decimal integers, decimal floats (`1.5`, `1e3`) and LLVM's
/// hex floats (`0x3FF0000000000000`, the bits of a double; `0xH3C00`, a half).
fn number(text: &str, pos: Pos) -> Result<Tok, ReadError> {
    let bad = || ReadError::at(pos, format!("bad number `{text}`"));
    if let Some(hex) = text.strip_prefix("0x") {
        if let Some(h) = hex.strip_prefix('H') {
            let bits = u16::from_str_radix(h, 16).map_err(|_| bad())?;
            return Ok(Tok::Float(half_to_f64(bits)));
        }
        let bits = u64::from_str_radix(hex, 16).map_err(|_| bad())?;
        return Ok(Tok::Float(f64::from_bits(bits)));
    }
    if text.contains(['.', 'e', 'E']) {
        return text.parse().map(Tok::Float).map_err(|_| bad());
    }
    text.parse().map(Tok::Int).map_err(|_| bad())
}

fn half_to_f64(bits: u16) -> f64 {
    let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        e => sign * (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
    }
}
