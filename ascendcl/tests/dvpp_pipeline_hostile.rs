//! A hostile review of `dvpp::Pipeline`: every FFI call of a load failing in
//! turn, batches read and dropped on other threads and in shuffled order, a
//! JPEG that fails on the device, and the documented refusals. Run also
//! with `ASCENDCL_MOCK_ABORT_ON_MISUSE=1`.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::OnceLock;

use std::time::Duration;

use ascendcl::dvpp::{self, Batch, Crop, HostImage, ImageLayout, JpegHeader, Pipeline};
use ascendcl::ops::{self, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;
use ascendcl_mock::Fault;
use common::sweep::INJECTED;

const SAMPLES: [&str; 4] = [
    "c420_q75.jpg",
    "c444_q50.jpg",
    "grey_64x48_q75.jpg",
    "c422_q95.jpg",
];

fn read(name: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/reference/dvpp");
    std::fs::read(dir.join(name)).unwrap()
}

/// Four 64x48 JPEGs the decoder takes.
fn jpegs() -> Vec<&'static [u8]> {
    static J: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let j = J.get_or_init(|| SAMPLES.iter().map(|n| read(n)).collect());
    j.iter().map(Vec::as_slice).collect()
}

/// Four synthetic planar RGB 48x64 images.
fn pixels() -> Vec<HostImage<'static>> {
    static P: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let p = P.get_or_init(|| {
        (0..4)
            .map(|i| {
                (0..3 * 48 * 64)
                    .map(|k| ((k * 7 + i * 53) % 251) as u8)
                    .collect()
            })
            .collect()
    });
    p.iter()
        .map(|pixels| HostImage {
            pixels,
            height: 48,
            width: 64,
        })
        .collect()
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

/// A pipeline after the warm-up load (if any), finished.
fn warmed(ctx: &Context, warm: Option<Input>) -> Pipeline {
    let mut p = Pipeline::new(ctx, config()).unwrap();
    if let Some(w) = warm {
        snapshot(&mut load(&mut p, w, 3).unwrap()).unwrap();
    }
    p
}

/// What a fresh pipeline makes after the warm-up: two batches of `n` images,
/// and then its slot count.
fn fresh_sequence(input: Input, warm: Option<Input>, n: usize) -> ([Snapshot; 2], usize) {
    let env = common::env();
    let out = {
        let (_device, ctx) = env.device0();
        let mut p = warmed(&ctx, warm);
        let a = snapshot(&mut load(&mut p, input, n).unwrap()).unwrap();
        let b = snapshot(&mut load(&mut p, input, n).unwrap()).unwrap();
        ([a, b], p.slots_made())
    };
    env.assert_clean();
    out
}

/// The injected code, a parked destructor error, or (descriptor creation
/// returns null, not a code) an aclnn argument error.
fn acceptable(e: &ascendcl::Error) -> bool {
    e.code() == Some(INJECTED)
        || matches!(e, ascendcl::Error::Deferred { .. })
        || e.code() == Some(ascendcl::sys::ACLNN_ERR_PARAM_INVALID)
}

