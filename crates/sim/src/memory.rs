//! The memories a kernel sees: global buffers, a block's shared memory, each thread's local
//! memory and the constant banks. Every access is bounds-checked; a bad one is a
//! [`FaultKind`], never a panic.

use crate::error::FaultKind;

/// Where global buffer `k` (the kernel parameter at position `k`) starts: buffers are
/// 4 GiB apart, so an address names its buffer by its high bits and an overrun never lands
/// in the next buffer.
pub const GLOBAL_BASE: u64 = 0x7f00_0000_0000;

/// Bytes of local memory per thread. ptxas's stack starts at the top
/// (`c[0x0][0x28]`) and grows down.
pub const LOCAL_BYTES: u32 = 0x1_0000;

/// Where generic addresses (LD, ST, ATOM; `-G` code uses them throughout) see a block's
/// shared memory: `SR_SWINHI` reads this address's high word, and an address whose high
/// word it is names shared byte `addr & 0xffff_ffff`.
pub const SHARED_WINDOW: u64 = 0x7d00_0000_0000;

/// Where generic addresses see a thread's local memory (high word as [`SHARED_WINDOW`]).
pub const LOCAL_WINDOW: u64 = 0x7c00_0000_0000;

/// The device address of buffer `k`.
pub fn buffer_address(k: usize) -> u64 {
    GLOBAL_BASE + ((k as u64) << 32)
}

/// Global memory: the launch's buffers (`None` where the parameter is not a buffer).
#[derive(Clone, Debug, Default)]
pub struct Global {
    /// Buffer `k` lives at [`buffer_address`]`(k)`.
    pub buffers: Vec<Option<Vec<u8>>>,
    /// The module's `__device__` variables, at [`crate::module::MODULE_BASE`].
    pub module: Vec<u8>,
}

impl Global {
    /// The buffer and offset an access of `size` bytes at `addr` touches.
    fn locate(&mut self, addr: u64, size: u32) -> Result<(&mut Vec<u8>, usize), FaultKind> {
        let oob = FaultKind::GlobalOutOfBounds { addr, size };
        let module = crate::module::MODULE_BASE;
        if (module..module + self.module.len() as u64).contains(&addr) {
            let off = (addr - module) as usize;
            return if off + size as usize <= self.module.len() {
                Ok((&mut self.module, off))
            } else {
                Err(oob)
            };
        }
        if addr < GLOBAL_BASE {
            return Err(oob);
        }
        let k = ((addr - GLOBAL_BASE) >> 32) as usize;
        let off = ((addr - GLOBAL_BASE) & 0xffff_ffff) as usize;
        match self.buffers.get_mut(k) {
            Some(Some(b)) if off + size as usize <= b.len() => Ok((b, off)),
            _ => Err(oob),
        }
    }

    /// Reads `size` bytes (1, 2, 4, 8 or 16) at `addr`.
    pub fn read(&mut self, addr: u64, size: u32) -> Result<[u8; 16], FaultKind> {
        aligned(addr, size)?;
        let (b, off) = self.locate(addr, size)?;
        let mut out = [0u8; 16];
        out[..size as usize].copy_from_slice(&b[off..off + size as usize]);
        Ok(out)
    }

    /// Writes the first `size` bytes of `data` at `addr`.
    pub fn write(&mut self, addr: u64, size: u32, data: &[u8; 16]) -> Result<(), FaultKind> {
        aligned(addr, size)?;
        let (b, off) = self.locate(addr, size)?;
        b[off..off + size as usize].copy_from_slice(&data[..size as usize]);
        Ok(())
    }
}

fn aligned(addr: u64, size: u32) -> Result<(), FaultKind> {
    if addr % size as u64 != 0 {
        Err(FaultKind::Misaligned { addr, size })
    } else {
        Ok(())
    }
}

/// Reads from a flat memory (shared or local) with bounds checks.
pub fn flat_read(
    mem: &[u8],
    addr: u64,
    size: u32,
    fault: impl Fn() -> FaultKind,
) -> Result<[u8; 16], FaultKind> {
    aligned(addr, size)?;
    let end = addr.checked_add(size as u64).ok_or_else(&fault)?;
    if end > mem.len() as u64 {
        return Err(fault());
    }
    let mut out = [0u8; 16];
    out[..size as usize].copy_from_slice(&mem[addr as usize..end as usize]);
    Ok(out)
}

/// Writes to a flat memory (shared or local) with bounds checks.
pub fn flat_write(
    mem: &mut [u8],
    addr: u64,
    size: u32,
    data: &[u8; 16],
    fault: impl Fn() -> FaultKind,
) -> Result<(), FaultKind> {
    aligned(addr, size)?;
    let end = addr.checked_add(size as u64).ok_or_else(&fault)?;
    if end > mem.len() as u64 {
        return Err(fault());
    }
    mem[addr as usize..end as usize].copy_from_slice(&data[..size as usize]);
    Ok(())
}

/// Reads `size` bytes (at most 8) of a constant bank at `offset`.
pub fn const_read(bank: u8, data: &[u8], offset: i64, size: u32) -> Result<u64, FaultKind> {
    let fault = FaultKind::ConstantOutOfBounds { bank, offset };
    if offset < 0 || offset as u64 + size as u64 > data.len() as u64 {
        return Err(fault);
    }
    let mut b = [0u8; 8];
    b[..size as usize].copy_from_slice(&data[offset as usize..offset as usize + size as usize]);
    Ok(u64::from_le_bytes(b))
}
