//! Shared helpers of the mock's tests: thin wrappers over the raw calls (each
//! unsafe call documented once here), child-process runs and clean-up checks.

#![allow(dead_code)]

pub mod hostile;
pub mod vmm;

use std::ffi::{CStr, c_void};
use std::process::{Command, Output};

use ascendcl_mock::{Misuse, Resource, Session};
use ascendcl_sys::*;

pub const OK: i32 = ACL_SUCCESS;
pub const MIB: usize = 1 << 20;
pub const GIB: usize = 1 << 30;

pub const HUGE_FIRST: u32 = 0;
pub const HUGE_ONLY: u32 = 1;
pub const NORMAL_ONLY: u32 = 2;
pub const HUGE1G_ONLY: u32 = 6;

pub const H2H: u32 = 0;
pub const H2D: u32 = 1;
pub const D2H: u32 = 2;
pub const D2D: u32 = 3;
pub const DEFAULT: u32 = 4;

/// Name of the variable that tells a re-executed test binary which test it
/// runs as a child.
const CHILD_VAR: &str = "ASCENDCL_MOCK_TEST_CHILD";

/// Whether this process is the child run of `test`.
pub fn is_child(test: &str) -> bool {
    std::env::var(CHILD_VAR).as_deref() == Ok(test)
}

/// Re-runs this test binary for the single test `test` with extra environment.
pub fn run_child(test: &str, env: &[(&str, &str)]) -> Output {
    let exe = std::env::current_exe().expect("the test binary path");
    let mut cmd = Command::new(exe);
    cmd.args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_VAR, test);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the test binary runs")
}

/// Runs `cmd` to its end, or kills it after `limit`: its output, or None if
/// it had to be killed (a hang). Output goes to files, so a child that
/// writes much cannot block on a full pipe.
pub fn output_within(cmd: &mut Command, limit: std::time::Duration) -> Option<Output> {
    use std::io::Read as _;
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir();
    let name = |what: &str| dir.join(format!("aclmock-child-{}-{n}.{what}", std::process::id()));
    let (out_path, err_path) = (name("out"), name("err"));
    let mut child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("a temp file"))
        .stderr(std::fs::File::create(&err_path).expect("a temp file"))
        .spawn()
        .expect("the child starts");
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            break Some(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let read = |p: &std::path::Path| {
        let mut v = Vec::new();
        if let Ok(mut f) = std::fs::File::open(p) {
            let _ = f.read_to_end(&mut v);
        }
        let _ = std::fs::remove_file(p);
        v
    };
    let (stdout, stderr) = (read(&out_path), read(&err_path));
    status.map(|status| Output {
        status,
        stdout,
        stderr,
    })
}

/// This test binary re-run for the single test `test` with extra
/// environment, killed after `limit`; None if it had to be killed.
pub fn run_child_within(
    test: &str,
    env: &[(&str, &str)],
    limit: std::time::Duration,
) -> Option<Output> {
    let exe = std::env::current_exe().expect("the test binary path");
    let mut cmd = Command::new(exe);
    cmd.args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_VAR, test);
    for (k, v) in env {
        cmd.env(k, v);
    }
    output_within(&mut cmd, limit)
}

/// A test's view of the mock: the session (exclusive, freshly reset) and the
/// raw library.
pub struct T {
    pub s: Session,
    pub lib: &'static Library,
}

impl T {
    /// A pristine mock, no device set.
    pub fn new() -> T {
        let s = ascendcl_mock::session();
        let lib = s.library();
        T { s, lib }
    }

    /// A pristine mock with `dev` set on the calling thread.
    pub fn with_device(dev: i32) -> T {
        let t = T::new();
        assert_eq!(t.set_device(dev), OK);
        t
    }

    // ------------------------------------------------------------ devices

    pub fn set_device(&self, dev: i32) -> i32 {
        // SAFETY: plain integer argument.
        unsafe { self.lib.aclrtSetDevice(dev) }.unwrap()
    }

    pub fn reset_device(&self, dev: i32) -> i32 {
        // SAFETY: plain integer argument.
        unsafe { self.lib.aclrtResetDevice(dev) }.unwrap()
    }

    pub fn get_device(&self) -> Result<i32, i32> {
        let mut d = -1;
        // SAFETY: `d` is a valid out-pointer.
        let rc = unsafe { self.lib.aclrtGetDevice(&mut d) }.unwrap();
        if rc == OK { Ok(d) } else { Err(rc) }
    }

