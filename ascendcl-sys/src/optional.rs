//! Functions of CANN releases newer than the declared API (8.5.0), bound so
//! that their absence is normal.
//!
//! They are not in our declaration header (a CANN 8.5 install has no
//! declaration to check them against, and the `bindgen` feature regenerates
//! from such an install), so they are not in [`FUNCTIONS`](crate::FUNCTIONS)
//! and nothing counts them as missing: a program loads, and every other
//! function works, against a runtime that lacks them. Each is resolved on its
//! first call like any other; on a runtime that does not export it the call
//! returns a [`SymbolError`] (the safe layer's `Error::NotSupported`), never a
//! panic. [`Library::has_symbol`] answers whether one is there without calling
//! it.
//!
//! The signatures are written by hand from hicann/runtime v9.1.0
//! `include/external/acl/acl_rt.h` (line of each given below); they use only
//! types of the declared API.

use std::sync::OnceLock;

use crate::error::SymbolError;
use crate::library::Library;
use crate::types::*;

macro_rules! optional_functions {
    ($(
        $(#[doc = $doc:literal])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;
    )*) => {
        /// Lazily resolved function pointers, one per optional function.
        #[allow(non_snake_case)]
        #[derive(Default)]
        pub(crate) struct OptionalSymbols {
            $( $name: OnceLock<Result<unsafe extern "C" fn($($ty),*) -> $ret, String>>, )*
        }

        /// Names of the optional functions (newer than CANN 8.5.0), in
        /// declaration order. None of them is in [`FUNCTIONS`](crate::FUNCTIONS).
        pub const OPTIONAL_FUNCTIONS: &[&str] = &[$(stringify!($name)),*];

        impl Library {
            $(
                $(#[doc = $doc])*
                ///
                /// Optional (newer than CANN 8.5.0): returns `Err` when the
                /// loaded runtime does not export it, which is expected on
                /// CANN 8.5.
                ///
                /// # Safety
                /// This calls the C function directly: pointer arguments must
                /// be valid for what the C function reads and writes, and
                /// handles must be live handles of this library.
                #[allow(non_snake_case)]
                #[inline]
                pub unsafe fn $name(&self, $($arg: $ty),*) -> Result<$ret, SymbolError> {
                    let slot = self.optional.$name.get_or_init(|| {
                        // SAFETY: the pointer type is the C function's, as
                        // CANN's header declares it (line cited above).
                        unsafe { self.resolve(concat!(stringify!($name), "\0")) }
                    });
                    match slot {
                        // SAFETY: the caller upholds the C contract (see # Safety).
                        Ok(f) => Ok(unsafe { f($($arg),*) }),
                        Err(reason) => Err(self.missing(stringify!($name), reason)),
                    }
                }
            )*
        }
    };
}

optional_functions! {
    /// Makes a captured model take the task parameters rewritten since
    /// capture (CANN 9.x; v9.1.0 `acl_rt.h:3712`).
    fn aclmdlRIUpdate(modelRI: aclmdlRI) -> aclError;
    /// The runtime's id of a model instance (CANN 9.x; v9.1.0 `acl_rt.h:4790`).
    fn aclmdlRIGetId(modelRI: aclmdlRI, modelRIId: *mut u32) -> aclError;
    /// Starts capturing `stream` into an existing model (CANN 9.x; v9.1.0
    /// `acl_rt.h:5357`).
    fn aclmdlRICaptureToModelRIBegin(stream: aclrtStream, modelRI: aclmdlRI, mode: aclmdlRICaptureMode) -> aclError;
}
