//! `Communicator`: one rank of an HCCL communicator, bound to a device.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use ascendcl_sys::{Hccl, HcclComm, HcclResult};

use crate::device::Device;
use crate::error::{Error, HcclError, Result};
use crate::hccl::RootInfo;
use crate::lane::QueuedAt;
use crate::latest_markers::LatestMarkers;

/// How often `Drop` and [`Communicator::destroy`] try `HcclCommDestroy`
/// while it answers `HCCL_E_AGAIN` (busy), and how long they sleep between.
pub const DESTROY_ATTEMPTS: u32 = 50;
/// See [`DESTROY_ATTEMPTS`].
pub const DESTROY_RETRY_SLEEP: Duration = Duration::from_millis(10);
/// How often `HcclCommDestroy` is tried when it fails with another status
/// than `HCCL_E_AGAIN`. A second try is safe: every failure point of
/// hicann/hcomm v8.5.0's `HcclCommDestroy` (`op_base.cc:2358-2373`) returns
/// before the communicator leaves HCCL's table (`:2399-2407`), so the
/// handle is still the communicator's.
const FAILED_DESTROY_ATTEMPTS: u32 = 3;

/// Collectives launched through a communicator that may still be queued.
#[derive(Default)]
pub(crate) struct Launches {
    /// The marker recorded after the latest collective on each stream with
    /// work that may be unfinished (see [`LatestMarkers`]).
    pub(crate) markers: LatestMarkers,
    /// A launch failed after the library was called: it may have queued
    /// work whose marker we do not hold, so only a device-wide wait proves
    /// the communicator idle.
    pub(crate) unproven: bool,
}

impl Launches {
    /// Remembers `marker` as the latest collective on its stream.
    pub(crate) fn push(&mut self, marker: QueuedAt) {
        self.markers.push(marker);
    }
}

/// One rank of an HCCL communicator, bound to the device that was current
/// when it was created. Collectives are methods (see the [module docs](super)).
///
/// Dropping it waits for the collectives launched through it, then destroys
/// it with `HcclCommDestroy`, retrying while the library answers
/// `HCCL_E_AGAIN` ([`DESTROY_ATTEMPTS`]) and up to three times in all when it
/// fails otherwise. It never panics: an error is parked (see
/// [`take_deferred_errors`](crate::take_deferred_errors)). If its
/// collectives cannot be waited for, or HCCL stays busy, the communicator
/// and its device reference are leaked rather than destroyed or reset under
/// work. If `HcclCommDestroy` keeps failing otherwise, every collective is
/// already proven finished: the handle is abandoned (never passed to HCCL
/// again; what HCCL holds for it stays HCCL's) and the device reference is
/// released as after a destroy. [`Communicator::destroy`] returns the error
/// instead.
pub struct Communicator {
    pub(crate) raw: HcclComm,
    pub(crate) hccl: &'static Hccl,
    pub(crate) device: Device,
    pub(crate) rank: u32,
    pub(crate) size: u32,
    pub(crate) launches: Mutex<Launches>,
    /// Set once `HcclCommDestroy` succeeded.
    pub(crate) destroyed: bool,
    /// Set once `HcclCommDestroy` failed for good with another status than
    /// `HCCL_E_AGAIN`: the handle is never passed to HCCL again, and the
    /// device reference is released as after a destroy.
    pub(crate) abandoned: bool,
}

