//! Running nvdisasm on raw words as a black box, many words per call.
//!
//! `nvdisasm -b SMxx file` disassembles a file of raw 128-bit words, but stops at the first
//! word it rejects ("... at address 0x00000020") and prints nothing else; given a cubin it
//! names every word it rejects but prints no text at all. So a batch is first *screened*:
//! all its words go into one cubin ([`super::elf`]) and every rejected word is recorded
//! from one run. The rest are then printed in raw mode, split among the workers. Should raw
//! mode still reject a word, the words before it are known to be accepted (their text is
//! fetched later, together) and the rest is run again, in chunks, so that a batch with
//! many rejected words does not disassemble its tail again for every one of them; without
//! screening ([`Nvdisasm::screen`] false) that restart is the whole method, one nvdisasm
//! start per rejected word.

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
    /// Whether a batch is screened in a cubin first (the module's doc); true by default.
    pub screen: bool,
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
            screen: true,
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
        let first = err.lines().next().unwrap_or("");
        let k = rejected_address(first).map(|a| (a.wrapping_sub(BASE_ADDRESS) / 16) as usize);
        let first = rejection_message(first);
        match k {
            Some(k) if k < words.len() => Ok(Run::RejectedAt(k, first)),
            // No address: a lone word is rejected; a longer batch cannot be bisected by
            // address, so it is reported as the caller's error.
            _ if words.len() == 1 => Ok(Run::RejectedAt(0, first)),
            _ => Err(format!("nvdisasm failed without naming a word: {err}")),
        }
    }
}

/// The address an nvdisasm error line names (`... at address 0x00000020`).
fn rejected_address(line: &str) -> Option<u64> {
    let hex: String = line
        .split("at address 0x")
        .nth(1)?
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    u64::from_str_radix(&hex, 16).ok()
}

/// An nvdisasm error line without its prefix and address, so that equal rejections read
/// alike wherever the word was: `Unrecognized operation for functional unit 'uC'`.
fn rejection_message(line: &str) -> String {
    let line = line.trim();
    let line = line.strip_prefix("nvdisasm error").map_or(line, |r| {
        r.trim_start().trim_start_matches(':').trim_start()
    });
    line.split(" at address 0x")
        .next()
        .unwrap_or(line)
        .to_string()
}

impl Nvdisasm {
    /// Screens `words` in one cubin: the message of every word nvdisasm rejects, by index.
    /// `None` when nvdisasm fails without naming the words (the caller then runs raw mode
    /// alone).
    fn screen_cubin(
        &self,
        arch: Arch,
        words: &[Word],
    ) -> Result<Option<Vec<Option<String>>>, String> {
        let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let file = self.dir.join("probe-screen.cubin");
        std::fs::write(&file, super::elf::code_cubin(arch, &code))
            .map_err(|e| format!("{}: {e}", file.display()))?;
        self.calls.fetch_add(1, Ordering::Relaxed);
        let out = Command::new(&self.exe)
            .arg("-c")
            .arg(&file)
            .stdin(Stdio::null())
            .output();
        // The scratch file is not needed once nvdisasm has read it.
        let _ = std::fs::remove_file(&file);
        let out = out.map_err(|e| format!("cannot start {}: {e}", self.exe.display()))?;
        let mut rejected = vec![None; words.len()];
        if out.status.success() {
            return Ok(Some(rejected));
        }
        let err = String::from_utf8_lossy(&out.stderr);
        let mut named = 0;
        for line in err.lines().filter(|l| l.contains("error")) {
            match rejected_address(line).map(|a| (a / 16) as usize) {
                Some(k) if k < words.len() => {
                    rejected[k].get_or_insert_with(|| rejection_message(line));
                    named += 1;
                }
                Some(_) => return Ok(None),
                // The closing "Illegal instruction found" names no word.
                None => {}
            }
        }
        Ok((named > 0).then_some(rejected))
    }

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
        let screened = match self.screen && !words.is_empty() {
            true => self.screen_cubin(arch, words)?,
            false => None,
        };
        let Some(rejected) = screened else {
            return self.print_raw(arch, words);
        };
        // Raw mode prints the words the screen let through.
        let kept: Vec<Word> = (0..words.len())
            .filter(|&k| rejected[k].is_none())
            .map(|k| words[k])
            .collect();
        let mut printed = self.print_raw(arch, &kept)?.into_iter();
        Ok(rejected
            .into_iter()
            .map(|r| match r {
                Some(why) => RawText::Rejected(why),
                None => printed.next().expect("one text per word kept"),
            })
            .collect())
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::Relaxed)
    }
}

impl Nvdisasm {
    /// Raw mode on `words`, split among the workers.
    fn print_raw(&self, arch: Arch, words: &[Word]) -> Result<Vec<RawText>, String> {
        let workers = self.workers.max(1);
        let part = words.len().div_ceil(workers).max(1);
        let this = self;
        let results: Vec<Result<Vec<RawText>, String>> = std::thread::scope(|s| {
            let handles: Vec<_> = words
                .chunks(part)
                .enumerate()
                .map(|(k, ws)| {
                    let file = this.dir.join(format!("probe-words-{k}.bin"));
                    s.spawn(move || {
                        let r = this.run_part(arch, ws, &file);
                        let _ = std::fs::remove_file(&file);
                        r
                    })
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
}
