//! Arguments a collective or an init cannot work with are refused before
//! any HCCL call, with an invalid-argument error naming what is wrong; HCCL
//! statuses are typed errors with their name and a hint.

mod common;
mod hccl_support;

use ascendcl::hccl::{Communicator, HcclElement, ReduceOp, RootInfo};
use ascendcl::prelude::*;
use ascendcl::{Category, Error};
use hccl_support::{communicators, hccl_calls};

fn refused(result: ascendcl::Result<impl Sized>, needle: &str) {
    match result {
        Err(Error::InvalidArgument(text)) => {
            assert!(text.contains(needle), "`{needle}` not in: {text}")
        }
        Err(other) => panic!("expected an invalid argument about {needle}, got {other}"),
        Ok(_) => panic!("expected an invalid argument about {needle}, got success"),
    }
}

#[test]
fn wrong_counts_roots_peers_streams_and_devices_are_refused_before_any_hccl_call() {
    common::check(|env| {
        let (devices, comms) = communicators(env, 2)?;
        let comm = &comms[0];
        let ctx = devices[0].default_context();
        let other_ctx = devices[1].default_context();
        let stream = Stream::new(&ctx)?;
        let foreign = Stream::new(&other_ctx)?;
        let x = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let mut y5 = DeviceBuffer::<f32>::zeroed(&ctx, 5)?;
        let mut y6 = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let mut y12 = DeviceBuffer::<f32>::zeroed(&ctx, 12)?;
        let mut y3 = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
        let on_other = DeviceBuffer::<f32>::zeroed(&other_ctx, 6)?;
        env.session.clear_journal();

        refused(
            comm.all_reduce(&x, &mut y5, ReduceOp::Sum, &stream),
            "6 are needed",
        );
        refused(comm.all_gather(&x, &mut y6, &stream), "12 are needed");
        refused(
            comm.reduce_scatter(&x, &mut y6, ReduceOp::Sum, &stream),
            "12 are needed",
        );
        refused(comm.broadcast(&mut y6, 2, &stream), "root 2");
        refused(
            comm.reduce(&x, &mut y6, ReduceOp::Min, 7, &stream),
            "root 7",
        );
        refused(comm.scatter(Some(&x), &mut y6, 0, &stream), "12 are needed");
        refused(
            comm.scatter(None::<&DeviceBuffer<f32>>, &mut y3, 0, &stream),
            "must pass the send buffer",
        );
        refused(comm.send(&x, 0, &stream), "this rank");
        refused(comm.recv(&mut y6, 2, &stream), "source 2");
        refused(comm.all_to_all(&y5, &mut y6, &stream), "equal blocks");
        refused(comm.all_to_all(&x, &mut y12, &stream), "6 are needed");
        refused(
            comm.all_reduce(&x, &mut y6, ReduceOp::Sum, &foreign),
            "stream is on device 1",
        );
        refused(comm.barrier(&foreign), "stream is on device 1");
        refused(
            comm.all_reduce(&on_other, &mut y6, ReduceOp::Sum, &stream),
            "send buffer is on device 1",
        );
        assert_eq!(
            hccl_calls(env),
            Vec::<String>::new(),
            "no HCCL call was made"
        );
        // Nothing was launched, so nothing is tracked: host access is immediate.
        assert_eq!(y6.to_vec()?, vec![0.0; 6]);
        Ok(())
    });
}

#[test]
fn reductions_hccl_does_not_support_are_refused_before_any_hccl_call() {
    common::check(|env| {
        let (devices, comms) = communicators(env, 2)?;
        let comm = &comms[0];
        let ctx = devices[0].default_context();
        let stream = Stream::new(&ctx)?;
        let u = DeviceBuffer::<u32>::zeroed(&ctx, 4)?;
        let mut u_out = DeviceBuffer::<u32>::zeroed(&ctx, 4)?;
        let mut f = DeviceBuffer::<f64>::zeroed(&ctx, 4)?;
        let h = DeviceBuffer::<i16>::zeroed(&ctx, 4)?;
        let mut h_out = DeviceBuffer::<i16>::zeroed(&ctx, 2)?;
        let b = DeviceBuffer::<ascendcl::hccl::Bf16Bits>::zeroed(&ctx, 4)?;
        let mut b_out = DeviceBuffer::<ascendcl::hccl::Bf16Bits>::zeroed(&ctx, 4)?;
        env.session.clear_journal();

        refused(
            comm.all_reduce(&u, &mut u_out, ReduceOp::Max, &stream),
            "HcclAllReduce: HCCL does not reduce u32",
        );
        refused(
            comm.all_reduce_in_place(&mut f, ReduceOp::Sum, &stream),
            "does not reduce f64",
        );
        refused(
            comm.reduce_scatter(&h, &mut h_out, ReduceOp::Prod, &stream),
            "HcclReduceScatter: HCCL does not take ReduceOp::Prod of i16",
        );
        refused(
            comm.reduce(&b, &mut b_out, ReduceOp::Prod, 0, &stream),
            "ReduceOp::Prod of bf16",
        );
        assert_eq!(
            hccl_calls(env),
            Vec::<String>::new(),
            "no HCCL call was made"
        );
        // nothing was launched: the buffers are not tracked
        assert_eq!(u_out.to_vec()?, vec![0; 4]);
        Ok(())
    });
}

