//! The dump API (`acl/acl_dump.h`): receiving the data dump through a
//! callback, and recording operator arguments into a directory.
//!
//! [`DumpCallback::register`] hands CANN a C trampoline that shows each
//! chunk of dump data to a Rust closure instead of writing dump files (a
//! data dump is configured in the `acl.json` given to `aclInit`); dropping
//! the guard unregisters it. CANN keeps one callback at a time and silently
//! ignores a second registration, so a second live guard is refused.
//! [`ArgsDump::start`] records the arguments of the operators launched while
//! the guard lives into a directory (`aclopStartDumpArgs` with
//! `ACL_OP_DUMP_OP_AICORE_ARGS`). The mock keeps both states but makes no
//! dump data: it never calls the callback and writes no file.
//!
//! ```no_run
//! use ascendcl::dump::{ArgsDump, DumpCallback};
//! # fn main() -> ascendcl::Result<()> {
//! let rt = ascendcl::Runtime::init()?;
//! let _dump = DumpCallback::register(&rt, |chunk| {
//!     println!("{}: {} bytes", chunk.file_name(), chunk.data().len());
//!     true
//! })?;
//! let _args = ArgsDump::start(&rt, "/tmp/op-args")?;
//! // launches whose dump reaches the closure
//! # Ok(())
//! # }
//! ```

use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use ascendcl_sys::{ACL_OP_DUMP_OP_AICORE_ARGS, acldumpChunk};

use crate::call::check;
use crate::error::{Error, Result};
use crate::runtime::Runtime;

/// One chunk of a dump file, as CANN hands it to the callback.
#[derive(Debug, Clone, Copy)]
pub struct DumpChunk<'a> {
    file_name: &'a str,
    offset: i64,
    last: bool,
    data: &'a [u8],
}

impl<'a> DumpChunk<'a> {
    /// The dump file the chunk belongs to (an absolute path); empty when
    /// the name is not UTF-8.
    pub fn file_name(&self) -> &'a str {
        self.file_name
    }

    /// Where the data goes in the file; -1: appended.
    pub fn offset(&self) -> i64 {
        self.offset
    }

    /// Whether this is the file's last chunk.
    pub fn is_last(&self) -> bool {
        self.last
    }

    /// The chunk's data.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }
}

type Handler = dyn Fn(&DumpChunk<'_>) -> bool + Send + Sync;

/// The live guard's closure (CANN's callback has no user-data pointer).
static HANDLER: Mutex<Option<Arc<Handler>>> = Mutex::new(None);

/// Reads a chunk of `len` bytes (header and data) at `chunk`, or None when
/// it is null or shorter than its header says.
///
/// # Safety
/// A non-null `chunk` must point to `len` readable bytes.
unsafe fn read_chunk<'a>(chunk: *const acldumpChunk, len: i32) -> Option<DumpChunk<'a>> {
    let header = std::mem::size_of::<acldumpChunk>();
    let len = usize::try_from(len).ok()?;
    if chunk.is_null() || len < header {
        return None;
    }
    // SAFETY: `len` >= the header's size bytes are readable (the caller).
    let c = unsafe { &*chunk };
    let data_len = usize::try_from(c.bufLen).ok()?;
    // CANN's length is `sizeof` plus the data (adx_dump_record.cpp:536,
    // :680), the data starting at dataBuf, inside the header's tail padding
    if len - header < data_len {
        return None;
    }
    let name_bytes: &[u8] = {
        // SAFETY: c_char and u8 have one layout; the array is in the header.
        let all = unsafe {
            std::slice::from_raw_parts(c.fileName.as_ptr().cast::<u8>(), c.fileName.len())
        };
        &all[..all.iter().position(|&b| b == 0).unwrap_or(all.len())]
    };
    // SAFETY: `data_len` bytes follow the header within the `len` checked.
    // (from the raw pointer: a reference to the header covers only the header)
    let data = unsafe {
        let at = std::mem::offset_of!(acldumpChunk, dataBuf);
        std::slice::from_raw_parts(chunk.cast::<u8>().add(at), data_len)
    };
    Some(DumpChunk {
        file_name: std::str::from_utf8(name_bytes).unwrap_or(""),
        offset: c.offset,
        last: c.isLastChunk != 0,
        data,
    })
}

/// The C callback: 0 when the closure took the chunk, -1 when it refused
/// it, panicked, or the chunk is malformed (CANN logs the failure).
unsafe extern "C" fn trampoline(chunk: *const acldumpChunk, len: i32) -> i32 {
    let handler = HANDLER
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let Some(handler) = handler else {
        return -1;
    };
    // SAFETY: CANN passes a chunk of `len` bytes (adx_dump_record.cpp:680).
    let Some(view) = (unsafe { read_chunk(chunk, len) }) else {
        return -1;
    };
    match catch_unwind(AssertUnwindSafe(|| handler(&view))) {
        Ok(true) => 0,
        _ => -1,
    }
}

/// A registered dump callback; unregistered when dropped.
pub struct DumpCallback {
    rt: Runtime,
}

impl std::fmt::Debug for DumpCallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DumpCallback").finish_non_exhaustive()
    }
}

