//! Rank tables (`RANK_TABLE_FILE`): a job's servers, devices and ranks in
//! one JSON file every rank reads, and `HcclCommInitClusterInfo` on it.
//!
//! The rules checked before HCCL reads the table (hicann/hccl
//! `docs/rank_table_config_a2.md`, capture-kernels-dvpp-facts.md §4):
//! `"version": "1.0"`; `server_count` equal to the servers listed; every
//! device a `device_id` and a `rank_id` (strings of integers); rank ids
//! global from 0, each once, contiguous within a server and never
//! interleaved across servers (server k's ranks all below server k+1's);
//! no device twice in one server; 1, 2, 4 or 8 devices per server (the only
//! allocations Ascend servers take). An error names the entry.

use std::ffi::CString;
use std::path::Path;

use ascendcl_sys::HcclComm;

use crate::device::Device;
use crate::error::{Error, Result};
use crate::hccl::Communicator;
use crate::hccl::json::{self, Json};
use crate::hccl::launch_env::visible_devices;
use crate::runtime::Runtime;

/// One device of a rank table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankTableDevice {
    /// The server's `server_id`.
    pub server_id: String,
    /// The physical device id on that server.
    pub device_id: u32,
    /// The global rank.
    pub rank_id: u32,
}

/// A validated rank table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankTable {
    /// Every device, in rank order.
    pub devices: Vec<RankTableDevice>,
    /// Servers listed.
    pub servers: usize,
}

fn int_field(entry: &Json, key: &str, at: &str) -> Result<u32> {
    let value = entry
        .get(key)
        .ok_or_else(|| Error::invalid(format!("{at}: no \"{key}\"")))?;
    let text = match value {
        Json::String(s) => s.clone(),
        Json::Number(n) => n.to_string(),
        _ => return Err(Error::invalid(format!("{at}: \"{key}\" is not an integer"))),
    };
    text.parse().map_err(|_| {
        Error::invalid(format!(
            "{at}: \"{key}\" is {text:?}, not a non-negative integer"
        ))
    })
}

impl RankTable {
    /// Parses and validates a rank table's text.
    pub fn parse(text: &str) -> Result<RankTable> {
        let root = json::parse(text)
            .map_err(|e| Error::invalid(format!("the rank table is not JSON: {e}")))?;
        match root.get("version").and_then(Json::as_str) {
            Some("1.0") => {}
            other => {
                return Err(Error::invalid(format!(
                    "the rank table's \"version\" is {other:?}: only \"1.0\" is read"
                )));
            }
        }
        let servers = root
            .get("server_list")
            .and_then(Json::as_array)
            .ok_or_else(|| Error::invalid("the rank table has no \"server_list\" array"))?;
        if root.get("server_count").is_some() {
            let count = int_field(&root, "server_count", "the rank table")?;
            if count as usize != servers.len() {
                return Err(Error::invalid(format!(
                    "the rank table's \"server_count\" is {count} but \"server_list\" has {}",
                    servers.len()
                )));
            }
        }
        let mut devices = Vec::new();
        for (s, server) in servers.iter().enumerate() {
            let at = format!("server_list[{s}]");
            let server_id = server
                .get("server_id")
                .and_then(Json::as_str)
                .ok_or_else(|| Error::invalid(format!("{at}: no \"server_id\"")))?
                .to_string();
            let list = server
                .get("device")
                .and_then(Json::as_array)
                .ok_or_else(|| Error::invalid(format!("{at}: no \"device\" array")))?;
            if ![1, 2, 4, 8].contains(&list.len()) {
                return Err(Error::invalid(format!(
                    "{at} ({server_id}) lists {} devices: a server takes 1, 2, 4 or 8",
                    list.len()
                )));
            }
            let first = devices.len();
            for (d, entry) in list.iter().enumerate() {
                let at = format!("{at}.device[{d}]");
                let device_id = int_field(entry, "device_id", &at)?;
                let rank_id = int_field(entry, "rank_id", &at)?;
                if devices[first..]
                    .iter()
                    .any(|x: &RankTableDevice| x.device_id == device_id)
                {
                    return Err(Error::invalid(format!(
                        "{at}: device {device_id} is listed twice in server {server_id}"
                    )));
                }
                devices.push(RankTableDevice {
                    server_id: server_id.clone(),
                    device_id,
                    rank_id,
                });
            }
            // Contiguous within the server, above every earlier server's.
            let mut ranks: Vec<u32> = devices[first..].iter().map(|x| x.rank_id).collect();
            ranks.sort_unstable();
            let expected = first as u32;
            if ranks.first() != Some(&expected) || ranks.windows(2).any(|w| w[1] != w[0] + 1) {
                return Err(Error::invalid(format!(
                    "{at} ({server_id}): rank ids {ranks:?}, but this server's must be {expected}..{} \
                     (global from 0, contiguous per server, never interleaved across servers)",
                    expected as usize + ranks.len()
                )));
            }
        }
        devices.sort_by_key(|x| x.rank_id);
        Ok(RankTable {
            servers: servers.len(),
            devices,
        })
    }

    /// Reads and validates the rank table at `path`.
    pub fn read(path: impl AsRef<Path>) -> Result<RankTable> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::invalid(format!("the rank table {}: {e}", path.display())))?;
        RankTable::parse(&text).map_err(|e| match e {
            Error::InvalidArgument(m) => Error::InvalidArgument(format!("{}: {m}", path.display())),
            other => other,
        })
    }
}

