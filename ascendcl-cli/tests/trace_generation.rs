//! The ResNet-50 training allocation trace: architecture, lifetime rules,
//! batch schedules (and their typed errors), persistent tensors and the
//! live-bytes batch limit. The JSON lines format is in `trace_json.rs`.

mod trace_common;

use std::time::{Duration, Instant};

use ascendcl_cli::alloc_trace::resnet50::{LayerOp, Shape, StateKind};
use ascendcl_cli::alloc_trace::schedule::SplitMix64;
use ascendcl_cli::alloc_trace::{
    CheckError, Dtype, GradMode, OpKind, Optimizer, Schedule, ScheduleError, Trace, TraceOp,
    TrainConfig, generate, max_batch_by_live_bytes, resnet50, resnet50_trace,
};
use trace_common::{config, every_config};

/// Usable HBM of a 64 GB Ascend card (62423 MiB ≈ 60.96 GiB).
const HBM_64G_USABLE: u64 = 62_423 << 20;

fn peak(batch: u32, config: &TrainConfig) -> u64 {
    resnet50_trace(&Schedule::fixed(batch, 2).unwrap(), config).peak_live_bytes()
}

#[test]
fn resnet50_has_25_557_032_parameters() {
    let model = resnet50();
    assert_eq!(model.parameter_count(), 25_557_032);
    let count = |f: fn(&LayerOp) -> bool| model.layers.iter().filter(|l| f(&l.op)).count();
    assert_eq!(count(|op| matches!(op, LayerOp::Conv2d { .. })), 53);
    assert_eq!(count(|op| matches!(op, LayerOp::BatchNorm2d { .. })), 53);
    assert_eq!(count(|op| matches!(op, LayerOp::AddInplace)), 16);
    assert_eq!(count(|op| matches!(op, LayerOp::ReluInplace)), 49);
    let params = model
        .state
        .iter()
        .filter(|t| t.kind == StateKind::Parameter)
        .count();
    assert_eq!(params, 161);
    // running_mean, running_var, num_batches_tracked of each BatchNorm.
    assert_eq!(model.state.len() - params, 3 * 53);
    // fp32 parameters plus 2×channels fp32 and one int64 per BatchNorm.
    assert_eq!(model.state_bytes(), 102_441_032);

    let out = |name: &str| model.layers.iter().find(|l| l.name == name).map(|l| l.out);
    assert_eq!(out("conv1"), Some(Shape::new(64, 112, 112)));
    assert_eq!(out("maxpool"), Some(Shape::new(64, 56, 56)));
    assert_eq!(out("layer1.2.relu3"), Some(Shape::new(256, 56, 56)));
    assert_eq!(
        out("layer2.0.conv1"),
        Some(Shape::new(128, 56, 56)),
        "v1.5: 1×1 keeps the size"
    );
    assert_eq!(
        out("layer2.0.conv2"),
        Some(Shape::new(128, 28, 28)),
        "v1.5: 3×3 strides"
    );
    assert_eq!(out("layer3.5.relu3"), Some(Shape::new(1024, 14, 14)));
    assert_eq!(out("layer4.2.relu3"), Some(Shape::new(2048, 7, 7)));
    assert_eq!(out("fc"), Some(Shape::new(1000, 1, 1)));
    let downsamples = model
        .layers
        .iter()
        .filter(|l| l.name.ends_with("downsample.0"))
        .count();
    assert_eq!(downsamples, 4);
    let fc = model
        .state
        .iter()
        .find(|t| t.name == "fc.weight")
        .map(|t| t.numel);
    assert_eq!(fc, Some(2_048_000));
}

#[test]
fn every_allocation_is_freed_exactly_once_after_it_is_allocated() {
    let schedule = Schedule::varying_default(42, 4);
    for config in every_config() {
        let trace = resnet50_trace(&schedule, &config);
        assert_eq!(trace.check(), Ok(()), "{config:?}");
        let allocs = trace
            .ops
            .iter()
            .filter(|op| op.kind == OpKind::Alloc)
            .count();
        assert_eq!(allocs * 2, trace.ops.len(), "{config:?}");
        assert_eq!(trace.live_bytes_over_time().last(), Some(&0));
        let input_stream_ops = trace.ops.iter().filter(|op| op.stream == 1).count();
        assert_eq!(
            input_stream_ops,
            if config.input_stream == 1 { 4 * 4 } else { 0 }
        );
    }
}

