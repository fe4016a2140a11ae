//! A hostile review of `dvpp::Pipeline`: every FFI call of a load failing in
//! turn, batches read and dropped on other threads and in shuffled order, a
//! JPEG that fails on the device, and the documented refusals. Run also
//! with `ASCENDCL_MOCK_ABORT_ON_MISUSE=1`.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;
use std::time::Duration;

use ascendcl::dvpp::{self, Batch, Crop, HostImage, ImageLayout, JpegHeader, Pipeline};
use ascendcl::ops::{self, Prepared, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use ascendcl_mock::Fault;
use common::sweep::INJECTED;

fn read(name: &str) -> Vec<u8> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/reference/dvpp");
    std::fs::read(dir.join(name)).unwrap()
}

/// Four 64x48 JPEGs the decoder takes.
fn jpegs() -> Vec<&'static [u8]> {
    static J: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let names = [
        "c420_q75.jpg",
        "c444_q50.jpg",
        "grey_64x48_q75.jpg",
        "c422_q95.jpg",
    ];
    let j = J.get_or_init(|| names.iter().map(|n| read(n)).collect());
    j.iter().map(Vec::as_slice).collect()
}

/// Four synthetic planar RGB 48x64 images.
fn pixels() -> Vec<HostImage<'static>> {
    static P: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let make = |i| (0..3 * 48 * 64).map(move |k| ((k * 7 + i * 53) % 251) as u8);
    let p = P.get_or_init(|| (0..4).map(|i| make(i).collect()).collect());
    p.iter().map(|px| host(px, 48, 64)).collect()
}

fn host(pixels: &[u8], height: usize, width: usize) -> HostImage<'_> {
    HostImage {
        pixels,
        height,
        width,
    }
}

/// Asserts that no FFI call was made since the journal was cleared.
fn assert_no_calls(env: &common::Env, what: &str) {
    let calls = env.calls();
    assert!(calls.is_empty(), "FFI calls by {what}: {calls:?}");
}

fn config() -> dvpp::PipelineConfig {
    dvpp::PipelineConfig::imagenet(20, 24, 42)
}

#[derive(Clone, Copy, Debug)]
enum Input {
    Jpegs,
    Pixels,
    /// Three copies of the smallest sample: a slot with room for three
    /// images but too small a staging for three of `Jpegs`.
    Small,
}

fn load(p: &mut Pipeline, input: Input, n: usize) -> ascendcl::Result<Batch> {
    match input {
        Input::Jpegs => p.load(&jpegs()[..n]),
        Input::Pixels => p.load_decoded(&pixels()[..n]),
        Input::Small => p.load(&[*jpegs().iter().min_by_key(|j| j.len()).unwrap(); 3]),
    }
}

/// A finished batch's pixels (as bits) and draws.
type Snapshot = (Vec<u32>, Vec<(Crop, bool)>);

fn snapshot(b: &mut Batch) -> ascendcl::Result<Snapshot> {
    b.wait()?;
    let px = b.images().to_vec()?;
    let bits = px[..b.shape().iter().product()]
        .iter()
        .map(|v| v.to_bits())
        .collect();
    Ok((bits, b.augmentations().to_vec()))
}

/// A pipeline after the warm-up load of three images (if any), finished.
fn warmed(ctx: &Context, warm: Option<Input>) -> Pipeline {
    let mut p = Pipeline::new(ctx, config()).unwrap();
    if let Some(w) = warm {
        snapshot(&mut load(&mut p, w, 3).unwrap()).unwrap();
    }
    p
}

/// The injected code, a parked destructor error, or (descriptor creation
/// returns null, not a code) an aclnn argument error.
fn acceptable(e: &ascendcl::Error) -> bool {
    e.code() == Some(INJECTED)
        || matches!(e, ascendcl::Error::Deferred { .. })
        || e.code() == Some(ascendcl::sys::ACLNN_ERR_PARAM_INVALID)
}

/// A fresh pipeline's two batches after the warm-up, and its slot count.
type Fresh = ([Snapshot; 2], usize);

