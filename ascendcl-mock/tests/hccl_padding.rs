//! hccl's 09_scatter sample allocates 1 byte and receives one float into it.
//! A card pads every allocation (the size rounded up to 32 bytes, plus 32:
//! runtime v8.5.0 docs/api_docs/aclrtMalloc.md:15), so the program works
//! there; the mock lets it work too and counts each access past the size
//! asked for as misuse (`OUT_OF_BOUNDS`), with a message saying so.

mod common;
mod hccl_support;

use ascendcl_mock::Misuse;
use hccl_support::*;

#[test]
fn a_scatter_into_a_1_byte_receive_buffer_works_as_on_a_card_and_is_counted_as_misuse() {
    let t = fresh(5000, 5000);
    let got = ranks(&t, 2, |r| {
        let send = r.upload(&[1.5f32, -2.0].map(f32::to_le_bytes).concat());
        let recv = t.malloc(1, 0).expect("1 byte of device memory");
        // SAFETY: send holds 2 floats; recv is 1 byte, padded to 64 by the
        // allocator (the misuse this test checks).
        let rc = unsafe { f::<Scatter>("HcclScatter")(send, recv, 1, FP32, 0, r.comm, r.stream) };
        assert_eq!(rc, SUCCESS, "{:?}", t.recent_msg());
        assert_eq!(r.sync(), 0);
        let v = r.download(recv, 4);
        r.free(send);
        r.free(recv);
        f32::from_le_bytes([v[0], v[1], v[2], v[3]])
    });
    assert_eq!(got, vec![1.5, -2.0]);
    // per rank: the scatter's receive span, and the 4-byte download
    assert_eq!(t.s.misuse(Misuse::OutOfBounds), 4, "{}", t.s.misuse_log());
    assert_eq!(t.s.misuse_total(), 4);
    let log = t.s.misuse_log();
    assert!(log.contains("HcclScatter"), "{log}");
    assert!(
        log.contains("4 bytes, reaches past the 1 bytes allocated into the padding a card adds (up to 64 bytes)"),
        "{log}"
    );
}

/// Past the padding the access is refused as before (arena.c): 17 floats
/// (68 bytes) do not fit the 64 bytes a card gives a 1-byte allocation.
#[test]
fn a_scatter_past_the_padding_of_the_receive_buffer_is_refused() {
    let t = fresh(5000, 5000);
    let got = ranks(&t, 2, |r| {
        let send = r.upload(&[0u8; 2 * 17 * 4]);
        let recv = t.malloc(1, 0).expect("1 byte of device memory");
        // SAFETY: the mock refuses the receive span before anything is queued.
        let rc = unsafe { f::<Scatter>("HcclScatter")(send, recv, 17, FP32, 0, r.comm, r.stream) };
        r.free(send);
        r.free(recv);
        rc
    });
    assert!(got.iter().all(|&rc| rc != SUCCESS), "{got:?}");
    assert_eq!(t.s.misuse(Misuse::OutOfBounds), 2, "{}", t.s.misuse_log());
    assert!(
        t.s.misuse_log().contains("goes past the end"),
        "{}",
        t.s.misuse_log()
    );
}
