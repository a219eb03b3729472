//! Splits assembly text into words the way spirv-as does.
//!
//! A word is a run of characters up to whitespace (space, tab, CR, LF) or `;`, which starts a
//! comment to the end of the line. Inside `"` quotes whitespace and `;` belong to the word, and
//! a backslash keeps the next character (also a quote or a space) in the word. An
//! unterminated quote runs to the end of the text. `=` is a word of its own only when
//! surrounded by whitespace.
//!
//! spirv-as 2025.5 also ends a word at `(`, `)` and `,` outside quotes, and never reads past
//! one: whatever comes next is an error at that character. The lexer emits the character as
//! a one-character word and stops there; the assembler refuses it when it reaches it.

/// One word with its 1-based position (column in bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token<'a> {
    pub text: &'a str,
    pub line: u32,
    pub column: u32,
    /// Position just past the word.
    pub end: (u32, u32),
}

/// Bytes that continue a word without a quote or backslash: anything but whitespace, `;`,
/// `(`, `)`, `,`, a quote and a backslash.
static PLAIN: [bool; 256] = {
    let mut t = [true; 256];
    let stops = *b" \t\r\n;(),\"\\";
    let mut i = 0;
    while i < stops.len() {
        t[stops[i] as usize] = false;
        i += 1;
    }
    t
};

