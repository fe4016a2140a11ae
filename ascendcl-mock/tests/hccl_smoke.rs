//! The HCCL mock's first path: communicators for several devices of one
//! process, an f32 all-reduce, and clean-up.

mod common;
mod hccl_support;

use hccl_support::*;

#[test]
fn allreduce_f32_sum_gives_every_rank_the_same_sum_after_synchronize() {
    let t = fresh(2000, 2000);
    let n = 4;
    let results = ranks(&t, n, |r| {
        let count = 5usize;
        let input: Vec<f32> = (0..count)
            .map(|i| (r.rank * 10 + i as u32) as f32)
            .collect();
        let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
        let send = r.upload(&bytes);
        let recv = r.upload(&vec![0u8; bytes.len()]);
        // SAFETY: device buffers of `count` f32 each, a live comm and stream.
        let rc = unsafe {
            f::<AllReduce>("HcclAllReduce")(send, recv, count as u64, FP32, SUM, r.comm, r.stream)
        };
        assert_eq!(rc, SUCCESS);
        assert_eq!(r.sync(), 0);
        let out = r.download(recv, bytes.len());
        r.free(send);
        r.free(recv);
        out
    });
    let expect: Vec<u8> = (0..5u32)
        .map(|i| (0..n).map(|k| (k * 10 + i) as f32).sum::<f32>())
        .flat_map(|x| x.to_le_bytes())
        .collect();
    for r in &results {
        assert_eq!(r, &expect);
    }
    assert_eq!(t.s.live(ascendcl_mock::Resource::HcclComm), 0);
    assert_eq!(t.s.call_count("HcclAllReduce"), u64::from(n));
}