    pub fn current_context(&self) -> Result<aclrtContext, i32> {
        let mut c: aclrtContext = std::ptr::null_mut();
        // SAFETY: `c` is a valid out-pointer.
        let rc = unsafe { self.lib.aclrtGetCurrentContext(&mut c) }.unwrap();
        if rc == OK { Ok(c) } else { Err(rc) }
    }

    // ------------------------------------------------------------- memory

    pub fn malloc(&self, size: usize, policy: u32) -> Result<*mut c_void, i32> {
        let mut p = std::ptr::null_mut();
        // SAFETY: `p` is a valid out-pointer.
        let rc = unsafe {
            self.lib
                .aclrtMalloc(&mut p, size, aclrtMemMallocPolicy(policy))
        }
        .unwrap();
        if rc == OK { Ok(p) } else { Err(rc) }
    }

    pub fn malloc_align32(&self, size: usize, policy: u32) -> Result<*mut c_void, i32> {
        let mut p = std::ptr::null_mut();
        // SAFETY: `p` is a valid out-pointer.
        let rc = unsafe {
            self.lib
                .aclrtMallocAlign32(&mut p, size, aclrtMemMallocPolicy(policy))
        }
        .unwrap();
        if rc == OK { Ok(p) } else { Err(rc) }
    }

    pub fn free(&self, p: *mut c_void) -> i32 {
        // SAFETY: the mock validates the pointer; an invalid one is an error.
        unsafe { self.lib.aclrtFree(p) }.unwrap()
    }

    pub fn malloc_host(&self, size: usize) -> Result<*mut c_void, i32> {
        let mut p = std::ptr::null_mut();
        // SAFETY: `p` is a valid out-pointer.
        let rc = unsafe { self.lib.aclrtMallocHost(&mut p, size) }.unwrap();
        if rc == OK { Ok(p) } else { Err(rc) }
    }

    pub fn free_host(&self, p: *mut c_void) -> i32 {
        // SAFETY: the mock validates the pointer; an invalid one is an error.
        unsafe { self.lib.aclrtFreeHost(p) }.unwrap()
    }

    pub fn memcpy(
        &self,
        dst: *mut c_void,
        dmax: usize,
        src: *const c_void,
        n: usize,
        kind: u32,
    ) -> i32 {
        // SAFETY: host sides are live buffers of at least `n` bytes in every
        // test; device sides are validated by the mock.
        unsafe {
            self.lib
                .aclrtMemcpy(dst, dmax, src, n, aclrtMemcpyKind(kind))
        }
        .unwrap()
    }

    pub fn memcpy_async(
        &self,
        dst: *mut c_void,
        dmax: usize,
        src: *const c_void,
        n: usize,
        kind: u32,
        stream: aclrtStream,
    ) -> i32 {
        // SAFETY: as `memcpy`; host buffers outlive the stream's work because
        // every test synchronizes before dropping them.
        unsafe {
            self.lib
                .aclrtMemcpyAsync(dst, dmax, src, n, aclrtMemcpyKind(kind), stream)
        }
        .unwrap()
    }

    /// Writes `data` to device address `dst` synchronously.
    pub fn upload(&self, dst: *mut c_void, data: &[u8]) -> i32 {
        self.memcpy(dst, data.len(), data.as_ptr().cast(), data.len(), H2D)
    }

    /// Reads `len` bytes from device address `src` synchronously.
    pub fn download(&self, src: *const c_void, len: usize) -> Vec<u8> {
        let mut out = vec![0xEEu8; len];
        let rc = self.memcpy(out.as_mut_ptr().cast(), len, src, len, D2H);
        assert_eq!(rc, OK, "download failed: {:?}", self.recent_msg());
        out
    }

    pub fn memset(&self, p: *mut c_void, max: usize, value: i32, n: usize) -> i32 {
        // SAFETY: the mock validates the device range.
        unsafe { self.lib.aclrtMemset(p, max, value, n) }.unwrap()
    }

    pub fn memset_async(
        &self,
        p: *mut c_void,
        max: usize,
        value: i32,
        n: usize,
        s: aclrtStream,
    ) -> i32 {
        // SAFETY: the mock validates the device range.
        unsafe { self.lib.aclrtMemsetAsync(p, max, value, n, s) }.unwrap()
    }

    /// (free, total) of ACL_HBM_MEM on the current device.
    pub fn mem_info(&self) -> (usize, usize) {
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: both out-pointers are valid.
        let rc = unsafe {
            self.lib
                .aclrtGetMemInfo(aclrtMemAttr::ACL_HBM_MEM, &mut free, &mut total)
        }
        .unwrap();
        assert_eq!(rc, OK);
        (free, total)
    }