/// The number of spaces at the start of `bytes`, eight bytes at a time where it can (spirv-dis
/// indents every instruction without a result by 15 spaces).
fn space_run(bytes: &[u8]) -> usize {
    const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
    let mut n = 0;
    while let Some(chunk) = bytes.get(n..n + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let differ = word ^ SPACES;
        if differ != 0 {
            // Little-endian: the lowest differing byte is the first non-space.
            return n + (differ.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + bytes[n..].iter().take_while(|&&b| b == b' ').count()
}

/// Every word of `text`, and the position of the end of the text.
pub(crate) fn tokenize(text: &str) -> (Vec<Token<'_>>, (u32, u32)) {
    let bytes = text.as_bytes();
    // Sized once: spirv-dis's text has a word about every ten bytes (indentation
    // included), so an eighth of the length rarely grows.
    let mut tokens = Vec::with_capacity(text.len() / 8);
    // Every byte but a line end is one column, so a column is the distance from the start
    // of its line: only line ends are counted as the text goes by.
    let mut line = 1u32;
    let mut line_start = 0usize;
    let column =
        |i: usize, line_start: usize| u32::try_from(i - line_start + 1).unwrap_or(u32::MAX);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            // A run of spaces (indentation) at once.
            b' ' => i += space_run(&bytes[i..]),
            b'\n' => {
                line = line.saturating_add(1);
                i += 1;
                line_start = i;
            }
            b'\t' | b'\r' => i += 1,
            b'(' | b')' | b',' => {
                let at = column(i, line_start);
                tokens.push(Token {
                    text: &text[i..i + 1],
                    line,
                    column: at,
                    end: (line, at.saturating_add(1)),
                });
                return (tokens, (line, at));
            }
            // A comment, to the end of the line.
            b';' => {
                i += bytes[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .unwrap_or(bytes.len() - i);
            }
            _ => {
                let start = i;
                let (start_line, start_column) = (line, column(i, line_start));
                // The common word (no quote, no backslash) a byte class at a time.
                i += bytes[i..]
                    .iter()
                    .position(|&c| !PLAIN[c as usize])
                    .unwrap_or(bytes.len() - i);
                // Stopped by white space, `;`, `(`, `)`, `,` or the end of the text: the word
                // ends here, on an ASCII byte (a char boundary). Only a quote or a backslash
                // needs the general loop below.
                if i < bytes.len() && matches!(bytes[i], b'"' | b'\\') {
                    let (mut quoting, mut escaping) = (false, false);
                    while i < bytes.len() {
                        let c = bytes[i];
                        if escaping {
                            escaping = false;
                        } else if c == b'\\' {
                            escaping = true;
                        } else if c == b'"' {
                            quoting = !quoting;
                        } else if !quoting
                            && matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b';' | b'(' | b')' | b',')
                        {
                            break;
                        }
                        i += 1;
                        if c == b'\n' {
                            line = line.saturating_add(1);
                            line_start = i;
                        }
                    }
                    // Word boundaries are ASCII bytes, or the end of the text, except after
                    // a backslash that escapes a multi-byte character: keep the slice on a
                    // char boundary (continuation bytes are no line ends).
                    while !text.is_char_boundary(i) {
                        i += 1;
                    }
                }
                tokens.push(Token {
                    text: &text[start..i],
                    line: start_line,
                    column: start_column,
                    end: (line, column(i, line_start)),
                });
            }
        }
    }
    (tokens, (line, column(i, line_start)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<&str> {
        tokenize(text).0.iter().map(|t| t.text).collect()
    }

    #[test]
    fn words_quotes_comments_and_escapes() {
        assert_eq!(
            words("%a = OpFoo \"x y;z\" ; c\nB;c"),
            ["%a", "=", "OpFoo", "\"x y;z\"", "B"]
        );
        assert_eq!(words("a\\ b c"), ["a\\ b", "c"]);
        assert_eq!(words("\"abc\ndef"), ["\"abc\ndef"]);
        let (toks, end) = tokenize("x\n  yy\n");
        assert_eq!((toks[1].line, toks[1].column, toks[1].end), (2, 3, (2, 5)));
        assert_eq!(end, (3, 1));
        assert_eq!(words("a\\é b"), ["a\\é", "b"]);
        assert_eq!(words("Shader(x y"), ["Shader", "("]);
        assert_eq!(words("\"a(b,c)\" d\\,e ,f"), ["\"a(b,c)\"", "d\\,e", ","]);
    }

    /// The eight-bytes-at-a-time space count equals a count a byte at a time, for runs of
    /// every length up to 40 followed by the end of the text or by each kind of byte.
    #[test]
    fn space_runs_count_as_a_byte_at_a_time() {
        for len in 0..40 {
            for tail in ["", "x", "\t", "\n", " \u{e9}", "\u{e9}", "!", "\x00"] {
                let text = format!("{}{tail}", " ".repeat(len));
                let by_byte = text.bytes().take_while(|&b| b == b' ').count();
                assert_eq!(space_run(text.as_bytes()), by_byte, "{text:?}");
            }
        }
    }

    /// The lexer's rules a byte at a time, as written before its fast paths: the model
    /// the generated test compares against.
    fn model(text: &str) -> (Vec<Token<'_>>, (u32, u32)) {
        let bytes = text.as_bytes();
        let mut tokens = Vec::new();
        let (mut line, mut column) = (1u32, 1u32);
        let advance = |b: u8, line: &mut u32, column: &mut u32| {
            if b == b'\n' {
                *line += 1;
                *column = 1;
            } else {
                *column += 1;
            }
        };
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b' ' | b'\t' | b'\r' | b'\n' => {
                    advance(bytes[i], &mut line, &mut column);
                    i += 1;
                }
                b'(' | b')' | b',' => {
                    let end = (line, column + 1);
                    tokens.push(Token {
                        text: &text[i..i + 1],
                        line,
                        column,
                        end,
                    });
                    return (tokens, (line, column));
                }
                b';' => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        advance(bytes[i], &mut line, &mut column);
                        i += 1;
                    }
                }
                _ => {
                    let (start, start_line, start_column) = (i, line, column);
                    let (mut quoting, mut escaping) = (false, false);
                    while i < bytes.len() {
                        let c = bytes[i];
                        if escaping {
                            escaping = false;
                        } else if c == b'\\' {
                            escaping = true;
                        } else if c == b'"' {
                            quoting = !quoting;
                        } else if !quoting && b" \t\r\n;(),".contains(&c) {
                            break;
                        }
                        advance(c, &mut line, &mut column);
                        i += 1;
                    }
                    while !text.is_char_boundary(i) {
                        i += 1;
                        advance(bytes[i - 1], &mut line, &mut column);
                    }
                    tokens.push(Token {
                        text: &text[start..i],
                        line: start_line,
                        column: start_column,
                        end: (line, column),
                    });
                }
            }
        }
        (tokens, (line, column))
    }

    /// Words and positions on generated text (every special character, runs of spaces,
    /// quotes, escapes and multi-byte characters in random order; a fixed seed) are the
    /// model's.
    #[test]
    fn generated_text_lexes_as_the_model_does() {
        let pieces = [
            " ",
            "    ",
            "               ",
            "\t",
            "\r",
            "\n",
            ";",
            "; c ",
            "(",
            ")",
            ",",
            "\"",
            "\\",
            "=",
            "%x",
            "OpName",
            "12",
            "\u{e9}",
            "\u{2028}",
            "a b",
            "\"s;t\"",
        ];
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..next(30) {
                text.push_str(pieces[next(pieces.len())]);
            }
            assert_eq!(tokenize(&text), model(&text), "{text:?}");
        }
    }
}
