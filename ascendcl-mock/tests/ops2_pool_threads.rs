//! The pooling kernels run plane by plane on threads (op_pool_planes.c)
//! against the sequential reference (the same planes in (n, c) order on
//! one thread): max pool with indices, its backward (the scatter of each
//! plane's gradient, with and without indices moved out of their plane,
//! whose count and first value must also match), adaptive average pool and
//! its backward, in f32, f16 and bf16, with strides, padding, dilation, ties
//! in the windows and overlapping adaptive bins, for 1 to 35 planes on 1, 2
//! and 3 threads: every written element has the reference's exact bits.
//! Through the libopapi test hook `aclmockop_pool_kernels_differ`.

mod common;
#[macro_use]
mod ops_support;

use ops_support::*;

/// ACL dtype codes.
const F32: i32 = 0;
const F16: i32 = 1;
const BF16: i32 = 27;

/// A max pool: input (N, C, H, W), (kh, kw, sh, sw, ph, pw, dh, dw).
struct MaxPool([i64; 4], [i64; 8]);

const MAX_POOLS: &[MaxPool] = &[
    MaxPool([1, 1, 5, 5], [2, 2, 2, 2, 0, 0, 1, 1]),
    MaxPool([2, 3, 9, 11], [3, 2, 2, 1, 1, 1, 1, 2]),
    MaxPool([5, 7, 8, 6], [3, 3, 1, 1, 1, 1, 1, 1]),
    MaxPool([1, 4, 12, 10], [4, 3, 3, 2, 2, 1, 1, 1]),
];

/// An adaptive pool: input (N, C, H, W), output (OH, OW).
struct Adaptive([i64; 4], [i64; 2]);

const ADAPTIVE: &[Adaptive] = &[
    Adaptive([1, 1, 7, 5], [3, 2]),
    Adaptive([2, 5, 10, 7], [4, 3]),
    Adaptive([5, 7, 6, 9], [6, 9]),
    Adaptive([3, 2, 5, 4], [7, 6]),
];

fn out_size(n: i64, k: i64, s: i64, p: i64, d: i64) -> i64 {
    (n + 2 * p - d * (k - 1) - 1) / s + 1
}

type Hook = unsafe extern "C" fn(
    i32,
    *const i64,
    *const i64,
    *const i64,
    i32,
    i32,
    i32,
    u64,
    *mut i64,
) -> i64;

/// Runs the hook; returns (elements differing, the reference's count of
/// out-of-plane indices).
#[allow(clippy::too_many_arguments)]
fn run(
    differ: Hook,
    which: i32,
    input: &[i64; 4],
    out: &[i64; 2],
    attrs: &[i64; 8],
    dt: i32,
    corrupt: bool,
    threads: i32,
    seed: u64,
) -> (i64, i64) {
    let mut bad = 0i64;
    // SAFETY: four input dims, two output dims, eight attributes, a valid
    // out-pointer; the hook allocates and frees its own arrays.
    let n = unsafe {
        differ(
            which,
            input.as_ptr(),
            out.as_ptr(),
            attrs.as_ptr(),
            dt,
            corrupt as i32,
            threads,
            seed,
            &mut bad,
        )
    };
    (n, bad)
}

#[test]
fn threaded_pooling_planes_give_the_reference_bits() {
    let o = OpsTest::new();
    // SAFETY: the hook's C signature (op_pool_check.c).
    let differ = unsafe { o.ops.op::<Hook>("aclmockop_pool_kernels_differ") };
    let mut seed = 1u64;
    for (k, MaxPool(input, a)) in MAX_POOLS.iter().enumerate() {
        let out = [
            out_size(input[2], a[0], a[2], a[4], a[6]),
            out_size(input[3], a[1], a[3], a[5], a[7]),
        ];
        for dt in [F32, F16, BF16] {
            for (which, corrupt) in [(0, false), (1, false), (1, true)] {
                for threads in [1, 2, 3] {
                    seed += 1;
                    let (n, bad) = run(differ, which, input, &out, a, dt, corrupt, threads, seed);
                    assert_eq!(
                        n, 0,
                        "max pool {k}, kernel {which}, dtype {dt}, corrupt {corrupt}, {threads} threads: {n}"
                    );
                    assert_eq!(
                        bad > 0,
                        corrupt && out[0] * out[1] * input[0] * input[1] > 6
                    );
                }
            }
        }
    }
    for (k, Adaptive(input, out)) in ADAPTIVE.iter().enumerate() {
        for dt in [F32, F16, BF16] {
            for which in [2, 3] {
                for threads in [1, 2, 3] {
                    seed += 1;
                    let (n, _) = run(differ, which, input, out, &[1; 8], dt, false, threads, seed);
                    assert_eq!(
                        n, 0,
                        "adaptive pool {k}, kernel {which}, dtype {dt}, {threads} threads: {n}"
                    );
                }
            }
        }
    }
    o.finish();
}
