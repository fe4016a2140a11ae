//! A hostile review of `dvpp::Pipeline`: every FFI call of a load failing in
//! turn, batches read and dropped on other threads and in shuffled order, a
//! JPEG that fails on the device, and the documented refusals. Run also
//! with `ASCENDCL_MOCK_ABORT_ON_MISUSE=1`.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::OnceLock;

use ascendcl::dvpp::{self, Batch, Crop, HostImage, Pipeline};
use ascendcl::prelude::*;
use ascendcl_mock::Fault;
use common::sweep::INJECTED;

const SAMPLES: [&str; 4] = [
    "c420_q75.jpg",
    "c444_q50.jpg",
    "grey_64x48_q75.jpg",
    "c422_q95.jpg",
];

fn read(name: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/reference/dvpp");
    std::fs::read(dir.join(name)).unwrap()
}

/// Four 64x48 JPEGs the decoder takes.
fn jpegs() -> Vec<&'static [u8]> {
    static J: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let j = J.get_or_init(|| SAMPLES.iter().map(|n| read(n)).collect());
    j.iter().map(Vec::as_slice).collect()
}

/// Four synthetic planar RGB 48x64 images.
fn pixels() -> Vec<HostImage<'static>> {
    static P: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let p = P.get_or_init(|| {
        (0..4)
            .map(|i| {
                (0..3 * 48 * 64)
                    .map(|k| ((k * 7 + i * 53) % 251) as u8)
                    .collect()
            })
            .collect()
    });
    p.iter()
        .map(|pixels| HostImage {
            pixels,
            height: 48,
            width: 64,
        })
        .collect()
}

fn config() -> dvpp::PipelineConfig {
    dvpp::PipelineConfig::imagenet(20, 24, 42)
}

#[derive(Clone, Copy, Debug)]
enum Input {
    Jpegs,
    Pixels,
}

fn load(p: &mut Pipeline, input: Input, n: usize) -> ascendcl::Result<Batch> {
    match input {
        Input::Jpegs => p.load(&jpegs()[..n]),
        Input::Pixels => p.load_decoded(&pixels()[..n]),
    }
}

/// A finished batch's pixels (as bits) and draws.
type Snapshot = (Vec<u32>, Vec<(Crop, bool)>);

fn snapshot(b: &mut Batch) -> ascendcl::Result<Snapshot> {
    b.wait()?;
    let px = b.images().to_vec()?;
    let [n, c, h, w] = b.shape();
    let bits = px[..n * c * h * w].iter().map(|v| v.to_bits()).collect();
    Ok((bits, b.augmentations().to_vec()))
}

/// What a fresh pipeline makes: the warm-up batch (if any), then two batches
/// of `n` images.
fn fresh_sequence(input: Input, warm: Option<usize>, n: usize) -> [Snapshot; 2] {
    let env = common::env();
    let pair = {
        let (_device, ctx) = env.device0();
        let mut p = Pipeline::new(&ctx, config()).unwrap();
        if let Some(w) = warm {
            snapshot(&mut load(&mut p, input, w).unwrap()).unwrap();
        }
        let a = snapshot(&mut load(&mut p, input, n).unwrap()).unwrap();
        [a, snapshot(&mut load(&mut p, input, n).unwrap()).unwrap()]
    };
    env.assert_clean();
    pair
}

/// The injected code, a parked destructor error, or (descriptor creation
/// returns null, not a code) an aclnn argument error.
fn acceptable(e: &ascendcl::Error) -> bool {
    e.code() == Some(INJECTED)
        || matches!(e, ascendcl::Error::Deferred { .. })
        || e.code() == Some(ascendcl::sys::ACLNN_ERR_PARAM_INVALID)
}