#[test]
fn bad_init_arguments_are_refused_before_any_hccl_call() {
    common::check(|env| {
        let d0 = Device::open(&env.rt, 0)?;
        let root = RootInfo::from_bytes(&[0u8; RootInfo::LEN])?;
        env.session.clear_journal();
        refused(
            Communicator::init_root_info(&d0, &root, 2, 2),
            "rank 2 of 2",
        );
        refused(
            Communicator::init_root_info(&d0, &root, 0, 0),
            "at least one rank",
        );
        refused(Communicator::init_all(&[]), "at least one device");
        refused(
            Communicator::init_all(&[d0.clone(), d0.clone()]),
            "listed twice",
        );
        assert_eq!(hccl_calls(env), Vec::<String>::new());
        Ok(())
    });
}

#[test]
fn a_root_info_is_4108_bytes_and_other_lengths_are_refused() {
    assert_eq!(RootInfo::LEN, 4108);
    let blob: Vec<u8> = (0..RootInfo::LEN).map(|i| (i % 251) as u8).collect();
    let root = RootInfo::from_bytes(&blob).unwrap();
    assert_eq!(root.as_bytes(), &blob[..]);
    refused(RootInfo::from_bytes(&blob[1..]), "4108 bytes, got 4107");
    refused(
        RootInfo::from_bytes(&[blob.clone(), vec![0]].concat()),
        "got 4109",
    );
    // Debug shows a fingerprint, not four kilobytes.
    let debug = format!("{root:?}");
    assert!(debug.len() < 100, "{debug}");
    assert!(debug.contains("fingerprint"), "{debug}");
}

#[test]
fn element_types_map_to_their_hccl_dtypes() {
    use ascendcl::sys::HcclDataType as D;
    assert_eq!(<f32 as HcclElement>::DATA_TYPE, D::HCCL_DATA_TYPE_FP32);
    assert_eq!(<i8 as HcclElement>::DATA_TYPE, D::HCCL_DATA_TYPE_INT8);
    assert_eq!(<u64 as HcclElement>::DATA_TYPE, D::HCCL_DATA_TYPE_UINT64);
    assert_eq!(
        <ascendcl::hccl::F16Bits as HcclElement>::DATA_TYPE,
        D::HCCL_DATA_TYPE_FP16
    );
    assert_eq!(
        <ascendcl::hccl::Bf16Bits as HcclElement>::DATA_TYPE,
        D::HCCL_DATA_TYPE_BFP16
    );
    assert_eq!(
        ReduceOp::Min.raw(),
        ascendcl::sys::HcclReduceOp::HCCL_REDUCE_MIN
    );
}

#[test]
fn an_hccl_status_is_a_typed_error_with_its_name_category_and_hint() {
    use ascendcl::error::HcclError;
    use ascendcl::sys::HcclResult;
    let error: Error = HcclError::new(HcclResult::HCCL_E_TIMEOUT, "HcclAllReduce", None).into();
    assert_eq!(error.hccl_code(), Some(HcclResult::HCCL_E_TIMEOUT));
    assert_eq!(error.code_name(), Some("HCCL_E_TIMEOUT"));
    assert!(error.is_timeout());
    let text = error.to_string();
    assert!(
        text.contains("HcclAllReduce returned 9 (HCCL_E_TIMEOUT)"),
        "{text}"
    );
    assert!(text.contains("HCCL_EXEC_TIMEOUT"), "{text}");
    let para: Error = HcclError::new(HcclResult::HCCL_E_PARA, "HcclBroadcast", None).into();
    assert_eq!(para.category(), Category::InvalidArgument);
    assert!(para.to_string().contains("hint: "), "{para}");
    let unknown: Error = HcclError::new(HcclResult(77), "HcclBarrier", None).into();
    assert_eq!(unknown.code_name(), None);
    assert!(unknown.to_string().contains("returned 77"), "{unknown}");
    let unsupported: Error =
        HcclError::new(HcclResult::HCCL_E_NOT_SUPPORT, "HcclScatter", None).into();
    assert!(unsupported.is_not_supported());
}
