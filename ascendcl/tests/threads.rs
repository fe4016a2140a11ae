//! Many threads, many streams, many copies: no lost or torn data.

mod common;

use std::time::Duration;

use ascendcl::prelude::*;

const THREADS: usize = 4;
const STREAMS_PER_THREAD: usize = 3;
const ROUNDS: usize = 20;
const LEN: usize = 4096;

#[test]
fn threads_times_streams_copying_never_lose_or_tear_data() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_micros(200));
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..THREADS)
                .map(|t| {
                    let ctx = ctx.clone();
                    scope.spawn(move || -> ascendcl::Result<usize> {
                        let streams: Vec<Stream> = (0..STREAMS_PER_THREAD)
                            .map(|_| Stream::new(&ctx))
                            .collect::<Result<_, _>>()?;
                        let mut checked = 0;
                        for round in 0..ROUNDS {
                            for (s, stream) in streams.iter().enumerate() {
                                let tag = ((t * 1000 + s * 100 + round) as u32) << 12;
                                let values: Vec<u32> = (0..LEN as u32).map(|i| tag | i).collect();
                                let input = HostBuffer::from_slice(&ctx, &values)?;
                                let mut device = DeviceBuffer::<u32>::alloc(&ctx, LEN)?;
                                let mut output = HostBuffer::<u32>::zeroed(&ctx, LEN)?;
                                let upload = stream.copy_host_to_device(&input, &mut device)?;
                                let download = stream
                                    .copy_device_to_host(upload.destination(), &mut output)?;
                                download.wait()?;
                                upload.wait()?;
                                assert_eq!(
                                    &output[..],
                                    &values[..],
                                    "thread {t} stream {s} round {round}"
                                );
                                checked += 1;
                            }
                        }
                        Ok(checked)
                    })
                })
                .collect();
            let mut total = 0;
            for worker in workers {
                total += worker.join().expect("no worker panicked")?;
            }
            assert_eq!(total, THREADS * STREAMS_PER_THREAD * ROUNDS);
            Ok(())
        })
    });
}

#[test]
fn one_buffer_shared_by_threads_through_streams_stays_consistent() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        env.slow_streams(Duration::from_micros(300));
        let shared = DeviceBuffer::from_host(&ctx, &[77u64; 8192])?;
        std::thread::scope(|scope| {
            let readers: Vec<_> = (0..THREADS)
                .map(|_| {
                    let (ctx, shared) = (ctx.clone(), &shared);
                    scope.spawn(move || -> ascendcl::Result<()> {
                        let stream = Stream::new(&ctx)?;
                        for _ in 0..10 {
                            let mut out = HostBuffer::<u64>::zeroed(&ctx, 8192)?;
                            stream.copy_device_to_host(shared, &mut out)?.wait()?;
                            assert!(out.iter().all(|&v| v == 77));
                        }
                        Ok(())
                    })
                })
                .collect();
            readers
                .into_iter()
                .try_for_each(|r| r.join().expect("no reader panicked"))
        })
    });
}
