//! `ops::sgd_step` against `torch.optim.SGD`: every case of `tests/goldens/sgd`
//! (written by `scripts/goldens/make_sgd_goldens.py` with PyTorch on the CPU)
//! runs its steps on the mock and must meet the case's tolerance, checked
//! with `ascendcl::validate`; the runtime calls one step makes are the ones
//! its docs state, counted from the mock's journal; bad arguments are
//! refused before anything is queued.

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

/// The configurations of `sgd_step`'s docs table: the runtime calls of one
/// first and one later step (as the table states them), and the operators
/// each launches, in order.
#[allow(clippy::type_complexity)]
fn configurations() -> Vec<(
    &'static str,
    (usize, usize),
    Sgd,
    Vec<&'static str>,
    Vec<&'static str>,
)> {
    let base = Sgd {
        lr: 0.1,
        ..Sgd::default()
    };
    let m = Sgd {
        momentum: 0.9,
        ..base
    };
    vec![
        (
            "no momentum",
            (8, 8),
            base,
            vec!["aclnnInplaceAdd"],
            vec!["aclnnInplaceAdd"],
        ),
        (
            "no momentum, weight decay",
            (18, 18),
            Sgd {
                weight_decay: 0.01,
                ..base
            },
            vec!["aclnnAdd", "aclnnInplaceAdd"],
            vec!["aclnnAdd", "aclnnInplaceAdd"],
        ),
        (
            "momentum",
            (14, 22),
            m,
            vec!["aclnnInplaceCopy", "aclnnInplaceAdd"],
            vec!["aclnnInplaceMuls", "aclnnInplaceAdd", "aclnnInplaceAdd"],
        ),
        (
            "momentum, maximize",
            (16, 22),
            Sgd {
                maximize: true,
                ..m
            },
            vec!["aclnnMuls", "aclnnInplaceAdd"],
            vec!["aclnnInplaceMuls", "aclnnInplaceAdd", "aclnnInplaceAdd"],
        ),
        (
            "momentum, weight decay",
            (18, 32),
            Sgd {
                weight_decay: 0.01,
                ..m
            },
            vec!["aclnnAdd", "aclnnInplaceAdd"],
            vec![
                "aclnnAdd",
                "aclnnInplaceMuls",
                "aclnnInplaceAdd",
                "aclnnInplaceAdd",
            ],
        ),
        (
            "momentum, weight decay, maximize",
            (24, 32),
            Sgd {
                weight_decay: 0.01,
                maximize: true,
                ..m
            },
            vec!["aclnnMuls", "aclnnInplaceAdd", "aclnnInplaceAdd"],
            vec![
                "aclnnSub",
                "aclnnInplaceMuls",
                "aclnnInplaceAdd",
                "aclnnInplaceAdd",
            ],
        ),
        (
            "Nesterov",
            (24, 32),
            Sgd {
                nesterov: true,
                ..m
            },
            vec!["aclnnInplaceCopy", "aclnnAdd", "aclnnInplaceAdd"],
            vec![
                "aclnnInplaceMuls",
                "aclnnInplaceAdd",
                "aclnnAdd",
                "aclnnInplaceAdd",
            ],
        ),
        (
            "Nesterov, weight decay",
            (28, 40),
            Sgd {
                nesterov: true,
                weight_decay: 0.01,
                ..m
            },
            vec!["aclnnAdd", "aclnnAdd", "aclnnInplaceAdd"],
            vec![
                "aclnnAdd",
                "aclnnInplaceMuls",
                "aclnnInplaceAdd",
                "aclnnInplaceAdd",
                "aclnnInplaceAdd",
            ],
        ),
        (
            "no momentum, maximize",
            (8, 8),
            Sgd {
                maximize: true,
                ..base
            },
            vec!["aclnnInplaceAdd"],
            vec!["aclnnInplaceAdd"],
        ),
        (
            "no momentum, weight decay, maximize",
            (18, 18),
            Sgd {
                weight_decay: 0.01,
                maximize: true,
                ..base
            },
            vec!["aclnnSub", "aclnnInplaceAdd"],
            vec!["aclnnSub", "aclnnInplaceAdd"],
        ),
        (
            "Nesterov, maximize",
            (26, 32),
            Sgd {
                nesterov: true,
                maximize: true,
                ..m
            },
            vec!["aclnnMuls", "aclnnAdd", "aclnnInplaceAdd"],
            vec![
                "aclnnInplaceMuls",
                "aclnnInplaceAdd",
                "aclnnAdd",
                "aclnnInplaceAdd",
            ],
        ),
        (
            "Nesterov, weight decay, maximize",
            (34, 40),
            Sgd {
                nesterov: true,
                weight_decay: 0.01,
                maximize: true,
                ..m
            },
            vec![
                "aclnnMuls",
                "aclnnInplaceAdd",
                "aclnnAdd",
                "aclnnInplaceAdd",
            ],
            vec![
                "aclnnSub",
                "aclnnInplaceMuls",
                "aclnnInplaceAdd",
                "aclnnInplaceAdd",
                "aclnnInplaceAdd",
            ],
        ),
    ]
}

