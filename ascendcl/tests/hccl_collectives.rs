//! Every safe collective against a reference computed on the host: 2, 3 and
//! 4 mock devices (one thread per rank), odd counts, every reduction and
//! several dtypes including f16/bf16 (those HCCL does not reduce refused
//! before any call). Every test ends with the mock's live
//! counts at zero, no misuse and no parked error.

mod common;
mod hccl_support;

use ascendcl::hccl::{Bf16Bits, Communicator, F16Bits, ReduceOp, RootInfo, supports_reduction};
use ascendcl::prelude::*;
use hccl_support::{OPS, TestElement, communicators, input, inputs, on_ranks, reduced};

/// Odd element counts: one element, a few, more than a page of f64.
const COUNTS: [usize; 3] = [1, 7, 1031];

fn values<T: TestElement>(v: &[T]) -> Vec<f64> {
    v.iter().map(|x| x.to_f64()).collect()
}

/// All-reduce of `T` with every op and count on one rank; checks the
/// result, or that a reduction HCCL does not support is refused before any
/// HCCL call (the buffer untouched).
fn all_reduce_rank<T: TestElement>(comm: &Communicator, stream: &Stream) -> ascendcl::Result<()> {
    let ctx = comm.device().default_context();
    let n = comm.size();
    for (salt, &op) in OPS.iter().enumerate() {
        for &len in &COUNTS {
            let salt = salt as u64 + len as u64;
            let x = DeviceBuffer::from_host(&ctx, &inputs::<T>(comm.rank(), len, salt))?;
            let mut y = DeviceBuffer::<T>::zeroed(&ctx, len)?;
            if !supports_reduction::<T>(op) {
                match comm.all_reduce(&x, &mut y, op, stream) {
                    Err(ascendcl::Error::InvalidArgument(text)) => {
                        assert!(text.contains("HCCL does not"), "{text}")
                    }
                    Err(other) => panic!("{} {op:?}: {other}", T::NAME),
                    Ok(_) => panic!("{} {op:?} was accepted", T::NAME),
                }
                let zero = vec![0.0; len];
                assert_eq!(values(&y.to_vec()?), zero, "{} {op:?}", T::NAME);
                continue;
            }
            comm.all_reduce(&x, &mut y, op, stream)?.wait()?;
            let want: Vec<T> = (0..len).map(|i| reduced(op, n, i, salt)).collect();
            assert_eq!(
                values(&y.to_vec()?),
                values(&want),
                "{} {op:?} of {len} on rank {} of {n}",
                T::NAME,
                comm.rank()
            );
        }
    }
    Ok(())
}

#[test]
fn all_reduce_of_every_op_and_dtype_equals_the_host_reduction_on_2_3_and_4_ranks() {
    common::check(|env| {
        for ranks in 2..=4 {
            let (_devices, comms) = communicators(env, ranks)?;
            on_ranks(&comms, |comm| {
                let stream = Stream::new(&comm.device().default_context())?;
                all_reduce_rank::<i8>(comm, &stream)?;
                all_reduce_rank::<i16>(comm, &stream)?;
                all_reduce_rank::<i32>(comm, &stream)?;
                all_reduce_rank::<i64>(comm, &stream)?;
                all_reduce_rank::<u8>(comm, &stream)?;
                all_reduce_rank::<u32>(comm, &stream)?;
                all_reduce_rank::<u64>(comm, &stream)?;
                all_reduce_rank::<f32>(comm, &stream)?;
                all_reduce_rank::<f64>(comm, &stream)?;
                all_reduce_rank::<F16Bits>(comm, &stream)?;
                all_reduce_rank::<Bf16Bits>(comm, &stream)
            })?;
        }
        Ok(())
    });
}

#[test]
fn all_reduce_in_place_sums_into_the_buffer_it_sends() {
    common::check(|env| {
        let (_devices, comms) = communicators(env, 3)?;
        on_ranks(&comms, |comm| {
            let ctx = comm.device().default_context();
            let stream = Stream::new(&ctx)?;
            let mut grads = DeviceBuffer::from_host(&ctx, &inputs::<f32>(comm.rank(), 9, 1))?;
            comm.all_reduce_in_place(&mut grads, ReduceOp::Sum, &stream)?
                .wait()?;
            let want: Vec<f32> = (0..9).map(|i| reduced(ReduceOp::Sum, 3, i, 1)).collect();
            assert_eq!(grads.to_vec()?, want);
            Ok(())
        })?;
        Ok(())
    });
}

