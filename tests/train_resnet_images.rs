//! `train_resnet --images DIR`: the ResNet fed from JPEG files through the
//! DVPP pipeline learns the committed labelled set
//! (`scripts/goldens/make_resnet_images.py`), with the next batch decoding
//! while a step trains and no unordered access in the mock's log; the same
//! seed gives the same run bit for bit.

use ascendcl::prelude::*;
use ascendcl_examples::resnet::images::{self, ImageSet};

const EPOCHS: usize = 20;

/// Trains on the committed set; returns the epochs' mean losses and the
/// accuracy on the un-augmented images.
fn train(rt: &Runtime, set: &ImageSet) -> ascendcl::Result<(Vec<f64>, f64)> {
    let job = images::run(rt, set, EPOCHS, 5, |_| {})?;
    Ok((
        job.epochs.iter().map(|r| r.mean_loss).collect(),
        job.correct as f64 / job.evaluated as f64,
    ))
}

#[test]
fn the_resnet_learns_the_jpeg_set_through_the_dvpp_pipeline_with_no_unordered_access() {
    let session = ascendcl_mock::session();
    let rt = Runtime::with_library(session.library()).expect("runtime on the mock");
    let set = ImageSet::read(&ImageSet::reference_dir()).expect("the committed set");
    assert_eq!(set.classes, ["checks", "gradient", "hstripes", "vstripes"]);
    assert_eq!(set.jpegs.len(), 64);
    let (losses, accuracy) = train(&rt, &set).expect("training");
    assert_eq!(losses.len(), EPOCHS);
    assert!(
        losses[EPOCHS - 1] < 0.5 * losses[0],
        "the loss did not fall by half: {losses:?}"
    );
    // Chance is 1/4; the run on the mock classifies 56 of the 64.
    assert!(accuracy >= 0.75, "accuracy {accuracy} after {losses:?}");
    assert!(session.misuse_log().is_empty(), "{}", session.misuse_log());
    let (again, _) = train(&rt, &set).expect("second run");
    assert!(
        again
            .iter()
            .zip(&losses)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "the same seed gave other losses: {again:?} vs {losses:?}"
    );
}

#[test]
fn a_directory_that_is_not_a_labelled_set_is_refused_saying_what_it_needs() {
    let dir = std::env::temp_dir().join(format!("resnet-images-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("only")).unwrap();
    let e = ImageSet::read(&dir).unwrap_err();
    assert!(
        e.contains("1 class directories") && e.contains("2 to 4"),
        "{e}"
    );
    std::fs::create_dir_all(dir.join("other")).unwrap();
    std::fs::write(dir.join("other/a.jpg"), b"\xff\xd8").unwrap();
    let e = ImageSet::read(&dir).unwrap_err();
    assert!(e.contains("1 JPEG files") && e.contains("takes 16"), "{e}");
    let e = ImageSet::read(&dir.join("missing")).unwrap_err();
    assert!(e.contains("missing"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