/// Fails call `function` #`nth` (counted from the swept load's start) of the
/// load of `n` images. Returns whether the fault fired.
fn faulted_load(
    input: Input,
    warm: Option<usize>,
    n: usize,
    [first, second]: &[Snapshot; 2],
    function: &str,
    nth: u64,
) -> bool {
    let env = common::env();
    let (device, ctx) = env.device0();
    let mut p = Pipeline::new(&ctx, config()).unwrap();
    if let Some(w) = warm {
        snapshot(&mut load(&mut p, input, w).unwrap()).unwrap();
    }
    env.session.clear_journal();
    env.inject(Fault::nth(function, nth, INJECTED));
    let what = format!("{input:?} warm {warm:?}: {function} #{nth} failed");
    let outcome = catch_unwind(AssertUnwindSafe(|| load(&mut p, input, n)))
        .unwrap_or_else(|_| panic!("{what}: the load panicked"));
    env.session.clear_faults();
    let fired = env
        .session
        .journal()
        .iter()
        .any(|e| e.function() == function && e.ret() == INJECTED);
    // A load that returned an error consumed no draws: the next load makes
    // the batch the failed one would have. One that returned a batch did.
    let next = match outcome {
        Err(e) => {
            assert!(acceptable(&e), "{what}: unexpected error {e}");
            first
        }
        Ok(mut batch) => {
            match snapshot(&mut batch) {
                Ok(s) => assert!(
                    s == *first,
                    "{what}: the load and its wait succeeded with wrong pixels"
                ),
                Err(e) => assert!(acceptable(&e), "{what}: wait: unexpected error {e}"),
            }
            second
        }
    };
    let _ = ascendcl::take_deferred_errors();
    // The test's own wait: the failed load's queued work has run, so its slot
    // (handed back, not lost) is free for the next load.
    p.stream().synchronize().unwrap();
    let made = p.slots_made();
    let mut again = load(&mut p, input, n).unwrap_or_else(|e| panic!("{what}: next load: {e}"));
    let got = snapshot(&mut again).unwrap_or_else(|e| panic!("{what}: next load: {e}"));
    assert!(
        got == *next,
        "{what}: the next load differs from a fresh pipeline's"
    );
    assert!(
        made <= 1 && p.slots_made() == 1,
        "{what}: {} slots",
        p.slots_made()
    );
    drop((again, p, ctx, device));
    let live = env.session.live_counts();
    assert!(live.is_empty(), "{what}: alive after drop: {live:?}");
    assert_eq!(
        env.session.misuse_total(),
        0,
        "{what}: {}",
        env.session.misuse_log()
    );
    let parked = ascendcl::take_deferred_errors();
    assert!(parked.is_empty(), "{what}: parked later: {parked:?}");
    fired
}

fn sweep_load(input: Input, warm: Option<usize>, n: usize) {
    let baseline = {
        let env = common::env();
        let (_device, ctx) = env.device0();
        let mut p = Pipeline::new(&ctx, config()).unwrap();
        if let Some(w) = warm {
            snapshot(&mut load(&mut p, input, w).unwrap()).unwrap();
        }
        env.session.clear_journal();
        let mut b = load(&mut p, input, n).unwrap();
        let calls = env.calls();
        let flips = b.augmentations().iter().filter(|a| a.1).count();
        assert!(
            flips > 0 && flips < n,
            "the swept batch flips {flips} of {n}"
        );
        snapshot(&mut b).unwrap();
        calls
    };
    let refs = fresh_sequence(input, warm, n);
    let mut fired = 0;
    for (i, function) in baseline.iter().enumerate() {
        if function == "aclGetRecentErrMsg" {
            continue;
        }
        let nth = baseline[..=i].iter().filter(|f| *f == function).count() as u64;
        if (0..4).any(|_| faulted_load(input, warm, n, &refs, function, nth)) {
            fired += 1;
        }
    }
    eprintln!(
        "{input:?} warm {warm:?}: {fired} of {} calls failed in turn",
        baseline.len()
    );
    assert!(
        fired * 10 >= baseline.len() * 9,
        "only {fired} of {baseline:?} fired"
    );
}

#[test]
fn failing_any_call_of_a_first_load_errs_leaks_nothing_and_the_next_load_is_a_fresh_pipelines() {
    sweep_load(Input::Jpegs, None, 3);
}

#[test]
fn failing_any_call_of_a_load_that_regrows_a_reused_slot_errs_leaks_nothing_and_recovers() {
    sweep_load(Input::Jpegs, Some(1), 3);
}

#[test]
fn failing_any_call_of_load_decoded_errs_leaks_nothing_and_the_next_load_is_a_fresh_pipelines() {
    sweep_load(Input::Pixels, None, 3);
}