impl DumpCallback {
    /// Registers `handler` for the data dump (`acldumpRegCallback`, flag 0).
    /// It runs on CANN's dump thread, once a chunk; returning false (or
    /// panicking) reports the chunk as not taken.
    ///
    /// # Errors
    /// [`Error::InvalidState`] while another `DumpCallback` is live (CANN
    /// would ignore the second one); [`Error::Acl`] when CANN refuses;
    /// [`Error::Symbol`] when the runtime lacks the dump API.
    pub fn register(
        rt: &Runtime,
        handler: impl Fn(&DumpChunk<'_>) -> bool + Send + Sync + 'static,
    ) -> Result<DumpCallback> {
        let mut slot = HANDLER.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_some() {
            return Err(Error::InvalidState(
                "a dump callback is registered already: CANN keeps one at a time".into(),
            ));
        }
        let lib = rt.lib();
        // SAFETY: a callback that upholds CANN's contract (reads `len`
        // bytes at most, never unwinds), flag 0.
        check(lib, "acldumpRegCallback", unsafe {
            lib.acldumpRegCallback(Some(trampoline), 0)
        })?;
        *slot = Some(Arc::new(handler));
        Ok(DumpCallback { rt: rt.clone() })
    }
}

impl Drop for DumpCallback {
    fn drop(&mut self) {
        let mut slot = HANDLER.lock().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: no arguments. A missing symbol cannot happen: the
        // registration resolved the dump API of this library.
        let _ = unsafe { self.rt.lib().acldumpUnregCallback() };
        *slot = None;
    }
}

/// Operator arguments being recorded into a directory; stopped when dropped.
#[derive(Debug)]
pub struct ArgsDump {
    rt: Runtime,
    stopped: bool,
}

impl ArgsDump {
    /// Starts recording the arguments of the operators launched from now on
    /// into `dir` (created if missing): `aclopStartDumpArgs` with
    /// `ACL_OP_DUMP_OP_AICORE_ARGS`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty path or one holding a NUL
    /// byte, before any call; [`Error::Acl`] (500001) when CANN refuses:
    /// recording already on, or `dir` not a directory it can create.
    pub fn start(rt: &Runtime, dir: impl AsRef<Path>) -> Result<ArgsDump> {
        let dir = dir.as_ref();
        let text = dir.to_string_lossy();
        if text.is_empty() {
            return Err(Error::InvalidArgument(
                "the args dump directory is empty".into(),
            ));
        }
        let path = CString::new(text.into_owned())
            .map_err(|_| Error::InvalidArgument("the args dump path holds a NUL byte".into()))?;
        let lib = rt.lib();
        let raw: *const c_char = path.as_ptr();
        // SAFETY: a NUL-terminated path, read during the call.
        check(lib, "aclopStartDumpArgs", unsafe {
            lib.aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, raw)
        })?;
        Ok(ArgsDump {
            rt: rt.clone(),
            stopped: false,
        })
    }