#[test]
fn check_reports_each_broken_lifetime_rule() {
    let trace = resnet50_trace(&Schedule::fixed(2, 2).unwrap(), &TrainConfig::default());
    let position = |f: &dyn Fn(&TraceOp) -> bool| trace.ops.iter().position(f).unwrap();
    let broken = |edit: &dyn Fn(&mut Trace)| {
        let mut t = trace.clone();
        edit(&mut t);
        t.check()
    };
    // The first free of the trace: a workspace of conv1, step 0.
    let first_free = position(&|op| op.kind == OpKind::Free);
    let freed = trace.ops[first_free];
    let id = freed.id;
    let alloc = position(&|op| op.id == id);
    let index = first_free + 1;
    let dup_free = broken(&|t| t.ops.insert(index, freed));
    assert_eq!(dup_free, Err(CheckError::DoubleFree { index, id }));
    let dup_alloc = broken(&|t| t.ops.insert(index, trace.ops[alloc]));
    assert_eq!(dup_alloc, Err(CheckError::DoubleAlloc { index, id }));
    let leak = broken(&|t| {
        t.ops.remove(first_free);
    });
    assert_eq!(leak, Err(CheckError::Leaked { id }));
    let stray = TraceOp {
        id: u64::MAX,
        ..freed
    };
    let unknown = broken(&|t| t.ops.insert(1, stray));
    assert_eq!(
        unknown,
        Err(CheckError::FreeOfUnknownId {
            index: 1,
            id: u64::MAX
        })
    );
    let early = broken(&|t| {
        let op = t.ops.remove(first_free);
        t.ops.insert(alloc, op);
    });
    assert_eq!(early, Err(CheckError::FreeBeforeAlloc { index: alloc, id }));
    let resized = broken(&|t| t.ops[first_free].bytes += 1);
    let (allocated, freed_bytes) = (freed.bytes, freed.bytes + 1);
    let expected = CheckError::FreeSizeMismatch {
        index: first_free,
        id,
        allocated,
        freed: freed_bytes,
    };
    assert_eq!(resized, Err(expected));
    let moved = broken(&|t| t.ops[first_free].stream = 1);
    let expected = CheckError::FreeStreamMismatch {
        index: first_free,
        id,
        allocated: 0,
        freed: 1,
    };
    assert_eq!(moved, Err(expected));
    let empty = broken(&|t| t.ops[0].bytes = 0);
    assert_eq!(empty, Err(CheckError::ZeroSizeAlloc { index: 0, id: 0 }));

    // Steps.
    let step1 = position(&|op| op.step == 1);
    let back = broken(&|t| t.ops[step1 + 1].step = 0);
    let expected = CheckError::StepWentBackwards {
        index: step1 + 1,
        step: 0,
        previous: 1,
    };
    assert_eq!(back, Err(expected));
    let beyond = broken(&|t| t.ops.iter_mut().skip(step1).for_each(|op| op.step = 2));
    assert_eq!(
        beyond,
        Err(CheckError::StepOutOfSchedule {
            index: step1,
            step: 2
        })
    );
    // A step-0 transient freed in step 1.
    let late = broken(&|t| {
        let mut op = t.ops.remove(first_free);
        op.step = 1;
        t.ops.insert(step1 - 1, op);
    });
    let expected = CheckError::TransientCrossesStep {
        index: step1 - 1,
        id,
        allocated: 0,
        freed: 1,
    };
    assert_eq!(late, Err(expected));

    // Persistent tensors.
    let weight = trace.meta.persistent[0];
    let early = broken(&|t| {
        let op = t.ops.iter().rposition(|op| op.id == weight).unwrap();
        let op = t.ops.remove(op);
        t.ops.insert(first_free, op);
    });
    assert_eq!(
        early,
        Err(CheckError::PersistentFreedEarly {
            index: first_free,
            id: weight
        })
    );
    let twice = broken(&|t| t.meta.persistent.push(weight));
    assert_eq!(twice, Err(CheckError::DuplicatePersistentId { id: weight }));
    let ghost = broken(&|t| t.meta.persistent.push(u64::MAX));
    assert_eq!(
        ghost,
        Err(CheckError::PersistentNeverAllocated { id: u64::MAX })
    );
    // An empty trace is fine.
    let nothing = resnet50_trace(&Schedule::fixed(1, 0).unwrap(), &TrainConfig::default());
    assert!(nothing.ops.is_empty() && nothing.meta.persistent.is_empty());
    assert_eq!((nothing.check(), nothing.peak_live_bytes()), (Ok(()), 0));
}

