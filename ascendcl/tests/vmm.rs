//! The VMM layer: granularity checks before FFI, and the ownership order of
//! ranges, physical memory and mappings.

mod common;

use std::time::Duration;

use ascendcl::prelude::*;
use ascendcl::vmm::{PageSize, PhysicalMemory, VirtualRange, granularity};
use ascendcl::{Error, Stream};
use ascendcl_mock::{Misuse, Resource};

const MIB: usize = 1 << 20;

#[test]
fn granularity_is_2_mib_for_huge_pages_and_1_gib_for_1g_pages() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        assert_eq!(granularity(&ctx, PageSize::Huge2M)?, 2 * MIB);
        assert_eq!(granularity(&ctx, PageSize::Huge1G)?, 1 << 30);
        Ok(())
    });
}

#[test]
fn sizes_and_offsets_off_the_granularity_are_rejected_before_ffi_naming_it() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let range = VirtualRange::reserve(&ctx, 8 * MIB, PageSize::Huge2M)?;
        let page = PhysicalMemory::alloc(&ctx, 2 * MIB, PageSize::Huge2M)?;
        env.session.clear_journal();
        let errors = [
            VirtualRange::reserve(&ctx, 3 * MIB, PageSize::Huge2M).unwrap_err(),
            PhysicalMemory::alloc(&ctx, MIB, PageSize::Huge2M).unwrap_err(),
            range.map(MIB, &page).unwrap_err(),
            range.map(8 * MIB, &page).unwrap_err(),
        ];
        for error in &errors {
            assert!(matches!(error, Error::InvalidArgument(_)), "{error:?}");
        }
        assert!(
            errors[0]
                .to_string()
                .contains("not a multiple of the 2 MiB granularity; round it up to 4194304")
        );
        assert!(
            errors[2]
                .to_string()
                .contains("not aligned to the 2 MiB granularity")
        );
        assert!(errors[3].to_string().contains("does not fit"));
        let forbidden = [
            "aclrtReserveMemAddress",
            "aclrtMallocPhysical",
            "aclrtMapMem",
        ];
        assert!(
            env.calls().iter().all(|c| !forbidden.contains(&c.as_str())),
            "{:?}",
            env.calls()
        );
        Ok(())
    });
}

#[test]
fn overlapping_mappings_are_rejected_before_ffi() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let range = VirtualRange::reserve(&ctx, 8 * MIB, PageSize::Huge2M)?;
        let big = PhysicalMemory::alloc(&ctx, 4 * MIB, PageSize::Huge2M)?;
        let small = PhysicalMemory::alloc(&ctx, 2 * MIB, PageSize::Huge2M)?;
        let _first = range.map(2 * MIB, &big)?;
        env.session.clear_journal();
        let err = range.map(4 * MIB, &small).unwrap_err();
        assert!(err.to_string().contains("overlap"), "{err}");
        assert!(!env.calls().contains(&"aclrtMapMem".to_string()));
        let _after = range.map(6 * MIB, &small)?;
        assert_eq!(range.mapped_bytes(), 6 * MIB);
        Ok(())
    });
}

#[test]
fn a_mapping_keeps_its_physical_memory_and_its_range_alive() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let range = VirtualRange::reserve(&ctx, 4 * MIB, PageSize::Huge2M)?;
        let physical = PhysicalMemory::alloc(&ctx, 2 * MIB, PageSize::Huge2M)?;
        let mut mapping = range.map(2 * MIB, &physical)?;
        drop((range, physical));
        assert_eq!(env.session.live(Resource::Reservation), 1);
        assert_eq!(env.session.live(Resource::Physical), 1);
        mapping.copy_from_host(&vec![0x5A; 2 * MIB])?;
        assert!(mapping.to_vec()?.iter().all(|&b| b == 0x5A));
        drop(mapping);
        assert_eq!(env.session.live(Resource::Mapping), 0);
        assert_eq!(env.session.live(Resource::Physical), 0);
        assert_eq!(env.session.live(Resource::Reservation), 0);
        Ok(())
    });
}

#[test]
fn releasing_a_mapped_range_is_refused() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let range = VirtualRange::reserve(&ctx, 2 * MIB, PageSize::Huge2M)?;
        let mapping = range.map(0, &PhysicalMemory::alloc(&ctx, 2 * MIB, PageSize::Huge2M)?)?;
        let err = range.clone().release().unwrap_err();
        assert!(matches!(err, Error::InvalidState(_)), "{err:?}");
        mapping.unmap()?;
        range.release()?;
        Ok(())
    });
}

#[test]
fn unmapping_waits_for_queued_work_on_the_mapping() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_millis(40));
        let stream = Stream::new(&ctx)?;
        let range = VirtualRange::reserve(&ctx, 2 * MIB, PageSize::Huge2M)?;
        let mut mapping = range.map(0, &PhysicalMemory::alloc(&ctx, 2 * MIB, PageSize::Huge2M)?)?;
        std::mem::forget(stream.fill_bytes(&mut mapping, 1)?);
        // The raw unmap would not wait (torch_npu's bug 196258); ours does.
        drop(mapping);
        stream.synchronize()?;
        assert_eq!(
            env.session.misuse(Misuse::UseAfterFree),
            0,
            "{}",
            env.session.misuse_log()
        );
        Ok(())
    });
}

#[test]
fn physical_memory_beyond_the_hbm_is_a_typed_out_of_memory_error() {
    common::check(|env| {
        env.session
            .set_hbm_bytes(64 * MIB as u64)
            .expect("before the device is used");
        let (_device, ctx) = env.device0();
        let _most = PhysicalMemory::alloc(&ctx, 48 * MIB, PageSize::Huge2M)?;
        let err = PhysicalMemory::alloc(&ctx, 32 * MIB, PageSize::Huge2M).unwrap_err();
        assert!(err.is_out_of_memory(), "{err:?}");
        Ok(())
    });
}
