//! Which rank this process is, read from the launcher's environment: the
//! torchrun convention or Slurm's, and `ASCEND_RT_VISIBLE_DEVICES`.
//!
//! * **torchrun** (and any launcher that sets the same variables): `RANK`,
//!   `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT`.
//! * **Slurm** (`srun`): `SLURM_PROCID`, `SLURM_NTASKS`, `SLURM_LOCALID`;
//!   the master is `MASTER_ADDR` if set, else the first host of
//!   `SLURM_STEP_NODELIST` (or `SLURM_JOB_NODELIST`), and the port
//!   `MASTER_PORT`, else 29500 (torchrun's default).
//!
//! The torchrun variables win when both sets are present (torchrun started
//! under Slurm sets its own).

use crate::error::{Error, Result};

/// Which convention the variables followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Convention {
    /// `RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT`.
    Torchrun,
    /// `SLURM_PROCID`, `SLURM_NTASKS`, `SLURM_LOCALID`, the node list.
    Slurm,
}

/// This process's place in the job, as its launcher described it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchEnv {
    /// The convention read.
    pub convention: Convention,
    /// This process's rank, `0..world_size`.
    pub rank: u32,
    /// How many ranks the job has.
    pub world_size: u32,
    /// The rank among this node's ranks: the device it drives.
    pub local_rank: u32,
    /// Where rank 0 serves the root info: its host.
    pub master_addr: String,
    /// The launcher's port (torchrun's own store listens there); the root
    /// info is served on the next one, see [`LaunchEnv::root_info_port`].
    pub master_port: u16,
}

/// torchrun's default `MASTER_PORT`.
pub const DEFAULT_MASTER_PORT: u16 = 29500;

fn number<T: std::str::FromStr>(name: &str, value: &str) -> Result<T> {
    value.trim().parse().map_err(|_| {
        Error::invalid(format!(
            "{name}={value:?} is not a number: the launcher's variable must be a non-negative integer"
        ))
    })
}

/// The first host of a Slurm node list: `gpu[01-04,07],cpu1` gives
/// `gpu01`, `a,b` gives `a`.
pub fn first_slurm_host(list: &str) -> Option<String> {
    let list = list.trim();
    let mut depth = 0usize;
    let end = list
        .char_indices()
        .find(|&(_, c)| {
            match c {
                '[' => depth += 1,
                ']' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => return true,
                _ => {}
            }
            false
        })
        .map_or(list.len(), |(i, _)| i);
    let first = &list[..end];
    match first.find('[') {
        None => (!first.is_empty()).then(|| first.to_string()),
        Some(open) => {
            let inside = first[open + 1..].trim_end_matches(']');
            let low = inside.split(',').next()?.split('-').next()?;
            (!low.is_empty()).then(|| format!("{}{low}", &first[..open]))
        }
    }
}

/// The local rank the variables give (for the per-node check).
fn local_rank_of(convention: Convention, var: &impl Fn(&str) -> Option<String>) -> Result<u32> {
    let (name, fallback) = match convention {
        Convention::Torchrun => ("LOCAL_RANK", "RANK"),
        Convention::Slurm => ("SLURM_LOCALID", "SLURM_PROCID"),
    };
    let value = var(name).or_else(|| var(fallback)).unwrap_or_default();
    number(name, &value)
}

impl LaunchEnv {
    /// Reads the process's environment.
    pub fn from_env() -> Result<LaunchEnv> {
        LaunchEnv::from_vars(|name| std::env::var(name).ok())
    }

