//! Communicators and collectives under the async-safety contract: host
//! access to a receive buffer waits for its collective (even with the guard
//! detached or leaked), destroying a communicator waits for its queued
//! collectives, `HCCL_E_AGAIN` on destroy is retried a bounded number of
//! times, failures of init and of every collective leave nothing alive, and
//! the watchdog reports asynchronous errors.

mod common;
mod hccl_support;

use std::sync::{Arc, mpsc};
use std::time::Duration;

use ascendcl::hccl::{Communicator, DESTROY_ATTEMPTS, ReduceOp, Watchdog};
use ascendcl::prelude::*;
use ascendcl::sys::HcclResult;
use ascendcl::{Error, take_deferred_errors};
use ascendcl_mock::Fault;
use hccl_support::{communicators, inputs, on_owned_ranks, on_ranks, reduced};

const DELAY: Duration = Duration::from_millis(30);

fn expected_sum(ranks: u32, len: usize) -> Vec<f32> {
    (0..len)
        .map(|i| reduced(ReduceOp::Sum, ranks, i, 0))
        .collect()
}

#[test]
fn host_access_to_a_receive_buffer_waits_for_a_detached_collective() {
    common::check(|env| {
        env.slow_streams(DELAY);
        let (_devices, comms) = communicators(env, 2)?;
        on_ranks(&comms, |comm| {
            let ctx = comm.device().default_context();
            let stream = Stream::new(&ctx)?;
            let x = DeviceBuffer::from_host(&ctx, &inputs::<f32>(comm.rank(), 33, 0))?;
            let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 33)?;
            comm.all_reduce(&x, &mut y, ReduceOp::Sum, &stream)?
                .detach();
            // The streams are slow: without the tracker this reads zeros.
            assert_eq!(y.to_vec()?, expected_sum(2, 33));
            Ok(())
        })?;
        Ok(())
    });
}

#[test]
fn a_leaked_collective_guard_still_orders_host_access_and_frees_after_it() {
    common::check(|env| {
        env.slow_streams(DELAY);
        let (_devices, comms) = communicators(env, 2)?;
        on_ranks(&comms, |comm| {
            let ctx = comm.device().default_context();
            let stream = Stream::new(&ctx)?;
            let x = DeviceBuffer::from_host(&ctx, &inputs::<f32>(comm.rank(), 8, 0))?;
            let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 16)?;
            std::mem::forget(comm.all_gather(&x, &mut y, &stream)?);
            // Freeing the send buffer waits for the collective reading it,
            // and reading the receive buffer waits for it to be written.
            drop(x);
            let want: Vec<f32> = (0..2).flat_map(|r| inputs::<f32>(r, 8, 0)).collect();
            assert_eq!(y.to_vec()?, want);
            Ok(())
        })?;
        Ok(())
    });
}

#[test]
fn dropping_a_communicator_with_a_queued_collective_waits_for_it_before_destroying() {
    common::check(|env| {
        env.slow_streams(DELAY);
        let (_devices, comms) = communicators(env, 3)?;
        on_owned_ranks(comms, |comm| {
            let ctx = comm.device().default_context();
            let stream = Stream::new(&ctx)?;
            let x = DeviceBuffer::from_host(&ctx, &inputs::<f32>(comm.rank(), 5, 0))?;
            let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 5)?;
            comm.all_reduce(&x, &mut y, ReduceOp::Sum, &stream)?
                .detach();
            drop(comm); // the collective is still queued on a slow stream
            assert_eq!(y.to_vec()?, expected_sum(3, 5));
            Ok(())
        })?;
        // Every destroy found its communicator idle, and each rank's thread
        // waited for its collective's marker between queuing and destroying.
        let journal = env.session.journal();
        let destroys: Vec<i32> = journal
            .iter()
            .filter(|e| e.function() == "HcclCommDestroy")
            .map(|e| e.ret())
            .collect();
        assert_eq!(destroys, vec![0; 3]);
        for destroy in journal.iter().filter(|e| e.function() == "HcclCommDestroy") {
            let thread: Vec<&str> = journal
                .iter()
                .filter(|e| e.thread() == destroy.thread() && e.seq() < destroy.seq())
                .map(|e| e.function())
                .collect();
            let launched = thread
                .iter()
                .rposition(|f| *f == "HcclAllReduce")
                .expect("the rank's thread launched the collective");
            assert!(
                thread[launched..].contains(&"aclrtSynchronizeEvent"),
                "destroyed without waiting for the collective: {:?}",
                &thread[launched..]
            );
        }
        Ok(())
    });
}

