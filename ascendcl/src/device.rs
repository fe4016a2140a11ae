//! Devices: opening one, its memory, its default context.
//!
//! `aclrtSetDevice` is reference counted per device: every [`Device::open`]
//! takes one reference and the last drop of everything that depends on it
//! (contexts, streams, events, buffers) gives it back with `aclrtResetDevice`.

use std::sync::Arc;

use ascendcl_sys::{self as sys, aclrtContext};

use crate::call::check;
use crate::context::Context;
use crate::deferred;
use crate::error::{Error, Result};
use crate::runtime::Runtime;

/// Free and total bytes of device memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryInfo {
    /// Bytes not allocated.
    pub free: usize,
    /// Usable bytes of the device (60.96 GiB on a 64 GB card).
    pub total: usize,
}

/// Free and total HBM of `ctx`'s device.
pub(crate) fn memory_info(ctx: &Context) -> Result<MemoryInfo> {
    ctx.bind()?;
    let lib = ctx.lib();
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: valid out-pointers; the context is current.
    let result =
        unsafe { lib.aclrtGetMemInfo(sys::aclrtMemAttr::ACL_HBM_MEM, &mut free, &mut total) };
    check(lib, "aclrtGetMemInfo", result)?;
    Ok(MemoryInfo { free, total })
}

/// How busy a device's engines are, in percent; `None` where the device
/// cannot say (`aclrtGetDeviceUtilizationRate` answers -1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Utilization {
    /// The AI (cube) cores.
    pub cube: Option<u8>,
    /// The vector cores.
    pub vector: Option<u8>,
    /// The AI CPUs.
    pub aicpu: Option<u8>,
    /// The memory (CANN 8.5 never reports it).
    pub memory: Option<u8>,
}

fn percent(v: i32) -> Option<u8> {
    u8::try_from(v).ok().filter(|p| *p <= 100)
}

/// One `aclrtSetDevice` reference, released on drop.
pub(crate) struct DeviceRef {
    pub(crate) runtime: Runtime,
    pub(crate) id: i32,
}

impl Drop for DeviceRef {
    fn drop(&mut self) {
        let (lib, id) = (self.runtime.lib(), self.id);
        deferred::release("a device", || {
            // SAFETY: this reference was taken by our aclrtSetDevice; every
            // object of the device that we own is gone (they hold this
            // reference); a failed reset leaves the reference to reset again.
            check(lib, "aclrtResetDevice", unsafe { lib.aclrtResetDevice(id) })
        });
        crate::context::forget_current_context();
    }
}

/// An opened device. Cheap to clone.
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// let device = ascendcl::Device::open(&rt, 0)?;
/// let mem = device.memory_info()?;
/// assert!(mem.free <= mem.total);
/// # Ok::<(), ascendcl::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Device {
    default: Context,
}

impl Device {
    /// Number of visible devices.
    pub fn count(runtime: &Runtime) -> Result<u32> {
        runtime.device_count()
    }

    /// Opens device `id`: sets it for the calling thread (taking one
    /// reference) and wraps its default context.
    ///
    /// An id out of range is an [`Error::InvalidArgument`] naming the valid
    /// range, before `aclrtSetDevice` is called.
    pub fn open(runtime: &Runtime, id: u32) -> Result<Device> {
        let count = runtime.device_count()?;
        if id >= count {
            return Err(Error::invalid(match count {
                0 => format!(
                    "device {id} does not exist: no device is visible (check ASCEND_RT_VISIBLE_DEVICES and the driver)"
                ),
                n => format!(
                    "device {id} does not exist: {n} devices are visible (ids 0..={})",
                    n - 1
                ),
            }));
        }
        let id = i32::try_from(id)
            .map_err(|_| Error::invalid(format!("device id {id} out of range")))?;
        let lib = runtime.lib();
        // SAFETY: plain integer argument, validated above.
        check(lib, "aclrtSetDevice", unsafe { lib.aclrtSetDevice(id) })?;
        // From here on the reference is owned: dropping `device_ref` resets it.
        let device_ref = Arc::new(DeviceRef {
            runtime: runtime.clone(),
            id,
        });
        let mut raw: aclrtContext = std::ptr::null_mut();
        // SAFETY: valid out-pointer; aclrtSetDevice made the default context current.
        check(lib, "aclrtGetCurrentContext", unsafe {
            lib.aclrtGetCurrentContext(&mut raw)
        })?;
        Ok(Device {
            default: Context::default_of(device_ref, raw),
        })
    }

