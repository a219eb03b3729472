//! Eight bytes at a time: reading the plain numbers of a value list, and finding line ends,
//! spaces and the end of a word, from little-endian 8-byte words of the text (the first
//! byte in the lowest bits), without a loop per byte.
//! Each function here is held equal to a byte-by-byte reading by the tests below; the
//! lexer uses them only where such a reading would accept the same text.

/// Eight copies of a byte.
const fn splat(byte: u8) -> u64 {
    0x0101_0101_0101_0101 * byte as u64
}

/// The high bit of every byte of `x` that is not zero, and no other bit (no carry crosses
/// a byte: the low seven bits plus 0x7f stay below 0x100).
#[inline(always)]
fn nonzero_bytes(x: u64) -> u64 {
    (((x & splat(0x7f)) + splat(0x7f)) | x) & splat(0x80)
}

/// A word with a non-zero byte wherever the byte of `word` is not an ASCII decimal digit:
/// a digit is `0x30 | d` with `d <= 9`, so its high nibble is 3 and adding 6 leaves it 3.
/// The addition carries into the next byte only from a byte of 0xfa or more, which is not
/// a digit itself, so every byte below the first non-digit is read right.
#[inline(always)]
fn not_decimal(word: u64) -> u64 {
    const HIGH: u64 = splat(0xf0);
    ((word & HIGH) ^ splat(0x30)) | ((word.wrapping_add(splat(0x06)) & HIGH) ^ splat(0x30))
}

/// How many of the bytes of `word`, from the first, are ASCII decimal digits (0 to 8).
#[inline(always)]
pub(crate) fn decimal_digits(word: u64) -> usize {
    (nonzero_bytes(not_decimal(word)).trailing_zeros() / 8) as usize
}

/// How many of the bytes of `word`, from the first, are ASCII hexadecimal digits (0 to 8):
/// a decimal digit, or a letter `a`-`f` in either case (`b | 0x20` is then `0x61..=0x66`,
/// so `(b | 0x20) ^ 0x60` has a zero high nibble and a low nibble of 1 to 6; a byte from
/// 0xf1 up can carry into the next byte, but it is no digit itself).
#[inline(always)]
pub(crate) fn hex_digits(word: u64) -> usize {
    let y = (word | splat(0x20)) ^ splat(0x60);
    let not_letter = (y & splat(0xf0))
        | (y.wrapping_add(splat(0x09)) & splat(0x10))
        | (!y.wrapping_add(splat(0x0f)) & splat(0x10));
    let not_hex = nonzero_bytes(not_decimal(word)) & nonzero_bytes(not_letter);
    (not_hex.trailing_zeros() / 8) as usize
}

/// The value of the first `n` bytes of `word` read as decimal digits (`1 <= n <= 8`; the
/// caller has checked with [`decimal_digits`] that they are digits; the bytes after them
/// are ignored).
#[inline(always)]
pub(crate) fn decimal_value(word: u64, n: usize) -> u64 {
    debug_assert!((1..=8).contains(&n));
    // Digit values, the first digit moved up so that the missing ones read as leading
    // zeros; the bytes after the digits (and any borrow they cause) are shifted out.
    let mut x = word.wrapping_sub(splat(b'0')) << (8 * (8 - n));
    // Pairs, then quadruples, then all eight: the earlier (lower) part is the more
    // significant one. No product crosses its lane: 9 * 10 + 9, 99 * 100 + 99, and
    // 9999 * 10000 + 9999 all fit.
    x = (x * 10 + (x >> 8)) & 0x00ff_00ff_00ff_00ff;
    x = (x * 100 + (x >> 16)) & 0x0000_ffff_0000_ffff;
    x.wrapping_mul(10_000).wrapping_add(x >> 32) & 0xffff_ffff
}

/// The value of the first `n` bytes of `word` read as hexadecimal digits (`1 <= n <= 8`,
/// checked with [`hex_digits`] by the caller).
#[inline(always)]
pub(crate) fn hex_value(word: u64, n: usize) -> u64 {
    debug_assert!((1..=8).contains(&n));
    // A digit's value is its low nibble, plus 9 for a letter (bit 6 set: `A` is 0x41).
    let nibbles = (word & splat(0x0f)) + ((word >> 6) & splat(0x01)) * 9;
    let mut x = nibbles << (8 * (8 - n));
    x = (x << 4 | x >> 8) & 0x00ff_00ff_00ff_00ff;
    x = (x << 8 | x >> 16) & 0x0000_ffff_0000_ffff;
    (x << 16 | x >> 32) & 0xffff_ffff
}

