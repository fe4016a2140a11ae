//! Ranks that disagree, and ranks that never arrive: an error on every
//! rank's wait, never a hang, and nothing left alive afterwards.

mod common;
mod hccl_support;

use std::time::{Duration, Instant};

use ascendcl::hccl::ReduceOp;
use ascendcl::prelude::*;
use ascendcl::sys::HcclResult;
use hccl_support::{communicators, communicators_with_timeout, on_ranks};

#[test]
fn a_count_mismatch_between_ranks_is_an_error_on_every_rank() {
    common::check(|env| {
        let (_devices, comms) = communicators(env, 2)?;
        let errors = on_ranks(&comms, |comm| {
            let ctx = comm.device().default_context();
            let stream = Stream::new(&ctx)?;
            let len = 4 + comm.rank() as usize; // rank 1 sends one more element
            let x = DeviceBuffer::<f32>::zeroed(&ctx, len)?;
            let mut y = DeviceBuffer::<f32>::zeroed(&ctx, len)?;
            let waited = comm.all_reduce(&x, &mut y, ReduceOp::Sum, &stream)?.wait();
            let error = waited.expect_err("the ranks disagree");
            // The stream reports the failed task too; clear it before drop.
            let _ = stream.synchronize();
            Ok(error)
        })?;
        for error in errors {
            assert_eq!(error.hccl_code(), Some(HcclResult::HCCL_E_PARA), "{error}");
            assert!(error.to_string().contains("HcclAllReduce"), "{error}");
        }
        Ok(())
    });
}

#[test]
fn a_rank_that_never_arrives_times_out_the_others_instead_of_hanging() {
    common::check(|env| {
        let (_devices, comms) = communicators_with_timeout(env, 2, Duration::from_millis(300))?;
        let comm = &comms[0];
        let ctx = comm.device().default_context();
        let stream = Stream::new(&ctx)?;
        let mut buf = DeviceBuffer::<i32>::zeroed(&ctx, 3)?;
        let start = Instant::now();
        let error = comm
            .broadcast(&mut buf, 0, &stream)?
            .wait()
            .expect_err("rank 1 never came");
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        assert_eq!(
            error.hccl_code(),
            Some(HcclResult::HCCL_E_TIMEOUT),
            "{error}"
        );
        assert!(error.is_timeout());
        let _ = stream.synchronize();
        Ok(())
    });
}
