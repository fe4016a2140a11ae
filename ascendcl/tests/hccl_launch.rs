//! Joining a job from its launcher's variables (`hccl::join`): ranks find
//! rank 0's root info over TCP and form one communicator; a rank with
//! another world size, a rank that never starts and a master that does not
//! answer are typed errors within the timeout, naming what went wrong.
//! Ranks are threads here (one mock device each); `examples/launch_two_nodes.sh`
//! runs them as processes.

mod common;

use std::time::{Duration, Instant};

use ascendcl::hccl::{Convention, LaunchEnv, ReduceOp, join};
use ascendcl::prelude::*;

/// A free port for the root info (the launcher's port is the one before).
fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn env(rank: u32, world: u32, root_port: u16) -> LaunchEnv {
    LaunchEnv {
        convention: Convention::Torchrun,
        rank,
        world_size: world,
        local_rank: rank,
        master_addr: "127.0.0.1".into(),
        master_port: root_port - 1,
    }
}

#[test]
fn four_ranks_from_torchrun_variables_join_one_communicator_and_all_reduce() {
    common::check(|e| {
        let port = free_port();
        let sums = std::thread::scope(|s| {
            let joins: Vec<_> = (0..4u32)
                .map(|rank| {
                    let rt = &e.rt;
                    s.spawn(move || -> ascendcl::Result<Vec<f32>> {
                        let (device, comm) =
                            join(rt, &env(rank, 4, port), Duration::from_secs(30))?;
                        assert_eq!((comm.rank(), comm.size(), device.id()), (rank, 4, rank));
                        let ctx = device.default_context();
                        let stream = Stream::new(&ctx)?;
                        let mut x = DeviceBuffer::from_host(&ctx, &[rank as f32 + 1.0; 3])?;
                        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &stream)?
                            .wait()?;
                        x.to_vec()
                    })
                })
                .collect();
            joins
                .into_iter()
                .map(|j| j.join().expect("no panic"))
                .collect::<ascendcl::Result<Vec<_>>>()
        })?;
        assert!(sums.iter().all(|v| v == &vec![10.0; 3]), "{sums:?}");
        Ok(())
    });
}

#[test]
fn a_rank_with_another_world_size_is_refused_and_rank_0_says_which() {
    common::check(|e| {
        let port = free_port();
        let (zero, one) = std::thread::scope(|s| {
            let rt = &e.rt;
            let zero =
                s.spawn(move || join(rt, &env(0, 2, port), Duration::from_secs(10)).map(drop));
            let one =
                s.spawn(move || join(rt, &env(1, 3, port), Duration::from_secs(10)).map(drop));
            (
                zero.join().expect("no panic"),
                one.join().expect("no panic"),
            )
        });
        let text = |r: ascendcl::Result<()>| r.expect_err("refused").to_string();
        let (zero, one) = (text(zero), text(one));
        assert!(
            zero.contains("disagree") && zero.contains("3 ranks"),
            "{zero}"
        );
        assert!(one.contains("refused rank 1"), "{one}");
        Ok(())
    });
}

#[test]
fn a_rank_that_never_starts_is_named_by_rank_0_within_the_timeout() {
    common::check(|e| {
        let start = Instant::now();
        let error = join(&e.rt, &env(0, 3, free_port()), Duration::from_millis(300))
            .map(drop)
            .expect_err("ranks 1 and 2 never come");
        assert!(error.to_string().contains("[1, 2]"), "{error}");
        assert!(start.elapsed() < Duration::from_secs(5));
        Ok(())
    });
}

#[test]
fn a_master_that_does_not_answer_is_an_error_within_the_timeout() {
    common::check(|e| {
        let start = Instant::now();
        let error = join(&e.rt, &env(1, 2, free_port()), Duration::from_millis(300))
            .map(drop)
            .expect_err("nobody serves");
        assert!(
            error.to_string().contains("could not fetch the root info"),
            "{error}"
        );
        assert!(start.elapsed() < Duration::from_secs(5));
        Ok(())
    });
}

/// A rank table of one server with `devices`, rank i on device i.
fn rank_table(devices: &[u32]) -> String {
    let d: Vec<String> = devices
        .iter()
        .enumerate()
        .map(|(rank, dev)| {
            format!(
                r#"{{"device_id": "{dev}", "device_ip": "192.168.1.{dev}", "rank_id": "{rank}"}}"#
            )
        })
        .collect();
    format!(
        r#"{{"status": "completed", "version": "1.0", "server_count": "1", "server_list": [{{"server_id": "127.0.0.1", "device": [{}]}}]}}"#,
        d.join(", ")
    )
}

#[test]
fn four_ranks_of_a_rank_table_join_one_communicator_through_cluster_info() {
    common::check(|e| {
        let path = std::env::temp_dir().join(format!(
            "rank-table-{}-{}.json",
            std::process::id(),
            free_port()
        ));
        std::fs::write(&path, rank_table(&[0, 1, 2, 3]))
            .map_err(|x| ascendcl::Error::InvalidState(x.to_string()))?;
        let sums = std::thread::scope(|s| {
            let joins: Vec<_> = (0..4u32)
                .map(|rank| {
                    let (rt, path) = (&e.rt, &path);
                    s.spawn(move || -> ascendcl::Result<Vec<f32>> {
                        let (device, comm) = ascendcl::hccl::join_rank_table(rt, path, rank)?;
                        assert_eq!((comm.rank(), comm.size(), device.id()), (rank, 4, rank));
                        let ctx = device.default_context();
                        let stream = Stream::new(&ctx)?;
                        let mut x = DeviceBuffer::from_host(&ctx, &[rank as f32; 2])?;
                        comm.all_reduce_in_place(&mut x, ReduceOp::Max, &stream)?
                            .wait()?;
                        x.to_vec()
                    })
                })
                .collect();
            joins
                .into_iter()
                .map(|j| j.join().expect("no panic"))
                .collect::<ascendcl::Result<Vec<_>>>()
        });
        let _ = std::fs::remove_file(&path);
        assert!(sums?.iter().all(|v| v == &vec![3.0; 2]));
        Ok(())
    });
}

#[test]
fn a_rank_table_with_a_device_listed_twice_is_refused_before_any_hccl_call() {
    common::check(|e| {
        let path = std::env::temp_dir().join(format!("rank-table-dup-{}.json", std::process::id()));
        std::fs::write(&path, rank_table(&[0, 1, 1, 3]))
            .map_err(|x| ascendcl::Error::InvalidState(x.to_string()))?;
        e.session.clear_journal();
        let error = ascendcl::hccl::join_rank_table(&e.rt, &path, 0)
            .map(drop)
            .expect_err("a device twice");
        let _ = std::fs::remove_file(&path);
        assert!(
            error
                .to_string()
                .contains("device[2]: device 1 is listed twice"),
            "{error}"
        );
        assert!(
            !e.calls().iter().any(|c| c.starts_with("Hccl")),
            "{:?}",
            e.calls()
        );
        Ok(())
    });
}
