//! The calls into the CUDA driver (through `cudarc`'s thin, dynamically loaded bindings).
//! Every `unsafe` block of the crate is here.
#![allow(unsafe_code)]

use std::ffi::{c_void, CString};
use std::time::{Duration, Instant};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;

use crate::{Arg, GpuError, GpuRun, Launch};

/// Turns a driver error into [`GpuError::Driver`] naming the call.
fn fail(call: &'static str) -> impl Fn(DriverError) -> GpuError {
    move |e: DriverError| GpuError::Driver {
        call,
        name: e
            .error_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|_| format!("error {}", e.0 as u32)),
        message: e
            .error_string()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}

/// Whether a driver error (by name) leaves the context unusable: the errors a faulting
/// kernel raises, after which every later call fails the same way.
pub(crate) fn is_sticky(name: &str) -> bool {
    matches!(
        name,
        "CUDA_ERROR_ILLEGAL_ADDRESS"
            | "CUDA_ERROR_MISALIGNED_ADDRESS"
            | "CUDA_ERROR_INVALID_ADDRESS_SPACE"
            | "CUDA_ERROR_ILLEGAL_INSTRUCTION"
            | "CUDA_ERROR_INVALID_PC"
            | "CUDA_ERROR_HARDWARE_STACK_ERROR"
            | "CUDA_ERROR_LAUNCH_FAILED"
            | "CUDA_ERROR_ASSERT"
            | "CUDA_ERROR_LAUNCH_TIMEOUT"
    )
}

/// The first GPU's primary context, current on the thread that opened it.
pub(crate) struct Context {
    device: sys::CUdevice,
    context: sys::CUcontext,
    pub(crate) name: String,
    pub(crate) capability: (u32, u32),
}

impl Context {
    pub(crate) fn open() -> Result<Context, GpuError> {
        // SAFETY: only probes whether the library can be loaded.
        if !unsafe { sys::is_culib_present() } {
            return Err(GpuError::NoDriver);
        }
        result::init().map_err(fail("cuInit"))?;
        let count = result::device::get_count().map_err(fail("cuDeviceGetCount"))?;
        if count < 1 {
            return Err(GpuError::NoDevice);
        }
        let device = result::device::get(0).map_err(fail("cuDeviceGet"))?;
        let name = result::device::get_name(device).map_err(fail("cuDeviceGetName"))?;
        let attr = |a| {
            // SAFETY: `device` was returned by the driver above.
            unsafe { result::device::get_attribute(device, a) }
                .map_err(fail("cuDeviceGetAttribute"))
        };
        let major = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        // SAFETY: a valid device; the context is released in `Drop`.
        let context = unsafe { result::primary_ctx::retain(device) }
            .map_err(fail("cuDevicePrimaryCtxRetain"))?;
        // SAFETY: the context was just retained.
        unsafe { result::ctx::set_current(context) }.map_err(fail("cuCtxSetCurrent"))?;
        Ok(Context {
            device,
            context,
            name,
            capability: (major as u32, minor as u32),
        })
    }

