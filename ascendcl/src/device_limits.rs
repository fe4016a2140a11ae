//! A device's health, its stream priority range, and how many of its cores
//! this process may use (`aclrtQueryDeviceStatus`,
//! `aclrtDeviceGetStreamPriorityRange`, `aclrtGet/Set/ResetDeviceResLimit`).

use ascendcl_sys as sys;

use crate::call::check;
use crate::device::Device;
use crate::error::{Error, Result};

/// Whether a device is usable, as `aclrtQueryDeviceStatus` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceStatus {
    /// The device works.
    Normal,
    /// The device's watchdog saw it fail; work on it will not complete.
    Abnormal,
    /// A value this crate does not know (a newer CANN).
    Unknown(u32),
}

impl DeviceStatus {
    fn from_raw(raw: sys::aclrtDeviceStatus) -> DeviceStatus {
        match raw {
            sys::aclrtDeviceStatus::ACL_RT_DEVICE_STATUS_NORMAL => DeviceStatus::Normal,
            sys::aclrtDeviceStatus::ACL_RT_DEVICE_STATUS_ABNORMAL => DeviceStatus::Abnormal,
            other => DeviceStatus::Unknown(other.0),
        }
    }
}

/// A kind of core a process can be limited to a number of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CoreKind {
    /// AI (cube) cores: matrix units.
    Cube,
    /// Vector cores.
    Vector,
}

impl CoreKind {
    fn raw(self) -> sys::aclrtDevResLimitType {
        match self {
            CoreKind::Cube => sys::aclrtDevResLimitType::ACL_RT_DEV_RES_CUBE_CORE,
            CoreKind::Vector => sys::aclrtDevResLimitType::ACL_RT_DEV_RES_VECTOR_CORE,
        }
    }
}

/// The stream priorities of a device: `greatest` is served first and is the
/// smaller number (0 on CANN 8.5), `least` the larger (7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamPriorityRange {
    /// The numerically largest priority, served last.
    pub least: u32,
    /// The numerically smallest priority, served first.
    pub greatest: u32,
}

impl StreamPriorityRange {
    /// Whether `priority` is one of the range (from `greatest` to `least`).
    pub fn contains(&self, priority: u32) -> bool {
        (self.greatest..=self.least).contains(&priority)
    }
}

impl Device {
    fn raw_id(&self) -> Result<i32> {
        i32::try_from(self.id())
            .map_err(|_| Error::invalid(format!("device id {} out of range", self.id())))
    }

    /// Whether the device is healthy (`aclrtQueryDeviceStatus`).
    ///
    /// ```
    /// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
    /// use ascendcl::{Device, DeviceStatus};
    /// let device = Device::open(&rt, 0)?;
    /// assert_eq!(device.status()?, DeviceStatus::Normal);
    /// # Ok::<(), ascendcl::Error>(())
    /// ```
    pub fn status(&self) -> Result<DeviceStatus> {
        let lib = self.default_context().lib();
        let mut raw = sys::aclrtDeviceStatus::ACL_RT_DEVICE_STATUS_END;
        // SAFETY: a valid out-pointer and the id of a device we opened.
        check(lib, "aclrtQueryDeviceStatus", unsafe {
            lib.aclrtQueryDeviceStatus(self.raw_id()?, &mut raw)
        })?;
        Ok(DeviceStatus::from_raw(raw))
    }

    /// The priorities a stream can be created with
    /// ([`Stream::with_config`](crate::Stream::with_config)),
    /// from `aclrtDeviceGetStreamPriorityRange`.
    ///
    /// ```
    /// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
    /// let device = ascendcl::Device::open(&rt, 0)?;
    /// let range = device.stream_priority_range()?;
    /// assert!(range.contains(range.greatest) && range.contains(range.least));
    /// # Ok::<(), ascendcl::Error>(())
    /// ```
    pub fn stream_priority_range(&self) -> Result<StreamPriorityRange> {
        let ctx = self.default_context();
        ctx.bind()?;
        let lib = ctx.lib();
        let (mut least, mut greatest) = (-1i32, -1i32);
        // SAFETY: two valid out-pointers; the device's context is current.
        check(lib, "aclrtDeviceGetStreamPriorityRange", unsafe {
            lib.aclrtDeviceGetStreamPriorityRange(&mut least, &mut greatest)
        })?;
        match (u32::try_from(least), u32::try_from(greatest)) {
            (Ok(least), Ok(greatest)) if greatest <= least => {
                Ok(StreamPriorityRange { least, greatest })
            }
            _ => Err(Error::InvalidState(format!(
                "aclrtDeviceGetStreamPriorityRange answered least {least}, greatest {greatest}"
            ))),
        }
    }

    /// How many cores of `kind` this process may use on the device
    /// (`aclrtGetDeviceResLimit`): the device's total until
    /// [`Device::set_core_limit`] lowers it.
    ///
    /// ```
    /// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
    /// use ascendcl::{CoreKind, Device};
    /// let device = Device::open(&rt, 0)?;
    /// let cube = device.core_limit(CoreKind::Cube)?;
    /// device.set_core_limit(CoreKind::Cube, cube / 2)?;
    /// assert_eq!(device.core_limit(CoreKind::Cube)?, cube / 2);
    /// device.reset_core_limits()?;
    /// assert_eq!(device.core_limit(CoreKind::Cube)?, cube);
    /// # Ok::<(), ascendcl::Error>(())
    /// ```
    pub fn core_limit(&self, kind: CoreKind) -> Result<u32> {
        let lib = self.default_context().lib();
        let mut value = 0u32;
        // SAFETY: a valid out-pointer and the id of a device we opened (so
        // the runtime holds its device object).
        check(lib, "aclrtGetDeviceResLimit", unsafe {
            lib.aclrtGetDeviceResLimit(self.raw_id()?, kind.raw(), &mut value)
        })?;
        Ok(value)
    }

    /// Limits this process to `cores` cores of `kind` on the device
    /// (`aclrtSetDeviceResLimit`), for work queued from now on; the last
    /// setting wins. More than the device has is refused by the runtime
    /// ([`Error::Acl`], `ACL_ERROR_RT_PARAM_INVALID`). The limit lasts while
    /// the process holds the device: it is gone once every [`Device`],
    /// context and buffer of it has been dropped.
    pub fn set_core_limit(&self, kind: CoreKind, cores: u32) -> Result<()> {
        let lib = self.default_context().lib();
        // SAFETY: plain values; the id of a device we opened.
        check(lib, "aclrtSetDeviceResLimit", unsafe {
            lib.aclrtSetDeviceResLimit(self.raw_id()?, kind.raw(), cores)
        })
    }

    /// Gives this process every core of the device again
    /// (`aclrtResetDeviceResLimit`).
    pub fn reset_core_limits(&self) -> Result<()> {
        let lib = self.default_context().lib();
        // SAFETY: a plain value; the id of a device we opened.
        check(lib, "aclrtResetDeviceResLimit", unsafe {
            lib.aclrtResetDeviceResLimit(self.raw_id()?)
        })
    }
}
