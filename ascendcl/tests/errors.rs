//! Errors: codes, names, categories, captured messages, and bad input
//! rejected before any FFI call.

mod common;

use std::time::Duration;

use ascendcl::prelude::*;
use ascendcl::{Category, Error, error::code_name};
use ascendcl_mock::Fault;

#[test]
fn every_code_of_the_runtime_tables_has_its_symbolic_name() {
    let samples = [
        (100000, "ACL_ERROR_INVALID_PARAM"),
        (100037, "ACL_ERROR_REPEAT_FINALIZE"),
        (148053, "ACL_ERROR_INVALID_BUNDLE_MODEL_ID"),
        (107002, "ACL_ERROR_RT_CONTEXT_NULL"),
        (107032, "ACL_ERROR_STREAM_CAPTURE_CONFLICT"),
        (207001, "ACL_ERROR_RT_MEMORY_ALLOCATION"),
        (507046, "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT"),
        (507911, "ACL_ERROR_HOST_MEMORY_NOT_REGISTERED"),
        (245000, "ACL_ERROR_GE_MEMORY_ALLOCATION"),
        (545602, "ACL_ERROR_GE_REDEPLOYING"),
        (0, "ACL_SUCCESS"),
    ];
    for (code, name) in samples {
        assert_eq!(code_name(code), Some(name), "code {code}");
    }
    assert_eq!(code_name(999_999), None);
}

#[test]
fn categories_follow_the_code_ranges_with_oom_and_timeouts_singled_out() {
    assert_eq!(Category::of_code(207001), Category::OutOfMemory);
    assert_eq!(Category::of_code(207018), Category::OutOfMemory);
    assert_eq!(Category::of_code(507046), Category::Timeout);
    assert_eq!(Category::of_code(507047), Category::Timeout);
    assert_eq!(Category::of_code(100001), Category::NotInitialized);
    assert_eq!(Category::of_code(107001), Category::InvalidArgument);
    assert_eq!(Category::of_code(207008), Category::Resource);
    assert_eq!(Category::of_code(507015), Category::DeviceFault);
    // Unknown codes keep their number and get a category from their range.
    assert_eq!(Category::of_code(107099), Category::InvalidArgument);
    assert_eq!(Category::of_code(999_999), Category::DeviceFault);
}

#[test]
fn a_runtime_error_carries_code_name_function_message_and_hint() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.inject(
            Fault::nth("aclrtMalloc", 1, 207001)
                .with_message("EL0004: Failed to allocate memory (injected)"),
        );
        let err = DeviceBuffer::<u8>::alloc(&ctx, 1024).unwrap_err();
        assert!(err.is_out_of_memory());
        assert!(!err.is_timeout());
        assert_eq!(err.code(), Some(207001));
        assert_eq!(err.code_name(), Some("ACL_ERROR_RT_MEMORY_ALLOCATION"));
        assert_eq!(
            err.message(),
            Some("EL0004: Failed to allocate memory (injected)")
        );
        let Error::Acl(acl) = &err else {
            panic!("{err:?}")
        };
        assert_eq!(acl.function(), "aclrtMalloc");
        let text = err.to_string();
        for part in [
            "aclrtMalloc returned 207001",
            "ACL_ERROR_RT_MEMORY_ALLOCATION",
            "EL0004",
            "hint:",
        ] {
            assert!(text.contains(part), "{part:?} missing in {text}");
        }
        Ok(())
    });
}

#[test]
fn the_runtime_message_is_captured_once_and_not_left_behind() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.inject(Fault::nth("aclrtCreateStream", 1, 207008).with_message("no stream left"));
        let err = Stream::new(&ctx).unwrap_err();
        assert_eq!(err.message(), Some("no stream left"));
        // The next failure does not repeat the old text.
        env.inject(Fault::nth("aclrtCreateStream", 1, 207008));
        let again = Stream::new(&ctx).unwrap_err();
        assert_ne!(again.message(), Some("no stream left"));
        Ok(())
    });
}