#[test]
fn peak_live_bytes_grows_linearly_with_batch_size() {
    let fp32 = TrainConfig::default();
    let peaks: Vec<u64> = [32, 64, 128, 256].iter().map(|&n| peak(n, &fp32)).collect();
    let slopes: Vec<u64> = peaks
        .windows(2)
        .zip([32, 64, 128])
        .map(|(p, n)| (p[1] - p[0]) / n)
        .collect();
    // Per sample: the saved activations (85,901,320 B: every conv and BN
    // output, max-pool output and int64 indices, the fp32 batch and its
    // labels), the logits, and two 2048×7×7 gradients live at the peak in
    // the first bottleneck's backward.
    let per_sample = 85_901_320 + 1000 * 4 + 2 * 2048 * 7 * 7 * 4;
    assert_eq!(per_sample, 86_708_136);
    assert_eq!(slopes, vec![per_sample; 3]);
    // What is left at batch 0: the persistent state (weights and buffers,
    // gradients, momentum) plus the saved BatchNorm statistics of all 53
    // BatchNorms (26,560 channels × 2 × fp32) and the loss scalar.
    let intercept = peaks[1] - 64 * per_sample;
    assert_eq!(intercept, 102_441_032 + 2 * 4 * 25_557_032 + 26_560 * 8 + 4);
    assert_eq!(peaks[1], 5_856_430_476, "batch 64 fp32 ≈ 5.45 GiB");

    // Mixed precision halves the activations but not the max-pool indices
    // or the fp32 batch.
    let fp16 = config(Dtype::Fp16);
    let half: Vec<u64> = [64, 128, 256].iter().map(|&n| peak(n, &fp16)).collect();
    assert_eq!((half[1] - half[0]) / 64, 44_759_000);
    assert_eq!((half[2] - half[1]) / 128, 44_759_000);
}

#[test]
fn varying_schedule_is_deterministic_for_a_seed_and_stays_in_range() {
    let a = Schedule::varying_default(0, 1000);
    assert_eq!(a, Schedule::varying_default(0, 1000));
    assert_eq!(a, Schedule::varying(0, 1000, 48, 96).unwrap());
    assert_eq!(&a.batches()[..8], &[91, 69, 49, 95, 53, 64, 56, 85]);
    assert_ne!(a, Schedule::varying_default(1, 1000));
    assert!(a.batches().iter().all(|&n| (48..=96).contains(&n)));
    // Both ends are reached and the mean is near the middle.
    assert_eq!(a.batches().iter().min(), Some(&48));
    assert_eq!(a.batches().iter().max(), Some(&96));
    let mean = a.batches().iter().map(|&n| f64::from(n)).sum::<f64>() / 1000.0;
    assert!((70.0..74.0).contains(&mean), "mean {mean}");

    let narrow = Schedule::varying(9, 300, 63, 65).unwrap();
    for n in 63..=65 {
        assert!(narrow.batches().contains(&n));
    }
    assert_eq!(Schedule::varying(5, 4, 80, 80).unwrap().batches(), &[80; 4]);
    assert_eq!(Schedule::fixed(64, 3).unwrap().batches(), &[64, 64, 64]);
    assert_eq!(Schedule::varying_default(7, 0).steps(), 0);

    // The generator is SplitMix64: first output for seed 0.
    assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    // The trace follows the schedule.
    let trace = resnet50_trace(&Schedule::varying_default(11, 5), &TrainConfig::default());
    assert_eq!(
        trace.meta.batches,
        Schedule::varying_default(11, 5).batches()
    );
    for (step, &n) in trace.meta.batches.iter().enumerate() {
        let first = trace
            .ops_in_step(step as u32)
            .find(|op| op.bytes == u64::from(n) * 3 * 224 * 224 * 4);
        assert!(first.is_some(), "step {step} loads a batch of {n}");
    }
}

#[test]
fn a_zero_batch_is_a_typed_error_not_a_panic() {
    let zero = ScheduleError::ZeroBatch { step: None };
    assert_eq!(Schedule::fixed(0, 3), Err(zero.clone()));
    assert_eq!(Schedule::fixed(0, 0), Err(zero.clone()));
    assert_eq!(Schedule::varying(1, 3, 0, 8), Err(zero.clone()));
    assert_eq!(
        Schedule::varying(1, 3, 9, 8),
        Err(ScheduleError::EmptyRange { min: 9, max: 8 })
    );
    assert_eq!(
        Schedule::from_batches(vec![64, 0, 65]),
        Err(ScheduleError::ZeroBatch { step: Some(1) })
    );
    // No step at all is fine: the empty schedule, which gives an empty trace.
    assert_eq!(Schedule::from_batches(Vec::new()), Ok(Schedule::default()));
    assert_eq!(Schedule::default().steps(), 0);

    // The errors say what is wrong, and convert into `Box<dyn Error>` for `?`.
    assert_eq!(zero.to_string(), "batch size must be at least 1");
    let step = Schedule::from_batches(vec![0]).unwrap_err();
    assert_eq!(
        step.to_string(),
        "batch size must be at least 1, but step 0 has 0"
    );
    let boxed: Box<dyn std::error::Error> = Schedule::varying(1, 1, 9, 8).unwrap_err().into();
    assert_eq!(boxed.to_string(), "empty batch range 9..=8");

    // The generator takes its bounds in either order instead of panicking.
    let (mut a, mut b) = (SplitMix64::new(3), SplitMix64::new(3));
    for _ in 0..100 {
        let n = a.in_range(9, 5);
        assert!((5..=9).contains(&n));
        assert_eq!(n, b.in_range(5, 9));
    }
}

