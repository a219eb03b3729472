//! Runs the kernel of a cubin on a real NVIDIA GPU through the CUDA driver API.
//!
//! The driver library (`libcuda.so.1`) is loaded when [`Gpu::open`] is called, not linked,
//! so tangle builds, tests and runs on machines without one; there `open` returns
//! [`GpuError::NoDriver`]. A launch is described by the SASS simulator's [`Launch`] (grid,
//! block, dynamic shared memory, arguments in parameter order, buffers with their initial
//! bytes), so one description runs on both and their buffers can be compared byte for byte.
//!
//! A kernel that never finishes (a deadlock or livelock under the hardware's scheduler)
//! is reported as [`GpuError::Timeout`] after the caller's limit rather than waited on for
//! ever; the GPU stays busy until the process exits, so callers report and stop.

mod driver;

use std::time::Duration;

pub use tangle_sim::{Arg, Dim3, Launch};

/// Why a GPU run did not happen or did not finish.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// The CUDA driver library is not installed on this machine.
    #[error("no CUDA driver on this machine (libcuda.so.1 could not be loaded)")]
    NoDriver,
    /// The driver is there but sees no GPU.
    #[error("the CUDA driver sees no GPU")]
    NoDevice,
    /// A driver call failed; `call` is the driver function, `name` the driver's error name.
    #[error("{call} failed: {name} ({message})")]
    Driver {
        /// The driver function that failed.
        call: &'static str,
        /// The driver's name of the error (e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`).
        name: String,
        /// The driver's description of the error.
        message: String,
    },
    /// The launch does not fit the kernel or the device.
    #[error("bad launch: {0}")]
    BadLaunch(String),
    /// The kernel had not finished when the time limit ran out.
    #[error(
        "the kernel had not finished after {0:?}: a hang on the GPU (deadlock or livelock); \
         the GPU stays busy until this process exits"
    )]
    Timeout(Duration),
    /// An earlier kernel of this process hung or faulted: the driver's context is lost
    /// for the rest of the process (CUDA's errors after a fault are sticky).
    #[error("the GPU cannot be used by this process any more: an earlier kernel {0}")]
    Unusable(String),
}

/// The outcome of one launch on the GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuRun {
    /// Each argument's buffer after the run (`None` for arguments that are not buffers),
    /// in parameter order, as `tangle_sim::Outcome::buffers` has them.
    pub buffers: Vec<Option<Vec<u8>>>,
    /// Wall time from the launch to its completion, as the host saw it (driver overhead
    /// included: not a kernel timing).
    pub elapsed: Duration,
}

/// A GPU with a current context, ready to load cubins and launch their kernels.
pub struct Gpu {
    inner: driver::Context,
    /// Set when a kernel hung or faulted: later launches would queue behind it or fail
    /// with the fault's sticky error.
    unusable: std::cell::RefCell<Option<String>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gpu({}, {})", self.name(), self.sm())
    }
}

impl Gpu {
    /// Loads the driver, initialises it and makes the first GPU's primary context current.
    pub fn open() -> Result<Gpu, GpuError> {
        Ok(Gpu {
            inner: driver::Context::open()?,
            unusable: std::cell::RefCell::new(None),
        })
    }

    /// The device's name as the driver reports it (e.g. `NVIDIA H100 80GB HBM3`).
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The compute capability `(major, minor)`: (9, 0) is sm_90.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.inner.capability
    }

    /// The SM name of the device, `sm_XY`, as tangle's `--arch` options spell it.
    pub fn sm(&self) -> String {
        let (major, minor) = self.inner.capability;
        format!("sm_{major}{minor}")
    }

    /// Loads `cubin`, launches `kernel` with `launch` and waits at most `limit` for it;
    /// returns every buffer argument's bytes afterwards.
    pub fn run(
        &self,
        cubin: &[u8],
        kernel: &str,
        launch: &Launch,
        limit: Duration,
    ) -> Result<GpuRun, GpuError> {
        for (what, d) in [("grid", launch.grid), ("block", launch.block)] {
            if d.x == 0 || d.y == 0 || d.z == 0 {
                return Err(GpuError::BadLaunch(format!(
                    "{what} dimension {d:?} has a zero"
                )));
            }
        }
        if let Some(why) = self.unusable.borrow().as_ref() {
            return Err(GpuError::Unusable(why.clone()));
        }
        let result = self.inner.run(cubin, kernel, launch, limit);
        match &result {
            Err(GpuError::Timeout(t)) => {
                *self.unusable.borrow_mut() = Some(format!("hung (no completion in {t:?})"));
            }
            Err(GpuError::Driver { name, .. }) if driver::is_sticky(name) => {
                *self.unusable.borrow_mut() = Some(format!("faulted ({name})"));
            }
            _ => {}
        }
        result
    }
}
