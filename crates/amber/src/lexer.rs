//! Whitespace-delimited tokens with significant line ends, `#` comments, and raw blocks for
//! inline shader text.

use crate::error::{AmberError, ErrorKind, Pos};

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
        loop {
            let rest = &self.src[self.at..];
            let Some(c) = rest.chars().next() else {
                return Tok {
                    kind: TokKind::Eof,
                    text: "",
                    pos: Pos::new(self.line, self.col),
                };
            };
            if c == '\n' {
                let pos = Pos::new(self.line, self.col);
                self.bump(c);
                return Tok {
                    kind: TokKind::Eol,
                    text: "",
                    pos,
                };
            }
            if c.is_whitespace() {
                self.bump(c);
                continue;
            }
            if c == '#' {
                // Comment to the end of the line (the newline stays a token).
                while let Some(c) = self.src[self.at..].chars().next() {
                    if c == '\n' {
                        break;
                    }
                    self.bump(c);
                }
                continue;
            }
            let pos = Pos::new(self.line, self.col);
            let start = self.at;
            while let Some(c) = self.src[self.at..].chars().next() {
                if c.is_whitespace() {
                    break;
                }
                self.bump(c);
            }
            return Tok {
                kind: TokKind::Word,
                text: &self.src[start..self.at],
                pos,
            };
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

    /// Raw lines up to (not including) the next line whose first word is `END`; the lexer
    /// is left just after that `END`. Call right after the end-of-line token that closes the
    /// header. `opener` names the block and is where a missing `END` is reported.
    pub fn raw_block(&mut self, what: &str, opener: Pos) -> Result<(String, Pos), AmberError> {
        debug_assert!(self.peeked.is_none());
        let mut text = String::new();
        loop {
            if self.at >= self.src.len() {
                return Err(AmberError::new(
                    opener,
                    ErrorKind::MissingEnd(what.to_string()),
                ));
            }
            let rest = &self.src[self.at..];
            let line_len = rest.find('\n').map_or(rest.len(), |i| i + 1);
            let line = &rest[..line_len];
            let trimmed = line.trim_start();
            if let Some(after) = trimmed.strip_prefix("END") {
                if after.is_empty() || after.starts_with(|c: char| c.is_whitespace() || c == '#') {
                    let indent = line.len() - trimmed.len();
                    for c in line[..indent + 3].chars() {
                        self.bump(c);
                    }
                    let end_pos = Pos::new(self.line, self.col - 3);
                    return Ok((text, end_pos));
                }
            }
            text.push_str(line);
            for c in line.chars() {
                self.bump(c);
            }
        }
    }
}