#[test]
fn broadcast_copies_the_roots_buffer_to_every_rank_for_every_root() {
    common::check(|env| {
        let (_devices, comms) = communicators(env, 4)?;
        on_ranks(&comms, |comm| {
            let ctx = comm.device().default_context();
            let stream = Stream::new(&ctx)?;
            for root in 0..comm.size() {
                let mut buf = DeviceBuffer::from_host(&ctx, &inputs::<i64>(comm.rank(), 13, 5))?;
                comm.broadcast(&mut buf, root, &stream)?.wait()?;
                assert_eq!(buf.to_vec()?, inputs::<i64>(root, 13, 5), "root {root}");
            }
            Ok(())
        })?;
        Ok(())
    });
}

#[test]
fn all_gather_concatenates_every_ranks_buffer_in_rank_order() {
    common::check(|env| {
        for ranks in [2, 3] {
            let (_devices, comms) = communicators(env, ranks)?;
            on_ranks(&comms, |comm| {
                let ctx = comm.device().default_context();
                let stream = Stream::new(&ctx)?;
                let len = 5;
                let x = DeviceBuffer::from_host(&ctx, &inputs::<F16Bits>(comm.rank(), len, 2))?;
                let mut y = DeviceBuffer::<F16Bits>::zeroed(&ctx, len * ranks as usize)?;
                comm.all_gather(&x, &mut y, &stream)?.wait()?;
                let want: Vec<F16Bits> = (0..ranks).flat_map(|r| inputs(r, len, 2)).collect();
                assert_eq!(y.to_vec()?, want);
                Ok(())
            })?;
        }
        Ok(())
    });
}

#[test]
fn reduce_scatter_gives_each_rank_its_slice_of_the_reduction() {
    common::check(|env| {
        let ranks = 3u32;
        let (_devices, comms) = communicators(env, ranks)?;
        on_ranks(&comms, |comm| {
            let ctx = comm.device().default_context();
            let stream = Stream::new(&ctx)?;
            let len = 7;
            let total = len * ranks as usize;
            for op in OPS {
                let x = DeviceBuffer::from_host(&ctx, &inputs::<i32>(comm.rank(), total, 3))?;
                let mut y = DeviceBuffer::<i32>::zeroed(&ctx, len)?;
                comm.reduce_scatter(&x, &mut y, op, &stream)?.wait()?;
                let start = comm.rank() as usize * len;
                let want: Vec<i32> = (start..start + len)
                    .map(|i| reduced(op, ranks, i, 3))
                    .collect();
                assert_eq!(y.to_vec()?, want, "{op:?}");
            }
            Ok(())
        })?;
        Ok(())
    });
}

#[test]
fn reduce_writes_the_reduction_on_the_root_and_leaves_other_ranks_alone() {
    common::check(|env| {
        let ranks = 3u32;
        let (_devices, comms) = communicators(env, ranks)?;
        on_ranks(&comms, |comm| {
            let ctx = comm.device().default_context();
            let stream = Stream::new(&ctx)?;
            let root = 2;
            let x = DeviceBuffer::from_host(&ctx, &inputs::<f32>(comm.rank(), 11, 4))?;
            let mut y = DeviceBuffer::from_host(&ctx, &[-7.0f32; 11])?;
            comm.reduce(&x, &mut y, ReduceOp::Max, root, &stream)?
                .wait()?;
            let got = y.to_vec()?;
            if comm.rank() == root {
                let want: Vec<f32> = (0..11)
                    .map(|i| reduced(ReduceOp::Max, ranks, i, 4))
                    .collect();
                assert_eq!(got, want);
            } else {
                assert_eq!(got, vec![-7.0; 11], "rank {}", comm.rank());
            }
            Ok(())
        })?;
        Ok(())
    });
}

#[test]
fn scatter_sends_each_rank_its_slice_of_the_roots_buffer() {
    common::check(|env| {
        let ranks = 4u32;
        let (_devices, comms) = communicators(env, ranks)?;
        on_ranks(&comms, |comm| {
            let ctx = comm.device().default_context();
            let stream = Stream::new(&ctx)?;
            let (root, len) = (1, 3);
            let mut y = DeviceBuffer::<u8>::zeroed(&ctx, len)?;
            let all = inputs::<u8>(root, len * ranks as usize, 6);
            if comm.rank() == root {
                let x = DeviceBuffer::from_host(&ctx, &all)?;
                comm.scatter(Some(&x), &mut y, root, &stream)?.wait()?;
            } else {
                comm.scatter(None::<&DeviceBuffer<u8>>, &mut y, root, &stream)?
                    .wait()?;
            }
            let start = comm.rank() as usize * len;
            assert_eq!(y.to_vec()?, all[start..start + len].to_vec());
            Ok(())
        })?;
        Ok(())
    });
}