    /// Reads the variables `var` gives (for tests and for launchers that
    /// pass them otherwise).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<LaunchEnv> {
        let (convention, rank, world, local) = if let Some(rank) = var("RANK") {
            let world = var("WORLD_SIZE").ok_or_else(|| {
                Error::invalid(
                    "RANK is set but WORLD_SIZE is not: start the ranks with torchrun, or set both",
                )
            })?;
            let local = var("LOCAL_RANK").unwrap_or_else(|| rank.clone());
            (Convention::Torchrun, rank, world, local)
        } else if let Some(rank) = var("SLURM_PROCID") {
            let world = var("SLURM_NTASKS").ok_or_else(|| {
                Error::invalid(
                    "SLURM_PROCID is set but SLURM_NTASKS is not: start the ranks with srun",
                )
            })?;
            let local = var("SLURM_LOCALID").unwrap_or_else(|| rank.clone());
            (Convention::Slurm, rank, world, local)
        } else {
            return Err(Error::invalid(
                "no launcher found: set RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT \
                 (torchrun), or run under srun (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID)",
            ));
        };
        let (rank, world_size, local_rank): (u32, u32, u32) = match convention {
            Convention::Torchrun => (
                number("RANK", &rank)?,
                number("WORLD_SIZE", &world)?,
                number("LOCAL_RANK", &local)?,
            ),
            Convention::Slurm => (
                number("SLURM_PROCID", &rank)?,
                number("SLURM_NTASKS", &world)?,
                number("SLURM_LOCALID", &local)?,
            ),
        };
        // Ascend servers take 1, 2, 4 or 8 devices per job (HCCL's
        // allocation rule): a launcher that says how many ranks this node
        // runs is held to it.
        let per_node = match convention {
            Convention::Torchrun => var("LOCAL_WORLD_SIZE").map(|v| ("LOCAL_WORLD_SIZE", v)),
            Convention::Slurm => var("SLURM_NTASKS_PER_NODE").map(|v| ("SLURM_NTASKS_PER_NODE", v)),
        };
        if let Some((name, value)) = per_node {
            let n: u32 = number(name, &value)?;
            if ![1, 2, 4, 8].contains(&n) {
                return Err(Error::invalid(format!(
                    "{name}={n}: an Ascend server takes 1, 2, 4 or 8 ranks of one job"
                )));
            }
            if local_rank_of(convention, &var)? >= n {
                return Err(Error::invalid(format!(
                    "the local rank is not below {name}={n}"
                )));
            }
        }
        if world_size == 0 || rank >= world_size {
            return Err(Error::invalid(format!(
                "rank {rank} of a world of {world_size}: the rank must be below the world size"
            )));
        }
        let master_addr = match (var("MASTER_ADDR"), convention) {
            (Some(addr), _) => addr,
            (None, Convention::Slurm) => var("SLURM_STEP_NODELIST")
                .or_else(|| var("SLURM_JOB_NODELIST"))
                .and_then(|l| first_slurm_host(&l))
                .ok_or_else(|| {
                    Error::invalid("under Slurm without MASTER_ADDR, the node list names no host")
                })?,
            (None, Convention::Torchrun) => {
                return Err(Error::invalid(
                    "MASTER_ADDR is not set: the host of rank 0, where it serves the root info",
                ));
            }
        };
        let master_port = match var("MASTER_PORT") {
            Some(port) => number("MASTER_PORT", &port)?,
            None if convention == Convention::Slurm => DEFAULT_MASTER_PORT,
            None => {
                return Err(Error::invalid(
                    "MASTER_PORT is not set: rank 0 serves the root info on the port after it",
                ));
            }
        };
        Ok(LaunchEnv {
            convention,
            rank,
            world_size,
            local_rank,
            master_addr,
            master_port,
        })
    }

    /// The port rank 0 serves the root info on: `ASCENDCL_ROOT_INFO_PORT`
    /// if set, else `MASTER_PORT + 1`. Not `MASTER_PORT` itself: when
    /// torchrun is the launcher its own store listens there (rank 0's
    /// agent), and HCCL's own listeners use 60000–60015
    /// (`HCCL_IF_BASE_PORT`), far from torchrun's 29500.
    pub fn root_info_port(&self) -> Result<u16> {
        match std::env::var("ASCENDCL_ROOT_INFO_PORT") {
            Ok(port) => number("ASCENDCL_ROOT_INFO_PORT", &port),
            Err(_) => self.master_port.checked_add(1).ok_or_else(|| {
                Error::invalid("MASTER_PORT is 65535: there is no next port for the root info")
            }),
        }
    }
}

/// The device ids `ASCEND_RT_VISIBLE_DEVICES` makes visible, as CANN reads
/// it: comma-separated logical ids, ascending only, parsing stopping at
/// the first bad character or id (`"1, 2,3"` gives `[1]`; CANN 8.5's
/// environment variable page). `None` when it is unset or empty.
pub fn visible_devices(value: Option<&str>) -> Option<Vec<u32>> {
    let value = value?;
    let mut ids = Vec::new();
    for part in value.split(',') {
        let Ok(id) = part.parse::<u32>() else { break };
        if ids.last().is_some_and(|&last| id <= last) {
            break;
        }
        ids.push(id);
    }
    (!ids.is_empty()).then_some(ids)
}