#[test]
fn destroy_retries_hccl_e_again_and_then_succeeds() {
    common::check(|env| {
        let (_devices, mut comms) = communicators(env, 1)?;
        let again = HcclResult::HCCL_E_AGAIN.0 as i32;
        env.inject(Fault::nth("HcclCommDestroy", 1, again));
        env.inject(Fault::nth("HcclCommDestroy", 2, again));
        comms.remove(0).destroy()?;
        assert_eq!(env.session.call_count("HcclCommDestroy"), 3);
        Ok(())
    });
}

#[test]
fn destroy_gives_up_after_a_bounded_number_of_hccl_e_again_without_panicking() {
    let env = common::env();
    let (_devices, mut comms) = communicators(&env, 1).expect("one communicator");
    env.inject(Fault::always(
        "HcclCommDestroy",
        HcclResult::HCCL_E_AGAIN.0 as i32,
    ));
    let comm = comms.remove(0);
    let error = comm.destroy().expect_err("always busy");
    assert_eq!(error.hccl_code(), Some(HcclResult::HCCL_E_AGAIN), "{error}");
    assert_eq!(
        env.session.call_count("HcclCommDestroy"),
        u64::from(DESTROY_ATTEMPTS)
    );
    // The same through Drop: parked, never a panic.
    let (_devices, comms) = communicators(&env, 1).expect("one communicator");
    drop(comms);
    let parked = take_deferred_errors();
    assert_eq!(parked.len(), 1, "{parked:?}");
    assert_eq!(parked[0].hccl_code(), Some(HcclResult::HCCL_E_AGAIN));
    env.session.clear_faults();
    // Both communicators were leaked on purpose (never destroyed while busy);
    // the next session's reset reclaims them.
}

/// The HCCL functions `init_all` calls, each failing once in turn.
const INIT_CALLS: [&str; 3] = ["HcclCommInitAll", "HcclGetRankId", "HcclGetRankSize"];

#[test]
fn a_failure_of_each_init_call_is_a_typed_error_and_leaves_nothing_alive() {
    for function in INIT_CALLS {
        common::check(|env| {
            let devices: Vec<Device> = (0..2)
                .map(|i| Device::open(&env.rt, i))
                .collect::<Result<_, _>>()?;
            let code = HcclResult::HCCL_E_INTERNAL.0 as i32;
            env.inject(Fault::nth(function, 1, code));
            let error = Communicator::init_all(&devices).expect_err(function);
            assert_eq!(
                error.hccl_code(),
                Some(HcclResult::HCCL_E_INTERNAL),
                "{error}"
            );
            assert!(error.to_string().contains(function), "{error}");
            Ok(())
        });
    }
}

