//! The trace replay behind `ascendcl alloc-replay`: every strategy replays a trace to
//! the end, reserves at least what is live, and expandable segments reserve
//! the least and reach the batch size the live bytes allow.

use ascendcl::{Device, Error, Runtime};
use ascendcl_cli::alloc_trace::{
    OpKind, Schedule, TrainConfig, max_batch_by_live_bytes, resnet50_trace,
};
use ascendcl_cli::replay::{Strategy, max_batch_before_oom, probe_trace, replay};

#[test]
fn every_strategy_replays_a_varying_batch_trace_and_reserves_at_least_the_live_bytes() {
    let session = ascendcl_mock::session();
    let rt = Runtime::with_library(session.library()).unwrap();
    let device = Device::open(&rt, 0).unwrap();
    let trace = resnet50_trace(
        &Schedule::varying(3, 4, 4, 12).unwrap(),
        &TrainConfig::default(),
    );
    let mut ratios = Vec::new();
    for strategy in Strategy::ALL {
        let outcome = replay(&device, &trace, strategy, 100).unwrap();
        assert!(outcome.completed, "{}", strategy.name());
        assert_eq!(
            outcome.peak_live_bytes,
            trace.peak_live_bytes(),
            "{}",
            strategy.name()
        );
        assert!(
            outcome.peak_reserved_bytes >= outcome.peak_live_bytes,
            "{}",
            strategy.name()
        );
        assert_eq!(
            outcome.pair_ns.len(),
            trace.ops.len() / 2,
            "one alloc+free pair per tensor"
        );
        assert!(!outcome.series.is_empty());
        ratios.push(outcome.reserved_over_live());
    }
    let [raw, segments, segments_exact_cache, expandable] = ratios[..] else {
        unreachable!()
    };
    assert!(
        expandable < segments && expandable < segments_exact_cache,
        "expandable {expandable} vs segments {segments} / {segments_exact_cache}"
    );
    assert!(expandable < raw, "expandable {expandable} vs raw {raw}");
    drop(device);
    assert!(
        session.live_counts().is_empty(),
        "{:?}",
        session.live_counts()
    );
    assert_eq!(session.misuse_total(), 0, "{}", session.misuse_log());
}

#[test]
fn expandable_segments_reach_the_batch_the_live_bytes_allow_on_a_small_card() {
    let session = ascendcl_mock::session();
    session.set_hbm_bytes(3 << 30).unwrap();
    let rt = Runtime::with_library(session.library()).unwrap();
    let device = Device::open(&rt, 0).unwrap();
    let config = TrainConfig::default();
    let limit = max_batch_by_live_bytes(device.memory_info().unwrap().total as u64, &config);
    let probe = |batch: u32| {
        let mut batches = Schedule::varying(11, 2, (batch / 2).max(1), batch)
            .unwrap()
            .batches()
            .to_vec();
        batches.push(batch);
        resnet50_trace(&Schedule::from_batches(batches).unwrap(), &config)
    };
    let expandable =
        max_batch_before_oom(&device, Strategy::Expandable, 1, limit + 4, probe).unwrap();
    assert!(
        expandable + 1 >= limit && expandable <= limit,
        "expandable {expandable}, live-bytes limit {limit}"
    );
    let segments = max_batch_before_oom(&device, Strategy::Segments, 1, limit + 4, probe).unwrap();
    assert!(
        segments <= expandable,
        "segments {segments} vs expandable {expandable}"
    );
    drop(device);
    assert!(
        session.live_counts().is_empty(),
        "{:?}",
        session.live_counts()
    );
}

#[test]
fn degenerate_inputs_are_errors_or_empty_not_panics() {
    // A batch of 0 probes nothing; any other batch ends with a step at it.
    let config = TrainConfig::default();
    assert!(probe_trace(0, 7, &config).ops.is_empty());
    let probe = probe_trace(3, 7, &config);
    assert_eq!(probe.meta.batches.len(), 4);
    assert_eq!(probe.meta.batches[3], 3);
    assert!(
        probe.meta.batches[..3]
            .iter()
            .all(|&n| (1..=3).contains(&n))
    );

    let session = ascendcl_mock::session();
    let rt = Runtime::with_library(session.library()).unwrap();
    let device = Device::open(&rt, 0).unwrap();
    // An empty search range.
    let empty = max_batch_before_oom(&device, Strategy::Raw, 8, 4, |b| probe_trace(b, 7, &config));
    assert!(matches!(empty, Err(Error::InvalidArgument(_))), "{empty:?}");
    // A trace that frees more bytes than it allocated, then frees the same id
    // again: the replay counts what it allocated and skips what is not live.
    let mut trace = probe_trace(1, 7, &config);
    let free = trace
        .ops
        .iter()
        .position(|op| op.kind == OpKind::Free)
        .unwrap();
    trace.ops[free].bytes = u64::MAX;
    let again = trace.ops[free];
    trace.ops.insert(free + 1, again);
    let outcome = replay(&device, &trace, Strategy::Segments, 1).unwrap();
    assert!(outcome.completed);
    assert_eq!(
        outcome.peak_live_bytes,
        probe_trace(1, 7, &config).peak_live_bytes()
    );
    // Percentiles outside 0..=100 are clamped.
    assert_eq!(
        outcome.pair_percentile(250.0),
        outcome.pair_percentile(100.0)
    );
    assert_eq!(outcome.pair_percentile(-5.0), outcome.pair_percentile(0.0));
    drop(device);
    assert!(
        session.live_counts().is_empty(),
        "{:?}",
        session.live_counts()
    );
}
