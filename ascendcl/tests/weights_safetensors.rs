//! `ascendcl::weights`: a state dict PyTorch saved with
//! `safetensors.torch.save_file` (scripts/goldens/make_weights_safetensors.py)
//! loads into device tensors by name with its values; dtype, shape and name
//! mismatches are errors naming the tensor; what we save reads back.

mod common;

use ascendcl::ops::DeviceTensor;
use ascendcl::weights::{self, Weights, WeightsError};

const PYTORCH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/goldens/weights/pytorch_state_dict.safetensors"
);

#[test]
fn a_pytorch_state_dict_loads_into_device_tensors_with_its_values() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let file = Weights::read(PYTORCH).expect("the committed file");
        assert_eq!(
            file.names(),
            ["embed.index", "linear.bias", "linear.weight", "norm.scale"]
        );
        let w: DeviceTensor<f32> = file.to_device(&ctx, "linear.weight", &[3, 4]).expect("w");
        let expected: Vec<f32> = (0..12).map(|i| i as f32 * 0.25 - 1.0).collect();
        assert_eq!(w.to_vec()?, expected);
        let b: DeviceTensor<f32> = file.to_device(&ctx, "linear.bias", &[3]).expect("b");
        assert_eq!(b.to_vec()?, vec![0.0, 0.5, 1.0]);
        let index: DeviceTensor<i64> = file.to_device(&ctx, "embed.index", &[2, 2]).expect("i");
        let big: Vec<i64> = (0..4).map(|i| 1_000_000_000_000 + i).collect();
        assert_eq!(index.to_vec()?, big);
        assert_eq!(
            file.info("norm.scale").expect("info"),
            ("BF16".to_string(), vec![4])
        );
        Ok(())
    });
}

#[test]
fn a_wrong_dtype_shape_or_name_is_refused_naming_the_tensor() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let file = Weights::read(PYTORCH).expect("the committed file");
        let dtype = file
            .to_device::<f64>(&ctx, "linear.weight", &[3, 4])
            .unwrap_err();
        assert!(
            matches!(&dtype, WeightsError::Dtype { name, .. } if name == "linear.weight"),
            "{dtype}"
        );
        let bf16 = file.to_host::<f32>("norm.scale", &[4]).unwrap_err();
        assert!(
            bf16.to_string().contains("\"norm.scale\" is BF16"),
            "{bf16}"
        );
        let shape = file
            .to_device::<f32>(&ctx, "linear.weight", &[4, 3])
            .unwrap_err();
        assert!(
            matches!(&shape, WeightsError::Shape { found, wanted, .. } if found == &[3, 4] && wanted == &[4, 3]),
            "{shape}"
        );
        let missing = file
            .to_device::<f32>(&ctx, "linear.weights", &[3, 4])
            .unwrap_err();
        assert!(
            missing.to_string().contains("linear.weight, norm.scale"),
            "{missing}"
        );
        Ok(())
    });
}

#[test]
fn saved_device_tensors_read_back_bit_for_bit() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let w = DeviceTensor::from_host(&ctx, &[f32::MIN_POSITIVE, -0.0, 1e30, 3.5], &[2, 2])?;
        let n = DeviceTensor::from_host(&ctx, &[i32::MIN, i32::MAX], &[2])?;
        let path =
            std::env::temp_dir().join(format!("weights-test-{}.safetensors", std::process::id()));
        weights::save(&path, &[("w", &w), ("n", &n)]).expect("save");
        let file = Weights::read(&path).expect("read back");
        std::fs::remove_file(&path).ok();
        let w2 = file.to_host::<f32>("w", &[2, 2]).expect("w");
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&w2), bits(&w.to_vec()?));
        assert_eq!(
            file.to_host::<i32>("n", &[2]).expect("n"),
            vec![i32::MIN, i32::MAX]
        );
        Ok(())
    });
}

#[test]
fn a_truncated_or_garbage_file_is_a_format_error_not_a_panic() {
    let bytes = std::fs::read(PYTORCH).expect("the committed file");
    let dir = std::env::temp_dir();
    for (what, cut) in [
        ("truncated", &bytes[..bytes.len() - 7]),
        ("header only", &bytes[..8]),
        ("empty", &bytes[..0]),
    ] {
        let path = dir.join(format!(
            "weights-bad-{}-{}.safetensors",
            what.replace(' ', "-"),
            std::process::id()
        ));
        std::fs::write(&path, cut).expect("write");
        let read = Weights::read(&path);
        std::fs::remove_file(&path).ok();
        assert!(
            matches!(read, Err(WeightsError::Format { .. })),
            "{what}: {read:?}"
        );
    }
    assert!(matches!(
        Weights::read("/nonexistent/w.safetensors"),
        Err(WeightsError::Io { .. })
    ));
}