/// Fails call `function` #`nth` (counted from the swept load's start) of the
/// load of `n` images; returns whether the fault fired.
fn faulted_load(
    case: (Input, Option<Input>, usize),
    fresh: &Fresh,
    function: &str,
    nth: u64,
) -> bool {
    let ((input, warm, n), ([first, second], slots)) = (case, fresh);
    let env = common::env();
    let (device, ctx) = env.device0();
    let mut p = warmed(&ctx, warm);
    env.session.clear_journal();
    env.inject(Fault::nth(function, nth, INJECTED));
    let what = format!("{input:?} after {warm:?}: {function} #{nth} failed");
    let outcome = catch_unwind(AssertUnwindSafe(|| load(&mut p, input, n)))
        .unwrap_or_else(|_| panic!("{what}: the load panicked"));
    env.session.clear_faults();
    let fired = env
        .session
        .journal()
        .iter()
        .any(|e| e.function() == function && e.ret() == INJECTED);
    // A load that returned an error consumed no draws: the next load makes
    // the batch the failed one would have. One that returned a batch did.
    let next = match outcome {
        Err(e) => {
            assert!(acceptable(&e), "{what}: unexpected error {e}");
            first
        }
        Ok(mut batch) => {
            match snapshot(&mut batch) {
                Ok(s) => assert!(s == *first, "{what}: load and wait Ok, wrong pixels"),
                Err(e) => assert!(acceptable(&e), "{what}: wait: unexpected error {e}"),
            }
            second
        }
    };
    let _ = ascendcl::take_deferred_errors();
    // The test's own wait: the failed load's queued work has run, so its slot
    // (handed back, not lost) is free for the next load.
    p.stream().synchronize().unwrap();
    let mut again = load(&mut p, input, n).unwrap_or_else(|e| panic!("{what}: next load: {e}"));
    let got = snapshot(&mut again).unwrap_or_else(|e| panic!("{what}: next load: {e}"));
    assert!(
        got == *next,
        "{what}: the next load differs from a fresh pipeline's"
    );
    assert_eq!(p.slots_made(), *slots, "{what}: slots made");
    drop((again, p, ctx, device));
    let live = env.session.live_counts();
    assert!(live.is_empty(), "{what}: alive after drop: {live:?}");
    let misuse = env.session.misuse_log();
    assert_eq!(env.session.misuse_total(), 0, "{what}: {misuse}");
    let parked = ascendcl::take_deferred_errors();
    assert!(parked.is_empty(), "{what}: parked later: {parked:?}");
    fired
}

fn sweep_load(input: Input, warm: Option<Input>, n: usize) {
    let env = common::env();
    let (calls, fresh) = {
        let (_device, ctx) = env.device0();
        let mut p = warmed(&ctx, warm);
        env.session.clear_journal();
        let mut b = load(&mut p, input, n).unwrap();
        let calls = env.calls();
        let flips = b.augmentations().iter().filter(|a| a.1).count();
        assert!(
            flips > 0 && flips < n,
            "the swept batch flips {flips} of {n}"
        );
        let first = snapshot(&mut b).unwrap();
        drop(b); // as the failed load's batch is before the next load
        let second = snapshot(&mut load(&mut p, input, n).unwrap()).unwrap();
        (calls, ([first, second], p.slots_made()))
    };
    env.assert_clean();
    drop(env);
    let mut fired = 0;
    for (i, function) in calls
        .iter()
        .enumerate()
        .filter(|(_, f)| *f != "aclGetRecentErrMsg")
    {
        let nth = calls[..=i].iter().filter(|f| *f == function).count() as u64;
        // Stream workers run beside the host: retry a run that did not reach
        // the call (an event already complete, a pooled one reused).
        if (0..4).any(|_| faulted_load((input, warm, n), &fresh, function, nth)) {
            fired += 1;
        }
    }
    eprintln!(
        "{input:?} after {warm:?}: {fired} of {} calls failed in turn",
        calls.len()
    );
    assert!(
        fired * 10 >= calls.len() * 9,
        "only {fired} of {calls:?} fired"
    );
}

#[test]
fn failing_any_call_of_a_first_load_errs_leaks_nothing_and_the_next_load_is_a_fresh_pipelines() {
    sweep_load(Input::Jpegs, None, 3);
}