/// Fails call `function` #`nth` (counted from the swept load's start) of the
/// load of `n` images. Returns whether the fault fired.
fn faulted_load(
    (input, warm, n): (Input, Option<Input>, usize),
    ([first, second], slots): &([Snapshot; 2], usize),
    function: &str,
    nth: u64,
) -> bool {
    let env = common::env();
    let (device, ctx) = env.device0();
    let mut p = warmed(&ctx, warm);
    env.session.clear_journal();
    env.inject(Fault::nth(function, nth, INJECTED));
    let what = format!("{input:?} after {warm:?}: {function} #{nth} failed");
    let outcome = catch_unwind(AssertUnwindSafe(|| load(&mut p, input, n)))
        .unwrap_or_else(|_| panic!("{what}: the load panicked"));
    env.session.clear_faults();
    let journal = env.session.journal();
    let fired = journal
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
    let baseline = {
        let env = common::env();
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
        snapshot(&mut b).unwrap();
        calls
    };
    let fresh = fresh_sequence(input, warm, n);
    let mut fired = 0;
    for (i, function) in baseline.iter().enumerate() {
        if function == "aclGetRecentErrMsg" {
            continue;
        }
        let nth = baseline[..=i].iter().filter(|f| *f == function).count() as u64;
        // Stream workers run beside the host: retry a run that did not reach
        // the call (an event already complete, a pooled one reused).
        if (0..4).any(|_| faulted_load((input, warm, n), &fresh, function, nth)) {
            fired += 1;
        }
    }
    eprintln!(
        "{input:?} after {warm:?}: {fired} of {} calls failed in turn",
        baseline.len()
    );
    assert!(
        fired * 10 >= baseline.len() * 9,
        "only {fired} of {baseline:?} fired"
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
    let c = config();
    let stream = Stream::new(ctx)?;
    let h = JpegHeader::parse(jpeg)?;
    let (h, w, oh, ow) = (h.height as usize, h.width as usize, c.height, c.width);
    let l = ImageLayout::Nchw;
    let bytes = DeviceBuffer::from_host(ctx, jpeg)?;
    let mut decoded = DeviceBuffer::<u8>::zeroed(ctx, 3 * h * w)?;
    dvpp::decode_jpeg(
        &Tensor::new(&bytes, &[jpeg.len()])?,
        3,
        TensorMut::new(&mut decoded, &[3, h, w])?,
        l,
    )?
    .launch(&stream, Workspace::none())?
    .wait()?;
    let mut resized = DeviceBuffer::<u8>::zeroed(ctx, 3 * oh * ow)?;
    let out = TensorMut::new(&mut resized, &[3, oh, ow])?;
    dvpp::crop_and_resize(
        &Tensor::new(&decoded, &[3, h, w])?,
        crop,
        c.interpolation,
        out,
        l,
    )?
    .launch(&stream, Workspace::none())?
    .wait()?;
    if flip {
        let mut flipped = DeviceBuffer::<u8>::zeroed(ctx, 3 * oh * ow)?;
        let out = TensorMut::new(&mut flipped, &[3, oh, ow])?;
        dvpp::horizontal_flip(&Tensor::new(&resized, &[3, oh, ow])?, out, l)?
            .launch(&stream, Workspace::none())?
            .wait()?;
        resized = flipped;
    }
    let mut out = DeviceBuffer::<f32>::zeroed(ctx, 3 * oh * ow)?;
    let o = TensorMut::new(&mut out, &[3, oh, ow])?;
    dvpp::normalize(&Tensor::new(&resized, &[3, oh, ow])?, &c.mean, &c.std, o, l)?
        .launch(&stream, Workspace::none())?
        .wait()?;
    out.to_vec()
}

const PLANE: usize = 3 * 20 * 24;

/// Asserts that `got` holds, image after image, `scale` times the reference
/// of `jpegs[i]` with the batch's draws.
fn assert_images(
    ctx: &Context,
    what: &str,
    got: &[f32],
    scale: f32,
    jpegs: &[&[u8]],
    draws: &[(Crop, bool)],
) -> ascendcl::Result<()> {
    for (i, (jpeg, &(crop, flip))) in jpegs.iter().zip(draws).enumerate() {
        let want = reference(ctx, jpeg, crop, flip)?;
        let ok = got[i * PLANE..(i + 1) * PLANE]
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

#[test]
fn a_batch_sent_to_another_thread_is_read_and_dropped_there_while_the_next_batches_load() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let jpegs = jpegs();
        let mut p = Pipeline::new(&ctx, config())?;
        env.slow_streams(Duration::from_millis(1));
        let (tx, rx) = std::sync::mpsc::channel::<Batch>();
        let results = std::thread::scope(|s| {
            let consumer = s.spawn(move || -> ascendcl::Result<Vec<_>> {
                let mut out = Vec::new();
                for batch in rx {
                    // Read on this thread (its wait, no wait() call) and
                    // dropped here: the slot goes back from this thread.
                    out.push((batch.images().to_vec()?, batch.augmentations().to_vec()));
                }
                Ok(out)
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
            assert_images(&ctx, &format!("batch {k}"), got, 1.0, &jpegs, draws)?;
        }
        assert!(p.slots_made() <= 6, "{} slots", p.slots_made());
        Ok(())
    });
}

/// A deterministic shuffle of `0..n` (Fisher-Yates on a fixed generator).
fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut rng = dvpp::SplitMix64::new(seed);
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        v.swap(i, rng.below(i + 1));
    }
    v
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
        assert_eq!(p.slots_made(), 2);
        let mut held = Vec::new();
        for _ in 0..6 {
            held.push(p.load(&jpegs)?);
        }
        let made = p.slots_made();
        assert_eq!(made, 6, "6 batches held at once, 2 slots were free");
        // The DVPP work has run (the test's own wait); the consumer's reads,
        // slowed, are still queued when the batches are handed back.
        p.stream().synchronize()?;
        env.slow_streams(Duration::from_millis(5));
        let mut held = held
            .into_iter()
            .map(|b| Ok(Some((consume(&ctx, &compute, &b)?, b))))
            .collect::<ascendcl::Result<Vec<_>>>()?;
        env.session.clear_journal();
        // Drop in a shuffled order, loading (and consuming) one more batch
        // after each drop: it takes the slot just handed back, whose reads
        // are still queued.
        let mut done = Vec::new();
        for i in shuffled(held.len(), 7) {
            let (doubled, batch) = held[i].take().unwrap();
            let draws = batch.augmentations().to_vec();
            drop(batch);
            done.push((doubled, draws));
            let next = p.load(&jpegs)?;
            let at = next.images().as_device_ptr();
            assert!(
                held.iter()
                    .flatten()
                    .all(|(_, b)| b.images().as_device_ptr() != at),
                "a slot still held was handed out"
            );
            done.push((
                consume(&ctx, &compute, &next)?,
                next.augmentations().to_vec(),
            ));
        }
        // The first drop left one slot in the ring, free of uploads: taken
        // while its consumer's read was still queued.
        assert!(p.slots_made() < made + 6, "no slot handed back was reused");
        let syncs = env
            .calls()
            .iter()
            .filter(|c| c.starts_with("aclrtSynchronize"))
            .count();
        assert_eq!(syncs, 0, "the pipeline waited on the host");
        // Drained before the references run on streams of their own: see
        // the ignored test below for what else would happen then.
        compute.synchronize()?;
        env.slow_streams(Duration::ZERO);
        for (k, (doubled, draws)) in done.iter().enumerate() {
            let what = format!("batch {k}");
            assert_images(&ctx, &what, &doubled.to_vec()?, 2.0, &jpegs, draws)?;
        }
        Ok(())
    });
}

