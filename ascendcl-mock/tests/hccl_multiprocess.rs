//! HCCL between processes: this test binary re-executes itself as ranks 1..N
//! (each its own process and mock), the root info reaches them through a
//! file, and every rank runs an AllReduce through the rendezvous socket the
//! root info names. Bounded in time: children are killed on timeout or when
//! the test fails (drop), and no socket directory is left behind.

mod common;
mod hccl_support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hccl_support::*;

const N: u32 = 4;
const COUNT: usize = 1001;

/// Children killed and reaped when dropped, whatever happened.
struct Children(Vec<Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Children {
    /// Waits for every child until `limit`; their exit success, or None on timeout.
    fn wait_all(&mut self, limit: Duration) -> Option<Vec<bool>> {
        let start = Instant::now();
        let mut done: Vec<Option<bool>> = vec![None; self.0.len()];
        while done.iter().any(Option::is_none) {
            for (i, c) in self.0.iter_mut().enumerate() {
                if done[i].is_none() {
                    if let Some(st) = c.try_wait().expect("a child can be waited for") {
                        done[i] = Some(st.success());
                    }
                }
            }
            if start.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Some(done.into_iter().map(Option::unwrap).collect())
    }
}

/// Starts ranks 1..n as children running `test` with the root info in `file`.
fn spawn(test: &str, file: &Path, n: u32, timeout_ms: u64, extra: &[(&str, &str)]) -> Children {
    let exe = std::env::current_exe().expect("the test binary path");
    let kids = (1..n)
        .map(|rank| {
            let mut cmd = Command::new(&exe);
            cmd.args([test, "--exact", "--nocapture", "--test-threads=1"])
                .env("ASCENDCL_MOCK_TEST_CHILD", test)
                .env("HCCL_TEST_ROOT_FILE", file)
                .env("HCCL_TEST_RANK", rank.to_string())
                .env("HCCL_TEST_NRANKS", n.to_string())
                .env("ASCENDCL_MOCK_HCCL_TIMEOUT_MS", timeout_ms.to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            for (k, v) in extra {
                cmd.env(k, v);
            }
            cmd.spawn().expect("a child starts")
        })
        .collect();
    Children(kids)
}

/// The value every rank contributes at element i.
fn value(rank: u32, i: usize) -> f32 {
    (rank as usize * 1000 + i % 97) as f32
}

fn expected() -> Vec<u8> {
    (0..COUNT)
        .map(|i| (0..N).map(|r| value(r, i)).sum::<f32>())
        .flat_map(f32::to_le_bytes)
        .collect()
}

/// One rank's whole life: init from the root info, AllReduce, check, destroy.
/// Returns (init status, synchronize status, result matches).
fn run_rank(
    t: &common::T,
    info: &RootInfo,
    rank: u32,
    n: u32,
    die_before_collective: bool,
) -> (i32, i32, bool) {
    assert_eq!(t.set_device(rank as i32 % 8), 0);
    let mut comm: Comm = std::ptr::null_mut();
    // SAFETY: a root info and an out-pointer.
    let rc = unsafe { f::<InitRootInfo>("HcclCommInitRootInfo")(n, info, rank, &mut comm) };
    if rc != SUCCESS {
        return (rc, -1, false);
    }
    if die_before_collective {
        std::process::exit(0);
    }
    let stream = t.create_stream().unwrap();
    let bytes: Vec<u8> = (0..COUNT)
        .flat_map(|i| value(rank, i).to_le_bytes())
        .collect();
    let buf = t.malloc(bytes.len(), 0).unwrap();
    assert_eq!(t.upload(buf, &bytes), 0);
    // SAFETY: `buf` holds COUNT f32; live comm and stream.
    let rc =
        unsafe { f::<AllReduce>("HcclAllReduce")(buf, buf, COUNT as u64, FP32, SUM, comm, stream) };
    assert_eq!(rc, SUCCESS);
    let sync = t.sync_stream(stream);
    let ok = sync == 0 && t.download(buf, bytes.len()) == expected();
    assert_eq!(t.free(buf), 0);
    assert_eq!(t.destroy_stream(stream), 0);
    assert_eq!(destroy(comm), SUCCESS);
    (SUCCESS, sync, ok)
}

fn read_root(file: &Path) -> Box<RootInfo> {
    let bytes = std::fs::read(file).expect("the root info file");
    let mut info = Box::new(RootInfo([0; 4108]));
    info.0.copy_from_slice(&bytes);
    info
}

/// The child side of both tests (a no-op in the parent run).
#[test]
fn child_rank() {
    if !common::is_child("child_rank") {
        return;
    }
    let t = common::T::new();
    hccl();
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("{k} is set"));
    let rank: u32 = var("HCCL_TEST_RANK").parse().unwrap();
    let n: u32 = var("HCCL_TEST_NRANKS").parse().unwrap();
    let info = read_root(Path::new(&var("HCCL_TEST_ROOT_FILE")));
    let die = std::env::var("HCCL_TEST_DIE_RANK").ok() == Some(rank.to_string());
    let (init, sync, ok) = run_rank(&t, &info, rank, n, die);
    match std::env::var("HCCL_TEST_EXPECT").as_deref() {
        Ok("timeout") => assert_eq!((init, sync), (SUCCESS, STREAM_TIMEOUT)),
        _ => assert!(
            init == SUCCESS && ok,
            "rank {rank}: init {init}, sync {sync}"
        ),
    }
}

/// The root info file, removed when the test ends, passed or not.
struct RootFile(PathBuf);

impl Drop for RootFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The root: device 0, root info written to a private file.
fn make_root(t: &common::T) -> (Box<RootInfo>, RootFile, PathBuf) {
    assert_eq!(t.set_device(0), 0);
    let mut info = Box::new(RootInfo([0; 4108]));
    // SAFETY: a writable root info.
    let rc = unsafe { f::<GetRootInfo>("HcclGetRootInfo")(&mut *info) };
    assert_eq!(rc, SUCCESS);
    let file = std::env::temp_dir().join(format!(
        "aclmock-hccl-root-{}-{:?}",
        std::process::id(),
        Instant::now()
    ));
    std::fs::write(&file, info.0).unwrap();
    let path = &info.0[28..28 + 108];
    let end = path.iter().position(|&b| b == 0).unwrap();
    let sock = PathBuf::from(std::str::from_utf8(&path[..end]).unwrap());
    (info, RootFile(file), sock.parent().unwrap().to_path_buf())
}

fn assert_gone(dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(3);
    while dir.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!dir.exists(), "the socket directory {dir:?} is removed");
}

#[test]
fn allreduce_across_four_processes_gives_every_rank_the_same_sum() {
    let t = fresh(10_000, 10_000);
    let (info, file, dir) = make_root(&t);
    let mut kids = spawn("child_rank", &file.0, N, 10_000, &[]);
    let (init, sync, ok) = run_rank(&t, &info, 0, N, false);
    assert_eq!((init, sync), (SUCCESS, 0));
    assert!(ok, "rank 0's result");
    let done = kids
        .wait_all(Duration::from_secs(20))
        .expect("the children end in time");
    assert!(
        done.iter().all(|&s| s),
        "every child rank checked its result: {done:?}"
    );
    assert_gone(&dir);
}

#[test]
fn a_rank_process_that_dies_makes_the_others_time_out_instead_of_hanging() {
    let t = fresh(10_000, 600);
    let (info, file, dir) = make_root(&t);
    let mut kids = spawn(
        "child_rank",
        &file.0,
        3,
        600,
        &[("HCCL_TEST_DIE_RANK", "1"), ("HCCL_TEST_EXPECT", "timeout")],
    );
    let start = Instant::now();
    let (init, sync, _) = run_rank(&t, &info, 0, 3, false);
    assert_eq!((init, sync), (SUCCESS, STREAM_TIMEOUT));
    assert!(
        start.elapsed() < Duration::from_secs(8),
        "bounded by the exec timeout"
    );
    let done = kids
        .wait_all(Duration::from_secs(20))
        .expect("the children end in time");
    assert!(
        done.iter().all(|&s| s),
        "the dying rank exits, the other saw the timeout: {done:?}"
    );
    assert_gone(&dir);
}
