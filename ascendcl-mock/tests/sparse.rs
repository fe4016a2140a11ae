//! The address model: device addresses are not host memory (a host
//! dereference crashes), and the bytes behind them live in a sparse backing
//! store, so eight 61 GiB devices fit on a small machine.

mod common;

use ascendcl_mock::Misuse;
use common::*;

#[test]
fn eight_devices_of_61_gib_fit_on_this_machine_because_backing_is_sparse() {
    let t = T::new();
    let mut ptrs = Vec::new();
    for dev in 0..8 {
        assert_eq!(t.set_device(dev), OK);
        let (free, total) = t.mem_info();
        assert_eq!((free, total), (62423 * MIB, 62423 * MIB));
        // nearly the whole card in one block
        let p = t.malloc(60 * GIB, HUGE_FIRST).unwrap();
        // touch its first and last MiB
        assert_eq!(t.memset(p, MIB, dev + 1, MIB), OK);
        let last = p.wrapping_byte_add(60 * GIB - MIB);
        assert_eq!(t.memset(last, MIB, dev + 100, MIB), OK);
        assert_eq!(t.download(p, 16), vec![dev as u8 + 1; 16]);
        assert_eq!(
            t.download(last.wrapping_byte_add(MIB - 16), 16),
            vec![dev as u8 + 100; 16]
        );
        ptrs.push((dev, p));
    }
    let backed = t.s.backed_bytes();
    assert_eq!(
        backed,
        8 * 2 * MIB as u64,
        "only the touched pages are backed"
    );
    for (dev, p) in ptrs {
        assert_eq!(t.set_device(dev), OK);
        assert_eq!(t.free(p), OK);
        assert_eq!(t.reset_device(dev), OK);
        assert_eq!(t.reset_device(dev), OK);
    }
    assert_eq!(t.s.backed_bytes(), 0, "freeing hands the pages back");
    t.assert_clean(0);
}

#[test]
fn backed_bytes_grow_on_write_and_shrink_after_free() {
    let t = T::with_device(0);
    assert_eq!(t.s.backed_bytes(), 0);
    let a = t.malloc(8 * MIB, HUGE_FIRST).unwrap();
    let b = t.malloc(100, HUGE_FIRST).unwrap();
    assert_eq!(t.s.backed_bytes(), 0, "allocating does not back anything");
    assert_eq!(t.upload(a, &vec![1u8; 3 * MIB]), OK);
    assert_eq!(t.s.backed_bytes(), 3 * MIB as u64);
    assert_eq!(t.upload(b, &[2u8; 100]), OK);
    assert_eq!(t.s.backed_bytes(), 3 * MIB as u64 + 4096);
    // reading untouched memory does not back it, and reads zero
    assert_eq!(t.download(a.wrapping_byte_add(5 * MIB), 64), vec![0; 64]);
    assert_eq!(t.s.backed_bytes(), 3 * MIB as u64 + 4096);
    assert_eq!(t.free(a), OK);
    assert_eq!(t.s.backed_bytes(), 4096);
    assert_eq!(t.free(b), OK);
    assert_eq!(t.s.backed_bytes(), 0);
    // zero-fills drop whole pages instead of writing them
    let c = t.malloc(4 * MIB, HUGE_FIRST).unwrap();
    assert_eq!(t.memset(c, 4 * MIB, 7, 4 * MIB), OK);
    assert_eq!(t.s.backed_bytes(), 4 * MIB as u64);
    assert_eq!(t.memset(c, 4 * MIB, 0, 4 * MIB), OK);
    assert_eq!(t.s.backed_bytes(), 0);
    assert_eq!(t.download(c.wrapping_byte_add(MIB), 32), vec![0; 32]);
    assert_eq!(t.free(c), OK);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

#[test]
fn host_dereference_of_a_device_pointer_crashes() {
    const NAME: &str = "host_dereference_of_a_device_pointer_crashes";
    if is_child(NAME) {
        let t = T::with_device(0);
        let p = t.malloc(64, HUGE_FIRST).unwrap();
        assert_eq!(t.upload(p, &[1; 64]), OK);
        // SAFETY: deliberately not safe: the child is expected to die here.
        let v = unsafe { std::ptr::read_volatile(p.cast::<u8>()) };
        println!("read {v} from device memory: the mock failed to stop it");
        return;
    }
    let out = run_child(NAME, &[]);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        out.status.signal(),
        Some(11),
        "the child dies of SIGSEGV: {:?}",
        out.status
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("HOST_DEREF"), "{stderr}");
    assert!(
        stderr.contains("aclrtMalloc memory of device 0"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("failed to stop it"));
    // the parent's own state is untouched
    let t = T::new();
    assert_eq!(t.s.misuse(Misuse::HostDeref), 0);
}
