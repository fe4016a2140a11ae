//! `RootInfo`: the rendezvous blob every rank of a communicator starts from.

use ascendcl_sys::{HCCL_ROOT_INFO_BYTES, HcclRootInfo};

use crate::device::Device;
use crate::error::{Error, Result};

/// The 4108-byte root info `HcclGetRootInfo` writes on the root rank. It is
/// a plain value: send [`as_bytes`](RootInfo::as_bytes) to the other ranks
/// out of band (a file, a socket, a key-value store) and rebuild it there
/// with [`from_bytes`](RootInfo::from_bytes); every rank then passes it to
/// [`Communicator::init_root_info`](super::Communicator::init_root_info).
///
/// ```
/// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
/// use ascendcl::hccl::RootInfo;
/// let device = ascendcl::Device::open(&rt, 0)?;
/// let root = RootInfo::new(&device)?;
/// let wire: Vec<u8> = root.as_bytes().to_vec();
/// assert_eq!(wire.len(), RootInfo::LEN);
/// assert_eq!(RootInfo::from_bytes(&wire)?, root);
/// assert!(RootInfo::from_bytes(&wire[..100]).is_err());
/// # Ok::<(), ascendcl::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct RootInfo {
    bytes: Box<[u8; RootInfo::LEN]>,
}

impl RootInfo {
    /// Its size in bytes (`HCCL_ROOT_INFO_BYTES`).
    pub const LEN: usize = HCCL_ROOT_INFO_BYTES as usize;

    /// Asks HCCL for a new root info, on the root rank, with `device`'s
    /// context current (as HCCL requires: the device is set first).
    pub fn new(device: &Device) -> Result<RootInfo> {
        let hccl = super::library(device)?;
        let ctx = device.default_context();
        ctx.bind()?;
        let mut bytes = Box::new([0u8; RootInfo::LEN]);
        let out = bytes.as_mut_ptr().cast::<HcclRootInfo>();
        // SAFETY: `out` points at LEN writable bytes, the size of
        // HcclRootInfo, whose alignment is 1 (a char array).
        let status = unsafe { hccl.HcclGetRootInfo(out) };
        super::check(hccl, "HcclGetRootInfo", status)?;
        Ok(RootInfo { bytes })
    }

    /// Rebuilds a root info received from the root rank. Any other length
    /// than [`RootInfo::LEN`] is an [`Error::InvalidArgument`].
    pub fn from_bytes(bytes: &[u8]) -> Result<RootInfo> {
        let array: [u8; RootInfo::LEN] = bytes.try_into().map_err(|_| {
            Error::invalid(format!(
                "a root info is {} bytes, got {}: send all of RootInfo::as_bytes() to every rank",
                RootInfo::LEN,
                bytes.len()
            ))
        })?;
        Ok(RootInfo {
            bytes: Box::new(array),
        })
    }

    /// The bytes to send to the other ranks.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..]
    }

    /// The blob as the C struct, for `HcclCommInitRootInfo`.
    pub(crate) fn as_raw(&self) -> *const HcclRootInfo {
        // Alignment 1 and the exact size: a valid HcclRootInfo.
        self.bytes.as_ptr().cast()
    }

    /// A short fingerprint of the contents (FNV-1a), to tell blobs apart in logs.
    pub fn fingerprint(&self) -> u64 {
        self.bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    }
}

impl std::fmt::Debug for RootInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RootInfo")
            .field("len", &RootInfo::LEN)
            .field("fingerprint", &format_args!("{:016x}", self.fingerprint()))
            .finish()
    }
}