#[test]
fn failing_any_call_of_a_load_regrowing_a_reused_slots_staging_errs_leaks_nothing_and_recovers() {
    sweep_load(Input::Jpegs, Some(Input::Small), 3);
}

#[test]
fn failing_any_call_of_a_load_too_big_for_the_free_slot_errs_leaks_nothing_and_recovers() {
    sweep_load(Input::Jpegs, Some(Input::Pixels), 4);
}

#[test]
fn failing_any_call_of_load_decoded_errs_leaks_nothing_and_the_next_load_is_a_fresh_pipelines() {
    sweep_load(Input::Pixels, None, 3);
}

// What is true, checked at compile time: a batch may be sent to and shared
// with other threads, and so may the pipeline.
const _: () = {
    const fn send<T: Send>() {}
    const fn sync<T: Sync>() {}
    send::<Batch>();
    sync::<Batch>();
    send::<Pipeline>();
};

/// One image through the same steps, each launched alone and waited for
/// (the reference of dvpp_pipeline.rs).
fn reference(ctx: &Context, jpeg: &[u8], crop: Crop, flip: bool) -> ascendcl::Result<Vec<f32>> {
    let (c, l, stream) = (config(), ImageLayout::Nchw, Stream::new(ctx)?);
    let run = |p: Prepared<'_>| p.launch(&stream, Workspace::none())?.wait();
    let h = JpegHeader::parse(jpeg)?;
    let (h, w, oh, ow) = (h.height as usize, h.width as usize, c.height, c.width);
    let bytes = DeviceBuffer::from_host(ctx, jpeg)?;
    let mut decoded = DeviceBuffer::<u8>::zeroed(ctx, 3 * h * w)?;
    let out = TensorMut::new(&mut decoded, &[3, h, w])?;
    run(dvpp::decode_jpeg(
        &Tensor::new(&bytes, &[jpeg.len()])?,
        3,
        out,
        l,
    )?)?;
    let mut resized = DeviceBuffer::<u8>::zeroed(ctx, 3 * oh * ow)?;
    let (input, out) = (
        Tensor::new(&decoded, &[3, h, w])?,
        TensorMut::new(&mut resized, &[3, oh, ow])?,
    );
    run(dvpp::crop_and_resize(
        &input,
        crop,
        c.interpolation,
        out,
        l,
    )?)?;
    if flip {
        let mut flipped = DeviceBuffer::<u8>::zeroed(ctx, 3 * oh * ow)?;
        let out = TensorMut::new(&mut flipped, &[3, oh, ow])?;
        run(dvpp::horizontal_flip(
            &Tensor::new(&resized, &[3, oh, ow])?,
            out,
            l,
        )?)?;
        resized = flipped;
    }
    let mut normalized = DeviceBuffer::<f32>::zeroed(ctx, 3 * oh * ow)?;
    let out = TensorMut::new(&mut normalized, &[3, oh, ow])?;
    run(dvpp::normalize(
        &Tensor::new(&resized, &[3, oh, ow])?,
        &c.mean,
        &c.std,
        out,
        l,
    )?)?;
    normalized.to_vec()
}

const PLANE: usize = 3 * 20 * 24;

/// Asserts that `got` holds, image after image, `scale` times the reference
/// of `jpegs[i]` with the batch's draws.
fn assert_images(
    ctx: &Context,
    what: &str,
    (got, scale): (&[f32], f32),
    jpegs: &[&[u8]],
    draws: &[(Crop, bool)],
) -> ascendcl::Result<()> {
    for (i, (jpeg, &(crop, flip))) in jpegs.iter().zip(draws).enumerate() {
        let want = reference(ctx, jpeg, crop, flip)?;
        let got = &got[i * PLANE..(i + 1) * PLANE];
        let ok = got
            .iter()
            .zip(&want)
            .all(|(a, b)| a.to_bits() == (scale * b).to_bits());
        assert!(
            ok,
            "{what}: image {i} was overwritten or read before it was written"
        );
    }
    Ok(())
}

