//! `ascendcl::validate` comparison: metrics, worst elements with their
//! indices, verdict thresholds, NaN/Inf handling and shape mismatches.

use ascendcl::validate::{
    self, CompareOptions, Metric, Tensor, Thresholds, ValidateError, Verdict,
};

fn f32_tensor(shape: &[usize], values: &[f32]) -> Tensor {
    Tensor::from_f32(shape.to_vec(), values.to_vec()).unwrap()
}

fn compare(expected: &Tensor, actual: &Tensor) -> validate::Report {
    validate::compare(expected, actual, &CompareOptions::default()).unwrap()
}

// --- comparison -----------------------------------------------------------

#[test]
fn identical_tensors_are_clean_with_zero_errors() {
    let values: Vec<f32> = (0..24).map(|i| i as f32 * 0.37 - 4.0).collect();
    let a = f32_tensor(&[2, 3, 4], &values);
    let report = compare(&a, &a.clone());
    assert_eq!(report.verdict, Verdict::Clean);
    assert_eq!(report.elements, 24);
    assert_eq!(report.max_abs_error, 0.0);
    assert_eq!(report.max_rel_error, 0.0);
    assert_eq!(report.mean_abs_error, 0.0);
    assert_eq!(report.rmse, 0.0);
    assert!((report.cosine_similarity - 1.0).abs() < 1e-12);
    assert_eq!(report.nonfinite_mismatches, 0);
    assert_eq!(report.over_threshold, Default::default());
    assert!(report.worst.is_empty());
    assert_eq!(report.max_abs_error_index, None);

    // Same values stored as different dtypes still compare equal.
    let as_f64 = Tensor::from_f64(
        vec![2, 3, 4],
        values.iter().map(|&v| f64::from(v)).collect(),
    )
    .unwrap();
    assert_eq!(compare(&a, &as_f64).verdict, Verdict::Clean);

    // Empty tensors and all-zero tensors are clean too.
    let empty = f32_tensor(&[0, 3], &[]);
    assert_eq!(compare(&empty, &empty).verdict, Verdict::Clean);
    let zeros = f32_tensor(&[3], &[0.0; 3]);
    assert_eq!(compare(&zeros, &zeros).cosine_similarity, 1.0);
}

#[test]
fn metrics_match_hand_computed_values() {
    let expected = Tensor::from_f64(vec![4], vec![1.0, -2.0, 4.0, 0.0]).unwrap();
    let actual = Tensor::from_f64(vec![4], vec![1.0, -2.5, 4.0, 0.25]).unwrap();
    let report = compare(&expected, &actual);
    assert_eq!(report.max_abs_error, 0.5);
    assert_eq!(report.max_abs_error_index, Some(vec![1]));
    // |0.25 - 0| / max(0, 1e-12) = 2.5e11: the floor at work.
    assert_eq!(report.max_rel_error, 0.25 / 1e-12);
    assert_eq!(report.max_rel_error_index, Some(vec![3]));
    assert_eq!(report.mean_abs_error, 0.75 / 4.0);
    assert!((report.rmse - ((0.25 + 0.0625) / 4.0f64).sqrt()).abs() < 1e-15);
    let dot = 1.0 + 5.0 + 16.0;
    let cos = dot / ((1.0f64 + 4.0 + 16.0).sqrt() * (1.0f64 + 6.25 + 16.0 + 0.0625).sqrt());
    assert!((report.cosine_similarity - cos).abs() < 1e-12);
    assert_eq!(report.over_threshold.clean, 2);
    assert_eq!(report.over_threshold.investigate, 2);
    assert_eq!(report.verdict, Verdict::FindTheOperator);

    // A user-set floor tames the relative error of near-zero values.
    let options = CompareOptions {
        relative_floor: 1.0,
        metric: Metric::Relative,
        ..Default::default()
    };
    let report = validate::compare(&expected, &actual, &options).unwrap();
    assert_eq!(report.max_rel_error, 0.25);
    assert_eq!(report.verdict_error, 0.25);
    let bad_floor = CompareOptions {
        relative_floor: 0.0,
        ..Default::default()
    };
    assert!(matches!(
        validate::compare(&expected, &actual, &bad_floor),
        Err(ValidateError::InvalidArgument(_))
    ));
}

