//! `ops::sgd_step` against `torch.optim.SGD`: every case of `tests/goldens/sgd`
//! (written by `scripts/goldens/make_sgd_goldens.py` with PyTorch on the CPU)
//! runs its steps on the mock and must meet the case's tolerance, checked
//! with `ascendcl::validate`; bad arguments are refused before anything is
//! queued. The runtime calls of one step are counted in `ops_sgd_calls.rs`.

mod common;
mod ops_goldens_common;

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::ops::{DType, MomentumBuffer, Sgd, Tensor, TensorMut, sgd_step};
use ascendcl::prelude::*;
use ascendcl::tensor_file::{self, DType as VDType};
use ascendcl::validate::{self, CompareOptions};
use ops_goldens_common::{Case, cases_in, check, contiguous, counts, npy_raw, set_root, upload};

/// The number of cases `make_sgd_goldens.py` writes.
const SGD_CASES: usize = 14;

fn hyper(case: &Case) -> Sgd {
    let f = |k: &str| case.doubles[k] as f32;
    Sgd {
        lr: f("lr"),
        momentum: f("momentum"),
        dampening: f("dampening"),
        weight_decay: f("weightDecay"),
        nesterov: case.bools["nesterov"],
        maximize: case.bools["maximize"],
    }
}

/// Runs one case's steps; returns the differences from PyTorch.
fn run_case(
    ctx: &Context,
    stream: &Stream,
    allocator: &CachingAllocator,
    case: &Case,
) -> ascendcl::Result<Vec<String>> {
    let mut up = upload(ctx, case)?;
    let hyper = hyper(case);
    let steps = usize::try_from(case.ints["steps"]).expect("steps >= 0");
    let shape = up.specs["param"].1.clone();
    let numel: usize = shape.iter().product();
    let strides = contiguous(&shape);
    let mut param = up.buffers.remove("param").expect("param");
    let grads = up.buffers.remove("grads").expect("grads");
    let grads_before = grads.to_vec()?;
    let mut buffer = up.buffers.remove("momentumBuffer");
    let mut scratch = DeviceBuffer::<f32>::zeroed(ctx, numel)?;
    for step in 0..steps {
        let p = TensorMut::strided_as(&mut param, &shape, &strides, 0, DType::F32)?;
        let g = Tensor::strided_as(&grads, &shape, &strides, step * numel, DType::F32)?;
        let b = match buffer.as_mut() {
            Some(b) => {
                let view = TensorMut::strided_as(b, &shape, &strides, 0, DType::F32)?;
                Some(if step == 0 {
                    MomentumBuffer::Empty(view)
                } else {
                    MomentumBuffer::Filled(view)
                })
            }
            None => None,
        };
        let s = hyper
            .needs_scratch()
            .then(|| TensorMut::new(&mut scratch, &shape))
            .transpose()?;
        sgd_step(stream, allocator, p, &g, b, s, &hyper)?;
    }
    stream.synchronize()?;
    let mut failures = Vec::new();
    if grads.to_vec()? != grads_before {
        failures.push(format!("{}: the gradients were written", case.name));
    }
    for expect in &case.expects {
        let actual = match expect.role.as_str() {
            "param" => param.to_vec()?,
            "momentumBuffer" => buffer.as_ref().expect("a momentum buffer").to_vec()?,
            other => panic!("{}: unknown expectation {other}", case.name),
        };
        let (expected_shape, expected_bytes) = npy_raw(&expect.file);
        assert_eq!(expected_shape, shape, "{}", case.name);
        let actual = &actual[..expected_bytes.len()];
        if let Err(why) = check(expect, &shape, actual) {
            failures.push(format!("{}: {why}", case.name));
            continue;
        }
        // and the validate module's verdict over the whole tensor
        let e = tensor_file::parse_raw(&expected_bytes, VDType::F32, &shape).expect("f32");
        let a = tensor_file::parse_raw(actual, VDType::F32, &shape).expect("f32");
        let report = validate::compare(&e, &a, &CompareOptions::default()).expect("same shape");
        if !report.verdict.passes() {
            failures.push(format!(
                "{}: {}: {}",
                case.name,
                expect.role,
                report.reason()
            ));
        }
    }
    Ok(failures)
}

#[test]
fn every_sgd_case_matches_torch_optim_sgd_within_its_tolerance() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let allocator = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
        let listed = counts::check_counts(&set_root("sgd")).expect("CASES.txt");
        assert_eq!(
            listed, SGD_CASES,
            "CASES.txt lists the cases the script writes"
        );
        let mut failures = Vec::new();
        let mut ran = 0;
        for dir in cases_in("sgd") {
            let case = Case::read(&dir);
            assert_eq!(case.op, "SGD", "{}", case.name);
            failures.extend(run_case(&ctx, &stream, &allocator, &case)?);
            ran += 1;
        }
        assert!(
            failures.is_empty(),
            "{} differences from PyTorch:\n{}",
            failures.len(),
            failures.join("\n")
        );
        assert_eq!(ran, SGD_CASES, "every case ran");
        Ok(())
    });
}

