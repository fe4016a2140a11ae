//! Launch cost of the safe layer against the raw sys sequence, measured
//! side by side in one process, printing JSON (one object per row).
//!
//! Each row alternates `--rounds` blocks of `--chunk` raw launches and
//! `--chunk` safe launches, each timed while a host function holds the stream
//! (so the launches are only queued: the mock's stream worker does not compete
//! with the launching thread; the queue is drained, untimed, between blocks),
//! so both sides see the same machine state, and reports the median µs per launch of
//! each. On the mock it also counts the runtime calls per launch of each side
//! from the mock's journal (a separate, untimed pass), which must be equal:
//! the program fails if they are not (CI runs it with a small configuration).
//!
//! Rows: a 4 KiB async H2D copy, a fresh 1-element ReLU, a repeatable ReLU
//! launch, a fresh 3×3 convolution, a 2-rank all-reduce launch, and a whole
//! `train_mlp` step (25 operators; the raw side is its raw-sys twin,
//! `ascendcl_benches::raw_mlp`, on preallocated buffers; the safe side is the
//! example's `Trainer`, whose temporaries come from the caching allocator).
//!
//! `cargo run --release -p ascendcl-benches --example launch_cost [-- --rounds 31 --chunk 256]`
//! Runs unchanged on a card (no call counts there).
//!
//! `-- --count ROW raw|safe N` only launches one side of one row N times
//! (untimed): `scripts/launch-instructions.sh` runs it under callgrind for
//! the instructions per launch of each side, which noise does not move.

use std::hint::black_box;
use std::sync::Barrier;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::hccl::{Communicator, ReduceOp};
use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use ascendcl_benches::calls::CallCounter;
use ascendcl_benches::example_args::{exit_code, flag};
use ascendcl_benches::raw_ops::RawOps;
use ascendcl_benches::rows::{CountRun, Row, Side, hold, interleave, set_count_run};

/// Counts heap allocations per launch (printed beside the times).
#[global_allocator]
static COUNTING: ascendcl_benches::allocs::CountingAllocator =
    ascendcl_benches::allocs::CountingAllocator;

fn main() -> std::process::ExitCode {
    exit_code(run())
}