/// The runtime calls of one `sgd_step` (after the same step once, so
/// loading the operator libraries is not counted).
fn calls_of_one_step(env: &common::Env, hyper: &Sgd, first: bool) -> ascendcl::Result<Vec<String>> {
    let (_device, ctx) = env.device0();
    let stream = Stream::new(&ctx)?;
    let mut param = DeviceBuffer::from_host(&ctx, &[1.0f32, -2.0, 3.0, 0.5])?;
    let grad = DeviceBuffer::from_host(&ctx, &[0.25f32, 1.0, -1.0, 2.0])?;
    let mut buf = DeviceBuffer::from_host(&ctx, &[0.5f32; 4])?;
    let mut scratch = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
    let mut calls = Vec::new();
    for round in 0..2 {
        env.session.clear_journal();
        let b = TensorMut::new(&mut buf, &[4])?;
        let b = if first {
            MomentumBuffer::Empty(b)
        } else {
            MomentumBuffer::Filled(b)
        };
        sgd_step(
            &stream,
            ascendcl::ops::Workspace::none(),
            TensorMut::new(&mut param, &[4])?,
            &Tensor::new(&grad, &[4])?,
            Some(b),
            Some(TensorMut::new(&mut scratch, &[4])?),
            hyper,
        )?;
        if round == 1 {
            calls = env.calls();
        }
    }
    stream.synchronize()?;
    Ok(calls)
}

#[test]
fn one_sgd_step_makes_the_launches_and_runtime_calls_its_docs_state() {
    common::check(|env| {
        for (name, (first_calls, later_calls), hyper, first_ops, later_ops) in configurations() {
            for (first, ops, total) in [
                (true, first_ops, first_calls),
                (false, later_ops, later_calls),
            ] {
                let calls = calls_of_one_step(env, &hyper, first)?;
                let phase2: Vec<&str> = calls
                    .iter()
                    .map(String::as_str)
                    .filter(|c| c.starts_with("aclnn") && !c.ends_with("GetWorkspaceSize"))
                    .collect();
                assert_eq!(phase2, ops, "{name}, first step {first}: the operators");
                assert_eq!(
                    calls.len(),
                    total,
                    "{name}, first step {first}: the runtime calls {calls:?}"
                );
                // each launch: a create and a destroy per tensor and scalar,
                // phase 1 and phase 2; no event, no allocation
                let creates = calls.iter().filter(|c| c.starts_with("aclCreate")).count();
                let destroys = calls.iter().filter(|c| c.starts_with("aclDestroy")).count();
                assert_eq!(creates, destroys, "{name}: every descriptor destroyed");
                assert_eq!(
                    calls.len(),
                    2 * creates + 2 * ops.len(),
                    "{name}: {calls:?}"
                );
            }
        }
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
        Ok(())
    });
}