/// A refused call: what is wrong, the hyper-parameters, whether a momentum
/// buffer is given, the scratch's shape if one is, and the words the error
/// must contain.
type Refused = (
    &'static str,
    Sgd,
    bool,
    Option<&'static [usize]>,
    &'static str,
);

#[test]
fn bad_hyper_parameters_and_missing_or_misshapen_tensors_are_refused_before_anything_is_queued() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let start = [1.0f32, -2.0, 3.0, 0.5];
        let mut param = DeviceBuffer::from_host(&ctx, &start)?;
        let grad = DeviceBuffer::from_host(&ctx, &[0.25f32, 1.0, -1.0, 2.0])?;
        let mut buf = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut scratch = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let m = Sgd {
            lr: 0.1,
            momentum: 0.9,
            ..Sgd::default()
        };
        let cases: [Refused; 9] = [
            (
                "negative lr",
                Sgd { lr: -0.1, ..m },
                true,
                None,
                "lr is -0.1",
            ),
            (
                "NaN momentum",
                Sgd {
                    momentum: f32::NAN,
                    ..m
                },
                true,
                None,
                "finite",
            ),
            (
                "negative momentum",
                Sgd {
                    momentum: -0.5,
                    ..m
                },
                true,
                None,
                "negative",
            ),
            (
                "negative weight decay",
                Sgd {
                    weight_decay: -1e-2,
                    ..m
                },
                true,
                Some(&[4]),
                "negative",
            ),
            (
                "Nesterov with dampening",
                Sgd {
                    nesterov: true,
                    dampening: 0.1,
                    ..m
                },
                true,
                Some(&[4]),
                "dampening 0",
            ),
            (
                "Nesterov without momentum",
                Sgd {
                    nesterov: true,
                    momentum: 0.0,
                    ..m
                },
                false,
                Some(&[4]),
                "momentum above 0",
            ),
            (
                "momentum without a buffer",
                m,
                false,
                None,
                "needs a momentum buffer",
            ),
            (
                "weight decay without a scratch",
                Sgd {
                    weight_decay: 1e-2,
                    ..m
                },
                true,
                None,
                "needs a scratch",
            ),
            (
                "a scratch of another shape",
                Sgd {
                    weight_decay: 1e-2,
                    ..m
                },
                true,
                Some(&[2, 3]),
                "scratch is F32 [2, 3]",
            ),
        ];
        for (what, hyper, with_buffer, scratch_shape, words) in cases {
            env.session.clear_journal();
            let b = with_buffer
                .then(|| TensorMut::new(&mut buf, &[4]))
                .transpose()?
                .map(MomentumBuffer::Filled);
            let s = scratch_shape
                .map(|shape| TensorMut::new(&mut scratch, shape))
                .transpose()?;
            let result = sgd_step(
                &stream,
                ascendcl::ops::Workspace::none(),
                TensorMut::new(&mut param, &[4])?,
                &Tensor::new(&grad, &[4])?,
                b,
                s,
                &hyper,
            );
            match result {
                Err(ascendcl::Error::InvalidArgument(text)) => {
                    assert!(text.contains(words), "{what}: {text:?} lacks {words:?}")
                }
                other => panic!("{what}: {other:?}, not InvalidArgument"),
            }
            assert_eq!(env.calls(), Vec::<String>::new(), "{what}: nothing queued");
        }
        // a gradient of another shape
        let short = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0])?;
        let result = sgd_step(
            &stream,
            ascendcl::ops::Workspace::none(),
            TensorMut::new(&mut param, &[4])?,
            &Tensor::new(&short, &[2])?,
            None,
            None,
            &Sgd::default(),
        );
        assert!(
            matches!(&result, Err(ascendcl::Error::InvalidArgument(t)) if t.contains("gradient is F32 [2]")),
            "{result:?}"
        );
        assert_eq!(param.to_vec()?, start, "the parameter is untouched");
        // f64 (and integers): refused up front, not half-way through a
        // momentum step whose InplaceMuls refuses them.
        let mut p64 = DeviceBuffer::from_host(&ctx, &[1.0f64, 2.0])?;
        let g64 = DeviceBuffer::from_host(&ctx, &[0.5f64, 0.5])?;
        let mut b64 = DeviceBuffer::<f64>::zeroed(&ctx, 2)?;
        env.session.clear_journal();
        let result = sgd_step(
            &stream,
            ascendcl::ops::Workspace::none(),
            TensorMut::new(&mut p64, &[2])?,
            &Tensor::new(&g64, &[2])?,
            Some(MomentumBuffer::Filled(TensorMut::new(&mut b64, &[2])?)),
            None,
            &m,
        );
        assert!(
            matches!(&result, Err(ascendcl::Error::InvalidArgument(t)) if t.contains("not F64")),
            "{result:?}"
        );
        assert_eq!(env.calls(), Vec::<String>::new(), "f64: nothing queued");
        assert_eq!(p64.to_vec()?, vec![1.0, 2.0]);
        Ok(())
    });
}
