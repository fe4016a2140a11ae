//! The threaded convolution cores (op_conv_fast.c) against the sequential
//! reference nest they replace: on random doubles whose exponents span
//! 2^-40..2^40 (so any change in the order of a sum shows in its low bits),
//! every output element of the gather (forward), scatter (input gradient,
//! transposed forward) and weight-gradient cores has the reference's exact
//! bits, for 1-D, 2-D and 3-D geometries with strides, asymmetric padding,
//! dilation and groups (both paths of the scatter: per-tap passes for a W
//! stride above 1, fused chunks for stride 1), on 1, 2 and 3 threads. Through the libopapi test
//! hook `aclmockop_conv_kernels_differ`.

mod common;
#[macro_use]
mod ops_support;

use ops_support::*;

/// One geometry: 5-D input (N, C, D, H, W), output channels, kernel
/// (KD, KH, KW), stride, padding before and after, dilation, groups.
struct Geom {
    input: [i64; 5],
    out_c: i64,
    kernel: [i64; 3],
    stride: [i64; 3],
    pad_before: [i64; 3],
    pad_after: [i64; 3],
    dilation: [i64; 3],
    groups: i64,
}

impl Geom {
    fn dims(&self) -> ([i64; 5], [i64; 5], [i64; 5], [i64; 13]) {
        let b = self.input;
        let w = [
            self.out_c,
            b[1] / self.groups,
            self.kernel[0],
            self.kernel[1],
            self.kernel[2],
        ];
        let mut s = [b[0], self.out_c, 0, 0, 0];
        for i in 0..3 {
            let span = b[2 + i] + self.pad_before[i] + self.pad_after[i]
                - self.dilation[i] * (self.kernel[i] - 1)
                - 1;
            s[2 + i] = span / self.stride[i] + 1;
        }
        let mut g = [0; 13];
        g[0..3].copy_from_slice(&self.stride);
        g[3..6].copy_from_slice(&self.pad_before);
        g[6..9].copy_from_slice(&self.pad_after);
        g[9..12].copy_from_slice(&self.dilation);
        g[12] = self.groups;
        (b, s, w, g)
    }
}

const fn geom(
    input: [i64; 5],
    out_c: i64,
    kernel: [i64; 3],
    stride: [i64; 3],
    pads: ([i64; 3], [i64; 3]),
    dilation: [i64; 3],
    groups: i64,
) -> Geom {
    Geom {
        input,
        out_c,
        kernel,
        stride,
        pad_before: pads.0,
        pad_after: pads.1,
        dilation,
        groups,
    }
}

const GEOMS: &[Geom] = &[
    // conv1d: asymmetric padding, stride 2
    geom(
        [2, 3, 1, 1, 11],
        4,
        [1, 1, 3],
        [1, 1, 2],
        ([0, 0, 1], [0, 0, 2]),
        [1, 1, 1],
        1,
    ),
    // conv2d: groups 2, stride in H, dilation in W, four-entry padding
    geom(
        [2, 4, 1, 7, 6],
        6,
        [1, 3, 3],
        [1, 2, 1],
        ([0, 1, 0], [0, 1, 2]),
        [1, 1, 2],
        2,
    ),
    // depthwise with multiplier 2
    geom(
        [1, 4, 1, 6, 6],
        8,
        [1, 3, 3],
        [1, 1, 1],
        ([0, 1, 1], [0, 1, 1]),
        [1, 1, 1],
        4,
    ),
    // stride larger than the kernel: input elements no window reads
    geom(
        [1, 2, 1, 9, 9],
        3,
        [1, 2, 2],
        [1, 3, 3],
        ([0, 0, 0], [0, 0, 0]),
        [1, 1, 1],
        1,
    ),
    // conv3d: groups 2, strides, dilation in H
    geom(
        [2, 4, 5, 6, 5],
        6,
        [3, 2, 3],
        [2, 1, 2],
        ([1, 0, 1], [1, 0, 1]),
        [1, 2, 1],
        2,
    ),
    // more s rows per b row (24 x 3) than the scatter buffers at once, and
    // rows wide enough for the fused 8-element chunks
    geom(
        [1, 2, 1, 5, 20],
        24,
        [1, 3, 3],
        [1, 1, 1],
        ([0, 1, 1], [0, 1, 1]),
        [1, 1, 1],
        1,
    ),
    // dilation 2 in W with stride 1, asymmetric W padding
    geom(
        [1, 2, 1, 4, 21],
        3,
        [1, 2, 3],
        [1, 1, 1],
        ([0, 1, 2], [0, 0, 1]),
        [1, 1, 2],
        1,
    ),
    // conv3d with more positions than a weight-gradient block and more
    // channels than a weight-gradient unit
    geom(
        [1, 9, 4, 9, 10],
        5,
        [2, 3, 3],
        [1, 1, 1],
        ([1, 1, 1], [1, 1, 1]),
        [1, 1, 1],
        1,
    ),
];

#[test]
fn threaded_convolution_cores_give_the_reference_nests_bits() {
    let o = OpsTest::new();
    // SAFETY: the hook's C signature (op_conv_fast.c).
    let differ = unsafe {
        o.ops.op::<unsafe extern "C" fn(
            i32,
            *const i64,
            *const i64,
            *const i64,
            *const i64,
            i32,
            u64,
        ) -> i64>("aclmockop_conv_kernels_differ")
    };
    for (k, g) in GEOMS.iter().enumerate() {
        let (b, s, w, geom) = g.dims();
        assert!(s[2..].iter().all(|&d| d > 0), "geometry {k}: output {s:?}");
        for (core, name) in ["gather", "scatter", "wgrad"].iter().enumerate() {
            for threads in [1i32, 2, 3] {
                let seed = (k * 16 + core * 4) as u64 + threads as u64;
                // SAFETY: five dims each, thirteen geometry values; the hook
                // allocates and frees its own arrays.
                let n = unsafe {
                    differ(
                        core as i32,
                        b.as_ptr(),
                        s.as_ptr(),
                        w.as_ptr(),
                        geom.as_ptr(),
                        threads,
                        seed,
                    )
                };
                assert_eq!(
                    n, 0,
                    "geometry {k}, {name}, {threads} threads: {n} elements differ from the reference"
                );
            }
        }
    }
    o.finish();
}