/// DEFECT, outside the pipeline (ascendcl's lane tail events, lane.rs and
/// event.rs): a consumer on another stream is ordered after a batch by a
/// wait on the DVPP stream's tail event E. When a later launch records a
/// new tail, E's `TailEvent` is dropped and E goes back to the context's
/// event pool although its record and the consumer's wait on it are still
/// queued. The next event taken from the pool is E: recorded on an idle
/// stream, it completes at once, and the mock releases the consumer's wait
/// then (its events keep one generation counter, so any later record that
/// has run satisfies a queued wait), before the batch is written: the
/// consumer reads images not yet written (the fresh slot's zeros), and no
/// misuse is reported since the calls are correctly ordered. The
/// shuffled-drop test above drains its streams before computing references
/// on new streams for this reason; without that it fails for most stream
/// delays. Not settled here: whether CANN ties a queued wait to the record
/// before it (as CUDA does; then the mock's event model is what is wrong)
/// or not (then the pool must reuse an event only once its latest record
/// has run and no wait on it is queued). Either way not the pipeline's.
#[test]
#[ignore = "defect in ascendcl's tail-event pool (see the comment): a consumer reads a batch before it is written"]
fn a_consumer_stays_ordered_after_a_batch_when_another_stream_reuses_a_pooled_event() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let jpegs = jpegs();
        let (compute, other) = (Stream::new(&ctx)?, Stream::new(&ctx)?);
        let mut p = Pipeline::new(&ctx, config())?;
        env.slow_streams(Duration::from_millis(5));
        let a = p.load(&jpegs)?;
        // `compute` waits on E, the DVPP stream's tail event.
        let doubled = consume(&ctx, &compute, &a)?;
        // A newer tail replaces E, which goes back to the pool.
        let b = p.load(&jpegs)?;
        let _also = consume(&ctx, &compute, &b)?;
        // A host wait on an idle stream records the pooled event (E).
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 4])?;
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        ops::muls(
            &Tensor::new(&x, &[4])?,
            2.0f32,
            TensorMut::new(&mut y, &[4])?,
        )?
        .launch(&other, Workspace::none())?
        .wait()?;
        compute.synchronize()?;
        env.slow_streams(Duration::ZERO);
        let got = doubled.to_vec()?;
        assert_images(&ctx, "batch a", &got, 2.0, &jpegs, a.augmentations())
    });
}