#[test]
fn persistent_tensors_survive_steps_and_are_freed_at_the_end() {
    let trace = resnet50_trace(&Schedule::fixed(16, 3).unwrap(), &TrainConfig::default());
    let meta = &trace.meta;
    // 320 weights and buffers, 161 gradients, 161 momentum buffers.
    assert_eq!(meta.persistent.len(), 320 + 161 + 161);
    let bytes_of = |id: u64| {
        trace
            .ops
            .iter()
            .find(|op| op.id == id)
            .map(|op| op.bytes)
            .unwrap()
    };
    let persistent_bytes: u64 = meta.persistent.iter().map(|&id| bytes_of(id)).sum();
    assert_eq!(persistent_bytes, 102_441_032 + 2 * 4 * 25_557_032);

    // The trace ends with exactly the persistent frees, in allocation order.
    let tail = &trace.ops[trace.ops.len() - meta.persistent.len()..];
    assert!(
        tail.iter()
            .all(|op| op.kind == OpKind::Free && op.step == 2)
    );
    assert_eq!(
        tail.iter().map(|op| op.id).collect::<Vec<_>>(),
        meta.persistent
    );

    // Weights come first; after step 0 only persistent bytes are live at
    // each step boundary.
    assert!(
        trace.ops[..320]
            .iter()
            .all(|op| op.kind == OpKind::Alloc && op.step == 0)
    );
    let live = trace.live_bytes_over_time();
    for step in 1..3 {
        let first = trace.ops.iter().position(|op| op.step == step).unwrap();
        assert_eq!(live[first - 1], persistent_bytes, "before step {step}");
    }
    // Gradients are allocated in step 0's backward and never again.
    let grads = &meta.persistent[320..481];
    assert!(
        grads
            .iter()
            .all(|&id| trace.ops.iter().any(|op| op.id == id && op.step == 0))
    );
    assert_eq!(trace.check(), Ok(()));

    let count = |config: TrainConfig| {
        resnet50_trace(&Schedule::fixed(8, 2).unwrap(), &config)
            .meta
            .persistent
            .len()
    };
    let adam = TrainConfig {
        optimizer: Optimizer::Adam,
        ..TrainConfig::default()
    };
    assert_eq!(count(adam), 320 + 161 + 2 * 161);
    let set_to_none = TrainConfig {
        grads: GradMode::SetToNone,
        ..TrainConfig::default()
    };
    assert_eq!(count(set_to_none), 320 + 161);
    assert_eq!(
        count(config(Dtype::Fp16)),
        320 + 161 + 161 + 2,
        "GradScaler scale and growth tracker"
    );
}

#[test]
fn max_batch_by_live_bytes_is_the_largest_batch_that_fits() {
    let fp32 = TrainConfig::default();
    let at_64 = peak(64, &fp32);
    assert_eq!(max_batch_by_live_bytes(at_64, &fp32), 64);
    assert_eq!(max_batch_by_live_bytes(at_64 - 1, &fp32), 63);
    assert_eq!(max_batch_by_live_bytes(peak(1, &fp32) - 1, &fp32), 0);

    // A 64 GB card: 62423 MiB usable.
    let max = max_batch_by_live_bytes(HBM_64G_USABLE, &fp32);
    assert_eq!(max, 751);
    assert!(peak(max, &fp32) <= HBM_64G_USABLE);
    assert!(peak(max + 1, &fp32) > HBM_64G_USABLE);
    let fp16 = config(Dtype::Fp16);
    let max_fp16 = max_batch_by_live_bytes(HBM_64G_USABLE, &fp16);
    assert_eq!(max_fp16, 1454);
    assert!(peak(max_fp16, &fp16) <= HBM_64G_USABLE && peak(max_fp16 + 1, &fp16) > HBM_64G_USABLE);
}

#[test]
fn generating_20_steps_at_batch_96_takes_well_under_a_second() {
    let model = resnet50();
    let start = Instant::now();
    let trace = generate(
        &model,
        &Schedule::fixed(96, 20).unwrap(),
        &TrainConfig::default(),
    );
    let elapsed = start.elapsed();
    assert!(elapsed < Duration::from_millis(250), "{elapsed:?}");
    // 1524 ops a step: in step 0 the 161 kept gradients are not freed but
    // 161 momentum buffers are allocated; step 0 also has the 320 setup
    // allocations and the last step the 642 teardown frees.
    assert_eq!(trace.ops_in_step(0).count(), 320 + 1524);
    assert_eq!(trace.ops_in_step(1).count(), 1524);
    assert_eq!(trace.ops_in_step(19).count(), 1524 + 642);
    assert_eq!(trace.ops.len(), 320 + 20 * 1524 + 642);
}
