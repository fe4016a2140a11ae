//! Joining a job its launcher started ([`join`]): rank 0 makes the root
//! info and serves it over TCP; every other rank fetches it, then all of
//! them initialise their communicator from it (`HcclCommInitRootInfo`).
//!
//! The exchange, on `MASTER_ADDR` at [`LaunchEnv::root_info_port`]: a rank
//! connects (retrying until the deadline while rank 0 is not up yet) and
//! sends `ACLRDV1\0`, its rank and its world size (u32 little-endian); rank
//! 0 answers `0` and the root info (u32 length, bytes), or `1` and a
//! message (u32 length, UTF-8) when the world sizes disagree or the rank
//! is out of range or came twice. Rank 0 serves until every other rank has
//! fetched, or the deadline, and names the ranks that never came.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::device::Device;
use crate::error::{Error, Result};
use crate::hccl::launch_env::{LaunchEnv, local_device, visible_devices};
use crate::hccl::{Communicator, RootInfo};
use crate::runtime::Runtime;

const MAGIC: &[u8; 8] = b"ACLRDV1\0";

/// How long ranks wait for each other: `HCCL_CONNECT_TIMEOUT` seconds if
/// set (HCCL's own variable for the same wait), else 120 s.
pub fn connect_timeout() -> Duration {
    std::env::var("HCCL_CONNECT_TIMEOUT")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map_or(Duration::from_secs(120), Duration::from_secs)
}

fn io_error(what: String) -> impl FnOnce(std::io::Error) -> Error {
    move |e| Error::InvalidState(format!("{what}: {e}"))
}

fn read_u32(s: &mut TcpStream) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    s.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn send(s: &mut TcpStream, status: u8, payload: &[u8]) -> std::io::Result<()> {
    s.write_all(&[status])?;
    s.write_all(&(payload.len() as u32).to_le_bytes())?;
    s.write_all(payload)
}

/// Rank 0's side: serves `root` to the other `world - 1` ranks.
fn serve(listener: TcpListener, root: &[u8], world: u32, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    listener
        .set_nonblocking(true)
        .map_err(io_error("the root info listener".into()))?;
    let mut served = vec![false; world as usize];
    served[0] = true;
    let mut refused: Option<String> = None;
    while served.iter().any(|s| !s) {
        match listener.accept() {
            Ok((mut stream, peer)) => {
                let _ = stream.set_nonblocking(false);
                let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
                let mut magic = [0u8; 8];
                let hello = stream
                    .read_exact(&mut magic)
                    .and_then(|()| Ok((read_u32(&mut stream)?, read_u32(&mut stream)?)));
                let Ok((rank, their_world)) = hello else {
                    continue;
                };
                if &magic != MAGIC {
                    continue; // not one of ours
                }
                let problem = if their_world != world {
                    Some(format!(
                        "rank {rank} ({peer}) says the world has {their_world} ranks; rank 0 has {world}"
                    ))
                } else if rank == 0 || rank >= world {
                    Some(format!(
                        "rank {rank} ({peer}) is not a rank of a world of {world}"
                    ))
                } else if served[rank as usize] {
                    Some(format!("rank {rank} came twice (the second from {peer})"))
                } else {
                    None
                };
                match problem {
                    None => {
                        if send(&mut stream, 0, root).is_ok() {
                            served[rank as usize] = true;
                        }
                    }
                    Some(message) => {
                        let _ = send(&mut stream, 1, message.as_bytes());
                        refused.get_or_insert(message);
                    }
                }
                if let Some(message) = &refused {
                    return Err(Error::InvalidState(format!(
                        "the job's ranks disagree: {message}"
                    )));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let missing: Vec<usize> = (0..world as usize).filter(|&r| !served[r]).collect();
                    return Err(Error::InvalidState(format!(
                        "rank(s) {missing:?} never fetched the root info within {timeout:?}: not \
                         started, or started with another MASTER_ADDR or MASTER_PORT"
                    )));
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => return Err(io_error("accepting a rank".into())(e)),
        }
    }
    Ok(())
}

/// Another rank's side: fetches the root info from rank 0.
fn fetch(addr: &str, port: u16, rank: u32, world: u32, timeout: Duration) -> Result<RootInfo> {
    let deadline = Instant::now() + timeout;
    let target = format!("{addr}:{port}");
    let mut last = String::from("nothing answered");
    loop {
        let addrs: Vec<_> = target
            .to_socket_addrs()
            .map_err(io_error(format!("resolving MASTER_ADDR {target}")))?
            .collect();
        for a in &addrs {
            let left = deadline.saturating_duration_since(Instant::now());
            match TcpStream::connect_timeout(a, left.max(Duration::from_millis(1))) {
                Ok(mut s) => {
                    let _ = s.set_read_timeout(Some(left.max(Duration::from_millis(100))));
                    let talk = (|| -> std::io::Result<(u8, Vec<u8>)> {
                        s.write_all(MAGIC)?;
                        s.write_all(&rank.to_le_bytes())?;
                        s.write_all(&world.to_le_bytes())?;
                        let mut status = [0u8; 1];
                        s.read_exact(&mut status)?;
                        let len = read_u32(&mut s)? as usize;
                        let mut payload = vec![0u8; len.min(1 << 20)];
                        s.read_exact(&mut payload)?;
                        Ok((status[0], payload))
                    })();
                    match talk {
                        Ok((0, bytes)) => return RootInfo::from_bytes(&bytes),
                        Ok((_, message)) => {
                            return Err(Error::InvalidState(format!(
                                "rank 0 refused rank {rank}: {}",
                                String::from_utf8_lossy(&message)
                            )));
                        }
                        Err(e) => last = e.to_string(),
                    }
                }
                Err(e) => last = e.to_string(),
            }
        }
        if Instant::now() >= deadline {
            return Err(Error::InvalidState(format!(
                "rank {rank} could not fetch the root info from rank 0 at {target} within \
                 {timeout:?}: {last}"
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// This process's device and communicator in the job its launcher started
/// (torchrun or Slurm variables, see [`LaunchEnv`]): the device is the
/// local rank's (after `ASCEND_RT_VISIBLE_DEVICES`), the root info comes
/// from rank 0 over TCP, and every rank waits at most `timeout` for the
/// others ([`connect_timeout`] is HCCL's). Errors name the rank that did
/// not arrive, the address that did not answer, or the world sizes that
/// disagree.
pub fn join(rt: &Runtime, env: &LaunchEnv, timeout: Duration) -> Result<(Device, Communicator)> {
    let visible_var = std::env::var("ASCEND_RT_VISIBLE_DEVICES").ok();
    let visible = visible_devices(visible_var.as_deref());
    let index = local_device(env.local_rank, visible.as_deref(), rt.device_count()?)?;
    let device = Device::open(rt, index)?;
    let port = env.root_info_port()?;
    let root = if env.rank == 0 {
        let root = RootInfo::new(&device)?;
        let listener = TcpListener::bind(("0.0.0.0", port)).map_err(io_error(format!(
            "rank 0 serving the root info on port {port}"
        )))?;
        if env.world_size > 1 {
            serve(listener, root.as_bytes(), env.world_size, timeout)?;
        }
        root
    } else {
        fetch(&env.master_addr, port, env.rank, env.world_size, timeout)?
    };
    let comm = Communicator::init_root_info(&device, &root, env.world_size, env.rank)?;
    Ok((device, comm))
}