/// A JPEG whose header parses but whose entropy-coded data is all one bits
/// (a Huffman code no table has): the host check passes, the decode task fails.
fn corrupt_jpeg() -> Vec<u8> {
    let good = read("c420_q75.jpg");
    let sos = good.windows(2).position(|w| w == [0xFF, 0xDA]).unwrap();
    let scan = sos + 2 + usize::from(u16::from_be_bytes([good[sos + 2], good[sos + 3]]));
    let mut bad = good[..scan].to_vec();
    for _ in 0..64 {
        bad.extend_from_slice(&[0xFF, 0x00]);
    }
    bad.extend_from_slice(&[0xFF, 0xD9]);
    bad
}

/// `good` with the frame header's width set to `width`.
fn with_width(good: &[u8], width: u16) -> Vec<u8> {
    let mut jpeg = good.to_vec();
    let sof = jpeg.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap();
    jpeg[sof + 7..sof + 9].copy_from_slice(&width.to_be_bytes());
    jpeg
}

#[test]
fn a_jpeg_failing_on_the_device_fails_batch_wait_naming_the_decode_and_the_stream_is_not_poisoned()
{
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let good = jpegs();
        let mut p = Pipeline::new(&ctx, config())?;
        let cases = [
            (read("trunc_64x48_420.jpg"), "truncated"),
            (corrupt_jpeg(), "Huffman code"),
        ];
        for (bad, why) in cases {
            JpegHeader::parse(&bad)?; // the host check passes
            let mut batch = p.load(&[good[0], &bad, good[1]])?;
            let e = batch.wait().unwrap_err().to_string();
            assert!(e.contains("acldvppDecodeJpeg") && e.contains(why), "{e}");
            // Reported once: a second wait of the same batch is Ok.
            batch.wait()?;
            // The batch's other images are intact.
            let got = batch.images().to_vec()?;
            let d = batch.augmentations();
            assert_images(&ctx, why, &got[..PLANE], 1.0, &good[..1], &d[..1])?;
            assert_images(&ctx, why, &got[2 * PLANE..], 1.0, &good[1..2], &d[2..])?;
            drop(batch);
            let mut next = p.load(&good)?;
            next.wait()?;
            let got = next.images().to_vec()?;
            assert_images(
                &ctx,
                "the next batch",
                &got,
                1.0,
                &good,
                next.augmentations(),
            )?;
        }
        Ok(())
    });
}

#[test]
fn a_device_failure_not_waited_for_is_reported_by_the_next_wait_on_the_pipeline_whichever_batch() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let good = jpegs();
        let mut p = Pipeline::new(&ctx, config())?;
        drop(p.load(&[&corrupt_jpeg()])?);
        let mut next = p.load(&good)?;
        let e = next.wait().unwrap_err().to_string();
        assert!(e.contains("acldvppDecodeJpeg"), "{e}");
        let mut after = p.load(&good)?;
        after.wait()?;
        Ok(())
    });
}

