//! Opening the GPU where there is none is a typed error, never a panic: CI machines have
//! no CUDA driver, and `tangle run --engine gpu` must say so and exit 2.

use tangle_cuda::{Gpu, GpuError};

#[test]
fn opening_without_a_driver_or_device_is_a_typed_error() {
    match Gpu::open() {
        Ok(gpu) => {
            // A GPU machine: the device must describe itself sensibly.
            let (major, minor) = gpu.compute_capability();
            assert!(major >= 3, "compute capability {major}.{minor}");
            assert!(gpu.sm().starts_with("sm_"));
            assert!(!gpu.name().is_empty());
        }
        Err(e @ (GpuError::NoDriver | GpuError::NoDevice)) => {
            assert!(!e.to_string().is_empty());
        }
        // A driver without a usable GPU (e.g. a container without the device files) fails
        // in cuInit with the driver's own error name.
        Err(GpuError::Driver { call, name, .. }) => {
            assert!(call.starts_with("cu"), "{call}");
            assert!(name.starts_with("CUDA_ERROR"), "{name}");
        }
        Err(e) => panic!("unexpected error opening the GPU: {e}"),
    }
}
