//! The trace replay behind `alloc_replay`: every strategy replays a trace to
//! the end, reserves at least what is live, and expandable segments reserve
//! the least and reach the batch size the live bytes allow.

use ascendcl::{Device, Runtime};
use ascendcl_examples::replay::{Strategy, max_batch_before_oom, replay};
use ascendcl_examples::trace::{Schedule, TrainConfig, max_batch_by_live_bytes, resnet50_trace};

#[test]
fn every_strategy_replays_a_varying_batch_trace_and_reserves_at_least_the_live_bytes() {
    let session = ascendcl_mock::session();
    let rt = Runtime::with_library(session.library()).unwrap();
    let device = Device::open(&rt, 0).unwrap();
    let trace = resnet50_trace(&Schedule::varying(3, 4, 4, 12), &TrainConfig::default());
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
    let [raw, segments, expandable] = ratios[..] else {
        unreachable!()
    };
    assert!(
        expandable < segments,
        "expandable {expandable} vs segments {segments}"
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
            .batches()
            .to_vec();
        batches.push(batch);
        resnet50_trace(&Schedule::from_batches(batches), &config)
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