/// This process's device and communicator from the rank table at `path`
/// (validated first, see the module docs), as rank `rank`
/// (`HcclCommInitClusterInfo`): the device is the rank's `device_id`, after
/// `ASCEND_RT_VISIBLE_DEVICES` (its position in the visible list). Read
/// from the environment by [`join_from_env`].
pub fn join_rank_table(rt: &Runtime, path: &Path, rank: u32) -> Result<(Device, Communicator)> {
    join_table(rt, path, &RankTable::read(path)?, rank)
}

/// [`join_rank_table`] with the table `path` holds, read already.
fn join_table(
    rt: &Runtime,
    path: &Path,
    table: &RankTable,
    rank: u32,
) -> Result<(Device, Communicator)> {
    let n = table.devices.len() as u32;
    let entry = table.devices.get(rank as usize).ok_or_else(|| {
        Error::invalid(format!("rank {rank} is not in the rank table ({n} ranks)"))
    })?;
    let visible_var = std::env::var("ASCEND_RT_VISIBLE_DEVICES").ok();
    let index = match visible_devices(visible_var.as_deref()) {
        None => entry.device_id,
        Some(visible) => visible
            .iter()
            .position(|&d| d == entry.device_id)
            .map(|i| i as u32)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "rank {rank}'s device {} is not in ASCEND_RT_VISIBLE_DEVICES {visible:?}",
                    entry.device_id
                ))
            })?,
    };
    let device = Device::open(rt, index)?;
    let hccl = super::library(&device)?;
    device.default_context().bind()?;
    let c_path = CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| Error::invalid("the rank table's path holds a NUL byte"))?;
    let mut raw: HcclComm = std::ptr::null_mut();
    // SAFETY: a NUL-terminated path, a valid out-pointer; the device's
    // context is current, which binds the comm to it.
    let status = unsafe { hccl.HcclCommInitClusterInfo(c_path.as_ptr(), rank, &mut raw) };
    super::check(hccl, "HcclCommInitClusterInfo", status)?;
    let comm = Communicator::adopt(hccl, raw, device.clone(), rank, n)?;
    Ok((device, comm))
}

/// The job's communicator from the environment: with `RANK_TABLE_FILE`
/// set, its rank table as rank `RANK_ID` ([`join_rank_table`]; `RANK_SIZE`,
/// when set, must equal the table's rank count); otherwise torchrun's or
/// Slurm's variables ([`join`](super::join)).
pub fn join_from_env(rt: &Runtime) -> Result<(Device, Communicator)> {
    let Ok(table) = std::env::var("RANK_TABLE_FILE") else {
        let env = super::LaunchEnv::from_env()?;
        return super::join(rt, &env, super::connect_timeout());
    };
    let rank: u32 = std::env::var("RANK_ID")
        .map_err(|_| Error::invalid("RANK_TABLE_FILE is set but RANK_ID is not"))?
        .trim()
        .parse()
        .map_err(|_| Error::invalid("RANK_ID is not a non-negative integer"))?;
    let path = Path::new(&table);
    let parsed = RankTable::read(path)?;
    if let Ok(size) = std::env::var("RANK_SIZE") {
        let listed = parsed.devices.len();
        if size.trim().parse::<usize>().ok() != Some(listed) {
            return Err(Error::invalid(format!(
                "RANK_SIZE is {size} but the rank table {table} lists {listed} ranks"
            )));
        }
    }
    join_table(rt, path, &parsed, rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(servers: &[&[(u32, u32)]]) -> String {
        let list: Vec<String> = servers
            .iter()
            .enumerate()
            .map(|(s, devices)| {
                let d: Vec<String> = devices
                    .iter()
                    .map(|(dev, rank)| {
                        format!(r#"{{"device_id": "{dev}", "device_ip": "192.168.1.{dev}", "rank_id": "{rank}"}}"#)
                    })
                    .collect();
                format!(r#"{{"server_id": "10.0.0.{s}", "device": [{}]}}"#, d.join(", "))
            })
            .collect();
        format!(
            r#"{{"status": "completed", "version": "1.0", "server_count": "{}", "server_list": [{}]}}"#,
            servers.len(),
            list.join(", ")
        )
    }

    #[test]
    fn a_two_server_table_lists_its_ranks_in_order() {
        let t = RankTable::parse(&table(&[&[(0, 0), (1, 1)], &[(0, 2), (1, 3)]])).unwrap();
        assert_eq!(t.servers, 2);
        assert_eq!(
            t.devices.iter().map(|d| d.rank_id).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        assert_eq!(t.devices[2].server_id, "10.0.0.1");
    }

    #[test]
    fn each_broken_rule_is_an_error_naming_the_entry() {
        let e = |t: &str| RankTable::parse(t).unwrap_err().to_string();
        assert!(
            e(&table(&[&[(0, 0), (0, 1)]]))
                .contains("server_list[0].device[1]: device 0 is listed twice")
        );
        assert!(e(&table(&[&[(0, 0), (1, 2)], &[(0, 1), (1, 3)]])).contains("server_list[0]"));
        assert!(e(&table(&[&[(0, 0), (1, 1), (2, 2)]])).contains("1, 2, 4 or 8"));
        assert!(e(&table(&[&[(0, 1), (1, 2)]])).contains("must be 0..2"));
        assert!(e(&table(&[&[(0, 0)]]).replace("\"1.0\"", "\"2.0\"")).contains("version"));
        assert!(
            e(&table(&[&[(0, 0)]]).replace("\"server_count\": \"1\"", "\"server_count\": \"2\""))
                .contains("server_count")
        );
        assert!(
            e(&table(&[&[(0, 0)]]).replace("\"rank_id\": \"0\"", "\"rank_id\": \"x\""))
                .contains("rank_id")
        );
        assert!(e("{").contains("not JSON"));
    }
}
