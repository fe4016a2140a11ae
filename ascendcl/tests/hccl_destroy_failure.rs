//! `HcclCommDestroy` failing with another status than `HCCL_E_AGAIN`: it is
//! tried again (a second try is safe), and if it keeps failing the error is
//! returned or parked, the handle is abandoned and the communicator's device
//! reference is released (its collectives were all waited for before the
//! first try), instead of leaking both. Faults come from the mock's
//! injection.

mod common;

use ascendcl::hccl::Communicator;
use ascendcl::sys::{HcclComm, HcclResult};
use ascendcl::take_deferred_errors;
use ascendcl_mock::{Fault, Resource};

const INTERNAL: HcclResult = HcclResult::HCCL_E_INTERNAL;

/// One communicator on device 0, with the device's reference count while
/// it lives.
fn one_comm(env: &common::Env) -> (Communicator, u64) {
    let device = ascendcl::Device::open(&env.rt, 0).expect("device 0");
    let mut comms = Communicator::init_all(&[device]).expect("one communicator");
    (comms.remove(0), env.session.live(Resource::DeviceRef))
}

/// Destroys a handle the safe layer abandoned, so the test ends clean; a
/// further try succeeds once the fault is gone.
fn destroy_abandoned(env: &common::Env, raw: HcclComm) {
    env.session.clear_faults();
    let hccl = ascendcl::sys::hccl_for(Some(env.rt.library())).expect("HCCL");
    // SAFETY: the handle of a communicator the safe layer abandoned: live in
    // HCCL, never passed to it again by the safe layer.
    let status = unsafe { hccl.HcclCommDestroy(raw) }.expect("HcclCommDestroy");
    assert_eq!(status, HcclResult::HCCL_SUCCESS);
}

#[test]
fn a_destroy_failing_once_is_tried_again_and_releases_everything() {
    common::check(|env| {
        let (comm, _) = one_comm(env);
        env.inject(Fault::nth("HcclCommDestroy", 1, INTERNAL.0 as i32));
        comm.destroy()?;
        assert_eq!(env.session.call_count("HcclCommDestroy"), 2);
        // the same through Drop: nothing parked
        let (comm, _) = one_comm(env);
        env.inject(Fault::nth("HcclCommDestroy", 1, INTERNAL.0 as i32));
        drop(comm);
        assert_eq!(env.session.call_count("HcclCommDestroy"), 4);
        Ok(())
    });
}

#[test]
fn a_destroy_that_keeps_failing_returns_the_error_and_releases_the_device_reference() {
    common::check(|env| {
        let (comm, refs) = one_comm(env);
        assert!(refs >= 1);
        let raw = comm.as_raw();
        env.inject(Fault::always("HcclCommDestroy", INTERNAL.0 as i32));
        let error = comm.destroy().expect_err("HcclCommDestroy always fails");
        assert_eq!(error.hccl_code(), Some(INTERNAL), "{error}");
        assert_eq!(env.session.call_count("HcclCommDestroy"), 3, "bounded");
        assert_eq!(
            env.session.live(Resource::DeviceRef),
            0,
            "the communicator's device reference and the test's were released"
        );
        assert_eq!(env.session.live(Resource::HcclComm), 1, "abandoned");
        assert!(take_deferred_errors().is_empty(), "returned, not parked");
        destroy_abandoned(env, raw);
        Ok(())
    });
}

#[test]
fn a_dropped_communicator_whose_destroy_keeps_failing_parks_the_error_and_releases_the_device() {
    common::check(|env| {
        let (comm, _) = one_comm(env);
        let raw = comm.as_raw();
        env.inject(Fault::always("HcclCommDestroy", INTERNAL.0 as i32));
        drop(comm);
        let parked = take_deferred_errors();
        assert_eq!(parked.len(), 1, "{parked:?}");
        assert_eq!(parked[0].hccl_code(), Some(INTERNAL), "{}", parked[0]);
        assert_eq!(env.session.call_count("HcclCommDestroy"), 3, "bounded");
        assert_eq!(env.session.live(Resource::DeviceRef), 0);
        destroy_abandoned(env, raw);
        Ok(())
    });
}