/// The device (as the runtime numbers it) that local rank `local_rank`
/// drives: the runtime renumbers the visible devices from 0, so it is the
/// local rank itself, checked against what is visible.
pub fn local_device(local_rank: u32, visible: Option<&[u32]>, device_count: u32) -> Result<u32> {
    let count = visible.map_or(device_count, |v| v.len() as u32);
    if local_rank >= count {
        return Err(Error::invalid(format!(
            "local rank {local_rank} needs device {local_rank}, but {count} {} visible{}",
            if count == 1 { "is" } else { "are" },
            match visible {
                Some(v) => format!(" (ASCEND_RT_VISIBLE_DEVICES: {v:?})"),
                None => String::new(),
            }
        )));
    }
    Ok(local_rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn torchrun_variables_give_rank_world_local_rank_and_master() {
        let env = LaunchEnv::from_vars(vars(&[
            ("RANK", "5"),
            ("WORLD_SIZE", "8"),
            ("LOCAL_RANK", "1"),
            ("MASTER_ADDR", "10.0.0.1"),
            ("MASTER_PORT", "29500"),
        ]))
        .unwrap();
        assert_eq!(
            (env.convention, env.rank, env.world_size, env.local_rank),
            (Convention::Torchrun, 5, 8, 1)
        );
        assert_eq!(
            (env.master_addr.as_str(), env.master_port),
            ("10.0.0.1", 29500)
        );
    }

    #[test]
    fn slurm_variables_take_the_first_node_and_the_default_port() {
        let env = LaunchEnv::from_vars(vars(&[
            ("SLURM_PROCID", "3"),
            ("SLURM_NTASKS", "16"),
            ("SLURM_LOCALID", "3"),
            ("SLURM_STEP_NODELIST", "npu[07-08,11],login1"),
        ]))
        .unwrap();
        assert_eq!(env.convention, Convention::Slurm);
        assert_eq!(
            (env.master_addr.as_str(), env.master_port),
            ("npu07", 29500)
        );
    }

    #[test]
    fn missing_or_inconsistent_variables_are_errors_that_name_them() {
        let error =
            |pairs: &[(&str, &str)]| LaunchEnv::from_vars(vars(pairs)).unwrap_err().to_string();
        assert!(error(&[]).contains("no launcher"));
        assert!(error(&[("RANK", "0")]).contains("WORLD_SIZE"));
        assert!(error(&[("RANK", "8"), ("WORLD_SIZE", "8")]).contains("below the world size"));
        assert!(error(&[("RANK", "x"), ("WORLD_SIZE", "8")]).contains("RANK=\"x\""));
        let no_master = [("RANK", "0"), ("WORLD_SIZE", "2")];
        assert!(error(&no_master).contains("MASTER_ADDR"));
        let six = [
            ("RANK", "0"),
            ("WORLD_SIZE", "12"),
            ("LOCAL_WORLD_SIZE", "6"),
        ];
        assert!(error(&six).contains("1, 2, 4 or 8"));
    }

    #[test]
    fn slurm_node_lists_give_their_first_host() {
        assert_eq!(first_slurm_host("a,b").as_deref(), Some("a"));
        assert_eq!(
            first_slurm_host("gpu[01-04,07],cpu1").as_deref(),
            Some("gpu01")
        );
        assert_eq!(first_slurm_host("node5").as_deref(), Some("node5"));
        assert_eq!(first_slurm_host(""), None);
    }

    #[test]
    fn visible_devices_parse_as_cann_does_ascending_and_stopping_at_the_first_bad_id() {
        assert_eq!(visible_devices(Some("4,5,6,7")), Some(vec![4, 5, 6, 7]));
        assert_eq!(visible_devices(Some("1, 2,3")), Some(vec![1]));
        assert_eq!(visible_devices(Some("3,1")), Some(vec![3]));
        assert_eq!(visible_devices(Some("")), None);
        assert_eq!(visible_devices(None), None);
        assert_eq!(local_device(1, Some(&[4, 5]), 8).unwrap(), 1);
        assert!(
            local_device(2, Some(&[4, 5]), 8)
                .unwrap_err()
                .to_string()
                .contains("2 are visible")
        );
    }
}