#[test]
fn worst_elements_are_reported_with_their_multi_dimensional_indices() {
    let shape = [2usize, 3, 4];
    let expected = vec![1.0f32; 24];
    let mut actual = expected.clone();
    actual[23] += 0.5; // [1, 2, 3]
    actual[6] -= 0.25; // [0, 1, 2]
    actual[13] += 0.25; // [1, 0, 1], ties with [0, 1, 2]: lower flat index first
    actual[0] += 0.125; // [0, 0, 0]
    let options = CompareOptions {
        top_k: 3,
        ..Default::default()
    };
    let report = validate::compare(
        &f32_tensor(&shape, &expected),
        &f32_tensor(&shape, &actual),
        &options,
    )
    .unwrap();
    let got: Vec<(Vec<usize>, usize, f64, f64, f64)> = report
        .worst
        .iter()
        .map(|w| {
            (
                w.index.clone(),
                w.flat_index,
                w.expected,
                w.actual,
                w.abs_error,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (vec![1, 2, 3], 23, 1.0, 1.5, 0.5),
            (vec![0, 1, 2], 6, 1.0, 0.75, 0.25),
            (vec![1, 0, 1], 13, 1.0, 1.25, 0.25),
        ]
    );
    assert_eq!(report.worst[0].rel_error, 0.5);
    assert_eq!(report.max_abs_error_index, Some(vec![1, 2, 3]));
    assert_eq!(
        ascendcl::tensor_file::unravel_index(&shape, 23),
        vec![1, 2, 3]
    );

    // Asking for more than there are lists only the elements that differ.
    let options = CompareOptions {
        top_k: 100,
        ..Default::default()
    };
    let report = validate::compare(
        &f32_tensor(&shape, &expected),
        &f32_tensor(&shape, &actual),
        &options,
    )
    .unwrap();
    assert_eq!(report.worst.len(), 4);
    assert_eq!(report.worst[3].index, vec![0, 0, 0]);

    // The table and the JSON carry the indices.
    let table = report.to_string();
    assert!(
        table.contains("[1, 2, 3]") && table.contains("FIND-THE-OPERATOR"),
        "{table}"
    );
    let json = report.to_json();
    assert!(
        json.contains("\"index\":[1,2,3],\"flat_index\":23"),
        "{json}"
    );
    assert!(json.contains("\"verdict\":\"find-the-operator\""), "{json}");
}

#[test]
fn huge_top_k_is_clamped_to_the_element_count_and_stays_one_pass() {
    // 2^20 elements that all differ, each by its own amount, and a top_k of
    // 2^32 (what `--top 4294967296` asks for): the list is every element,
    // worst first, found with a heap bounded by the element count.
    let n = 1usize << 20;
    let expected = vec![0.0f32; n];
    // error of element i: (i * 7919 mod n + 1) * 2^-24, all distinct.
    let errors: Vec<f32> = (0..n)
        .map(|i| ((i * 7919 % n) + 1) as f32 / (1u32 << 24) as f32)
        .collect();
    let options = CompareOptions {
        top_k: 1usize << 32,
        ..Default::default()
    };
    let report = validate::compare(
        &f32_tensor(&[n], &expected),
        &f32_tensor(&[n], &errors),
        &options,
    )
    .unwrap();
    assert_eq!(report.worst.len(), n);
    assert!(
        report
            .worst
            .windows(2)
            .all(|w| w[0].abs_error > w[1].abs_error),
        "worst first, no duplicates"
    );
    assert_eq!(
        report.worst[0].abs_error,
        f64::from(errors.iter().copied().fold(0.0, f32::max))
    );

    // usize::MAX is accepted too, and a small k keeps exactly the k worst.
    for (top_k, len) in [(usize::MAX, n), (5, 5)] {
        let options = CompareOptions {
            top_k,
            ..Default::default()
        };
        let report = validate::compare(
            &f32_tensor(&[n], &expected),
            &f32_tensor(&[n], &errors),
            &options,
        )
        .unwrap();
        assert_eq!(report.worst.len(), len, "top_k {top_k}");
        assert_eq!(
            report.worst[len - 1].abs_error,
            f64::from((n - len + 1) as f32 / (1u32 << 24) as f32)
        );
    }
}

#[test]
fn verdict_thresholds_follow_the_migration_checklist() {
    let t = Thresholds::default();
    assert_eq!(
        (t.clean(), t.acceptable(), t.investigate()),
        (1e-5, 1e-4, 1e-3)
    );
    for (error, verdict) in [
        (0.0, Verdict::Clean),
        (1e-5, Verdict::Clean),
        (1.5e-5, Verdict::Acceptable),
        (1e-4, Verdict::Acceptable),
        (1.01e-4, Verdict::Investigate),
        (1e-3, Verdict::Investigate),
        (1.01e-3, Verdict::FindTheOperator),
        (f64::INFINITY, Verdict::FindTheOperator),
        (f64::NAN, Verdict::FindTheOperator),
    ] {
        assert_eq!(t.verdict(error), verdict, "{error:e}");
    }
    assert!(Verdict::Clean.passes() && Verdict::Acceptable.passes());
    assert!(!Verdict::Investigate.passes() && !Verdict::FindTheOperator.passes());
    assert!(Verdict::Clean < Verdict::FindTheOperator);

    // End to end: one element off by each amount (in f64, so the error is exact).
    for (delta, verdict) in [
        (5e-6, Verdict::Clean),
        (5e-5, Verdict::Acceptable),
        (5e-4, Verdict::Investigate),
        (5e-3, Verdict::FindTheOperator),
    ] {
        let e = Tensor::from_f64(vec![2], vec![0.5, 0.25]).unwrap();
        let a = Tensor::from_f64(vec![2], vec![0.5, 0.25 + delta]).unwrap();
        let report = compare(&e, &a);
        assert_eq!(report.verdict, verdict, "{delta:e}: {}", report.reason());
    }

    // Relative metric and custom thresholds.
    let e = Tensor::from_f64(vec![1], vec![1000.0]).unwrap();
    let a = Tensor::from_f64(vec![1], vec![1000.05]).unwrap(); // abs 5e-2, rel 5e-5
    assert_eq!(compare(&e, &a).verdict, Verdict::FindTheOperator);
    let relative = CompareOptions {
        metric: Metric::Relative,
        ..Default::default()
    };
    assert_eq!(
        validate::compare(&e, &a, &relative).unwrap().verdict,
        Verdict::Acceptable
    );
    let loose = CompareOptions {
        thresholds: Thresholds::new(0.1, 0.2, 0.3).unwrap(),
        ..Default::default()
    };
    assert_eq!(
        validate::compare(&e, &a, &loose).unwrap().verdict,
        Verdict::Clean
    );
    assert!(Thresholds::new(1e-3, 1e-4, 1e-5).is_err());
    assert!(Thresholds::new(-1.0, 1e-4, 1e-3).is_err());
    assert!(Thresholds::new(1e-5, 1e-4, f64::NAN).is_err());
}

#[test]
fn an_error_just_across_a_threshold_never_prints_as_the_threshold() {
    // 1.00005e-3 is over 1e-3 (find the operator), 9.99996e-4 under it
    // (investigate): neither may print as "1.000e-3".
    for (error, verdict, shown, relation) in [
        (1.00005e-3, Verdict::FindTheOperator, "1.00005e-3", "> 1e-3"),
        (
            9.99996e-4,
            Verdict::Investigate,
            "9.99996e-4",
            "is in (1e-4, 1e-3]",
        ),
        (
            1.000001e-4,
            Verdict::Investigate,
            "1.000001e-4",
            "is in (1e-4, 1e-3]",
        ),
        (1e-3, Verdict::Investigate, "1.000e-3", "is in (1e-4, 1e-3]"),
        (
            2.5e-4,
            Verdict::Investigate,
            "2.500e-4",
            "is in (1e-4, 1e-3]",
        ),
    ] {
        let expected = Tensor::from_f64(vec![2], vec![0.0, 0.0]).unwrap();
        let actual = Tensor::from_f64(vec![2], vec![0.0, error]).unwrap();
        let report = compare(&expected, &actual);
        assert_eq!(report.verdict, verdict, "{error:e}");
        let err = report.verdict_error;
        assert_eq!(err, error);
        // what is printed reads back on the same side of every limit
        let printed = Thresholds::default().format_error(err);
        assert_eq!(printed, shown);
        let back: f64 = printed.parse().unwrap();
        for limit in [1e-5, 1e-4, 1e-3] {
            assert_eq!(
                back.partial_cmp(&limit),
                err.partial_cmp(&limit),
                "{printed} vs {limit:e}"
            );
        }
        // the verdict line and the table show it that way
        let reason = report.reason();
        assert!(
            reason.contains(&format!("max abs error {shown} ")),
            "{reason}"
        );
        assert!(reason.ends_with(relation), "{reason}");
        let table = report.to_string();
        assert!(table.contains(&printed), "{table}");
    }
}

#[test]
fn nan_in_one_tensor_only_is_the_worst_verdict() {
    let e = f32_tensor(&[2, 2], &[1.0, f32::NAN, 3.0, f32::INFINITY]);
    // NaN in both at [0, 1] and +inf in both at [1, 1]: equal.
    let same = compare(&e, &e.clone());
    assert_eq!(same.verdict, Verdict::Clean);
    assert_eq!(same.matched_nonfinite, 2);
    assert_eq!(same.nonfinite_mismatches, 0);

    // NaN in the actual tensor only: the worst verdict, however small the other errors.
    let a = f32_tensor(&[2, 2], &[f32::NAN, f32::NAN, 3.0, f32::INFINITY]);
    let report = compare(&e, &a);
    assert_eq!(report.verdict, Verdict::FindTheOperator);
    assert_eq!(report.nonfinite_mismatches, 1);
    assert_eq!(report.max_abs_error, 0.0, "metrics cover finite pairs only");
    assert_eq!(report.worst.len(), 1);
    assert_eq!(report.worst[0].index, vec![0, 0]);
    assert!(report.worst[0].actual.is_nan());
    assert_eq!(report.worst[0].abs_error, f64::INFINITY);
    assert_eq!(report.over_threshold.investigate, 1);
    assert!(report.reason().contains("NaN/Inf"), "{}", report.reason());
    assert!(report.to_json().contains("\"actual\":\"NaN\""));

    // NaN in the expected tensor only, opposite infinities, inf vs finite.
    for (x, y) in [
        (f32::NAN, 1.0),
        (f32::INFINITY, f32::NEG_INFINITY),
        (1.0, f32::INFINITY),
    ] {
        let report = compare(&f32_tensor(&[1], &[x]), &f32_tensor(&[1], &[y]));
        assert_eq!(report.verdict, Verdict::FindTheOperator, "{x} vs {y}");
        assert_eq!(report.nonfinite_mismatches, 1);
    }
    // Even with the loosest thresholds.
    let loose = CompareOptions {
        thresholds: Thresholds::new(1e300, 1e300, 1e300).unwrap(),
        ..Default::default()
    };
    let report = validate::compare(
        &f32_tensor(&[1], &[f32::NAN]),
        &f32_tensor(&[1], &[0.0]),
        &loose,
    )
    .unwrap();
    assert_eq!(report.verdict, Verdict::FindTheOperator);
}

#[test]
fn shape_mismatch_is_a_typed_error_naming_both_shapes() {
    let e = f32_tensor(&[2, 3], &[0.0; 6]);
    let a = f32_tensor(&[3, 2], &[0.0; 6]);
    let err = validate::compare(&e, &a, &CompareOptions::default()).unwrap_err();
    match &err {
        ValidateError::ShapeMismatch { expected, actual } => {
            assert_eq!(
                (expected.as_slice(), actual.as_slice()),
                (&[2, 3][..], &[3, 2][..])
            );
        }
        other => panic!("{other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("[2, 3]") && message.contains("[3, 2]"),
        "{message}"
    );
    // Same element count, different rank: still a mismatch.
    let flat = f32_tensor(&[6], &[0.0; 6]);
    assert!(validate::compare(&e, &flat, &CompareOptions::default()).is_err());
    // A tensor is only built when values and shape agree.
    assert!(matches!(
        Tensor::from_f32(vec![2, 3], vec![0.0; 5]),
        Err(ascendcl::tensor_file::TensorFileError::InvalidArgument(_))
    ));
}
