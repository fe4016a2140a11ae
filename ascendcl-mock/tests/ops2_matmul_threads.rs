//! The threaded matmul core (op_matmul_kernel.c, mm_mt: packed operands,
//! rows of out spread over threads) against the sequential reference loop
//! it replaces (mm_ref): on random operands whose exponents span
//! 2^-10..2^10 (so any change in the order of a float sum shows in its low
//! bits), every output element has the reference's exact bits, for shapes
//! that fill and that do not fill the 4x8 tiles and 32-row units, transposed
//! views of a, b and out, broadcast batches, f32, f16 and bf16 (mixed too),
//! addmm's self with alpha and beta (beta 0 included) and in-place addmm
//! (self is out), on 1, 2 and 3 threads. Through the libopapi test hook
//! `aclmockop_matmul_kernels_differ`.

mod common;
#[macro_use]
mod ops_support;

use ops_support::*;

/// ACL dtype codes.
const F32: i32 = 0;
const F16: i32 = 1;
const BF16: i32 = 27;

/// The hook's layout flags (op_matmul_check.c).
const A_T: i32 = 1;
const B_T: i32 = 2;
const A_BCAST: i32 = 4;
const B_BCAST: i32 = 8;
const SELF: i32 = 16;
const INPLACE: i32 = 32;
const OUT_T: i32 = 64;

/// One case: {batches, m, n, k}, dtypes {a, b, out, self}, flags, alpha, beta.
struct Case([i64; 4], [i32; 4], i32, f32, f32);

const CASES: &[Case] = &[
    Case([1, 1, 1, 1], [F32; 4], 0, 1.0, 0.0),
    Case([1, 5, 7, 3], [F32; 4], 0, 1.0, 0.0),
    Case([1, 64, 72, 96], [F32; 4], 0, 1.0, 0.0),
    Case([1, 37, 29, 41], [F32; 4], A_T, 1.0, 0.0),
    Case([1, 37, 29, 41], [F32; 4], B_T | OUT_T, 1.0, 0.0),
    Case([1, 33, 17, 0], [F32; 4], 0, 1.0, 0.0),
    Case([1, 45, 23, 19], [F16, F16, F16, F16], A_T | B_T, 1.0, 0.0),
    Case([1, 45, 23, 19], [BF16, BF16, BF16, BF16], 0, 1.0, 0.0),
    Case([1, 21, 18, 13], [F16, BF16, F32, F32], 0, 1.0, 0.0),
    Case([1, 40, 24, 31], [F32; 4], SELF, 0.5, 1.5),
    Case(
        [1, 40, 24, 31],
        [F32, F32, F32, BF16],
        SELF | B_T,
        -2.0,
        0.0,
    ),
    Case([1, 39, 26, 17], [F32; 4], INPLACE, 1.25, 1.0),
    Case(
        [1, 39, 26, 17],
        [F16, F16, F16, F16],
        INPLACE | OUT_T,
        1.0,
        -0.75,
    ),
    Case([6, 35, 12, 9], [F32; 4], 0, 1.0, 0.0),
    Case([6, 35, 12, 9], [F32; 4], A_BCAST, 1.0, 0.0),
    Case(
        [5, 9, 20, 14],
        [BF16, F32, BF16, F32],
        B_BCAST | A_T,
        1.0,
        0.0,
    ),
    Case([4, 66, 40, 23], [F32; 4], B_T | OUT_T | A_BCAST, 1.0, 0.0),
];

#[test]
fn threaded_matmul_core_gives_the_reference_loops_bits() {
    let o = OpsTest::new();
    // SAFETY: the hook's C signature (op_matmul_check.c).
    let differ = unsafe {
        o.ops
            .op::<unsafe extern "C" fn(*const i64, *const i32, i32, f32, f32, i32, u64) -> i64>(
                "aclmockop_matmul_kernels_differ",
            )
    };
    for (k, Case(shape, dtypes, flags, alpha, beta)) in CASES.iter().enumerate() {
        for threads in [1i32, 2, 3] {
            let seed = (k * 8) as u64 + threads as u64;
            // SAFETY: four dims, four dtypes; the hook allocates and frees
            // its own arrays.
            let n = unsafe {
                differ(
                    shape.as_ptr(),
                    dtypes.as_ptr(),
                    *flags,
                    *alpha,
                    *beta,
                    threads,
                    seed,
                )
            };
            assert_eq!(
                n, 0,
                "case {k} {shape:?} {dtypes:?} flags {flags}, {threads} threads: {n} elements differ from the reference"
            );
        }
    }
    o.finish();
}
