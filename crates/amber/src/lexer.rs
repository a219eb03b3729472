//! Whitespace-delimited tokens with significant line ends, `#` comments, and raw blocks for
//! inline shader text.

use crate::error::Pos;
use crate::model::Literal;
use crate::swar::{self, find_newline, is_separator, read_u64};

mod raw_line;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokKind {
    Word,
    Eol,
    Eof,
}

/// One token; `text` is empty for line ends and the end of the file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tok<'a> {
    pub kind: TokKind,
    pub text: &'a str,
    pub pos: Pos,
}

impl Tok<'_> {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self.kind {
            TokKind::Word => format!("`{}`", self.text),
            TokKind::Eol => "end of line".to_string(),
            TokKind::Eof => "end of file".to_string(),
        }
    }

    pub fn is(&self, word: &str) -> bool {
        self.kind == TokKind::Word && self.text == word
    }

    pub fn is_end_of_statement(&self) -> bool {
        matches!(self.kind, TokKind::Eol | TokKind::Eof)
    }
}

/// Whether `rest` (what follows a `\\`) holds only blanks before the line end.
fn continues_line(rest: &str) -> bool {
    let line = rest.split('\n').next().unwrap_or("");
    rest.contains('\n') && line.trim_end_matches('\r').trim().is_empty()
}

/// A blank inside a line: what `char::is_whitespace` accepts in ASCII, less the line end.
#[inline(always)]
fn is_blank(b: u8) -> bool {
    b == b' ' || (b != b'\n' && b.wrapping_sub(b'\t') < 5)
}

/// Not a hexadecimal digit, in [`HEX_DIGIT`].
const NOT_DIGIT: u8 = 0xff;