    pub(crate) fn run(
        &self,
        cubin: &[u8],
        kernel: &str,
        launch: &Launch,
        limit: Duration,
    ) -> Result<GpuRun, GpuError> {
        let name = CString::new(kernel)
            .map_err(|_| GpuError::BadLaunch(format!("kernel name {kernel:?} holds a NUL")))?;
        // SAFETY: the context is current on this thread (set in `open`).
        unsafe { result::ctx::set_current(self.context) }.map_err(fail("cuCtxSetCurrent"))?;
        // The driver reads the image in place; keep a copy that outlives the call.
        let image = cubin.to_vec();
        // SAFETY: `image` is a whole cubin in host memory, alive during the call.
        let module = unsafe { result::module::load_data(image.as_ptr() as *const c_void) }
            .map_err(fail("cuModuleLoadData"))?;
        let mut resources = Resources {
            module,
            pointers: Vec::new(),
            leak: false,
        };
        // SAFETY: `module` was loaded above and is unloaded by `resources`.
        let function = unsafe { result::module::get_function(module, name) }
            .map_err(fail("cuModuleGetFunction"))?;

        // Buffers: allocate, fill; every other argument is its little-endian bytes. Views
        // point into the buffers, so those are allocated first.
        let mut device_buffers: Vec<Option<(sys::CUdeviceptr, usize)>> = Vec::new();
        for arg in &launch.args {
            let init = match arg {
                Arg::Buffer(init) | Arg::BufferAt(init, _) => init,
                _ => {
                    device_buffers.push(None);
                    continue;
                }
            };
            // SAFETY: a plain allocation, freed by `resources`.
            let ptr =
                unsafe { result::malloc_sync(init.len().max(4)) }.map_err(fail("cuMemAlloc"))?;
            resources.pointers.push(ptr);
            if !init.is_empty() {
                // SAFETY: `ptr` holds at least `init.len()` bytes.
                unsafe { result::memcpy_htod_sync(ptr, init) }.map_err(fail("cuMemcpyHtoD"))?;
            }
            device_buffers.push(Some((ptr, init.len())));
        }
        let mut storage: Vec<[u8; 8]> = Vec::with_capacity(launch.args.len());
        for (i, arg) in launch.args.iter().enumerate() {
            let mut bytes = [0u8; 8];
            match arg {
                Arg::U32(v) => bytes[..4].copy_from_slice(&v.to_le_bytes()),
                Arg::I32(v) => bytes[..4].copy_from_slice(&v.to_le_bytes()),
                Arg::F32(v) => bytes[..4].copy_from_slice(&v.to_bits().to_le_bytes()),
                Arg::U64(v) => bytes.copy_from_slice(&v.to_le_bytes()),
                Arg::Buffer(_) | Arg::BufferAt(..) => {
                    let offset = match arg {
                        Arg::BufferAt(_, o) => *o,
                        _ => 0,
                    };
                    let (ptr, _) = device_buffers[i].expect("allocated above");
                    bytes.copy_from_slice(&(ptr + offset).to_le_bytes());
                }
                Arg::View { arg, offset } => match device_buffers.get(*arg) {
                    Some(Some((ptr, _))) => bytes.copy_from_slice(&(ptr + offset).to_le_bytes()),
                    _ => {
                        return Err(GpuError::BadLaunch(format!(
                            "argument {i} views argument {arg}, which is not a buffer"
                        )))
                    }
                },
            }
            storage.push(bytes);
        }
        let mut params: Vec<*mut c_void> = storage
            .iter_mut()
            .map(|b| b.as_mut_ptr() as *mut c_void)
            .collect();

        // SAFETY: an event in the current context, destroyed below.
        let done = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
            .map_err(fail("cuEventCreate"))?;
        let start = Instant::now();
        let (g, b) = (launch.grid, launch.block);
        // SAFETY: `function` comes from the loaded module; `params` points at one value of
        // the parameter's size per parameter (the driver reads the sizes from the cubin's
        // parameter attributes), all alive until the launch has completed below.
        unsafe {
            result::launch_kernel(
                function,
                (g.x, g.y, g.z),
                (b.x, b.y, b.z),
                launch.dynamic_shared,
                result::stream::null(),
                &mut params,
            )
        }
        .map_err(fail("cuLaunchKernel"))?;
        // SAFETY: `done` is a valid event; recorded on the stream the kernel runs on.
        unsafe { result::event::record(done, result::stream::null()) }
            .map_err(fail("cuEventRecord"))?;
        loop {
            // SAFETY: `done` is a valid, recorded event.
            match unsafe { result::event::query(done) } {
                Ok(()) => break,
                Err(DriverError(sys::CUresult::CUDA_ERROR_NOT_READY)) => {}
                Err(e) => {
                    resources.leak = true; // the context is broken: leave it to process exit
                    return Err(fail("cuEventQuery (the kernel faulted)")(e));
                }
            }
            if start.elapsed() > limit {
                // The kernel still runs and holds these: freeing them now would fail.
                resources.leak = true;
                std::mem::forget(params);
                std::mem::forget(storage);
                return Err(GpuError::Timeout(limit));
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        let elapsed = start.elapsed();
        // SAFETY: the event has completed.
        unsafe { result::event::destroy(done) }.map_err(fail("cuEventDestroy"))?;

        let mut buffers = Vec::with_capacity(device_buffers.len());
        for buffer in device_buffers {
            buffers.push(match buffer {
                None => None,
                Some((ptr, len)) => {
                    let mut host = vec![0u8; len];
                    if len > 0 {
                        // SAFETY: `ptr` holds `len` bytes; the kernel has finished.
                        unsafe { result::memcpy_dtoh_sync(&mut host, ptr) }
                            .map_err(fail("cuMemcpyDtoH"))?;
                    }
                    Some(host)
                }
            });
        }
        drop(params);
        Ok(GpuRun { buffers, elapsed })
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: retained in `open`; nothing uses the context after this.
        let _ = unsafe { result::primary_ctx::release(self.device) };
    }
}

/// What a run allocated, freed when the run ends (unless the kernel is still running).
struct Resources {
    module: sys::CUmodule,
    pointers: Vec<sys::CUdeviceptr>,
    leak: bool,
}

impl Drop for Resources {
    fn drop(&mut self) {
        if self.leak {
            return;
        }
        for &p in &self.pointers {
            // SAFETY: allocated by `malloc_sync` in this run and not freed before.
            let _ = unsafe { result::free_sync(p) };
        }
        // SAFETY: loaded in this run; no function of it is used after this.
        let _ = unsafe { result::module::unload(self.module) };
    }
}