/// Queues `2 * batch` on `compute` into a new buffer.
fn consume(ctx: &Context, compute: &Stream, batch: &Batch) -> ascendcl::Result<DeviceBuffer<f32>> {
    let mut doubled = DeviceBuffer::<f32>::zeroed(ctx, batch.shape()[0] * PLANE)?;
    let out = TensorMut::new(&mut doubled, &batch.shape())?;
    ops::muls(&batch.tensor()?, 2.0f32, out)?
        .launch(compute, Workspace::none())?
        .detach();
    Ok(doubled)
}

fn assert_no_synchronize(env: &common::Env) {
    let calls = env.calls();
    let syncs: Vec<&String> = calls.iter().filter(|c| c.contains("Synchronize")).collect();
    assert!(
        syncs.is_empty(),
        "host waits the user did not ask for: {syncs:?}"
    );
}

#[test]
fn a_batch_sent_to_another_thread_is_read_and_dropped_there_while_the_next_batches_load() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let jpegs = jpegs();
        let mut p = Pipeline::new(&ctx, config())?;
        env.slow_streams(Duration::from_millis(1));
        let (tx, rx) = std::sync::mpsc::channel::<Batch>();
        let results = std::thread::scope(|s| {
            // Each batch is read there (a host read waits for it) and dropped
            // there: its slot goes back to the ring from that thread.
            let consumer = s.spawn(move || -> ascendcl::Result<Vec<_>> {
                rx.iter()
                    .map(|b| Ok((b.images().to_vec()?, b.augmentations().to_vec())))
                    .collect()
            });
            for _ in 0..6 {
                tx.send(p.load(&jpegs)?).expect("the consumer is alive");
            }
            drop(tx);
            consumer.join().expect("the consumer did not panic")
        })?;
        env.slow_streams(Duration::ZERO);
        assert_eq!(results.len(), 6);
        for (k, (got, draws)) in results.iter().enumerate() {
            assert_images(&ctx, &format!("batch {k}"), (got, 1.0), &jpegs, draws)?;
        }
        Ok(())
    });
}

#[test]
fn a_consumer_holding_more_batches_than_the_ring_had_and_dropping_them_shuffled_sees_every_image_intact()
 {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let jpegs = jpegs();
        let compute = Stream::new(&ctx)?;
        let mut p = Pipeline::new(&ctx, config())?;
        // Two slots exist and are free before the consumer starts holding.
        drop((p.load(&jpegs)?, p.load(&jpegs)?));
        p.stream().synchronize()?;
        let held = (0..6)
            .map(|_| p.load(&jpegs))
            .collect::<ascendcl::Result<Vec<_>>>()?;
        assert_eq!(
            p.slots_made(),
            6,
            "6 batches held at once, 2 slots were free"
        );
        // The DVPP work has run (the test's own wait); the consumer's reads,
        // slowed, are still queued when the batches are handed back.
        p.stream().synchronize()?;
        env.slow_streams(Duration::from_millis(5));
        let consumed = held
            .into_iter()
            .map(|b| Ok(Some((consume(&ctx, &compute, &b)?, b))));
        let mut held = consumed.collect::<ascendcl::Result<Vec<_>>>()?;
        env.session.clear_journal();
        // Dropped in a shuffled order, one more batch loaded and consumed
        // after each drop (the first takes the slot just handed back, its
        // consumer's read still queued).
        let mut order: Vec<usize> = (0..held.len()).collect();
        let mut rng = dvpp::SplitMix64::new(7);
        (1..order.len())
            .rev()
            .for_each(|i| order.swap(i, rng.below(i + 1)));
        let mut done = Vec::new();
        for i in order {
            let (doubled, batch) = held[i].take().unwrap();
            done.push((doubled, batch.augmentations().to_vec()));
            drop(batch);
            let next = p.load(&jpegs)?;
            done.push((
                consume(&ctx, &compute, &next)?,
                next.augmentations().to_vec(),
            ));
        }
        assert!(p.slots_made() < 12, "no slot handed back was reused");
        assert_no_synchronize(env);
        // Drained before the references run on streams of their own (the
        // test below checks the case without).
        compute.synchronize()?;
        env.slow_streams(Duration::ZERO);
        for (k, (doubled, draws)) in done.iter().enumerate() {
            assert_images(
                &ctx,
                &format!("batch {k}"),
                (&doubled.to_vec()?, 2.0),
                &jpegs,
                draws,
            )?;
        }
        Ok(())
    });
}