#[test]
fn send_and_recv_move_a_buffer_around_a_ring() {
    common::check(|env| {
        let ranks = 3u32;
        let (_devices, comms) = communicators(env, ranks)?;
        on_ranks(&comms, |comm| {
            let ctx = comm.device().default_context();
            let stream = Stream::new(&ctx)?;
            let (rank, n) = (comm.rank(), comm.size());
            let next = (rank + 1) % n;
            let prev = (rank + n - 1) % n;
            let mine = DeviceBuffer::from_host(&ctx, &inputs::<u32>(rank, 17, 8))?;
            let mut theirs = DeviceBuffer::<u32>::zeroed(&ctx, 17)?;
            // Rank 0 sends first, everyone else receives first: no cycle of
            // ranks waiting on each other.
            if rank == 0 {
                comm.send(&mine, next, &stream)?.wait()?;
                comm.recv(&mut theirs, prev, &stream)?.wait()?;
            } else {
                comm.recv(&mut theirs, prev, &stream)?.wait()?;
                comm.send(&mine, next, &stream)?.wait()?;
            }
            assert_eq!(theirs.to_vec()?, inputs::<u32>(prev, 17, 8));
            Ok(())
        })?;
        Ok(())
    });
}

#[test]
fn all_to_all_sends_block_j_to_rank_j() {
    common::check(|env| {
        let ranks = 3u32;
        let (_devices, comms) = communicators(env, ranks)?;
        on_ranks(&comms, |comm| {
            let ctx = comm.device().default_context();
            let stream = Stream::new(&ctx)?;
            let block = 5;
            let total = block * ranks as usize;
            let x = DeviceBuffer::from_host(&ctx, &inputs::<i16>(comm.rank(), total, 9))?;
            let mut y = DeviceBuffer::<i16>::zeroed(&ctx, total)?;
            comm.all_to_all(&x, &mut y, &stream)?.wait()?;
            // Block r of mine is block rank() of rank r's input.
            let me = comm.rank() as usize;
            let want: Vec<i16> = (0..ranks)
                .flat_map(|r| (me * block..(me + 1) * block).map(move |i| input::<i16>(r, i, 9)))
                .collect();
            assert_eq!(y.to_vec()?, want);
            Ok(())
        })?;
        Ok(())
    });
}

#[test]
fn barrier_completes_on_every_rank() {
    common::check(|env| {
        let (_devices, comms) = communicators(env, 4)?;
        on_ranks(&comms, |comm| {
            let stream = Stream::new(&comm.device().default_context())?;
            comm.barrier(&stream)?.wait()
        })?;
        Ok(())
    });
}

#[test]
fn communicators_from_a_root_info_blob_reduce_like_init_all_ones() {
    common::check(|env| {
        let ranks = 3u32;
        env.session
            .set_hccl_timeouts(hccl_support::PEER_TIMEOUT, hccl_support::PEER_TIMEOUT);
        let devices: Vec<Device> = (0..ranks)
            .map(|i| Device::open(&env.rt, i))
            .collect::<Result<_, _>>()?;
        // The blob travels as bytes, as it would between processes.
        let wire = RootInfo::new(&devices[0])?.as_bytes().to_vec();
        let comms = std::thread::scope(|s| {
            let joins: Vec<_> = devices
                .iter()
                .enumerate()
                .map(|(rank, device)| {
                    let wire = &wire;
                    s.spawn(move || {
                        let root = RootInfo::from_bytes(wire)?;
                        Communicator::init_root_info(device, &root, ranks, rank as u32)
                    })
                })
                .collect();
            joins
                .into_iter()
                .map(|j| j.join().unwrap())
                .collect::<Result<Vec<_>, _>>()
        })?;
        for (rank, comm) in comms.iter().enumerate() {
            assert_eq!((comm.rank(), comm.size()), (rank as u32, ranks));
            assert_eq!(comm.device().id(), rank as u32);
        }
        on_ranks(&comms, |comm| {
            let stream = Stream::new(&comm.device().default_context())?;
            all_reduce_rank::<f32>(comm, &stream)
        })?;
        Ok(())
    });
}