fn run() -> ascendcl::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (rounds, chunk) = (flag(&args, "--rounds", 31), flag(&args, "--chunk", 256));
    // `--count ROW raw|safe N`: only launch, for an instruction counter.
    if let Some(i) = args.iter().position(|a| a == "--count") {
        let (row, side, launches) = (args.get(i + 1), args.get(i + 2), args.get(i + 3));
        let side = match side.map(String::as_str) {
            Some("raw") => Side::Raw,
            Some("safe") => Side::Safe,
            _ => {
                return Err(ascendcl::Error::InvalidState(
                    "usage: --count ROW raw|safe LAUNCHES".into(),
                ));
            }
        };
        set_count_run(CountRun {
            row: row.cloned().unwrap_or_default(),
            side,
            launches: launches.and_then(|n| n.parse().ok()).unwrap_or(1000),
        });
    }
    let (rt, backend) = ascendcl_examples::runtime()?;
    eprintln!("backend: {backend}");
    let counter = CallCounter::for_backend(&backend);
    let device = Device::open(&rt, 0)?;
    let ctx = device.default_context();
    let stream = Stream::new(&ctx)?;
    let aclnn = ascendcl::sys::aclnn::aclnn_for(Some(rt.library()))?;
    let lib = rt.library();
    let _current = ctx.make_current()?;
    let drain = || stream.synchronize().expect("drain");
    let mut rows = Vec::new();

    // A 4 KiB async H2D copy.
    let host = HostBuffer::from_slice(&ctx, &[7u8; 4096])?;
    let mut device_bytes = DeviceBuffer::<u8>::zeroed(&ctx, 4096)?;
    let (raw_dst, raw_src) = (
        device_bytes.as_device_ptr().cast_mut(),
        host.as_ptr().cast::<std::ffi::c_void>(),
    );
    let mut raw_copy = || {
        // SAFETY: a live 4 KiB device buffer and a live 4 KiB pinned buffer
        // of this context; the queue is drained before either is freed.
        let r = unsafe {
            lib.aclrtMemcpyAsync(
                raw_dst,
                4096,
                raw_src,
                4096,
                ascendcl::sys::aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
                stream.as_raw(),
            )
        };
        assert_eq!(r, Ok(0));
    };
    let mut safe_copy = || {
        black_box(
            stream
                .copy_host_to_device(&host, &mut device_bytes)
                .expect("copy"),
        )
        .detach();
    };
    rows.push(interleave(
        "h2d_copy_4k",
        &mut raw_copy,
        &mut safe_copy,
        (rounds, chunk),
        &drain,
        &|| hold(&stream),
        &counter,
    ));

    // A fresh 1-element ReLU.
    let x = DeviceBuffer::from_host(&ctx, &[-1.0f32])?;
    let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
    let raw = RawOps {
        aclnn,
        stream: stream.as_raw(),
        workspace: std::ptr::null_mut(),
        workspace_len: 0,
    };
    let (rx, ry) = (x.as_device_ptr().cast_mut(), y.as_device_ptr().cast_mut());
    // SAFETY: live 1-element buffers; drained before they are freed.
    let mut raw_relu = || unsafe { raw.relu(rx, ry, 1) };
    let mut safe_relu = || {
        let p = ops::relu(
            &Tensor::new(&x, &[1]).unwrap(),
            TensorMut::new(&mut y, &[1]).unwrap(),
        )
        .and_then(|p| p.launch(&stream, Workspace::none()))
        .expect("relu");
        black_box(p).detach();
    };
    rows.push(interleave(
        "relu_fresh",
        &mut raw_relu,
        &mut safe_relu,
        (rounds, chunk),
        &drain,
        &|| hold(&stream),
        &counter,
    ));

    // A repeatable ReLU launch.
    rows.push(ascendcl_benches::repeatable::measure(
        &raw,
        &x,
        &mut y,
        &stream,
        (rounds, chunk),
        &counter,
    )?);

    // A fresh 3×3 convolution.
    let cx = DeviceBuffer::from_host(&ctx, &[0.5f32; 16])?;
    let cw = DeviceBuffer::from_host(&ctx, &[0.25f32; 9])?;
    let mut cy = DeviceBuffer::<f32>::zeroed(&ctx, 16)?;
    let (rcx, rcw, rcy) = (
        cx.as_device_ptr().cast_mut(),
        cw.as_device_ptr().cast_mut(),
        cy.as_device_ptr().cast_mut(),
    );
    // SAFETY: live buffers of 16, 9 and 16 f32; drained before they are freed.
    let mut raw_conv = || unsafe { raw.conv3x3(rcx, rcw, rcy) };
    let window = ops::Window::square(1, 1);
    let mut safe_conv = || {
        let p = ops::convolution(
            &Tensor::new(&cx, &[1, 1, 4, 4]).unwrap(),
            &Tensor::new(&cw, &[1, 1, 3, 3]).unwrap(),
            None,
            &window,
            1,
            TensorMut::new(&mut cy, &[1, 1, 4, 4]).unwrap(),
            ops::CubeMath::KeepDtype,
        )
        .and_then(|p| p.launch(&stream, Workspace::none()))
        .expect("conv");
        black_box(p).detach();
    };
    rows.push(interleave(
        "conv3x3_fresh",
        &mut raw_conv,
        &mut safe_conv,
        (rounds, chunk),
        &drain,
        &|| hold(&stream),
        &counter,
    ));

    // A whole train_mlp step.
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
    rows.push(ascendcl_benches::mlp_step::measure(
        &raw,
        &stream,
        &alloc,
        (rounds, chunk.div_ceil(16)),
        &counter,
    )?);
    drop(alloc);
    drain();

    // A 2-rank all-reduce launch.
    if rt.device_count()? >= 2 {
        let devices = [Device::open(&rt, 0)?, Device::open(&rt, 1)?];
        let comms = Communicator::init_all(&devices)?;
        rows.push(all_reduce(&comms, (rounds, chunk), &counter)?);
    }

    if let Some(run) = ascendcl_benches::rows::count_run() {
        eprintln!("launched {} {:?} {} times", run.row, run.side, run.launches);
        return Ok(());
    }
    for row in &rows {
        println!("{}", row.json());
    }
    eprintln!("{}", ascendcl_benches::rows::table(&rows));
    // The claim this bench exists for: no runtime call more per launch.
    let unequal: Vec<&str> = rows
        .iter()
        .filter(|r| r.raw_calls.is_some() && r.raw_calls != r.safe_calls)
        .map(|r| r.name)
        .collect();
    if !unequal.is_empty() {
        return Err(ascendcl::Error::InvalidState(format!(
            "the safe side makes other runtime calls than the raw side on: {}",
            unequal.join(", ")
        )));
    }
    Ok(())
}

