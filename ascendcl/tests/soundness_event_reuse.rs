//! A pooled tail event is not reused while a wait queued on another stream
//! still refers to it (`held_events.rs`): a consumer ordered after a
//! producer by a wait on the producer's tail event stays ordered when that
//! event would otherwise go back to the pool and be recorded elsewhere, and
//! a stream that waits often and is never waited for holds a bounded number
//! of events. CI runs this with `ASCENDCL_MOCK_ABORT_ON_MISUSE=1`.

mod common;

use std::time::Duration;

use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use ascendcl_mock::Resource;

const N: usize = 64;

/// `out = 2 · x` on `stream`, detached.
fn double(
    stream: &Stream,
    x: &DeviceBuffer<f32>,
    out: &mut DeviceBuffer<f32>,
) -> ascendcl::Result<()> {
    ops::muls(&Tensor::new(x, &[N])?, 2.0f32, TensorMut::new(out, &[N])?)?
        .launch(stream, Workspace::none())?
        .detach();
    Ok(())
}

#[test]
fn a_consumers_queued_wait_is_not_released_by_its_event_recorded_again_on_another_stream() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let (producer, consumer, idle) =
            (Stream::new(&ctx)?, Stream::new(&ctx)?, Stream::new(&ctx)?);
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; N])?;
        let (mut a, mut b) = (
            DeviceBuffer::<f32>::zeroed(&ctx, N)?,
            DeviceBuffer::<f32>::zeroed(&ctx, N)?,
        );
        let (mut a2, mut b2) = (
            DeviceBuffer::<f32>::zeroed(&ctx, N)?,
            DeviceBuffer::<f32>::zeroed(&ctx, N)?,
        );
        env.slow_streams(Duration::from_millis(5));
        double(&producer, &x, &mut a)?; // a = 2
        double(&consumer, &a, &mut b)?; // waits on the producer's tail E: b = 4
        double(&producer, &x, &mut a2)?;
        double(&consumer, &a2, &mut b2)?; // a newer tail: E is no longer cached
        // A host wait on an idle stream records a pooled event: E, if the
        // consumer's wait had let it go back.
        let (mut y, z) = (
            DeviceBuffer::<f32>::zeroed(&ctx, N)?,
            DeviceBuffer::from_host(&ctx, &[0.0f32; N])?,
        );
        ops::muls(
            &Tensor::new(&z, &[N])?,
            1.0f32,
            TensorMut::new(&mut y, &[N])?,
        )?
        .launch(&idle, Workspace::none())?
        .wait()?;
        consumer.synchronize()?;
        env.slow_streams(Duration::ZERO);
        assert_eq!(
            b.to_vec()?,
            vec![4.0; N],
            "the consumer read a before the producer wrote it"
        );
        assert_eq!(b2.to_vec()?, vec![4.0; N]);
        Ok(())
    });
}

#[test]
fn a_stream_that_waits_on_another_a_thousand_times_and_is_never_waited_for_holds_only_the_events_of_waits_still_queued()
 {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let (producer, consumer) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; N])?;
        let (mut a, mut b) = (
            DeviceBuffer::<f32>::zeroed(&ctx, N)?,
            DeviceBuffer::<f32>::zeroed(&ctx, N)?,
        );
        let before = env.session.live(Resource::Event);
        let mut after_round = Vec::new();
        // Ten rounds of 100 iterations, each round given time to run. Each
        // iteration makes two waits (the consumer on the producer's write of
        // `a`, the producer's next write on the consumer's read), so 2000 in
        // all; neither stream is ever synchronized, so only the lanes' own
        // query (past 64 held) lets the finished waits' events go back to
        // the pool for reuse.
        for _ in 0..10 {
            for _ in 0..100 {
                double(&producer, &x, &mut a)?;
                double(&consumer, &a, &mut b)?;
            }
            after_round.push(env.session.live(Resource::Event) - before);
            std::thread::sleep(Duration::from_millis(50));
        }
        // Without letting go, every wait would keep its own event: 2000.
        // Letting go, the pool holds what was in flight at worst (a round's
        // 200 waits plus the 64 held before a query, per lane), however the
        // workers' timing falls.
        assert!(
            after_round[9] < 1000,
            "events keep growing with the waits: {after_round:?} after each round of 200"
        );
        consumer.synchronize()?;
        assert_eq!(b.to_vec()?, vec![4.0; N]);
        Ok(())
    });
}
