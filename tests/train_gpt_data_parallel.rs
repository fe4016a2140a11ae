//! `train_data_parallel --model gpt`: the GPT on 2 ranks with bucketed
//! all-reduces overlapping the backward ends with weights bit-identical
//! across ranks, within 1e-5 (absolute) of one device, and losses whose
//! mean is PyTorch's full-batch loss.

use ascendcl::prelude::*;
use ascendcl_examples::gpt::data_parallel::train_threads;
use ascendcl_examples::gpt::reference::Reference;
use ascendcl_examples::gpt::{L, STEPS};

#[test]
fn two_ranks_with_bucketed_all_reduces_match_one_device_and_pytorch() {
    let session = ascendcl_mock::session();
    let rt = Runtime::with_library(session.library()).expect("runtime on the mock");
    let reference = Reference::read().expect("the committed reference");
    let single = train_threads(&[Device::open(&rt, 0).expect("device 0")], &reference)
        .expect("one device")
        .remove(0);
    let devices = [
        Device::open(&rt, 0).expect("device 0"),
        Device::open(&rt, 1).expect("device 1"),
    ];
    let runs = train_threads(&devices, &reference).expect("two ranks");
    assert_eq!(runs[0].weights, runs[1].weights, "ranks diverged");
    assert_eq!(
        runs[0].collectives_per_step,
        L + 1,
        "one bucket per block, one for the rest"
    );
    let worst = runs[0]
        .weights
        .iter()
        .zip(&single.weights)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(worst <= 1e-5, "{worst} from one device");
    for k in 0..STEPS {
        let mean = (runs[0].losses[k] + runs[1].losses[k]) / 2.0;
        let expected = reference.losses[k];
        assert!(
            (mean - expected).abs() <= 1e-5 * expected,
            "step {}: {mean} vs {expected}",
            k + 1
        );
    }
    // The first bucket's all-reduce is queued (on its own stream) before
    // the backward of the earlier block is: they can overlap.
    let calls: Vec<String> = session
        .journal()
        .iter()
        .map(|e| e.function().to_string())
        .collect();
    let first_reduce = calls.iter().position(|c| c == "HcclAllReduce");
    let later_backward = first_reduce.is_some_and(|i| {
        calls[i..]
            .iter()
            .any(|c| c == "aclnnFlashAttentionScoreGrad")
    });
    assert!(
        later_backward,
        "no all-reduce was queued before the backward ended"
    );
    assert_eq!(session.misuse_total(), 0, "{}", session.misuse_log());
}

#[test]
fn eight_ranks_on_the_reference_batch_repeated_match_one_device_and_pytorch() {
    let session = ascendcl_mock::session();
    let rt = Runtime::with_library(session.library()).expect("runtime on the mock");
    let reference = Reference::read().expect("the committed reference");
    let single = train_threads(&[Device::open(&rt, 0).expect("device 0")], &reference)
        .expect("one device")
        .remove(0);
    let devices: Vec<Device> = (0..8)
        .map(|i| Device::open(&rt, i).expect("a device"))
        .collect();
    let runs = train_threads(&devices, &reference).expect("eight ranks");
    assert!(
        runs.iter().all(|r| r.weights == runs[0].weights),
        "ranks diverged"
    );
    let worst = runs[0]
        .weights
        .iter()
        .zip(&single.weights)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(worst <= 1e-5, "{worst} from one device");
    for k in 0..STEPS {
        let mean = runs.iter().map(|r| r.losses[k]).sum::<f64>() / 8.0;
        let expected = reference.losses[k];
        assert!(
            (mean - expected).abs() <= 1e-5 * expected,
            "step {}: {mean} vs {expected}",
            k + 1
        );
    }
    assert!(session.misuse_log().is_empty(), "{}", session.misuse_log());
}