/// Both ranks launch in lockstep; rank 0's times and both ranks' calls.
fn all_reduce(
    comms: &[Communicator],
    (rounds, chunk): (usize, usize),
    counter: &CallCounter,
) -> ascendcl::Result<Row> {
    let barrier = Barrier::new(comms.len());
    let rows: Vec<ascendcl::Result<Row>> = std::thread::scope(|s| {
        let joins: Vec<_> = comms
            .iter()
            .enumerate()
            .map(|(rank, comm)| {
                let barrier = &barrier;
                s.spawn(move || rank_all_reduce(comm, rank, barrier, (rounds, chunk), counter))
            })
            .collect();
        joins
            .into_iter()
            .map(|j| {
                j.join().unwrap_or_else(|_| {
                    Err(ascendcl::Error::InvalidState("a rank panicked".into()))
                })
            })
            .collect()
    });
    let mut rank0 = None;
    for row in rows {
        rank0.get_or_insert(row?);
    }
    rank0.ok_or_else(|| ascendcl::Error::InvalidState("no ranks".into()))
}

fn rank_all_reduce(
    comm: &Communicator,
    rank: usize,
    barrier: &Barrier,
    (rounds, chunk): (usize, usize),
    counter: &CallCounter,
) -> ascendcl::Result<Row> {
    let ctx = comm.device().default_context();
    let _current = ctx.make_current()?;
    let stream = Stream::new(&ctx)?;
    let x = DeviceBuffer::from_host(&ctx, &[1.0f32])?;
    let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
    let hccl = ascendcl::sys::hccl_for(Some(comm.device().runtime().library()))?;
    let (rx, ry) = (x.as_device_ptr().cast_mut(), y.as_device_ptr().cast_mut());
    let mut raw = || {
        // SAFETY: two live 1-element f32 buffers of this rank's device,
        // drained before they are freed; a live communicator and stream.
        let status = unsafe {
            hccl.HcclAllReduce(
                rx,
                ry,
                1,
                ascendcl::sys::HcclDataType::HCCL_DATA_TYPE_FP32,
                ascendcl::sys::HcclReduceOp::HCCL_REDUCE_SUM,
                comm.as_raw(),
                stream.as_raw(),
            )
        };
        assert_eq!(status, Ok(ascendcl::sys::HcclResult::HCCL_SUCCESS));
    };
    let mut safe = || {
        let p = comm
            .all_reduce(&x, &mut y, ReduceOp::Sum, &stream)
            .expect("all-reduce");
        black_box(p).detach();
    };
    let drain = || {
        stream.synchronize().expect("drain");
        barrier.wait();
    };
    // Both ranks make the counted calls alike; rank 0 counts them.
    let counter = if rank == 0 {
        counter.shared_by(2)
    } else {
        CallCounter::none()
    };
    let row = interleave(
        "all_reduce_2_ranks",
        &mut raw,
        &mut safe,
        (rounds, chunk),
        &drain,
        &|| hold(&stream),
        &counter,
    );
    Ok(row)
}