/// DEFECT (reported, not fixed): the device reports a failed decode on the
/// DVPP stream, and `Batch::wait` learns it from a stream synchronize, which
/// clears it. So whichever batch is waited for first gets the error (here
/// a batch of good files) and the batch whose decode failed then waits Ok.
#[test]
#[ignore = "defect: a device failure is reported to the first batch waited for, not the one that failed"]
fn a_batch_whose_decode_failed_reports_it_from_its_own_wait_whatever_the_order_of_waits() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let mut p = Pipeline::new(&ctx, config())?;
        let mut bad = p.load(&[&corrupt_jpeg()])?;
        let mut good = p.load(&jpegs())?;
        let good_wait = good.wait();
        let bad_wait = bad.wait();
        assert!(good_wait.is_ok(), "a batch of good files: {good_wait:?}");
        assert!(bad_wait.is_err(), "the batch whose decode failed waited Ok");
        Ok(())
    });
}

#[test]
fn images_outside_the_decoders_range_are_refused_naming_their_index_before_any_ffi_call() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let good = jpegs();
        let mut p = Pipeline::new(&ctx, config())?;
        env.session.clear_journal();
        let wide = with_width(good[0], 40000);
        assert_eq!(JpegHeader::parse(&wide)?.width, 40000);
        let e = p.load(&[good[0], &wide]).unwrap_err().to_string();
        assert!(e.contains("image 1") && e.contains("32768"), "{e}");
        let pixels = vec![0u8; 3 * 4 * 40000];
        let image = |height, width| HostImage {
            pixels: &pixels,
            height,
            width,
        };
        let e = p.load_decoded(&[image(4, 40000)]).unwrap_err().to_string();
        assert!(e.contains("image 0") && e.contains("32768"), "{e}");
        // A size whose byte count overflows is refused, not a panic.
        let e = p.load_decoded(&[image(usize::MAX / 2, 6)]).unwrap_err();
        assert!(e.to_string().contains("image 0"), "{e}");
        assert_eq!(
            env.calls(),
            Vec::<String>::new(),
            "FFI calls before the refusals"
        );
        Ok(())
    });
}

#[test]
fn refusals_make_no_ffi_call_and_consume_no_draws() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let good = jpegs();
        let fresh = Pipeline::new(&ctx, config())?
            .load(&good)?
            .augmentations()
            .to_vec();
        env.session.clear_journal();
        let mut bad = config();
        bad.flip_probability = f64::NAN;
        assert!(Pipeline::new(&ctx, bad).is_err(), "a NaN flip probability");
        let mut p = Pipeline::new(&ctx, config())?;
        let calls = env.calls().len();
        let tiny = read("tiny_5x3_420.jpg");
        let short = [0u8; 3 * 4 * 6 - 1];
        assert!(p.load(&[good[0], good[1], b"\xFF\xD8 no frame"]).is_err());
        assert!(p.load(&[good[0], &tiny]).is_err());
        assert!(p.load(&[]).is_err());
        assert!(
            p.load_decoded(&[HostImage {
                pixels: &short,
                height: 4,
                width: 6
            }])
            .is_err()
        );
        assert_eq!(
            env.calls().len(),
            calls,
            "FFI calls by refusals: {:?}",
            &env.calls()[calls..]
        );
        assert_eq!(
            p.load(&good)?.augmentations(),
            fresh,
            "a refusal consumed draws"
        );
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
        let syncs: Vec<String> = env
            .calls()
            .into_iter()
            .filter(|c| c.contains("Synchronize"))
            .collect();
        assert_eq!(syncs, Vec::<String>::new(), "host waits in a load");
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
            &doubled.to_vec()?,
            2.0,
            &good[..1],
            &draws,
        )?;
        let got = big.images().to_vec()?;
        assert_images(
            &ctx,
            "the regrown batch",
            &got,
            1.0,
            &good,
            big.augmentations(),
        )
    });
}
