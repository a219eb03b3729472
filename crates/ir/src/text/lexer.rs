//! Splits IR text into tokens with their line and column.

use std::fmt;

/// A position in the text: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A word: letters, digits, `_` and `.`, not starting with a digit.
    Ident(String),
    /// A numeric literal as written (sign, digits, `.`, exponent, or `0x` hex).
    Number(String),
    /// A string literal, unescaped.
    Str(String),
    /// One of `= , : [ ] ( ) { } < > |`.
    Punct(char),
    /// `->`.
    Arrow,
    /// The end of the text.
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Number(s) => write!(f, "number `{s}`"),
            Tok::Str(s) => write!(f, "string {s:?}"),
            Tok::Punct(c) => write!(f, "`{c}`"),
            Tok::Arrow => write!(f, "`->`"),
            Tok::Eof => write!(f, "end of input"),
        }
    }
}

/// A token with the position of its first character.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Where it starts.
    pub pos: Pos,
}

/// Splits `text` into tokens, ending with [`Tok::Eof`]; an error names the position of a
/// character that starts no token, or of an unterminated string.
pub fn tokenize(text: &str) -> Result<Vec<Token>, (Pos, String)> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    while i < chars.len() {
        let c = chars[i];
        let pos = Pos { line, col };
        let start = i;
        let advance = |i: &mut usize, col: &mut u32| {
            *i += 1;
            *col += 1;
        };
        if c == '\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            advance(&mut i, &mut col);
            continue;
        }
        if c == ';' {
            while i < chars.len() && chars[i] != '\n' {
                advance(&mut i, &mut col);
            }
            continue;
        }
        if c == '-' && chars.get(i + 1) == Some(&'>') {
            i += 2;
            col += 2;
            out.push(Token {
                tok: Tok::Arrow,
                pos,
            });
            continue;
        }
        if "=,:[](){}<>|".contains(c) {
            advance(&mut i, &mut col);
            out.push(Token {
                tok: Tok::Punct(c),
                pos,
            });
            continue;
        }
        if c == '"' {
            advance(&mut i, &mut col);
            let mut s = String::new();
            loop {
                match chars.get(i) {
                    None | Some('\n') => return Err((pos, "unterminated string".to_string())),
                    Some('"') => {
                        advance(&mut i, &mut col);
                        break;
                    }
                    Some('\\') => {
                        let esc = chars.get(i + 1).copied();
                        match esc {
                            Some('"') => s.push('"'),
                            Some('\\') => s.push('\\'),
                            Some('n') => s.push('\n'),
                            _ => {
                                return Err((
                                    Pos { line, col },
                                    "unknown escape in string".to_string(),
                                ))
                            }
                        }
                        i += 2;
                        col += 2;
                    }
                    Some(&ch) => {
                        s.push(ch);
                        advance(&mut i, &mut col);
                    }
                }
            }
            out.push(Token {
                tok: Tok::Str(s),
                pos,
            });
            continue;
        }
        let starts_number = c.is_ascii_digit()
            || ((c == '-' || c == '+')
                && chars
                    .get(i + 1)
                    .is_some_and(|d| d.is_ascii_digit() || *d == 'i' || *d == 'N'));
        if starts_number {
            advance(&mut i, &mut col);
            while i < chars.len() {
                let d = chars[i];
                let exp_sign = (d == '-' || d == '+')
                    && matches!(chars[i - 1], 'e' | 'E')
                    && !chars[start..i].contains(&'x');
                if d.is_ascii_alphanumeric() || d == '.' || d == '_' || exp_sign {
                    advance(&mut i, &mut col);
                } else {
                    break;
                }
            }
            out.push(Token {
                tok: Tok::Number(chars[start..i].iter().collect()),
                pos,
            });
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                advance(&mut i, &mut col);
            }
            out.push(Token {
                tok: Tok::Ident(chars[start..i].iter().collect()),
                pos,
            });
            continue;
        }
        return Err((pos, format!("unexpected character {c:?}")));
    }
    out.push(Token {
        tok: Tok::Eof,
        pos: Pos { line, col },
    });
    Ok(out)
}