#[test]
fn bad_input_is_rejected_before_any_ffi_call() {
    common::check(|env| {
        let (device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let mut buffer = DeviceBuffer::<u32>::alloc(&ctx, 8)?;
        env.session.clear_journal();

        let zero = DeviceBuffer::<u32>::alloc(&ctx, 0).unwrap_err();
        let overflow = DeviceBuffer::<u64>::alloc(&ctx, usize::MAX / 4).unwrap_err();
        let zst = DeviceBuffer::<()>::alloc(&ctx, 4).unwrap_err();
        let mismatch = buffer.copy_from_host(&[1, 2, 3]).unwrap_err();
        let range = buffer.slice(4..9).unwrap_err();
        let timeout = stream.synchronize_timeout(Duration::ZERO).unwrap_err();
        let huge_timeout = stream
            .synchronize_timeout(Duration::from_secs(1 << 40))
            .unwrap_err();
        let bad_device = Device::open(&env.rt, 8).unwrap_err();
        let bad_priority = Stream::with_config(&ctx, 8, StreamFlagsDefault::default()).unwrap_err();
        for err in [
            &zero,
            &overflow,
            &zst,
            &mismatch,
            &range,
            &timeout,
            &huge_timeout,
            &bad_priority,
        ] {
            assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
        }
        assert!(
            matches!(bad_device, Error::InvalidArgument(_)),
            "{bad_device:?}"
        );
        assert!(
            bad_device
                .to_string()
                .contains("8 devices are visible (ids 0..=7)"),
            "{bad_device}"
        );
        assert!(
            mismatch
                .to_string()
                .contains("source has 3 elements but destination has 8"),
            "{mismatch}"
        );

        // Only the device count was asked for (to validate the id); nothing
        // was allocated, copied or waited for.
        assert_eq!(env.calls(), vec!["aclrtGetDeviceCount"]);
        drop((stream, buffer, device));
        Ok(())
    });
}

type StreamFlagsDefault = ascendcl::StreamFlags;

#[test]
fn running_out_of_pinned_host_memory_is_not_reported_as_device_memory() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.inject(Fault::nth("aclrtMallocHost", 1, 207001));
        let error = HostBuffer::<u8>::zeroed(&ctx, 64).expect_err("the injected failure");
        assert!(error.is_out_of_memory(), "{error}");
        let text = error.to_string();
        assert!(text.contains("pinned host memory ran out"), "{text}");
        assert!(
            !text.contains("empty_cache"),
            "a device-memory hint: {text}"
        );
        Ok(())
    });
}

#[test]
fn debug_of_an_error_is_its_message_with_hints_and_alternate_debug_its_structure() {
    use ascendcl::sys::{Attempt, LoadError};
    let not_found = Error::Library(LoadError::NotFound {
        attempts: vec![Attempt {
            candidate: "/opt/missing/libascendcl.so".into(),
            source: "ASCENDCL_LIBRARY".into(),
            reason: "no such file".into(),
        }],
    });
    // What `fn main() -> ascendcl::Result<()>` prints: the message, not the enum.
    let debug = format!("{not_found:?}");
    assert_eq!(debug, not_found.to_string());
    for needle in [
        "could not load the AscendCL runtime library",
        "/opt/missing/libascendcl.so (from ASCENDCL_LIBRARY): no such file",
        "Set ASCENDCL_LIBRARY",
        "Runtime::mock()",
        "hint: `ascendcl doctor`",
    ] {
        assert!(debug.contains(needle), "{needle} not in {debug}");
    }
    assert!(!debug.contains("NotFound"), "{debug}");
    // `{:#?}` is the structure.
    let structure = format!("{not_found:#?}");
    assert!(
        structure.starts_with("Library(\n    NotFound {\n        attempts: ["),
        "{structure}"
    );
    assert!(
        structure.contains("candidate: \"/opt/missing/libascendcl.so\""),
        "{structure}"
    );

    // A runtime failure: code, name, runtime message, hint; nested in Deferred.
    let env = common::env();
    env.inject(Fault::nth("aclrtMalloc", 1, 207001).with_message("out of HBM"));
    let device = Device::open(&env.rt, 0).unwrap();
    let oom = DeviceBuffer::<u8>::alloc(&device.default_context(), 1024).unwrap_err();
    let debug = format!("{oom:?}");
    assert_eq!(debug, oom.to_string());
    for needle in [
        "aclrtMalloc returned 207001",
        "ACL_ERROR_RT_MEMORY_ALLOCATION",
        "out of HBM",
        "hint:",
    ] {
        assert!(debug.contains(needle), "{needle} not in {debug}");
    }
    assert!(
        format!("{oom:#?}").starts_with("Acl(\n    AclError {\n        code: 207001,"),
        "{oom:#?}"
    );
    let deferred = Error::Deferred {
        during: "DeviceBuffer",
        source: Box::new(oom),
    };
    assert!(
        format!("{deferred:?}")
            .starts_with("while dropping DeviceBuffer: aclrtMalloc returned 207001")
    );
    assert!(
        format!("{deferred:#?}").contains("source: Acl("),
        "{deferred:#?}"
    );
    for plain in [
        Error::InvalidArgument("length 0".into()),
        Error::InvalidState("finalized".into()),
        Error::WouldDeadlock("own stream".into()),
    ] {
        assert_eq!(format!("{plain:?}"), plain.to_string());
    }
}