    /// The device id.
    pub fn id(&self) -> u32 {
        self.default.device_id()
    }

    /// The runtime.
    pub fn runtime(&self) -> &Runtime {
        self.default.runtime()
    }

    /// The device's default context (shared by every thread that uses the device).
    pub fn default_context(&self) -> Context {
        self.default.clone()
    }

    /// Free and total HBM of the device (`aclrtGetMemInfo(ACL_HBM_MEM)`).
    pub fn memory_info(&self) -> Result<MemoryInfo> {
        memory_info(&self.default)
    }

    /// How busy the device's engines are (`aclrtGetDeviceUtilizationRate`).
    ///
    /// ```
    /// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
    /// let device = ascendcl::Device::open(&rt, 0)?;
    /// let load = device.utilization()?;
    /// assert_eq!(load.memory, None); // never reported by CANN 8.5
    /// # Ok::<(), ascendcl::Error>(())
    /// ```
    pub fn utilization(&self) -> Result<Utilization> {
        let lib = self.default.lib();
        let mut info = sys::aclrtUtilizationInfo {
            cubeUtilization: -1,
            vectorUtilization: -1,
            aicpuUtilization: -1,
            memoryUtilization: -1,
            utilizationExtend: std::ptr::null_mut(),
        };
        // SAFETY: a valid out-pointer whose reserved extension is null, as
        // the runtime requires; the device id is one we opened.
        check(lib, "aclrtGetDeviceUtilizationRate", unsafe {
            lib.aclrtGetDeviceUtilizationRate(self.id() as i32, &mut info)
        })?;
        Ok(Utilization {
            cube: percent(info.cubeUtilization),
            vector: percent(info.vectorUtilization),
            aicpu: percent(info.aicpuUtilization),
            memory: percent(info.memoryUtilization),
        })
    }

    /// Whether this device can access `peer`'s memory
    /// (`aclrtDeviceCanAccessPeer`); a device can always access its own.
    pub fn can_access_peer(&self, peer: &Device) -> Result<bool> {
        if peer.id() == self.id() {
            return Ok(true);
        }
        let lib = self.default.lib();
        let mut can = 0i32;
        // SAFETY: a valid out-pointer and two device ids we opened.
        check(lib, "aclrtDeviceCanAccessPeer", unsafe {
            lib.aclrtDeviceCanAccessPeer(&mut can, self.id() as i32, peer.id() as i32)
        })?;
        Ok(can == 1)
    }

    fn refuse_inside_callback(&self) -> Result<()> {
        match crate::callback::running() {
            Some(running) if running.device == self.id() => {
                Err(crate::Error::WouldDeadlock(format!(
                    "a host callback synchronized device {}, whose stream running the \
                     callback cannot finish until it returns",
                    running.device
                )))
            }
            _ => Ok(()),
        }
    }

    /// Waits until all work on the device is done. From a host callback
    /// running on this device it fails with [`Error::WouldDeadlock`](crate::Error::WouldDeadlock).
    pub fn synchronize(&self) -> Result<()> {
        self.refuse_inside_callback()?;
        crate::graph::mode_gate::refuse_device_sync(self.id(), "a synchronize")?;
        deferred::check_parked()?;
        self.default.bind()?;
        let lib = self.default.lib();
        // SAFETY: no arguments; the device's context is current.
        check(lib, "aclrtSynchronizeDevice", unsafe {
            lib.aclrtSynchronizeDevice()
        })
    }

    /// As [`Device::synchronize`], giving up after `timeout` with an error for
    /// which [`Error::is_timeout`] holds.
    pub fn synchronize_timeout(&self, timeout: std::time::Duration) -> Result<()> {
        let ms = crate::stream::timeout_ms(timeout)?;
        self.refuse_inside_callback()?;
        crate::graph::mode_gate::refuse_device_sync(self.id(), "a synchronize")?;
        deferred::check_parked()?;
        self.default.bind()?;
        let lib = self.default.lib();
        // SAFETY: plain integer argument; the device's context is current.
        check(lib, "aclrtSynchronizeDeviceWithTimeout", unsafe {
            lib.aclrtSynchronizeDeviceWithTimeout(ms)
        })
    }
}
