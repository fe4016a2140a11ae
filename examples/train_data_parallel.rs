//! Trains the MLP of `train_mlp` data-parallel across devices with HCCL:
//! every rank takes its shard of each batch, computes the mean loss's
//! gradients on its own device, the gradients are all-reduced (summed, then
//! divided by the rank count) before the SGD step, so every rank applies
//! the same update to the same parameters.
//!
//! It runs the training three ways and checks them against each other:
//!
//! 1. one device, the whole batch (the reference);
//! 2. one process, one thread per device, communicators from
//!    `HcclCommInitAll` (torch_npu's `DataParallelComm` pattern);
//! 3. one process per device, communicators from a root info made by rank 0
//!    and passed to the others through a file (the root-info bootstrap of
//!    torch_npu's `ProcessGroupHCCL`, with a file instead of a c10d store).
//!
//! It exits non-zero unless, for both 2 and 3, every rank's final weights
//! are bit-identical to every other rank's, and within 1e-5 relative of the
//! single-device run; and unless each step's loss (the all-reduced mean of
//! the shards' losses) matches PyTorch's full-batch loss of
//! `examples/reference/train_mlp_losses.txt` like `train_mlp`'s does.
//!
//! On the mock (8 devices) by default; unchanged on an Atlas card, where it
//! uses 8 devices, or the largest power of two of them that is present.
//!
//! `--model gpt` trains `train_gpt`'s transformer instead, from threads, on
//! 8 ranks (on more ranks than the reference batch's 4 sequences, the batch
//! is repeated so that each rank has a whole sequence: the same mean loss
//! and gradients): gradients summed in
//! buckets, one per block plus one for the embeddings, each all-reduced on
//! a stream of its own while the backward goes on
//! (`ascendcl_examples::gpt::data_parallel`); the same checks against one
//! device (within 1e-5 absolute: AdamW steps the key biases, whose true
//! gradient is 0, by rounding noise) and against PyTorch's losses.
//!
//! `--launcher env` makes this process one rank of a job an outside
//! launcher started (`ascendcl::hccl::join_from_env`: a rank table when
//! `RANK_TABLE_FILE` is set, else torchrun's or Slurm's variables with the
//! root info over TCP from rank 0): it trains its shard and checks that
//! its final weights are bit-identical to rank 0's (broadcast) and its
//! losses PyTorch's. `examples/launch_two_nodes.sh` starts 2 "nodes" × 4
//! such ranks on the loopback interface.
//!
//! `cargo run --example train_data_parallel [-- --ranks N] [--mode threads|processes|both] [--model mlp|gpt] [--launcher env]`

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode};
use std::time::{Duration, Instant};

use ascendcl::alloc::{AllocatorConfig, CachingAllocator};
use ascendcl::hccl::{Communicator, ReduceOp, RootInfo};
use ascendcl::prelude::*;
use ascendcl_examples::mlp::reference::Reference;
use ascendcl_examples::mlp::trainer::{Trainer, parameters_to_host};
use ascendcl_examples::mlp::{BATCH, D, EPOCHS, N, Task};

/// How long the processes of mode 3 may take, and rank 0's root info to appear.
const PROCESS_TIMEOUT: Duration = Duration::from_secs(120);