// SAFETY: an HcclComm is a handle HCCL accepts from any thread (torch_npu
// destroys and polls comms from other threads); launches through `&self`
// are serialized by the `launches` mutex, so a rank never issues two
// collectives at once.
unsafe impl Send for Communicator {}
// SAFETY: as above.
unsafe impl Sync for Communicator {}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Communicator")
            .field("device", &self.device.id())
            .field("rank", &self.rank)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl Communicator {
    /// Joins a communicator of `n_ranks` ranks as `rank`, on `device`, from
    /// the root info made by [`RootInfo::new`] on the root rank. Blocks until
    /// every rank has joined (bounded by `HCCL_CONNECT_TIMEOUT`); each rank
    /// calls it from its own thread or process.
    ///
    /// `rank >= n_ranks` or `n_ranks == 0` is an [`Error::InvalidArgument`]
    /// before any HCCL call.
    ///
    /// ```
    /// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
    /// use ascendcl::hccl::{Communicator, RootInfo};
    /// let devices = [ascendcl::Device::open(&rt, 0)?, ascendcl::Device::open(&rt, 1)?];
    /// let root = RootInfo::new(&devices[0])?;
    /// let comms = std::thread::scope(|s| {
    ///     let joins: Vec<_> = devices.iter().enumerate()
    ///         .map(|(rank, device)| {
    ///             let root = &root;
    ///             s.spawn(move || Communicator::init_root_info(device, root, 2, rank as u32))
    ///         })
    ///         .collect();
    ///     joins.into_iter().map(|j| j.join().unwrap()).collect::<Result<Vec<_>, _>>()
    /// })?;
    /// assert_eq!((comms[1].rank(), comms[1].size()), (1, 2));
    /// # Ok::<(), ascendcl::Error>(())
    /// ```
    pub fn init_root_info(
        device: &Device,
        root: &RootInfo,
        n_ranks: u32,
        rank: u32,
    ) -> Result<Communicator> {
        if n_ranks == 0 || rank >= n_ranks {
            return Err(Error::invalid(format!(
                "rank {rank} of {n_ranks}: a communicator needs at least one rank and rank < n_ranks"
            )));
        }
        let hccl = super::library(device)?;
        device.default_context().bind()?;
        let mut raw: HcclComm = std::ptr::null_mut();
        // SAFETY: a root info of the right size, a valid out-pointer; the
        // device's context is current, which binds the comm to it.
        let status = unsafe { hccl.HcclCommInitRootInfo(n_ranks, root.as_raw(), rank, &mut raw) };
        super::check(hccl, "HcclCommInitRootInfo", status)?;
        Communicator::adopt(hccl, raw, device.clone(), rank, n_ranks)
    }

    /// One communicator per device of `devices`, in this process
    /// (`HcclCommInitAll`): element `i` is rank `i`, bound to `devices[i]`.
    /// Drive each from its own thread: every rank must issue the same
    /// collectives.
    ///
    /// An empty list, a device listed twice, or devices of different
    /// runtimes are an [`Error::InvalidArgument`] before any HCCL call.
    ///
    /// ```
    /// # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
    /// use ascendcl::hccl::Communicator;
    /// let devices: Vec<_> = (0..2).map(|i| ascendcl::Device::open(&rt, i)).collect::<Result<_, _>>()?;
    /// let comms = Communicator::init_all(&devices)?;
    /// assert_eq!(comms.len(), 2);
    /// assert_eq!(comms[1].device().id(), 1);
    /// # Ok::<(), ascendcl::Error>(())
    /// ```
    pub fn init_all(devices: &[Device]) -> Result<Vec<Communicator>> {
        let Some(first) = devices.first() else {
            return Err(Error::invalid("init_all needs at least one device"));
        };
        let n = u32::try_from(devices.len())
            .map_err(|_| Error::invalid("init_all: too many devices"))?;
        let mut ids = Vec::with_capacity(devices.len());
        for device in devices {
            if !std::ptr::eq(device.runtime().library(), first.runtime().library()) {
                return Err(Error::invalid(
                    "init_all: every device must come from the same runtime library",
                ));
            }
            let id = i32::try_from(device.id())
                .map_err(|_| Error::invalid("init_all: device id out of range"))?;
            if ids.contains(&id) {
                return Err(Error::invalid(format!(
                    "init_all: device {id} is listed twice; each rank needs its own device"
                )));
            }
            ids.push(id);
        }
        let hccl = super::library(first)?;
        first.default_context().bind()?;
        let mut raws: Vec<HcclComm> = vec![std::ptr::null_mut(); devices.len()];
        // SAFETY: `ids` and `raws` hold `n` elements each; every device is
        // open (set) in this process.
        let status = unsafe { hccl.HcclCommInitAll(n, ids.as_mut_ptr(), raws.as_mut_ptr()) };
        super::check(hccl, "HcclCommInitAll", status)?;
        // Owned from here: an error below drops (destroys) every comm.
        let mut comms = Vec::with_capacity(devices.len());
        let mut first_error = None;
        for (rank, (raw, device)) in raws.into_iter().zip(devices).enumerate() {
            match Communicator::adopt(hccl, raw, device.clone(), rank as u32, n) {
                Ok(comm) => comms.push(comm),
                Err(error) => {
                    first_error.get_or_insert(error);
                }
            }
        }
        match first_error {
            None => Ok(comms),
            Some(error) => Err(error),
        }
    }

    /// Takes ownership of a comm HCCL created, checking its rank and size.
    pub(crate) fn adopt(
        hccl: &'static Hccl,
        raw: HcclComm,
        device: Device,
        rank: u32,
        size: u32,
    ) -> Result<Communicator> {
        if raw.is_null() {
            return Err(Error::InvalidState(
                "HCCL reported success but returned no communicator".into(),
            ));
        }
        // Owned from here: an error below drops (destroys) it.
        let comm = Communicator {
            raw,
            hccl,
            device,
            rank,
            size,
            launches: Mutex::default(),
            destroyed: false,
            abandoned: false,
        };
        let (mut got_rank, mut got_size) = (u32::MAX, 0u32);
        // SAFETY: a live comm and valid out-pointers.
        super::check(hccl, "HcclGetRankId", unsafe {
            hccl.HcclGetRankId(comm.raw, &mut got_rank)
        })?;
        // SAFETY: as above.
        super::check(hccl, "HcclGetRankSize", unsafe {
            hccl.HcclGetRankSize(comm.raw, &mut got_size)
        })?;
        if (got_rank, got_size) != (rank, size) {
            return Err(Error::InvalidState(format!(
                "HCCL made rank {got_rank} of {got_size}; rank {rank} of {size} was asked for"
            )));
        }
        Ok(comm)
    }

    /// This communicator's rank, in `0..size()`.
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// The number of ranks.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The device the communicator is bound to: its collectives run on
    /// streams of this device.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The raw handle, for `ascendcl-sys` calls. Work queued through it is
    /// outside the async-safety contract.
    pub fn as_raw(&self) -> HcclComm {
        self.raw
    }

    /// The first asynchronous error the communicator saw
    /// (`HcclGetCommAsyncError`), or `None`. CANN reports only RDMA error
    /// completions here today; a CANN without the function gives
    /// [`Error::NotSupported`]. See [`Watchdog`](super::Watchdog) for polling.
    pub fn async_error(&self) -> Result<Option<HcclError>> {
        self.device.default_context().bind()?;
        let mut code = HcclResult::HCCL_SUCCESS;
        // SAFETY: a live comm and a valid out-pointer.
        let status = unsafe { self.hccl.HcclGetCommAsyncError(self.raw, &mut code) };
        super::check(self.hccl, "HcclGetCommAsyncError", status)?;
        Ok((code != HcclResult::HCCL_SUCCESS).then(|| {
            HcclError::new(
                code,
                "HcclGetCommAsyncError",
                super::error_string(self.hccl, code),
            )
        }))
    }

    pub(crate) fn lock_launches(&self) -> MutexGuard<'_, Launches> {
        self.launches.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Destroys the communicator, returning what `Drop` would park: waits
    /// for its collectives first, then retries `HCCL_E_AGAIN`.
    pub fn destroy(mut self) -> Result<()> {
        let result = self.release();
        if result.is_err() && !self.abandoned {
            // Not destroyed: the comm, and the device reference that keeps
            // its device open, are leaked rather than released under it.
            std::mem::forget(self);
        }
        result
    }

    /// Waits for every tracked collective, then destroys. On error the
    /// communicator must not be destroyed again, nor used.
    fn release(&mut self) -> Result<()> {
        if self.destroyed || self.abandoned {
            return Ok(());
        }
        let ctx = self.device.default_context();
        let launches = self
            .launches
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        for marker in launches.markers.iter() {
            // From a host callback of the stream a collective is queued
            // behind, the wait would never end: refused (and the
            // communicator leaked) instead, as for a repeatable executor.
            crate::callback::refuse_wait_on_own_stream(marker.stream_id(), || {
                Ok(marker.is_known_complete())
            })
            .map_err(|e| leaked("it was dropped in a host callback of its own stream", e))?;
            // A second try: a transient failure is not proof of anything.
            if marker.wait().is_err() {
                marker
                    .wait()
                    .map_err(|e| leaked("its collectives could not be waited for", e))?;
            }
        }
        if launches.unproven {
            crate::tracker::synchronize_device(&ctx)
                .map_err(|e| leaked("a failed launch could not be waited for", e))?;
        }
        // Every launch is proven finished: forget them only now.
        *launches = Launches::default();
        ctx.bind()?;
        self.destroy_handle()
    }

    /// `HcclCommDestroy`, tried again while it answers `HCCL_E_AGAIN` (up to
    /// [`DESTROY_ATTEMPTS`]) or fails otherwise (up to
    /// [`FAILED_DESTROY_ATTEMPTS`]); sets `destroyed`, or `abandoned` when
    /// the last failure was not `HCCL_E_AGAIN`.
    fn destroy_handle(&mut self) -> Result<()> {
        let (mut busy, mut failed) = (0, 0);
        loop {
            // SAFETY: a live comm with no tracked collective left queued;
            // never passed again once destroyed or abandoned.
            let status = match unsafe { self.hccl.HcclCommDestroy(self.raw) } {
                Ok(status) => status,
                Err(missing) => return Err(Error::NotSupported { source: missing }),
            };
            match status {
                HcclResult::HCCL_SUCCESS => {
                    self.destroyed = true;
                    return Ok(());
                }
                HcclResult::HCCL_E_AGAIN => busy += 1,
                _ => failed += 1,
            }
            if busy == DESTROY_ATTEMPTS || failed == FAILED_DESTROY_ATTEMPTS {
                self.abandoned = status != HcclResult::HCCL_E_AGAIN;
                return super::check(self.hccl, "HcclCommDestroy", Ok(status));
            }
            std::thread::sleep(DESTROY_RETRY_SLEEP);
        }
    }
}

fn leaked(why: &str, error: Error) -> Error {
    Error::InvalidState(format!(
        "the communicator was leaked, not destroyed: {why} ({error})"
    ))
}

impl Drop for Communicator {
    fn drop(&mut self) {
        if let Err(error) = self.release() {
            crate::deferred::park("a communicator", error);
            if !self.abandoned {
                // Not destroyed: keep its device open (leak the reference)
                // rather than reset a device a live communicator is bound to.
                std::mem::forget(self.device.clone());
            }
        }
    }
}
