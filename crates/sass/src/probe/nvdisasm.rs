//! Running nvdisasm on raw words as a black box, many words per call.
//!
//! `nvdisasm -b SMxx file` disassembles a file of raw 128-bit words, but stops at the first
//! word it rejects ("... at address 0x00000020") and prints nothing else. So a batch is run
//! whole first; on a failure the rejected word is recorded, the words before it are known
//! to be accepted (their text is fetched later, together), and the rest is run again. The
//! words after a rejection are run in chunks, so that a batch with many rejected words does
//! not disassemble its tail again for every one of them.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{normalize, Arch, Word};

/// What a disassembler said about one word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawText {
    /// The text (normalised: no trailing `;`), and the byte address the word had in the
    /// run that printed it (branch targets print relative to it).
    Text {
        /// The text.
        text: String,
        /// The word's byte address in that run.
        addr: u64,
    },
    /// The word was rejected; the disassembler's message.
    Rejected(String),
}

/// A disassembler of raw words: nvdisasm, or a stand-in in tests.
pub trait RawDisassembler {
    /// One result per word of `words`, in order.
    fn disassemble(&mut self, arch: Arch, words: &[Word]) -> Result<Vec<RawText>, String>;
    /// How many times the underlying tool was started so far.
    fn calls(&self) -> usize;
}

/// nvdisasm in raw mode.
pub struct Nvdisasm {
    exe: PathBuf,
    dir: PathBuf,
    calls: AtomicUsize,
    /// Most words given to one call after a rejection (the first call takes its whole part).
    pub chunk: usize,
    /// How many nvdisasm processes run at once, each on its own contiguous part of a batch
    /// (1: the batch goes whole to one process first).
    pub workers: usize,
}

/// The address of a run's first word ([`RawText::Text`]'s `addr` includes it). High enough
/// that a backward branch target stays above zero for every offset a target field can
/// hold (BRA's is 48 bits of words), so that no word is rejected for its address.
pub const BASE_ADDRESS: u64 = 1 << 50;

/// One nvdisasm run: texts by address, or the address of the word it rejected.
enum Run {
    Texts(Vec<Option<String>>),
    RejectedAt(usize, String),
}

impl Nvdisasm {
    /// nvdisasm at `exe`, writing its scratch files into `dir`; one worker.
    pub fn new(exe: &Path, dir: &Path) -> Nvdisasm {
        Nvdisasm {
            exe: exe.to_path_buf(),
            dir: dir.to_path_buf(),
            calls: AtomicUsize::new(0),
            chunk: 256,
            workers: 1,
        }
    }

    /// Runs nvdisasm once on `words` (at addresses 0, 16, ...), through scratch file `file`.
    fn run_once(&self, arch: Arch, words: &[Word], file: &Path) -> Result<Run, String> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(file, bytes).map_err(|e| format!("{}: {e}", file.display()))?;
        self.calls.fetch_add(1, Ordering::Relaxed);
        let out = Command::new(&self.exe)
            .arg("-b")
            .arg(arch.nvdisasm_name())
            .arg("-base")
            .arg(format!("{BASE_ADDRESS:#x}"))
            .arg(file)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot start {}: {e}", self.exe.display()))?;
        if out.status.success() {
            let mut texts = vec![None; words.len()];
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                let Some((a, t)) = line
                    .trim_start()
                    .strip_prefix("/*")
                    .and_then(|r| r.split_once("*/"))
                else {
                    continue;
                };
                if let Ok(a) = u64::from_str_radix(a.trim(), 16) {
                    let k = (a.wrapping_sub(BASE_ADDRESS) / 16) as usize;
                    if let Some(slot) = texts.get_mut(k) {
                        *slot = Some(normalize(t).to_string());
                    }
                }
            }
            return Ok(Run::Texts(texts));
        }
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        let first = err.lines().next().unwrap_or("").trim().to_string();
        let at = err.split("address 0x").nth(1).and_then(|s| {
            let hex: String = s.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
            u64::from_str_radix(&hex, 16).ok()
        });
        let k = at.map(|a| (a.wrapping_sub(BASE_ADDRESS) / 16) as usize);
        match k {
            Some(k) if k < words.len() => Ok(Run::RejectedAt(k, first)),
            // No address: a lone word is rejected; a longer batch cannot be bisected by
            // address, so it is reported as the caller's error.
            _ if words.len() == 1 => Ok(Run::RejectedAt(0, first)),
            _ => Err(format!("nvdisasm failed without naming a word: {err}")),
        }
    }
}

impl Nvdisasm {
    /// The whole batch first, then after each rejection the rest in chunks.
    fn run_part(&self, arch: Arch, words: &[Word], file: &Path) -> Result<Vec<RawText>, String> {
        let mut out: Vec<Option<RawText>> = vec![None; words.len()];
        // Indices still to run, and indices known to be accepted but without text yet.
        let mut todo: Vec<usize> = (0..words.len()).collect();
        let mut accepted: Vec<usize> = Vec::new();
        let mut first = true;
        while !todo.is_empty() || !accepted.is_empty() {
            // The accepted words go last, in one call of their own.
            let batch: Vec<usize> = if todo.is_empty() {
                std::mem::take(&mut accepted)
            } else if first {
                std::mem::take(&mut todo)
            } else {
                let n = todo.len().min(self.chunk);
                todo.drain(..n).collect()
            };
            first = false;
            let batch_words: Vec<Word> = batch.iter().map(|&i| words[i]).collect();
            match self.run_once(arch, &batch_words, file)? {
                Run::Texts(texts) => {
                    for (k, (i, t)) in batch.iter().zip(texts).enumerate() {
                        out[*i] = Some(match t {
                            Some(text) => RawText::Text {
                                text,
                                addr: BASE_ADDRESS + 16 * k as u64,
                            },
                            None => RawText::Rejected("no text printed".to_string()),
                        });
                    }
                }
                Run::RejectedAt(k, why) => {
                    out[batch[k]] = Some(RawText::Rejected(why));
                    accepted.extend_from_slice(&batch[..k]);
                    // The words after the rejected one go back to the front of the queue.
                    let rest: Vec<usize> = batch[k + 1..].to_vec();
                    todo.splice(0..0, rest);
                }
            }
        }
        Ok(out
            .into_iter()
            .map(|t| t.unwrap_or_else(|| RawText::Rejected("not run".to_string())))
            .collect())
    }
}

impl RawDisassembler for Nvdisasm {
    fn disassemble(&mut self, arch: Arch, words: &[Word]) -> Result<Vec<RawText>, String> {
        let workers = self.workers.max(1);
        let part = words.len().div_ceil(workers).max(1);
        let this = &*self;
        let results: Vec<Result<Vec<RawText>, String>> = std::thread::scope(|s| {
            let handles: Vec<_> = words
                .chunks(part)
                .enumerate()
                .map(|(k, ws)| {
                    let file = this.dir.join(format!("probe-words-{k}.bin"));
                    s.spawn(move || this.run_part(arch, ws, &file))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("worker panicked".to_string()))
                })
                .collect()
        });
        let mut all = Vec::with_capacity(words.len());
        for r in results {
            all.extend(r?);
        }
        Ok(all)
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::Relaxed)
    }
}
