//! Raw blocks (a shader's text, a virtual file): the lines up to `END`, most of them
//! passed over by their first two bytes without reading their first word.

use super::{find_newline, first_word, swar, Lexer};
use crate::error::{AmberError, ErrorKind, Pos};

/// The statements that only AmberScript has: one of them first on a line of a raw block
/// (with something after it) means the block's `END` is missing.
const STATEMENT_KEYWORDS: [&str; 6] = [
    "SHADER",
    "BUFFER",
    "PIPELINE",
    "DERIVE_PIPELINE",
    "RUN",
    "EXPECT",
];

/// Whether a raw-block line whose first non-space byte is at `at` certainly has a first
/// word that is neither `END` (or a misspelling of it, which is all capitals) nor a
/// statement keyword (all capitals too): its first byte is printable ASCII other than a
/// capital, or it is a capital followed by printable ASCII other than a capital (`Op…`).
/// `false` leaves the line to the full check.
#[inline(always)]
fn cannot_close_or_interrupt(bytes: &[u8], at: usize) -> bool {
    // Printable ASCII (0x21..=0x7e) other than a capital.
    let lower_or_sign = |b: Option<&u8>| {
        let printable = |b: u8| b.wrapping_sub(0x21) < 0x5e;
        matches!(b, Some(&b) if printable(b) && !b.is_ascii_uppercase())
    };
    match bytes.get(at) {
        Some(b) if b.is_ascii_uppercase() => lower_or_sign(bytes.get(at + 1)),
        b => lower_or_sign(b),
    }
}

impl Lexer<'_> {
    /// Raw lines up to (not including) the next line whose first word is `END`; the lexer
    /// is left just after that `END`. Call right after the end-of-line token that closes the
    /// header. `opener` names the block and is where a missing `END` is reported.
    pub fn raw_block(&mut self, what: &str, opener: Pos) -> Result<(String, Pos), AmberError> {
        debug_assert!(self.peeked.is_none());
        // The block's text is the source from here to its `END` line, taken at once.
        let start = self.at;
        // The first line whose first word looks like a misspelt `END` (`ENDD`, `EDN`).
        let mut near_end: Option<(Pos, &str)> = None;
        loop {
            let unclosed = |near_end: Option<(Pos, &str)>, at: Pos, found: &str| {
                let open = format!(
                    "the {what} block opened at {}:{}",
                    opener.line, opener.column
                );
                let kind = match near_end {
                    Some((p, word)) => {
                        return AmberError::new(
                            p,
                            ErrorKind::Invalid(format!(
                                "`{word}` does not close {open} (did you mean `END`?)"
                            )),
                        )
                    }
                    None if found.is_empty() => ErrorKind::MissingEnd(what.to_string()),
                    None => {
                        ErrorKind::Invalid(format!("`{found}` inside {open}: its `END` is missing"))
                    }
                };
                AmberError::new(at, kind)
            };
            if self.at >= self.src.len() {
                return Err(unclosed(near_end, opener, ""));
            }
            let rest = &self.src[self.at..];
            let bytes = rest.as_bytes();
            let indent = swar::skip_spaces(bytes, 0);
            if cannot_close_or_interrupt(bytes, indent) {
                // Most shader lines: only the line's end is needed, searched from where
                // the spaces stop (one pass over the line).
                let line_len =
                    find_newline(&bytes[indent..]).map_or(rest.len(), |i| indent + i + 1);
                self.skip_raw_line(&rest[..line_len]);
                continue;
            }
            let line_len = find_newline(bytes).map_or(rest.len(), |i| i + 1);
            let line = &rest[..line_len];
            let (trimmed, first) = first_word(line);
            let first_pos = Pos::new(self.line, self.col + (line.len() - trimmed.len()) as u32);
            if near_end.is_none()
                && first.len() >= 2
                && first.bytes().all(|b| b.is_ascii_uppercase())
                && crate::suggest::closest(first, &["END"]).is_some()
            {
                near_end = Some((first_pos, first));
            }
            // A statement that only AmberScript has: the block was not closed before it.
            if STATEMENT_KEYWORDS.contains(&first)
                && trimmed.split_whitespace().nth(1).is_some()
                && what != "VIRTUAL_FILE"
            {
                return Err(unclosed(near_end, first_pos, first));
            }
            if let Some(after) = trimmed.strip_prefix("END") {
                if after.is_empty() || after.starts_with(|c: char| c.is_whitespace() || c == '#') {
                    let text = self.src[start..self.at].to_string();
                    let indent = line.len() - trimmed.len();
                    for c in line[..indent + 3].chars() {
                        self.bump(c);
                    }
                    let end_pos = Pos::new(self.line, self.col - 3);
                    return Ok((text, end_pos));
                }
            }
            self.skip_raw_line(line);
        }
    }

    /// Moves past `line` (the rest of the source up to and including its line end, or to
    /// the end of the source), which only its last character can end.
    fn skip_raw_line(&mut self, line: &str) {
        self.at += line.len();
        if line.ends_with('\n') {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += line.chars().count() as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the full check of a raw-block line looks at (lexer's `raw_block`): the first
    /// word all capitals (a misspelt `END`), a statement keyword, or `END` first.
    fn full_check_may_stop(line: &str) -> bool {
        let (trimmed, first) = first_word(line);
        (first.len() >= 2 && first.bytes().all(|b| b.is_ascii_uppercase()))
            || STATEMENT_KEYWORDS.contains(&first)
            || trimmed.starts_with("END")
    }

    /// The two-byte test passes over a line only when the full check would find nothing in
    /// it: every line of up to four pieces drawn from capitals, small letters, signs,
    /// blanks, control and multi-byte characters, after up to nine spaces.
    #[test]
    fn passed_over_lines_are_ones_the_full_check_passes() {
        let pieces = [
            "E", "N", "D", "END", "EN", "O", "Op", "p", "a", "%", "_", "#", "0", " ", "\t", "\r",
            "\n", "\x7f", "\x01", "\u{e9}", "\u{c9}", "\u{3000}", "SHADER", "RUN x",
        ];
        let (mut passed, mut checked) = (0, 0);
        let mut line = String::new();
        for spaces in 0..10 {
            for a in pieces {
                for b in pieces {
                    for c in ["", "E", "x", " ", "\n"] {
                        line.clear();
                        line.push_str(&" ".repeat(spaces));
                        for piece in [a, b, c] {
                            line.push_str(piece);
                        }
                        let bytes = line.as_bytes();
                        let indent = bytes.iter().take_while(|b| **b == b' ').count();
                        if cannot_close_or_interrupt(bytes, indent) {
                            passed += 1;
                            assert!(!full_check_may_stop(&line), "{line:?}");
                        } else {
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(passed > 1000 && checked > 1000, "{passed} {checked}");
        for line in ["%1 = OpLabel\n", "  OpReturn\n", "; comment", "       %x"] {
            assert!(cannot_close_or_interrupt(
                line.as_bytes(),
                line.len() - line.trim_start().len()
            ));
        }
        for line in [
            "END", "  END\n", "ENDD", "EDN x", "SHADER", "RUN", "A", "E\u{e9}",
        ] {
            assert!(!cannot_close_or_interrupt(
                line.as_bytes(),
                line.len() - line.trim_start().len()
            ));
        }
    }
}