/// Found by this file: `compute` is ordered after batch `a` by a wait on
/// the DVPP stream's tail event E. The next cross-stream wait records a
/// newer tail, and E used to go back to the context's event pool with that
/// wait still queued; recorded next on an idle stream, E completed at once
/// and the mock released `compute`'s wait, so the consumer read `a` before
/// it was written. The waiting stream now holds E until the wait has run
/// (`held_events.rs`).
#[test]
fn a_consumer_stays_ordered_after_a_batch_when_another_stream_reuses_a_pooled_event() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let jpegs = jpegs();
        let (compute, other) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let mut p = Pipeline::new(&ctx, config())?;
        env.slow_streams(Duration::from_millis(5));
        let a = p.load(&jpegs)?;
        let doubled = consume(&ctx, &compute, &a)?; // waits on E
        let b = p.load(&jpegs)?;
        let _also = consume(&ctx, &compute, &b)?; // a newer tail: E pooled
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 4])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let (x, y) = (Tensor::new(&x, &[4])?, TensorMut::new(&mut y, &[4])?);
        // A host wait on the idle stream records the pooled event, E.
        ops::muls(&x, 2.0f32, y)?
            .launch(&other, Workspace::none())?
            .wait()?;
        compute.synchronize()?;
        env.slow_streams(Duration::ZERO);
        assert_images(
            &ctx,
            "batch a",
            (&doubled.to_vec()?, 2.0),
            &jpegs,
            a.augmentations(),
        )
    });
}

/// A JPEG whose header parses but whose entropy-coded data is all one bits
/// (a Huffman code no table has): the host check passes, the decode task fails.
fn corrupt_jpeg() -> Vec<u8> {
    let good = read("c420_q75.jpg");
    let sos = good.windows(2).position(|w| w == [0xFF, 0xDA]).unwrap();
    let scan = sos + 2 + usize::from(u16::from_be_bytes([good[sos + 2], good[sos + 3]]));
    let mut bad = good[..scan].to_vec();
    (0..64).for_each(|_| bad.extend_from_slice(&[0xFF, 0x00]));
    bad.extend_from_slice(&[0xFF, 0xD9]);
    bad
}

#[test]
fn a_jpeg_failing_on_the_device_fails_batch_wait_naming_the_decode_and_the_stream_is_not_poisoned()
{
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let good = jpegs();
        let mut p = Pipeline::new(&ctx, config())?;
        for (bad, why) in [
            (read("trunc_64x48_420.jpg"), "truncated"),
            (corrupt_jpeg(), "Huffman code"),
        ] {
            JpegHeader::parse(&bad)?; // the host check passes
            let mut batch = p.load(&[good[0], &bad, good[1]])?;
            let e = batch.wait().unwrap_err().to_string();
            assert!(e.contains("acldvppDecodeJpeg") && e.contains(why), "{e}");
            batch.wait()?; // reported once: a second wait of the batch is Ok
            // The batch's other images are intact.
            let (got, d) = (batch.images().to_vec()?, batch.augmentations());
            assert_images(&ctx, why, (&got[..PLANE], 1.0), &good[..1], &d[..1])?;
            assert_images(&ctx, why, (&got[2 * PLANE..], 1.0), &good[1..2], &d[2..])?;
            let mut next = p.load(&good)?;
            next.wait()?;
            assert_images(
                &ctx,
                "next",
                (&next.images().to_vec()?, 1.0),
                &good,
                next.augmentations(),
            )?;
        }
        // A failure not waited for is reported by the next wait on the
        // pipeline, whichever batch that is; the one after is Ok.
        drop(p.load(&[&corrupt_jpeg()])?);
        let e = p.load(&good)?.wait().unwrap_err().to_string();
        assert!(e.contains("acldvppDecodeJpeg"), "{e}");
        p.load(&good)?.wait()
    });
}

