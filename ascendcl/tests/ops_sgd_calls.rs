//! The launches and runtime calls of one `ops::sgd_step` per configuration
//! are the ones its docs table states, counted from the mock's journal (as
//! `launch_calls.rs` counts a single operator's).

mod common;

use ascendcl::ops::{MomentumBuffer, Sgd, Tensor, TensorMut, Workspace, sgd_step};
use ascendcl::prelude::*;

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
            Workspace::none(),
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