    // ------------------------------------------------------------ streams

    pub fn create_stream(&self) -> Result<aclrtStream, i32> {
        let mut s: aclrtStream = std::ptr::null_mut();
        // SAFETY: `s` is a valid out-pointer.
        let rc = unsafe { self.lib.aclrtCreateStream(&mut s) }.unwrap();
        if rc == OK { Ok(s) } else { Err(rc) }
    }

    pub fn destroy_stream(&self, s: aclrtStream) -> i32 {
        // SAFETY: the mock validates the handle.
        unsafe { self.lib.aclrtDestroyStream(s) }.unwrap()
    }

    pub fn sync_stream(&self, s: aclrtStream) -> i32 {
        // SAFETY: the mock validates the handle.
        unsafe { self.lib.aclrtSynchronizeStream(s) }.unwrap()
    }

    pub fn sync_stream_timeout(&self, s: aclrtStream, ms: i32) -> i32 {
        // SAFETY: the mock validates the handle.
        unsafe { self.lib.aclrtSynchronizeStreamWithTimeout(s, ms) }.unwrap()
    }

    pub fn stream_done(&self, s: aclrtStream) -> bool {
        let mut st = aclrtStreamStatus(99);
        // SAFETY: `st` is a valid out-pointer.
        let rc = unsafe { self.lib.aclrtStreamQuery(s, &mut st) }.unwrap();
        assert_eq!(rc, OK);
        st == aclrtStreamStatus::ACL_STREAM_STATUS_COMPLETE
    }

    // ------------------------------------------------------------- events

    pub fn create_event(&self) -> aclrtEvent {
        let mut e: aclrtEvent = std::ptr::null_mut();
        // SAFETY: `e` is a valid out-pointer.
        let rc = unsafe { self.lib.aclrtCreateEvent(&mut e) }.unwrap();
        assert_eq!(rc, OK);
        e
    }

    pub fn create_event_with_flag(&self, flag: u32) -> Result<aclrtEvent, i32> {
        let mut e: aclrtEvent = std::ptr::null_mut();
        // SAFETY: `e` is a valid out-pointer.
        let rc = unsafe { self.lib.aclrtCreateEventWithFlag(&mut e, flag) }.unwrap();
        if rc == OK { Ok(e) } else { Err(rc) }
    }

    pub fn record(&self, e: aclrtEvent, s: aclrtStream) -> i32 {
        // SAFETY: the mock validates both handles.
        unsafe { self.lib.aclrtRecordEvent(e, s) }.unwrap()
    }

    pub fn destroy_event(&self, e: aclrtEvent) -> i32 {
        // SAFETY: the mock validates the handle.
        unsafe { self.lib.aclrtDestroyEvent(e) }.unwrap()
    }

    // ------------------------------------------------------------- errors

    /// The calling thread's recent error text (read and cleared).
    pub fn recent_msg(&self) -> Option<String> {
        // SAFETY: no arguments; the pointer is copied before the next call.
        let p = unsafe { self.lib.aclGetRecentErrMsg() }.unwrap();
        if p.is_null() {
            return None;
        }
        // SAFETY: non-null pointers from the mock are NUL-terminated strings
        // valid until the next ACL call on this thread.
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }

    /// Asserts nothing leaked or was misused (device references may remain:
    /// `device_refs`).
    pub fn assert_clean(&self, device_refs: u64) {
        assert_eq!(self.s.misuse_total(), 0, "misuse: {}", self.s.misuse_log());
        for kind in Resource::ALL {
            let expected = if kind == Resource::DeviceRef {
                device_refs
            } else {
                0
            };
            assert_eq!(self.s.live(kind), expected, "live count of {kind:?}");
        }
    }

    /// Asserts exactly `n` misuses of `kind` and none of any other kind.
    pub fn assert_misuse(&self, kind: Misuse, n: u64) {
        assert_eq!(
            self.s.misuse(kind),
            n,
            "misuse {kind:?}: {}",
            self.s.misuse_log()
        );
        assert_eq!(
            self.s.misuse_total(),
            n,
            "other misuse: {}",
            self.s.misuse_log()
        );
    }
}

/// A stream handle that is not a stream (a pointer to a local).
pub fn bogus_handle(x: &mut u64) -> *mut c_void {
    (x as *mut u64).cast()
}