/// The value of each byte as a hexadecimal digit, or [`NOT_DIGIT`].
static HEX_DIGIT: [u8; 256] = {
    let mut t = [NOT_DIGIT; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// The plain number starting at `at` (see [`Lexer::number_run`]): whether it is
/// hexadecimal, its value and where it ends; `None` when none starts there or it does not
/// end at a blank, a line end or the end of the text.
#[inline(always)]
fn plain_number(bytes: &[u8], start: usize) -> Option<(bool, u64, usize)> {
    let len = bytes.len();
    let mut at = start;
    let mut v = 0u64;
    let hex = at + 1 < len && bytes[at] == b'0' && bytes[at + 1] | 0x20 == b'x';
    if hex {
        let digits = at + 2;
        at = digits;
        while at < len && at - digits < 16 {
            let d = HEX_DIGIT[bytes[at] as usize];
            if d == NOT_DIGIT {
                break;
            }
            v = v << 4 | u64::from(d);
            at += 1;
        }
        if at == digits {
            return None;
        }
    } else {
        while at < len && at - start < 19 {
            let d = bytes[at].wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v * 10 + u64::from(d);
            at += 1;
        }
        if at == start {
            return None;
        }
    }
    (at == len || is_separator(bytes[at])).then_some((hex, v, at))
}

/// ASCII whitespace as `char::is_whitespace` has it (the line end included).
#[inline(always)]
fn is_ascii_space(b: u8) -> bool {
    b == b' ' || b.wrapping_sub(b'\t') < 5
}

/// `line` without its leading whitespace, and its first word: what `line.trim_start()`
/// and `split_whitespace().next()` give, read a byte at a time while the bytes are ASCII
/// (a shader line nearly always is); from the first other byte on, through those methods.
fn first_word(line: &str) -> (&str, &str) {
    let bytes = line.as_bytes();
    // Spaces, then printable ASCII, eight bytes at a time; the byte loops go on from
    // where those stop (other blanks, control bytes, the line end, other characters).
    let mut start = swar::skip_spaces(bytes, 0);
    while start < bytes.len() && is_ascii_space(bytes[start]) {
        start += 1;
    }
    let mut end = swar::skip_printable(bytes, start);
    while end < bytes.len() && bytes[end] < 0x80 && !is_ascii_space(bytes[end]) {
        end += 1;
    }
    if end < bytes.len() && bytes[end] >= 0x80 {
        // A character beyond ASCII before the word ended: Unicode's whitespace rules.
        let trimmed = line.trim_start();
        return (trimmed, trimmed.split_whitespace().next().unwrap_or(""));
    }
    (&line[start..], &line[start..end])
}

pub(crate) struct Lexer<'a> {
    src: &'a str,
    at: usize,
    line: u32,
    col: u32,
    peeked: Option<Tok<'a>>,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Lexer {
            src,
            at: 0,
            line: 1,
            col: 1,
            peeked: None,
        }
    }

    fn bump(&mut self, c: char) {
        self.at += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
    }

    fn lex(&mut self) -> Tok<'a> {
        let bytes = self.src.as_bytes();
        loop {
            // ASCII fast path (one byte, one column); anything else goes through `chars`.
            let Some(&b) = bytes.get(self.at) else {
                return Tok {
                    kind: TokKind::Eof,
                    text: "",
                    pos: Pos::new(self.line, self.col),
                };
            };
            if b == b'\n' {
                let pos = Pos::new(self.line, self.col);
                self.at += 1;
                self.line += 1;
                self.col = 1;
                return Tok {
                    kind: TokKind::Eol,
                    text: "",
                    pos,
                };
            }
            if b.is_ascii() {
                // `char::is_whitespace` on ASCII: space, \t, \n (above), \x0B, \x0C, \r.
                if matches!(b, b' ' | b'\t' | b'\x0B' | b'\x0C' | b'\r') {
                    self.at += 1;
                    self.col += 1;
                    continue;
                }
                if b == b'#' {
                    // Comment to the end of the line (the newline stays a token).
                    self.skip_comment();
                    continue;
                }
                if b != b'\\' {
                    return self.word();
                }
            }
            let rest = &self.src[self.at..];
            let c = rest.chars().next().expect("not at the end");
            if c.is_whitespace() {
                self.bump(c);
                continue;
            }
            if c == '\\' && continues_line(&rest[1..]) {
                // A line continuation: `\` then only blanks up to the line end, which
                // joins the next line to this statement (as amber's tokenizer does).
                while let Some(c) = self.src[self.at..].chars().next() {
                    self.bump(c);
                    if c == '\n' {
                        break;
                    }
                }
                continue;
            }
            return self.word();
        }
    }

    /// Reads plain numbers on the current line: decimals (ASCII digits only, at most 19 of
    /// them) and hexadecimals (`0x` or `0X` then 1 to 16 hex digits), each followed by a
    /// blank, the line end or the end of the file, handing each to `take` as the
    /// [`Literal`] that [`Literal::parse`] makes of the same word (`Int`, `Hex`); `take`
    /// returns `false` to leave it unread. Stops before anything else (a sign, a fraction,
    /// a word, a comment, the line end), leaving it for [`Self::next`]. A fast path for
    /// long value lists: the tokens it reads are exactly the words `next` would return, at
    /// the same positions.
    pub fn number_run(&mut self, mut take: impl FnMut(Literal) -> bool) {
        if self.peeked.is_some() {
            return;
        }
        // Everything read here is ASCII on one line, so the column moves by the bytes read:
        // the position lives in a local and is written back once (with the blanks before
        // the first value not taken, which `next` would skip too).
        let bytes = self.src.as_bytes();
        let mut at = self.at;
        loop {
            while at < bytes.len() && is_blank(bytes[at]) {
                at += 1;
            }
            let Some((hex, v, end)) = plain_number(bytes, at) else {
                break;
            };
            let literal = if hex {
                Literal::Hex(v)
            } else {
                Literal::Int(i128::from(v))
            };
            if !take(literal) {
                break;
            }
            at = end;
        }
        self.col += (at - self.at) as u32;
        self.at = at;
    }

    /// [`Self::number_run`] for an integer type of value mask `mask`: each plain number
    /// whose value has no bit outside `mask` is pushed to `out` as its bit pattern (what
    /// [`crate::model::Scalar::encode_expected`] gives a non-negative decimal or a
    /// hexadecimal that fits); the first that does not fit is left unread, like everything
    /// `number_run` leaves.
    pub fn bits_run(&mut self, mask: u64, out: &mut Vec<u64>) {
        if self.peeked.is_some() {
            return;
        }
        let bytes = self.src.as_bytes();
        let len = bytes.len();
        let mut at = self.at;
        let mut last_hex = swar::LastHex::default();
        loop {
            while at < len && is_blank(bytes[at]) {
                at += 1;
            }
            // Eight bytes at a time while sixteen are left (room for the word of a
            // hexadecimal's digits and the byte after them): lone zeros (nine values in ten
            // on the performance set) as up to four `0 ` at once, then a number of up to
            // eight digits, decimal or hexadecimal, and the space after it (`swar`). Each is
            // exactly what `plain_number` and the blank skip below read there, and zero fits
            // every mask; anything else (other blanks, the line end, longer numbers, a value
            // that does not fit) goes the byte-at-a-time way below.
            while at + 16 <= len {
                let word = read_u64(bytes, at);
                let zeros = swar::zero_pairs(word);
                if zeros == 4 && swar::zero_pairs(read_u64(bytes, at + 8)) == 4 {
                    // Eight lone zeros (a line of zeros holds 64): sixteen bytes at once.
                    out.extend_from_slice(&[0; 8]);
                    at += 16;
                    continue;
                }
                if zeros > 0 {
                    // A fixed-size write (no copy of a variable length), then the length.
                    let filled = out.len();
                    out.extend_from_slice(&[0; 4]);
                    out.truncate(filled + zeros);
                    at += 2 * zeros;
                    continue;
                }
                match swar::short_number(bytes, at, word, &mut last_hex) {
                    Some((v, end)) if v & !mask == 0 => {
                        out.push(v);
                        at = end + usize::from(bytes[end] == b' ');
                    }
                    _ => break,
                }
            }
            while at < len && is_blank(bytes[at]) {
                at += 1;
            }
            // A lone zero and its separator, then any plain number, a byte at a time.
            if at + 1 < len && bytes[at] == b'0' && is_separator(bytes[at + 1]) {
                out.push(0);
                at += 1;
                continue;
            }
            match plain_number(bytes, at) {
                Some((_, v, end)) if v & !mask == 0 => {
                    out.push(v);
                    at = end;
                }
                _ => break,
            }
        }
        self.col += (at - self.at) as u32;
        self.at = at;
    }

    /// Skips a comment up to (not including) the line end.
    fn skip_comment(&mut self) {
        let rest = &self.src.as_bytes()[self.at..];
        let len = rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len());
        let text = &self.src[self.at..self.at + len];
        self.col += text.chars().count() as u32;
        self.at += len;
    }

    /// A word: everything up to the next whitespace.
    fn word(&mut self) -> Tok<'a> {
        let pos = Pos::new(self.line, self.col);
        let start = self.at;
        let bytes = self.src.as_bytes();
        // Printable ASCII (one column a byte) eight bytes at a time; the loop below goes on
        // from the first other byte, which may still belong to the word.
        let printable_end = swar::skip_printable(bytes, start);
        self.col += (printable_end - start) as u32;
        self.at = printable_end;
        loop {
            match bytes.get(self.at) {
                None => break,
                Some(&b) if b.is_ascii() => {
                    if b.is_ascii_whitespace() || b == b'\x0B' {
                        break;
                    }
                    self.at += 1;
                    self.col += 1;
                }
                Some(_) => {
                    let c = self.src[self.at..].chars().next().expect("not at the end");
                    if c.is_whitespace() {
                        break;
                    }
                    self.bump(c);
                }
            }
        }
        Tok {
            kind: TokKind::Word,
            text: &self.src[start..self.at],
            pos,
        }
    }

    pub fn next(&mut self) -> Tok<'a> {
        match self.peeked.take() {
            Some(t) => t,
            None => self.lex(),
        }
    }

    pub fn peek(&mut self) -> Tok<'a> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lex());
        }
        self.peeked.expect("just filled")
    }

    /// The next token that is not a line end.
    pub fn next_skip_eol(&mut self) -> Tok<'a> {
        loop {
            let t = self.next();
            if t.kind != TokKind::Eol {
                return t;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` texts, each up to `max_pieces - 1` of `pieces` drawn by a xorshift generator
    /// from `seed`: the same texts on every run.
    fn generated_texts(seed: u64, pieces: &[&str], max_pieces: usize, count: usize) -> Vec<String> {
        let mut rng = seed;
        let mut next = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        (0..count)
            .map(|_| {
                let mut text = String::new();
                for _ in 0..next(max_pieces) {
                    text.push_str(pieces[next(pieces.len())]);
                }
                text
            })
            .collect()
    }

    /// Every token as `(text or kind, line, column)`, reading plain numbers through
    /// `number_run` where `fast`; a number (either way) is shown as its `Literal`.
    fn tokens(src: &str, fast: bool) -> Vec<(String, u32, u32)> {
        let mut lx = Lexer::new(src);
        let mut out = Vec::new();
        let skip = Literal::Int(99);
        loop {
            if fast {
                let mut values = Vec::new();
                let before = Pos::new(lx.line, lx.col);
                lx.number_run(|v| {
                    values.push(v);
                    v != skip
                });
                // Positions of fast values are not kept; record them with the run's start.
                for v in values.into_iter().filter(|v| *v != skip) {
                    out.push((format!("{v:?}"), before.line, 0));
                }
            }
            let t = lx.next();
            let text = match t.kind {
                TokKind::Word => match Literal::parse(t.text) {
                    Some(l @ (Literal::Int(_) | Literal::Hex(_))) => format!("{l:?}"),
                    _ => t.text.to_string(),
                },
                TokKind::Eol => "<eol>".to_string(),
                TokKind::Eof => "<eof>".to_string(),
            };
            out.push((text, t.pos.line, t.pos.column));
            if t.kind == TokKind::Eof {
                return out;
            }
        }
    }

    /// The same on generated text: runs of numbers, near-numbers (too many digits, `0x`
    /// without digits, signs, letters) and every blank, line end and comment character, in
    /// random order (a fixed xorshift seed, so a failure repeats).
    #[test]
    fn number_runs_read_what_tokens_would_on_generated_text() {
        let pieces = [
            "0",
            "7",
            "42",
            "0x",
            "0X",
            "0x1f",
            "0XAb",
            "ffff",
            "g",
            "x",
            "-",
            "+",
            ".",
            "#",
            " ",
            " ",
            " ",
            "\t",
            "\r",
            "\x0B",
            "\x0C",
            "\n",
            "99",
            "1234567890123456789",
            "12345678901234567890",
            "0x0123456789abcdef",
            "0x0123456789abcdef0",
            "EQ",
            "\u{e9}",
            "0 0 0 0 ",
            "0 0 0 0 0 0 0 ",
            "0 ",
            // Around the eight-byte reading: seven, eight and nine digits, hex digits of
            // both cases, a word's worth of `0 ` pairs broken by another separator.
            "1234567",
            "12345678",
            "123456789",
            "99999999",
            "00000000",
            "0xffffffff",
            "0xFfFfFfFf0",
            "0x1234567",
            "0xdeadbeefg",
            "0x0000000",
            "0 0\t0 0 ",
            "0 0 0 0x",
            "0xc",
            "0\u{fa}",
            "0xffff",
            "0xfffffffe",
            "0xffffffff ",
        ];
        for src in generated_texts(0x9e37_79b9_7f4a_7c15, &pieces, 40, 4000) {
            // `bits_run` reads what `number_run` does with a taker that keeps the values
            // that fit `mask`, and stops at the same place.
            for mask in [0xff, 0xffff_ffff, u64::MAX] {
                let (mut a, mut b) = (Lexer::new(&src), Lexer::new(&src));
                loop {
                    let mut bits = Vec::new();
                    a.bits_run(mask, &mut bits);
                    let mut taken = Vec::new();
                    b.number_run(|l| {
                        let v = match l {
                            Literal::Int(v) => v as u64,
                            Literal::Hex(v) => v,
                            Literal::Float(_) => return false,
                        };
                        taken.push(v);
                        v & !mask == 0
                    });
                    taken.retain(|v| v & !mask == 0);
                    assert_eq!(bits, taken, "{src:?}");
                    assert_eq!((a.at, a.line, a.col), (b.at, b.line, b.col), "{src:?}");
                    let (ta, tb) = (a.next(), b.next());
                    assert_eq!((ta.text, ta.kind, ta.pos), (tb.text, tb.kind, tb.pos));
                    if ta.kind == TokKind::Eof {
                        break;
                    }
                }
            }
            let slow = tokens(&src, false);
            let fast = tokens(&src, true);
            let texts =
                |v: &[(String, u32, u32)]| v.iter().map(|t| t.0.clone()).collect::<Vec<_>>();
            assert_eq!(texts(&slow), texts(&fast), "{src:?}");
            for t in fast.iter().filter(|t| t.2 != 0) {
                assert!(slow.contains(t), "{t:?} not among {slow:?} in {src:?}");
            }
        }
    }

    /// A raw block's text and the positions after it on generated blocks (ASCII and
    /// multi-byte characters, tabs, carriage returns, indented `END`s): the text is the
    /// lines before `END` and the next token is where counting characters puts it.
    #[test]
    fn raw_blocks_keep_text_and_positions_on_generated_text() {
        let pieces = [
            "a", " ", "\t", "\r", "\u{e9}", "\u{3000}", "%1 = OpX", ";", "ENDX",
        ];
        let mut rng = 0x1234_5678_9abc_def1u64;
        let mut next = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        for _ in 0..500 {
            let mut body = String::new();
            for _ in 0..next(6) {
                for _ in 0..next(8) {
                    body.push_str(pieces[next(pieces.len())]);
                }
                body.push('\n');
            }
            let indent = " ".repeat(next(3));
            let src = format!("{body}{indent}END next\n");
            let mut lx = Lexer::new(&src);
            let (text, end) = lx.raw_block("SHADER", Pos::new(1, 1)).unwrap();
            assert_eq!(text, body, "{src:?}");
            let line = 1 + body.matches('\n').count() as u32;
            let col = 1 + indent.len() as u32;
            assert_eq!(end, Pos::new(line, col), "{src:?}");
            let t = lx.next();
            assert_eq!(
                (t.text, t.pos),
                ("next", Pos::new(line, col + 4)),
                "{src:?}"
            );
        }
    }

    /// `find_newline` against a plain search, and `first_word` against `trim_start` and
    /// `split_whitespace`, on generated lines (every ASCII blank, multi-byte characters
    /// and Unicode blanks among them, a line end at every offset of an 8-byte word).
    #[test]
    fn byte_scans_agree_with_the_plain_searches() {
        let pieces = [
            "a", "0", " ", "\t", "\r", "\x0B", "\x0C", "\n", "\u{e9}", "\u{3000}", "\u{85}", "END",
            "%x", "abcdefgh",
        ];
        for text in generated_texts(0x0bad_cafe_f00d_1234, &pieces, 24, 5000) {
            let bytes = text.as_bytes();
            for start in 0..bytes.len().min(9) {
                let want = bytes[start..].iter().position(|b| *b == b'\n');
                assert_eq!(find_newline(&bytes[start..]), want, "{text:?} from {start}");
            }
            let trimmed = text.trim_start();
            let first = trimmed.split_whitespace().next().unwrap_or("");
            assert_eq!(first_word(&text), (trimmed, first), "{text:?}");
        }
    }

    /// Words and line ends against a reference reading by `char`s (words are runs of
    /// characters that are not `char::is_whitespace`, a column per character), on generated
    /// text with long ASCII words, control bytes, DEL, Unicode letters and blanks.
    #[test]
    fn words_are_runs_of_non_whitespace_characters() {
        let pieces = [
            "a",
            "EXPECT",
            "outputB",
            "0x1f",
            "abcdefghijklmnop",
            " ",
            " ",
            "\t",
            "\r",
            "\n",
            "\x0B",
            "\x0C",
            "\x01",
            "\x7f",
            "\u{e9}",
            "\u{3000}",
            "\u{85}",
            "~!",
        ];
        for src in generated_texts(0x5bd1_e995_1234_5678, &pieces, 30, 3000) {
            let mut want = Vec::new();
            let (mut line, mut col) = (1u32, 1u32);
            let mut word: Option<(String, u32)> = None;
            for c in src.chars() {
                if c.is_whitespace() {
                    if let Some((w, at)) = word.take() {
                        want.push((w, line, at));
                    }
                    if c == '\n' {
                        want.push((String::new(), line, col));
                        line += 1;
                        col = 1;
                        continue;
                    }
                } else {
                    word.get_or_insert_with(|| (String::new(), col)).0.push(c);
                }
                col += 1;
            }
            if let Some((w, at)) = word.take() {
                want.push((w, line, at));
            }
            let mut lx = Lexer::new(&src);
            let mut got = Vec::new();
            loop {
                let t = lx.next();
                if t.kind == TokKind::Eof {
                    break;
                }
                got.push((t.text.to_string(), t.pos.line, t.pos.column));
            }
            assert_eq!(got, want, "{src:?}");
        }
    }

    /// The number fast path reads exactly the words the ordinary tokens would, leaves
    /// everything else (and what `take` refuses) to them, and keeps later positions.
    #[test]
    fn number_runs_read_what_tokens_would() {
        let src = "EXPECT b IDX 0 EQ 1 22  333\t4 -5 6.0 7 0x8 99 10 # c 11\n  12 \
                   12345678901234567890 13a 14 0XfF 0x 0x1G 0x+5 0x00000000000000001 \
                   0xffffffffffffffff 0x1#c\nEND";
        let slow = tokens(src, false);
        let fast = tokens(src, true);
        // Same tokens in the same order.
        let texts = |v: &[(String, u32, u32)]| v.iter().map(|t| t.0.clone()).collect::<Vec<_>>();
        assert_eq!(texts(&slow), texts(&fast));
        // Tokens the fast path left have the ordinary positions.
        for t in fast.iter().filter(|t| t.2 != 0) {
            assert!(slow.contains(t), "{t:?} not among {slow:?}");
        }
        // What a run reads: plain decimals and hexadecimals, stopping at a sign.
        let mut lx = Lexer::new("1 0x2A 333 -5 6");
        let mut seen = Vec::new();
        lx.number_run(|v| {
            seen.push(v);
            true
        });
        assert_eq!(
            seen,
            vec![Literal::Int(1), Literal::Hex(42), Literal::Int(333)]
        );
        let t = lx.next();
        assert_eq!((t.text, t.pos.column), ("-5", 12));
    }
}