/// What one rank ends with.
#[derive(Debug, Clone, PartialEq)]
struct RankResult {
    /// Every parameter, in `parameters_to_host`'s order.
    params: Vec<f32>,
    /// The full batch's loss at every step, as this rank saw it.
    losses: Vec<f32>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = if args.first().map(String::as_str) == Some("--child") {
        child(&args[1..]).map(|()| true)
    } else {
        run(&args)
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn invalid(message: impl Into<String>) -> ascendcl::Error {
    ascendcl::Error::InvalidState(message.into())
}

/// The value after `flag` in `args`, parsed.
fn flag<T: std::str::FromStr>(args: &[String], flag: &str) -> ascendcl::Result<Option<T>> {
    match args.iter().position(|a| a == flag) {
        None => Ok(None),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .map(Some)
            .ok_or_else(|| invalid(format!("{flag} needs a value"))),
    }
}

/// Trains on `device`, as `comm`'s rank when there is one (else alone, on
/// the whole batch), and returns the final parameters and the losses.
fn train_rank(
    device: &Device,
    comm: Option<&Communicator>,
    task: &Task,
) -> ascendcl::Result<RankResult> {
    let (rank, ranks) = comm.map_or((0, 1), |c| (c.rank() as usize, c.size() as usize));
    let shard = BATCH / ranks;
    let ctx = device.default_context();
    let stream = Stream::new(&ctx)?;
    let alloc = CachingAllocator::new(&ctx, AllocatorConfig::expandable())?;
    let tr = Trainer {
        stream: &stream,
        alloc: &alloc,
    };
    let mut model = tr.model(task)?;
    let mut losses = Vec::new();
    let steps_per_epoch = N / BATCH;
    for k in 0..EPOCHS * steps_per_epoch {
        let first_row = (k % steps_per_epoch) * BATCH + rank * shard;
        let rows = first_row..first_row + shard;
        let x = tr.block(&task.x[rows.start * D..rows.end * D])?;
        let mut labels = alloc.alloc::<i64>(&stream, shard)?;
        labels.copy_from_host(&task.labels[rows])?;
        let mut loss = tr.gradients(&x, &labels, &mut model, shard)?;
        if let Some(comm) = comm {
            // Summed over ranks on the compute stream: queued after the
            // backward that wrote the gradients, before the update that
            // reads them; the blocks' trackers order everything else.
            for grad in &mut model.grads {
                comm.all_reduce_in_place(&mut grad.w, ReduceOp::Sum, &stream)?
                    .detach();
                comm.all_reduce_in_place(&mut grad.b, ReduceOp::Sum, &stream)?
                    .detach();
            }
            comm.all_reduce_in_place(&mut loss, ReduceOp::Sum, &stream)?
                .detach();
            tr.scale_gradients(&mut model, 1.0 / ranks as f32)?;
        }
        tr.sgd_step(&mut model, k == 0)?;
        let mut value = [0f32];
        loss.copy_to_host(&mut value)?; // waits for the loss's all-reduce
        losses.push(value[0] / ranks as f32);
    }
    Ok(RankResult {
        params: parameters_to_host(&model.layers)?,
        losses,
    })
}

/// Mode 2: one thread per device of this process.
fn train_threads(devices: &[Device], task: &Task) -> ascendcl::Result<Vec<RankResult>> {
    let comms = Communicator::init_all(devices)?;
    std::thread::scope(|s| {
        let ranks: Vec<_> = comms
            .iter()
            .map(|comm| s.spawn(move || train_rank(comm.device(), Some(comm), task)))
            .collect();
        ranks
            .into_iter()
            .map(|r| {
                r.join()
                    .unwrap_or_else(|_| Err(invalid("a rank's thread panicked")))
            })
            .collect()
    })
}

/// The child processes of mode 3, killed if still running when dropped, and
/// their directory, removed.
struct Ranks {
    dir: PathBuf,
    children: Vec<Child>,
}

impl Drop for Ranks {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Mode 3: one process per rank (this program again, with `--child`).
fn train_processes(ranks: usize) -> ascendcl::Result<Vec<RankResult>> {
    let dir = std::env::temp_dir().join(format!("train_data_parallel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| invalid(format!("{}: {e}", dir.display())))?;
    let exe = std::env::current_exe().map_err(|e| invalid(format!("own executable: {e}")))?;
    let mut group = Ranks {
        dir: dir.clone(),
        children: Vec::new(),
    };
    for rank in 0..ranks {
        let child = Command::new(&exe)
            .args(["--child", "--rank", &rank.to_string()])
            .args(["--ranks", &ranks.to_string()])
            .arg("--dir")
            .arg(&dir)
            .spawn()
            .map_err(|e| invalid(format!("spawning rank {rank}: {e}")))?;
        group.children.push(child);
    }
    let start = Instant::now();
    let mut finished = vec![false; ranks];
    while finished.iter().any(|f| !f) {
        for (rank, child) in group.children.iter_mut().enumerate() {
            if finished[rank] {
                continue;
            }
            if let Some(status) = child.try_wait().map_err(|e| invalid(e.to_string()))? {
                if !status.success() {
                    return Err(invalid(format!("rank {rank}'s process failed: {status}")));
                }
                finished[rank] = true;
            }
        }
        if start.elapsed() > PROCESS_TIMEOUT {
            return Err(invalid(format!(
                "the rank processes did not finish within {PROCESS_TIMEOUT:?}"
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    (0..ranks)
        .map(|rank| read_result(&dir.join(format!("rank-{rank}.bin"))))
        .collect()
}

/// A child of mode 3: rank `--rank` of `--ranks`, rendezvous in `--dir`.
fn child(args: &[String]) -> ascendcl::Result<()> {
    let rank: usize = flag(args, "--rank")?.ok_or_else(|| invalid("--rank"))?;
    let ranks: usize = flag(args, "--ranks")?.ok_or_else(|| invalid("--ranks"))?;
    let dir: PathBuf = flag(args, "--dir")?.ok_or_else(|| invalid("--dir"))?;
    let (rt, _) = ascendcl_examples::runtime()?;
    let device = Device::open(&rt, rank as u32)?;
    let root_path = dir.join("root_info");
    let root = if rank == 0 {
        let root = RootInfo::new(&device)?;
        // Written whole, then renamed: the others never read half a file.
        let partial = dir.join("root_info.partial");
        std::fs::write(&partial, root.as_bytes()).map_err(|e| invalid(e.to_string()))?;
        std::fs::rename(&partial, &root_path).map_err(|e| invalid(e.to_string()))?;
        root
    } else {
        let start = Instant::now();
        loop {
            if let Ok(bytes) = std::fs::read(&root_path) {
                break RootInfo::from_bytes(&bytes)?;
            }
            if start.elapsed() > PROCESS_TIMEOUT {
                return Err(invalid("rank 0's root info never appeared"));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    let comm = Communicator::init_root_info(&device, &root, ranks as u32, rank as u32)?;
    let result = train_rank(&device, Some(&comm), &Task::generate())?;
    comm.destroy()?;
    write_result(&dir.join(format!("rank-{rank}.bin")), &result)
}

/// `[params count u32][losses count u32][params f32…][losses f32…]`, LE.
fn write_result(path: &Path, r: &RankResult) -> ascendcl::Result<()> {
    let mut bytes = Vec::new();
    for len in [r.params.len(), r.losses.len()] {
        bytes.extend((len as u32).to_le_bytes());
    }
    for v in r.params.iter().chain(&r.losses) {
        bytes.extend(v.to_le_bytes());
    }
    std::fs::write(path, bytes).map_err(|e| invalid(format!("{}: {e}", path.display())))
}

fn read_result(path: &Path) -> ascendcl::Result<RankResult> {
    let bytes = std::fs::read(path).map_err(|e| invalid(format!("{}: {e}", path.display())))?;
    let word = |i: usize| -> Option<[u8; 4]> { bytes.get(i * 4..i * 4 + 4)?.try_into().ok() };
    let bad = || invalid(format!("{}: truncated", path.display()));
    let params = u32::from_le_bytes(word(0).ok_or_else(bad)?) as usize;
    let losses = u32::from_le_bytes(word(1).ok_or_else(bad)?) as usize;
    let values = (2..2 + params + losses)
        .map(|i| word(i).map(f32::from_le_bytes).ok_or_else(bad))
        .collect::<ascendcl::Result<Vec<f32>>>()?;
    Ok(RankResult {
        params: values[..params].to_vec(),
        losses: values[params..].to_vec(),
    })
}

/// Largest `|a - b| / |b|` over the elements, with `|b|` floored at 1e-3
/// (a few parameters sit near zero, where only an absolute bound means much).
fn max_relative(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).abs() / f64::from(y).abs().max(1e-3))
        .fold(0.0, f64::max)
}

/// Checks one mode's ranks; prints a line and returns whether they pass.
fn check(mode: &str, ranks: &[RankResult], single: &RankResult, reference: &Reference) -> bool {
    let identical = ranks.iter().all(|r| {
        r.params.len() == ranks[0].params.len()
            && r.params
                .iter()
                .zip(&ranks[0].params)
                .all(|(a, b)| a.to_bits() == b.to_bits())
    });
    let relative = max_relative(&ranks[0].params, &single.params);
    let absolute = ranks[0]
        .params
        .iter()
        .zip(&single.params)
        .map(|(&a, &b)| (f64::from(a) - f64::from(b)).abs())
        .fold(0.0, f64::max);
    let losses_match = ranks[0].losses.len() == reference.losses.len()
        && ranks[0]
            .losses
            .iter()
            .zip(&reference.losses)
            .all(|(&ours, &theirs)| Reference::loss_matches(f64::from(ours), theirs));
    let pass = identical && relative <= 1e-5 && losses_match;
    println!(
        "{mode}: {} ranks; weights bit-identical across ranks: {identical}; largest relative \
         difference from one device on the full batch: {relative:.2e} (limit 1e-5; absolute \
         {absolute:.2e}); every step's loss matches PyTorch's: {losses_match} -> {}",
        ranks.len(),
        if pass { "PASS" } else { "FAIL" }
    );
    pass
}

/// `--launcher env`: one rank of a job started from outside.
fn launched() -> ascendcl::Result<bool> {
    let (rt, backend) = ascendcl_examples::runtime()?;
    // A rank table when RANK_TABLE_FILE is set, else torchrun's or Slurm's variables.
    let how = match std::env::var("RANK_TABLE_FILE") {
        Ok(_) => "a rank table".to_string(),
        Err(_) => format!(
            "{:?} variables",
            ascendcl::hccl::LaunchEnv::from_env()?.convention
        ),
    };
    let (device, comm) = ascendcl::hccl::join_from_env(&rt)?;
    if BATCH % comm.size() as usize != 0 {
        return Err(invalid(format!(
            "a world of {} ranks does not divide the batch of {BATCH}",
            comm.size()
        )));
    }
    let result = train_rank(&device, Some(&comm), &Task::generate())?;
    // Rank 0's weights, broadcast, against this rank's: bit for bit.
    let ctx = device.default_context();
    let stream = Stream::new(&ctx)?;
    let mut zero = DeviceBuffer::from_host(&ctx, &result.params)?;
    comm.broadcast(&mut zero, 0, &stream)?.wait()?;
    let identical = zero
        .to_vec()?
        .iter()
        .zip(&result.params)
        .all(|(a, b)| a.to_bits() == b.to_bits());
    let reference = Reference::read().map_err(invalid)?;
    let losses_match = result
        .losses
        .iter()
        .zip(&reference.losses)
        .all(|(&ours, &theirs)| Reference::loss_matches(f64::from(ours), theirs));
    println!(
        "rank {} of {} ({how}, device {}, {backend}): weights bit-identical to rank 0's: \
         {identical}; every loss PyTorch's: {losses_match}",
        comm.rank(),
        comm.size(),
        device.id()
    );
    Ok(identical && losses_match)
}

fn run(args: &[String]) -> ascendcl::Result<bool> {
    if flag::<String>(args, "--launcher")?.as_deref() == Some("env") {
        return launched();
    }
    if flag::<String>(args, "--model")?.as_deref() == Some("gpt") {
        let (rt, backend) = ascendcl_examples::runtime()?;
        println!("backend: {backend}");
        let batch = ascendcl_examples::gpt::B;
        let available = rt.device_count()? as usize;
        let ranks = match flag::<usize>(args, "--ranks")? {
            Some(n)
                if n == 0
                    || n > available
                    || ascendcl_examples::gpt::data_parallel::sequences(n).is_err() =>
            {
                return Err(invalid(format!(
                    "--ranks {n}: want a divisor or a multiple of the GPT's batch ({batch}), no more than the {available} devices"
                )));
            }
            Some(n) => n,
            None => (0..=3)
                .rev()
                .map(|p| 1 << p)
                .find(|&n| n <= available)
                .unwrap_or(1),
        };
        return ascendcl_examples::gpt::data_parallel::run(&rt, ranks);
    }
    let mode: String = flag(args, "--mode")?.unwrap_or_else(|| "both".into());
    if !["threads", "processes", "both"].contains(&mode.as_str()) {
        return Err(invalid(format!(
            "--mode {mode}: want threads, processes or both"
        )));
    }
    let (rt, backend) = ascendcl_examples::runtime()?;
    println!("backend: {backend}");
    let available = rt.device_count()? as usize;
    let ranks = match flag::<usize>(args, "--ranks")? {
        Some(n) if n == 0 || BATCH % n != 0 || n > available => {
            return Err(invalid(format!(
                "--ranks {n}: want a divisor of the batch ({BATCH}) no larger than the {available} devices present"
            )));
        }
        Some(n) => n,
        // 8, or the largest power of two of the devices present.
        None => (0..=3)
            .rev()
            .map(|p| 1 << p)
            .find(|&n| n <= available)
            .unwrap_or(1),
    };
    let task = Task::generate();
    let reference = Reference::read().map_err(invalid)?;
    let device0 = Device::open(&rt, 0)?;
    let single = train_rank(&device0, None, &task)?;
    println!(
        "one device, batch {BATCH}: final loss {:.9}",
        single.losses.last().copied().unwrap_or(f32::NAN)
    );
    let mut pass = true;
    let mut results = Vec::new();
    if mode != "processes" {
        let devices = (0..ranks as u32)
            .map(|i| Device::open(&rt, i))
            .collect::<ascendcl::Result<Vec<_>>>()?;
        let threads = train_threads(&devices, &task)?;
        pass &= check("threads (HcclCommInitAll)", &threads, &single, &reference);
        results.push(threads);
    }
    if mode != "threads" {
        let processes = train_processes(ranks)?;
        pass &= check("processes (root info)", &processes, &single, &reference);
        results.push(processes);
    }
    if let [threads, processes] = results.as_slice() {
        let same = threads[0].params == processes[0].params;
        println!("threads and processes end with the same weights: {same}");
    }
    println!(
        "{} data-parallel training on {ranks} ranks, shard {} of batch {BATCH}",
        if pass { "PASS" } else { "FAIL" },
        BATCH / ranks
    );
    Ok(pass)
}
