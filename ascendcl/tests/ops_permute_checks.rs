//! The argument checks of `aclnnPermute` as the real operator makes them
//! (each rule cited in the mock's `op_permute.c`): one entry per dim, each in
//! `[-n, n - 1]`, no dim named twice (also when a negative entry and a
//! positive one name the same dim), `out` of the permuted shape and of
//! `self`'s dtype.

mod common;

use ascendcl::ops::{self, DType, Tensor, TensorMut};
use ascendcl::prelude::*;

fn refused(what: &str, result: ascendcl::Result<ascendcl::ops::Prepared<'_>>) {
    match result {
        Err(e) => {
            let text = e.to_string();
            assert!(text.contains("aclnnPermute"), "{what}: {text}");
        }
        Ok(_prepared) => panic!("{what} was accepted"),
    }
}

#[test]
fn permute_refuses_bad_dims_a_wrong_out_shape_and_another_out_dtype() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 6])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 6)?;
        let mut yi = DeviceBuffer::<i32>::zeroed(&ctx, 6)?;
        let xt = Tensor::new(&x, &[2, 3])?;
        let cases: [(&str, &[i64], [usize; 2]); 5] = [
            ("one entry for two dims", &[0], [3, 2]),
            ("a repeated entry", &[1, 1], [3, 2]),
            ("-1 and 1 naming the same dim", &[-1, 1], [3, 2]),
            ("an entry of 2 for two dims", &[2, 0], [3, 2]),
            ("out [2, 3] for dims [1, 0]", &[1, 0], [2, 3]),
        ];
        for (what, dims, shape) in cases {
            refused(
                what,
                ops::permute(&xt, dims, TensorMut::new(&mut y, &shape)?),
            );
        }
        refused(
            "an int32 out for an f32 self",
            ops::permute(
                &xt,
                &[1, 0],
                TensorMut::with_dtype(&mut yi, &[3, 2], DType::I32)?,
            ),
        );
        Ok(())
    });
}