/// The 8 bytes at `at` as a little-endian word (the caller checks that they exist).
#[inline(always)]
pub(crate) fn read_u64(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

/// The index of the first `\n` in `hay`, eight bytes at a time: a byte equal to `\n` is a
/// zero byte of `word ^ 0x0a0a...`, and the lowest set bit of `(x - 0x01..) & !x & 0x80..`
/// marks the first zero byte of `x` (a borrow can only set bits above a zero byte).
pub(crate) fn find_newline(hay: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const NEWLINES: u64 = ONES * b'\n' as u64;
    let mut i = 0;
    while i + 8 <= hay.len() {
        let x = read_u64(hay, i) ^ NEWLINES;
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            return Some(i + (zero.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    hay[i..].iter().position(|b| *b == b'\n').map(|p| i + p)
}

/// What may end a plain number: a blank or the line end (`\t` `\n` `\x0B` `\x0C` `\r` are
/// 9..=13).
#[inline(always)]
pub(crate) fn is_separator(b: u8) -> bool {
    b == b' ' || b.wrapping_sub(b'\t') < 5
}

/// How many `0 ` (a lone zero ended by a space) open `word`, one after the other: 0 to 4.
#[inline(always)]
pub(crate) fn zero_pairs(word: u64) -> usize {
    const FOUR_ZEROS: u64 = u64::from_le_bytes(*b"0 0 0 0 ");
    ((word ^ FOUR_ZEROS).trailing_zeros() / 16) as usize
}

/// The eight bytes after the last `0x` [`short_number`] read, with their count of hex
/// digits and the value of those: the same bytes give the same number, so a repeated value
/// (one hexadecimal in two on the performance set repeats the one before it) is not
/// decoded again. Eight zero bytes, which hold no digit, to begin with.
#[derive(Default)]
pub(crate) struct LastHex {
    digits: u64,
    count: usize,
    value: u64,
}

/// The plain number of at most eight digits at `at` (a decimal, or `0x`/`0X` and hex
/// digits) ended by a separator or the end of `bytes`: its value and where it ends. `word`
/// is the 8 bytes at `at`. `None` where it is not such a number or the text is too short
/// to read it a word at a time; the caller then reads it a byte at a time, which gives the
/// same value wherever this gives one. `last` remembers the last hexadecimal's digits.
#[inline(always)]
pub(crate) fn short_number(
    bytes: &[u8],
    at: usize,
    word: u64,
    last: &mut LastHex,
) -> Option<(u64, usize)> {
    let ends = |n: usize, digits: u64, next: usize| {
        if n < 8 {
            is_separator((digits >> (8 * n)) as u8)
        } else {
            next == bytes.len() || is_separator(bytes[next])
        }
    };
    if (word | 0x2000) & 0xffff == u64::from(u16::from_le_bytes(*b"0x")) {
        let start = at + 2;
        if start + 8 > bytes.len() {
            return None;
        }
        let digits = read_u64(bytes, start);
        if digits != last.digits {
            let count = hex_digits(digits);
            let value = if count > 0 {
                hex_value(digits, count)
            } else {
                0
            };
            *last = LastHex {
                digits,
                count,
                value,
            };
        }
        let n = last.count;
        (n > 0 && ends(n, digits, start + 8)).then_some((last.value, start + n))
    } else {
        let n = decimal_digits(word);
        (n > 0 && ends(n, word, at + 8)).then(|| (decimal_value(word, n), at + n))
    }
}

/// The index of the first byte from `at` on that is not a space (`b' '`), or the length.
#[inline(always)]
pub(crate) fn skip_spaces(bytes: &[u8], mut at: usize) -> usize {
    while at + 8 <= bytes.len() {
        let others = read_u64(bytes, at) ^ splat(b' ');
        if others != 0 {
            return at + (others.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < bytes.len() && bytes[at] == b' ' {
        at += 1;
    }
    at
}

/// The index of the first byte from `at` on that is a space or below (every ASCII blank
/// and control byte) or not ASCII, or the length: what a word of printable ASCII spans.
/// A byte is marked when its low seven bits plus 0x5f stay below 0x80 (it is 0x20 or
/// less) or its high bit is set.
#[inline(always)]
pub(crate) fn skip_printable(bytes: &[u8], mut at: usize) -> usize {
    while at + 8 <= bytes.len() {
        let word = read_u64(bytes, at);
        let stops = (!((word & splat(0x7f)) + splat(0x5f)) | word) & splat(0x80);
        if stops != 0 {
            return at + (stops.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < bytes.len() && bytes[at].wrapping_sub(0x21) < 0x5f {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words from a xorshift generator, built from bytes that are mostly digits, hex
    /// letters and their neighbours in the ASCII table (`/`, `:`, `@`, `G`, `` ` ``, `g`),
    /// control bytes that `| 0x20` turns into digits, and bytes of 0xf0 and up (which
    /// carry).
    fn generated_words(count: usize) -> Vec<[u8; 8]> {
        let alphabet: Vec<u8> = (b'0'..=b'9')
            .chain(b'a'..=b'f')
            .chain(b'A'..=b'F')
            .chain([
                b'/', b':', b'@', b'G', b'`', b'g', b'x', b' ', b'\t', b'\n', 0x10, 0x19, 0x00,
                0x7f, 0x80, 0x91, 0xd0, 0xf0, 0xf1, 0xfa, 0xff,
            ])
            .collect();
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        (0..count)
            .map(|_| {
                let mut word = [0u8; 8];
                for b in &mut word {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    *b = alphabet[(rng % alphabet.len() as u64) as usize];
                }
                word
            })
            .collect()
    }

    /// The two skips against byte loops, from every start, on generated text with every
    /// byte value near their edges (`\x1f`, space, `!`, `~`, DEL, 0x80, 0xff).
    #[test]
    fn skips_stop_where_byte_loops_stop() {
        let alphabet = [
            b' ', b' ', b' ', b'!', b'a', b'~', 0x7f, 0x80, 0xff, 0x1f, b'\t', 0,
        ];
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let len = (rng % 40) as usize;
            let text: Vec<u8> = (0..len)
                .map(|i| alphabet[((rng >> (i % 60)) as usize + i * 7) % alphabet.len()])
                .collect();
            for at in 0..=len {
                let spaces = at + text[at..].iter().take_while(|b| **b == b' ').count();
                assert_eq!(skip_spaces(&text, at), spaces, "{text:x?} from {at}");
                let printable = at
                    + text[at..]
                        .iter()
                        .take_while(|b| (0x21..=0x7f).contains(*b))
                        .count();
                assert_eq!(skip_printable(&text, at), printable, "{text:x?} from {at}");
            }
        }
    }

    /// The digit counts and values against a byte-by-byte reading: every byte value in
    /// every position, and generated words.
    #[test]
    fn eight_byte_numbers_read_as_byte_loops_do() {
        let mut words = generated_words(200_000);
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut w = *b"12345678";
                w[at] = b;
                words.push(w);
                let mut w = *b"aBcD0f9E";
                w[at] = b;
                words.push(w);
            }
        }
        for bytes in words {
            let word = u64::from_le_bytes(bytes);
            let dec = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            let hex = bytes.iter().take_while(|b| b.is_ascii_hexdigit()).count();
            assert_eq!(decimal_digits(word), dec, "{bytes:x?}");
            assert_eq!(hex_digits(word), hex, "{bytes:x?}");
            for n in 1..=dec {
                let text = std::str::from_utf8(&bytes[..n]).unwrap();
                assert_eq!(
                    decimal_value(word, n),
                    text.parse::<u64>().unwrap(),
                    "{text}"
                );
            }
            for n in 1..=hex {
                let text = std::str::from_utf8(&bytes[..n]).unwrap();
                let want = u64::from_str_radix(text, 16).unwrap();
                assert_eq!(hex_value(word, n), want, "{text}");
            }
        }
    }
}