/// DEFECT (reported, not fixed): a failed decode fails the DVPP stream, and
/// `Batch::wait` learns it from a stream synchronize, which clears it: the
/// first batch waited for gets the error (here one of good files), and the
/// batch whose decode failed then waits Ok.
#[test]
#[ignore = "defect: a device failure is reported to the first batch waited for, not the one that failed"]
fn a_batch_whose_decode_failed_reports_it_from_its_own_wait_whatever_the_order_of_waits() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let mut p = Pipeline::new(&ctx, config())?;
        let mut bad = p.load(&[&corrupt_jpeg()])?;
        let good_wait = p.load(&jpegs())?.wait();
        let bad_wait = bad.wait();
        assert!(good_wait.is_ok(), "a batch of good files: {good_wait:?}");
        assert!(bad_wait.is_err(), "the batch whose decode failed waited Ok");
        Ok(())
    });
}

#[test]
fn refusals_and_images_outside_the_decoders_range_make_no_ffi_call_and_consume_no_draws() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let good = jpegs();
        let fresh = Pipeline::new(&ctx, config())?.load(&good)?;
        let fresh = fresh.augmentations().to_vec();
        env.session.clear_journal();
        let mut bad = config();
        bad.flip_probability = f64::NAN;
        assert!(Pipeline::new(&ctx, bad).is_err(), "a NaN flip probability");
        assert_no_calls(env, "Pipeline::new's refusal");
        let mut p = Pipeline::new(&ctx, config())?;
        env.session.clear_journal();
        // A header saying 40000 pixels wide: the decoder takes 32768 at most.
        let mut wide = good[0].to_vec();
        let sof = wide.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap();
        wide[sof + 7..sof + 9].copy_from_slice(&40000u16.to_be_bytes());
        let e = p.load(&[good[0], &wide]).unwrap_err().to_string();
        assert!(e.contains("image 1") && e.contains("32768"), "{e}");
        let zeros = vec![0u8; 3 * 4 * 40000];
        let e = p.load_decoded(&[host(&zeros, 4, 40000)]).unwrap_err();
        assert!(e.to_string().contains("image 0") && e.to_string().contains("32768"));
        // A size whose byte count overflows is refused, not a panic.
        assert!(p.load_decoded(&[host(&zeros, usize::MAX / 2, 6)]).is_err());
        assert!(p.load_decoded(&[host(&zeros[1..72], 4, 6)]).is_err());
        assert!(p.load(&[good[0], good[1], b"\xFF\xD8 no frame"]).is_err());
        assert!(p.load(&[good[0], &read("tiny_5x3_420.jpg")]).is_err());
        assert!(p.load(&[]).is_err());
        assert_no_calls(env, "the refusals");
        let draws = p.load(&good)?.augmentations().to_vec();
        assert_eq!(draws, fresh, "a refusal consumed draws");
        Ok(())
    });
}

#[test]
fn a_load_too_big_for_the_free_slot_waits_on_no_host_for_its_reads_and_leaves_it_for_smaller_loads()
{
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let good = jpegs();
        let compute = Stream::new(&ctx)?;
        let mut p = Pipeline::new(&ctx, config())?;
        let mut small = p.load(&good[..1])?;
        small.wait()?;
        env.slow_streams(Duration::from_millis(5));
        let doubled = consume(&ctx, &compute, &small)?;
        let draws = small.augmentations().to_vec();
        drop(small);
        env.session.clear_journal();
        let big = p.load(&good)?;
        assert_no_synchronize(env);
        // A new slot: freeing the small one's images would have waited for
        // the consumer. The small slot serves the next small batch.
        assert_eq!(p.slots_made(), 2);
        drop(p.load(&good[..1])?);
        assert_eq!(p.slots_made(), 2, "the small slot was not reused");
        compute.synchronize()?;
        env.slow_streams(Duration::ZERO);
        assert_images(
            &ctx,
            "the consumer",
            (&doubled.to_vec()?, 2.0),
            &good[..1],
            &draws,
        )?;
        assert_images(
            &ctx,
            "the big batch",
            (&big.images().to_vec()?, 1.0),
            &good,
            big.augmentations(),
        )
    });
}