    /// Stops recording, reporting a refusal (dropping stops too, silently).
    pub fn stop(mut self) -> Result<()> {
        self.stopped = true;
        let lib = self.rt.lib();
        // SAFETY: no pointers.
        check(lib, "aclopStopDumpArgs", unsafe {
            lib.aclopStopDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS)
        })
    }
}

impl Drop for ArgsDump {
    fn drop(&mut self) {
        if self.stopped {
            return;
        }
        let lib = self.rt.lib();
        // SAFETY: no pointers.
        let _ = unsafe { lib.aclopStopDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk header and `data` in one buffer, aligned for the header, as
    /// CANN builds it (adx_dump_record.cpp:536-548: `sizeof` plus the data,
    /// which starts at `dataBuf`).
    fn chunk_bytes(name: &str, data: &[u8]) -> (Vec<u64>, i32) {
        let header = std::mem::size_of::<acldumpChunk>();
        let total = header + data.len();
        let mut buf = vec![0u64; total.div_ceil(8)];
        let base = buf.as_mut_ptr().cast::<u8>();
        // SAFETY: `buf` holds `total` bytes, aligned for acldumpChunk; the
        // fields written lie inside the header.
        unsafe {
            let c = base.cast::<acldumpChunk>();
            std::ptr::copy_nonoverlapping(
                name.as_ptr(),
                (*c).fileName.as_mut_ptr().cast(),
                name.len(),
            );
            (*c).bufLen = data.len() as u32;
            (*c).isLastChunk = 1;
            (*c).offset = -1;
            let at = std::mem::offset_of!(acldumpChunk, dataBuf);
            std::ptr::copy_nonoverlapping(data.as_ptr(), base.add(at), data.len());
        }
        (buf, total as i32)
    }

    #[test]
    fn a_chunk_shows_its_file_name_offset_and_exactly_its_data() {
        let (buf, len) = chunk_bytes("/tmp/dump/Add.1", b"tensor");
        // SAFETY: `buf` holds `len` bytes.
        let view = unsafe { read_chunk(buf.as_ptr().cast(), len) }.unwrap();
        assert_eq!(view.file_name(), "/tmp/dump/Add.1");
        assert_eq!(view.offset(), -1);
        assert!(view.is_last());
        assert_eq!(view.data(), b"tensor");
    }

    #[test]
    fn a_chunk_shorter_than_its_header_says_or_null_is_not_read() {
        let (buf, len) = chunk_bytes("f", b"abcd");
        // SAFETY: `buf` holds `len` bytes; less is claimed.
        assert!(unsafe { read_chunk(buf.as_ptr().cast(), len - 1) }.is_none());
        // SAFETY: null is refused before any read.
        assert!(unsafe { read_chunk(std::ptr::null(), len) }.is_none());
    }

    /// The trampoline gives the closure's verdict as 0 or -1, a panic as -1
    /// (never unwinding into C), and -1 with no closure registered.
    #[test]
    fn the_trampoline_answers_for_the_closure_and_contains_its_panics() {
        let (buf, len) = chunk_bytes("f", b"xy");
        let ptr = buf.as_ptr().cast::<acldumpChunk>();
        let set = |h: Option<Arc<Handler>>| *HANDLER.lock().unwrap() = h;
        // SAFETY: `ptr` holds `len` bytes, alive for the test.
        let call = || unsafe { trampoline(ptr, len) };
        set(None);
        assert_eq!(call(), -1);
        set(Some(Arc::new(|c: &DumpChunk<'_>| c.data() == b"xy")));
        assert_eq!(call(), 0);
        set(Some(Arc::new(|_: &DumpChunk<'_>| false)));
        assert_eq!(call(), -1);
        set(Some(Arc::new(|_: &DumpChunk<'_>| {
            panic!("in the dump callback")
        })));
        assert_eq!(call(), -1);
        set(None);
    }
}
