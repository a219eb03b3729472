//! A launch: grid and block dimensions, dynamic shared memory and the kernel's arguments,
//! and the constant bank 0 image built from them as ptxas lays it out.

use crate::error::SimError;
use crate::kernel::{Kernel, CB_LOCAL_TOP};
use crate::memory::{buffer_address, LOCAL_BYTES};

/// Three dimensions (grid or block).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    /// x.
    pub x: u32,
    /// y.
    pub y: u32,
    /// z.
    pub z: u32,
}

impl Dim3 {
    /// `(x, y, z)`.
    pub fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }
    /// The number of elements.
    pub fn count(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

/// One kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A 32-bit unsigned integer.
    U32(u32),
    /// A 32-bit signed integer.
    I32(i32),
    /// A 64-bit unsigned integer.
    U64(u64),
    /// A 32-bit float.
    F32(f32),
    /// A global buffer with these initial contents; its device address is passed.
    Buffer(Vec<u8>),
    /// A global buffer with these initial contents; the device address `offset` bytes into
    /// it is passed (a Vulkan descriptor whose window starts inside its buffer).
    BufferAt(Vec<u8>, u64),
    /// The device address `offset` bytes into the buffer of argument `arg` (an
    /// [`Arg::Buffer`] or [`Arg::BufferAt`]): one buffer seen through several parameters,
    /// which share its memory.
    View {
        /// The argument that holds the buffer.
        arg: usize,
        /// Bytes from the buffer's start.
        offset: u64,
    },
}

impl Arg {
    /// The argument's size in the parameter area.
    pub fn size(&self) -> u32 {
        match self {
            Arg::U32(_) | Arg::I32(_) | Arg::F32(_) => 4,
            Arg::U64(_) | Arg::Buffer(_) | Arg::BufferAt(..) | Arg::View { .. } => 8,
        }
    }
}

/// A launch of a kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads in a block.
    pub block: Dim3,
    /// Dynamic shared memory in bytes (after the kernel's static shared memory).
    pub dynamic_shared: u32,
    /// The arguments, in parameter order.
    pub args: Vec<Arg>,
}

/// The largest block the simulator accepts (as CUDA: 1024 threads).
pub const MAX_BLOCK_THREADS: u64 = 1024;

impl Launch {
    /// Checks the launch against the kernel and builds constant bank 0: block dimensions at
    /// 0x0, grid dimensions at 0xc, the local stack top at 0x28, the parameters from the
    /// kernel's parameter base.
    pub fn constant_bank0(&self, k: &Kernel) -> Result<Vec<u8>, SimError> {
        let bad = |m: String| Err(SimError::BadLaunch(m));
        for (what, d) in [("grid", self.grid), ("block", self.block)] {
            if d.x == 0 || d.y == 0 || d.z == 0 {
                return bad(format!("{what} dimension {d:?} has a zero"));
            }
        }
        if self.block.count() > MAX_BLOCK_THREADS {
            return bad(format!(
                "a block of {} threads is over the limit of {MAX_BLOCK_THREADS}",
                self.block.count()
            ));
        }
        if self.args.len() != k.params.len() {
            return bad(format!(
                "kernel `{}` takes {} parameters, {} arguments given",
                k.name,
                k.params.len(),
                self.args.len()
            ));
        }
        let mut cb = vec![0u8; k.cbank0_size.max(0x40) as usize];
        let put = |cb: &mut Vec<u8>, off: u32, bytes: &[u8]| {
            cb[off as usize..off as usize + bytes.len()].copy_from_slice(bytes);
        };
        for (i, v) in [self.block.x, self.block.y, self.block.z]
            .iter()
            .enumerate()
        {
            put(&mut cb, 4 * i as u32, &v.to_le_bytes());
        }
        for (i, v) in [self.grid.x, self.grid.y, self.grid.z].iter().enumerate() {
            put(&mut cb, 0xc + 4 * i as u32, &v.to_le_bytes());
        }
        put(&mut cb, CB_LOCAL_TOP, &LOCAL_BYTES.to_le_bytes());
        // The shared and local windows of generic addresses, which SM75-SM89 `-G` code
        // reads from c[0x0][0x18] and c[0x0][0x20] (`MOV R6, c[0x0][0x18]`, `cvta.shared`).
        put(&mut cb, 0x18, &crate::memory::SHARED_WINDOW.to_le_bytes());
        put(&mut cb, 0x20, &crate::memory::LOCAL_WINDOW.to_le_bytes());
        for (i, (a, p)) in self.args.iter().zip(&k.params).enumerate() {
            if a.size() != p.size {
                return bad(format!(
                    "argument {i} is {} bytes but parameter {i} of `{}` is {} bytes",
                    a.size(),
                    k.name,
                    p.size
                ));
            }
            let bytes: Vec<u8> = match a {
                Arg::U32(v) => v.to_le_bytes().to_vec(),
                Arg::I32(v) => v.to_le_bytes().to_vec(),
                Arg::F32(v) => v.to_bits().to_le_bytes().to_vec(),
                Arg::U64(v) => v.to_le_bytes().to_vec(),
                Arg::Buffer(_) => buffer_address(i).to_le_bytes().to_vec(),
                Arg::BufferAt(_, offset) => (buffer_address(i) + offset).to_le_bytes().to_vec(),
                Arg::View { arg, offset } => match self.args.get(*arg) {
                    Some(Arg::Buffer(_) | Arg::BufferAt(..)) => {
                        (buffer_address(*arg) + offset).to_le_bytes().to_vec()
                    }
                    _ => {
                        return bad(format!(
                            "argument {i} views argument {arg}, which is not a buffer"
                        ))
                    }
                },
            };
            put(&mut cb, k.param_base + p.offset, &bytes);
        }
        Ok(cb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tangle_sass::Arch;

    fn word(cb: &[u8], off: u32) -> u64 {
        u64::from_le_bytes(cb[off as usize..off as usize + 8].try_into().unwrap())
    }

    #[test]
    fn views_point_into_the_buffer_of_another_argument() {
        let k = Kernel::from_words(Arch::Sm86, "k", &[], &[8, 8, 8, 8]);
        let launch = Launch {
            grid: Dim3::new(1, 1, 1),
            block: Dim3::new(32, 1, 1),
            dynamic_shared: 0,
            args: vec![
                Arg::Buffer(vec![0; 64]),
                Arg::BufferAt(vec![0; 512], 256),
                Arg::View { arg: 1, offset: 16 },
                Arg::View { arg: 0, offset: 0 },
            ],
        };
        let cb = launch.constant_bank0(&k).unwrap();
        let at = |i: u32| word(&cb, k.param_base + k.params[i as usize].offset);
        assert_eq!(at(0), buffer_address(0));
        assert_eq!(at(1), buffer_address(1) + 256);
        assert_eq!(at(2), buffer_address(1) + 16);
        assert_eq!(at(3), buffer_address(0));
        let bad = Launch {
            args: vec![
                Arg::U64(7),
                Arg::View { arg: 0, offset: 0 },
                Arg::View { arg: 9, offset: 0 },
                Arg::U64(0),
            ],
            ..launch
        };
        let err = bad.constant_bank0(&k).unwrap_err().to_string();
        assert!(err.contains("argument 1 views argument 0"), "{err}");
    }
}