/// Every collective, launched on every rank of a 2-rank communicator.
fn launch(name: &str, comm: &Communicator, stream: &Stream) -> ascendcl::Result<()> {
    let ctx = comm.device().default_context();
    let x = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0])?;
    let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
    let mut z = DeviceBuffer::<f32>::zeroed(&ctx, 2)?;
    let peer = 1 - comm.rank();
    match name {
        "HcclAllReduce" => comm
            .all_reduce(&x, &mut y.slice_mut(..2)?, ReduceOp::Sum, stream)?
            .wait(),
        "HcclBroadcast" => comm.broadcast(&mut y, 0, stream)?.wait(),
        "HcclAllGather" => comm.all_gather(&x, &mut y, stream)?.wait(),
        "HcclReduceScatter" => comm
            .reduce_scatter(&y, &mut z, ReduceOp::Max, stream)?
            .wait(),
        "HcclReduce" => comm
            .reduce(&x, &mut y.slice_mut(..2)?, ReduceOp::Min, 1, stream)?
            .wait(),
        "HcclScatter" => comm.scatter(Some(&y), &mut z, 0, stream)?.wait(),
        "HcclSend" | "HcclRecv" if comm.rank() == 0 => comm.send(&x, peer, stream)?.wait(),
        "HcclSend" | "HcclRecv" => comm.recv(&mut y.slice_mut(..2)?, peer, stream)?.wait(),
        "HcclAlltoAll" => comm.all_to_all(&x, &mut y.slice_mut(..2)?, stream)?.wait(),
        "HcclBarrier" => comm.barrier(stream)?.wait(),
        other => unreachable!("{other}"),
    }
}

const COLLECTIVES: [&str; 10] = [
    "HcclAllReduce",
    "HcclBroadcast",
    "HcclAllGather",
    "HcclReduceScatter",
    "HcclReduce",
    "HcclScatter",
    "HcclSend",
    "HcclRecv",
    "HcclAlltoAll",
    "HcclBarrier",
];

#[test]
fn every_collective_runs_on_two_ranks_and_a_failure_of_it_leaves_nothing_alive() {
    for name in COLLECTIVES {
        common::check(|env| {
            let (_devices, comms) = communicators(env, 2)?;
            // It works, then it fails on every rank with a typed error.
            on_ranks(&comms, |comm| {
                let stream = Stream::new(&comm.device().default_context())?;
                launch(name, comm, &stream)
            })?;
            let failing = match name {
                "HcclSend" | "HcclRecv" => ["HcclSend", "HcclRecv"],
                other => [other, other],
            };
            for f in failing {
                env.inject(Fault::always(f, HcclResult::HCCL_E_REMOTE.0 as i32));
            }
            let results = on_ranks(&comms, |comm| {
                let stream = Stream::new(&comm.device().default_context())?;
                Ok(launch(name, comm, &stream))
            })?;
            for result in results {
                let error = result.expect_err(name);
                assert_eq!(
                    error.hccl_code(),
                    Some(HcclResult::HCCL_E_REMOTE),
                    "{name}: {error}"
                );
            }
            env.session.clear_faults();
            env.session.clear_journal();
            drop(comms); // waits device-wide for the failed launches, then destroys
            let calls = env.calls();
            let first_destroy = calls.iter().position(|f| f == "HcclCommDestroy").unwrap();
            let device_waits = calls[..first_destroy]
                .iter()
                .filter(|f| *f == "aclrtSynchronizeDevice")
                .count();
            assert_eq!(device_waits, 1, "{name}: {calls:?}");
            Ok(())
        });
    }
}

#[test]
fn the_watchdog_reports_the_first_async_error_once_and_stops() {
    common::check(|env| {
        let (_devices, mut comms) = communicators(env, 1)?;
        let comm = Arc::new(comms.remove(0));
        let (tx, errors) = mpsc::channel();
        let watchdog = Watchdog::spawn(comm.clone(), Duration::from_millis(2), move |e| {
            let _ = tx.send(e);
        })?;
        std::thread::sleep(Duration::from_millis(20));
        assert!(errors.try_recv().is_err(), "no error while all is well");
        assert!(watchdog.is_running());
        env.inject(Fault::always(
            "HcclGetCommAsyncError",
            HcclResult::HCCL_E_NETWORK.0 as i32,
        ));
        let error: Error = errors
            .recv_timeout(Duration::from_secs(5))
            .expect("reported");
        assert_eq!(
            error.hccl_code(),
            Some(HcclResult::HCCL_E_NETWORK),
            "{error}"
        );
        while watchdog.is_running() {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(errors.try_recv().is_err(), "reported once");
        env.session.clear_faults();
        watchdog.stop();
        assert_eq!(comm.async_error()?, None);
        Ok(())
    });
}
