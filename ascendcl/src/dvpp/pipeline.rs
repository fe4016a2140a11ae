//! A training input pipeline on the DVPP stream: JPEG bytes from the host →
//! pinned staging → device → decode → random resized crop (+ flip) →
//! normalize → slot *i* of an NCHW f32 batch, with no host synchronize.

use std::sync::{Arc, Mutex, PoisonError};

use crate::Detached;
use crate::alloc::{AllocatorConfig, CachingAllocator};
use crate::context::Context;
use crate::dvpp::{
    Crop, ImageLayout, Interpolation, JpegHeader, RandomResizedCrop, SplitMix64, crop_and_resize,
    decode_jpeg, horizontal_flip, normalize,
};
use crate::error::{Error, Result};
use crate::memory::{DeviceBuffer, DeviceSlice, HostBuffer};
use crate::ops::{Tensor, TensorMut, Workspace};
use crate::stream::Stream;

/// What a [`Pipeline`] makes of each image.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineConfig {
    /// Output height of every image.
    pub height: usize,
    /// Output width of every image.
    pub width: usize,
    /// The random crop's ranges.
    pub crop: RandomResizedCrop,
    /// The resizing filter.
    pub interpolation: Interpolation,
    /// Chance of a horizontal flip, 0 to 1.
    pub flip_probability: f64,
    /// Per-channel mean, in pixel units (0..255).
    pub mean: [f32; 3],
    /// Per-channel standard deviation, in pixel units.
    pub std: [f32; 3],
    /// Seed of the crop and flip draws.
    pub seed: u64,
}

impl PipelineConfig {
    /// torchvision's ImageNet training transform at `height` x `width`:
    /// `RandomResizedCrop`, `RandomHorizontalFlip(0.5)`, `ToTensor`,
    /// `Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])`
    /// (the constants times 255, since the images stay in pixel units).
    pub fn imagenet(height: usize, width: usize, seed: u64) -> Self {
        PipelineConfig {
            height,
            width,
            crop: RandomResizedCrop::default(),
            interpolation: Interpolation::Bilinear,
            flip_probability: 0.5,
            mean: [0.485 * 255.0, 0.456 * 255.0, 0.406 * 255.0],
            std: [0.229 * 255.0, 0.224 * 255.0, 0.225 * 255.0],
            seed,
        }
    }
}

/// An image decoded on the host, for [`Pipeline::load_decoded`]: planar
/// RGB, `3 × height × width` bytes (all of R, then G, then B), as the
/// decode writes it in [`ImageLayout::Nchw`].
#[derive(Debug, Clone, Copy)]
pub struct HostImage<'a> {
    /// The pixels, `3 * height * width` bytes.
    pub pixels: &'a [u8],
    /// Rows.
    pub height: usize,
    /// Columns.
    pub width: usize,
}

/// One image of a batch to load: its bytes in the staging and its size.
struct Source<'a> {
    bytes: &'a [u8],
    height: usize,
    width: usize,
    /// A JPEG file to decode, else planar RGB pixels.
    jpeg: bool,
}

/// The decode's size range (6x4 to 32768x32768, width x height), which
/// crop-and-resize's crop range matches: an image outside it would fail on
/// the device (the decode task) or in the middle of a load (a random crop
/// wider or taller than 32768), after earlier images were queued.
fn check_size(index: usize, height: usize, width: usize) -> Result<()> {
    if !(6..=32768).contains(&width) || !(4..=32768).contains(&height) {
        return Err(Error::invalid(format!(
            "image {index} of the batch is {width}x{height} (width x height); the DVPP operators take 6x4 to 32768x32768"
        )));
    }
    Ok(())
}

/// A batch's device memory and its pinned staging: lent to a [`Batch`],
/// back in the ring when the batch is dropped.
struct Slot {
    images: DeviceBuffer<f32>,
    staging: HostBuffer<u8>,
    /// The last upload from `staging` (the stream runs them in order): the
    /// slot is taken again only once it has run, so refilling the staging
    /// never waits on the host.
    upload: Option<Detached>,
}

type Ring = Arc<Mutex<Vec<Slot>>>;

/// A queued batch: each image's crop and flip, and its last step.
type Queued = (Vec<(Crop, bool)>, Option<Detached>);

/// Decodes and augments batches of JPEGs on a DVPP stream of its own.
///
/// Every step is a launch on that stream whose tensors remember it
/// ([`crate::dvpp`]'s module docs): the consumer's operators on its own
/// stream are ordered after the batch by event waits, and a slot handed back
/// is written again only in order behind the consumer's queued reads. So a
/// batch can be decoded while the previous one trains, and no image is ever
/// overwritten while something still reads it, with no synchronize.
pub struct Pipeline {
    stream: Stream,
    allocator: CachingAllocator,
    config: PipelineConfig,
    rng: SplitMix64,
    ring: Ring,
    slots_made: usize,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("config", &self.config)
            .field("slots_made", &self.slots_made)
            .finish_non_exhaustive()
    }
}

impl Pipeline {
    /// A pipeline on a new stream of `ctx` (the DVPP stream).
    pub fn new(ctx: &Context, config: PipelineConfig) -> Result<Pipeline> {
        if config.height < 4 || config.width < 6 || config.width > 4096 || config.height > 8192 {
            return Err(Error::invalid(format!(
                "dvpp::Pipeline: the output is {}x{} (height x width); Normalize takes 4..=8192 x 6..=4096",
                config.height, config.width
            )));
        }
        if !(0.0..=1.0).contains(&config.flip_probability) {
            return Err(Error::invalid(
                "dvpp::Pipeline: flip_probability must be in 0..=1",
            ));
        }
        Ok(Pipeline {
            stream: Stream::new(ctx)?,
            allocator: CachingAllocator::new(ctx, AllocatorConfig::segments())?,
            rng: SplitMix64::new(config.seed),
            config,
            ring: Arc::new(Mutex::new(Vec::new())),
            slots_made: 0,
        })
    }

    /// The DVPP stream every step is queued on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// How many batch slots exist: one per batch held at once, plus one per
    /// batch whose uploads were still running when the next was loaded, plus
    /// the slots too small for a later, larger batch (kept for smaller ones:
    /// a slot is never taken back, nor its memory freed, by waiting on the
    /// host).
    pub fn slots_made(&self) -> usize {
        self.slots_made
    }

    fn take_slot(&mut self, images: usize, bytes: usize) -> Result<Slot> {
        let ctx = self.stream.context();
        let per_batch = images * 3 * self.config.height * self.config.width;
        let free = {
            let mut ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
            let mut ready = None;
            for (i, slot) in ring.iter().enumerate() {
                // Only a slot whose images are large enough: replacing a
                // smaller one's images would free them, which waits on the
                // host for the reads a consumer may still have queued. A
                // smaller slot stays in the ring for smaller batches.
                if DeviceSlice::len(&slot.images) < per_batch {
                    continue;
                }
                // A query, never a wait: a slot whose uploads still run stays.
                if slot
                    .upload
                    .as_ref()
                    .map_or(Ok(true), Detached::is_complete)?
                {
                    ready = Some(i);
                    break;
                }
            }
            ready.map(|i| ring.swap_remove(i))
        };
        let mut slot = match free {
            Some(slot) => slot,
            None => {
                let slot = Slot {
                    images: DeviceBuffer::zeroed(ctx, per_batch.max(1))?,
                    staging: HostBuffer::zeroed(ctx, bytes.max(1))?,
                    upload: None,
                };
                // Counted once it exists: a failed allocation made no slot.
                self.slots_made += 1;
                slot
            }
        };
        // A staging too small for this batch's bytes grows (its uploads have
        // run: freeing it waits for nothing); if that fails, the slot goes
        // back to the ring as it was rather than being lost.
        if slot.staging.len() < bytes {
            match HostBuffer::zeroed(ctx, bytes) {
                Ok(staging) => slot.staging = staging,
                Err(e) => {
                    self.give_back(slot);
                    return Err(e);
                }
            }
        }
        Ok(slot)
    }

    /// Returns a slot to the ring (a failed load's, or a dropped batch's).
    fn give_back(&self, slot: Slot) {
        self.ring
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(slot);
    }

    /// Queues the decode and augmentation of `jpegs` into a new batch of
    /// shape `[jpegs.len(), 3, height, width]` and returns it at once.
    ///
    /// Every file's header is read first: a file the decoder cannot take (or
    /// outside 6x4 to 32768x32768 pixels) is an error naming its index,
    /// before anything is queued. Grey JPEGs come out with three equal channels.
    ///
    /// A load that returns an error (a refusal, or a runtime call that
    /// failed part way) consumes none of the seed's draws and keeps its slot
    /// in the ring: the next load makes the batch the failed one would have.
    pub fn load(&mut self, jpegs: &[&[u8]]) -> Result<Batch> {
        let mut sources = Vec::with_capacity(jpegs.len());
        for (i, jpeg) in jpegs.iter().enumerate() {
            let h = JpegHeader::parse(jpeg)
                .map_err(|e| Error::invalid(format!("image {i} of the batch: {e}")))?;
            let (height, width) = (h.height as usize, h.width as usize);
            check_size(i, height, width)?;
            sources.push(Source {
                bytes: jpeg,
                height,
                width,
                jpeg: true,
            });
        }
        self.load_sources(&sources)
    }

    /// Like [`load`](Pipeline::load) for images decoded elsewhere (on the
    /// host, by any decoder): each is uploaded as it is and goes through the
    /// same crop, flip and normalize, with the same draws of the seed as a
    /// [`load`](Pipeline::load) of the same sizes would make.
    ///
    /// An image outside 6x4 to 32768x32768 pixels, or whose `pixels` are not
    /// `3 * height * width` bytes, is an error naming its index, before
    /// anything is queued.
    pub fn load_decoded(&mut self, images: &[HostImage<'_>]) -> Result<Batch> {
        let mut sources = Vec::with_capacity(images.len());
        for (i, image) in images.iter().enumerate() {
            check_size(i, image.height, image.width)?;
            if image.pixels.len() != 3 * image.height * image.width {
                return Err(Error::invalid(format!(
                    "image {i} of the batch holds {} bytes; a planar RGB {}x{} image (height x width) is 3 x {} x {} = {}",
                    image.pixels.len(),
                    image.height,
                    image.width,
                    image.height,
                    image.width,
                    3 * image.height * image.width
                )));
            }
            sources.push(Source {
                bytes: image.pixels,
                height: image.height,
                width: image.width,
                jpeg: false,
            });
        }
        self.load_sources(&sources)
    }

    fn load_sources(&mut self, sources: &[Source<'_>]) -> Result<Batch> {
        if sources.is_empty() {
            return Err(Error::invalid("dvpp::Pipeline::load: an empty batch"));
        }
        let total: usize = sources.iter().map(|s| s.bytes.len()).sum();
        let mut slot = self.take_slot(sources.len(), total)?;
        // The draws come from a copy of the generator, kept only if every
        // step was queued: a load that fails consumes no draws, so the next
        // load makes the batch this one would have, whichever call failed.
        let mut rng = self.rng.clone();
        match self.queue_batch(&mut slot, sources, &mut rng) {
            Ok((augmentations, last)) => {
                self.rng = rng;
                Ok(Batch {
                    slot: Some(slot),
                    ring: Arc::clone(&self.ring),
                    shape: [sources.len(), 3, self.config.height, self.config.width],
                    augmentations,
                    last,
                })
            }
            Err(e) => {
                // Back to the ring, not dropped: a failed load loses no slot
                // (`slots_made` stays the count of slots). Its queued steps
                // are tracked by its buffers, and `upload` is the last upload
                // queued from its staging, so it is taken again only once
                // that has run, as after any batch.
                self.give_back(slot);
                Err(e)
            }
        }
    }

    /// Fills `slot`'s staging and queues every image's steps into it.
    fn queue_batch(
        &self,
        slot: &mut Slot,
        sources: &[Source<'_>],
        rng: &mut SplitMix64,
    ) -> Result<Queued> {
        // The slot's earlier uploads have run (take_slot): no wait here.
        slot.upload = None;
        let staging = slot.staging.as_mut_slice()?;
        let mut at = 0;
        for source in sources {
            staging[at..at + source.bytes.len()].copy_from_slice(source.bytes);
            at += source.bytes.len();
        }
        let mut augmentations = Vec::with_capacity(sources.len());
        let mut last = None;
        let mut offset = 0;
        for (i, source) in sources.iter().enumerate() {
            let crop = self.config.crop.sample(rng, source.height, source.width);
            let flip = rng.uniform(0.0, 1.0) < self.config.flip_probability;
            augmentations.push((crop, flip));
            last = Some(self.queue_image(slot, i, offset, source, crop, flip)?);
            offset += source.bytes.len();
        }
        Ok((augmentations, last))
    }

    /// Queues one image's steps; returns the handle of its last one.
    fn queue_image(
        &self,
        slot: &mut Slot,
        index: usize,
        offset: usize,
        source: &Source<'_>,
        crop: Crop,
        flip: bool,
    ) -> Result<Detached> {
        let (s, a) = (&self.stream, &self.allocator);
        let (h, w, len) = (source.height, source.width, source.bytes.len());
        let (oh, ow) = (self.config.height, self.config.width);
        let mut bytes = a.alloc::<u8>(s, len)?;
        slot.upload = Some(
            s.copy_host_to_device(&slot.staging.slice(offset..offset + len)?, &mut bytes)?
                .detach(),
        );
        let layout = ImageLayout::Nchw;
        let decoded = if source.jpeg {
            let mut decoded = a.alloc::<u8>(s, 3 * h * w)?;
            decode_jpeg(
                &Tensor::new(&bytes, &[len])?,
                3,
                TensorMut::new(&mut decoded, &[3, h, w])?,
                layout,
            )?
            .launch(s, Workspace::from_allocator(a))?
            .detach();
            decoded
        } else {
            bytes // already planar RGB
        };
        let mut resized = a.alloc::<u8>(s, 3 * oh * ow)?;
        crop_and_resize(
            &Tensor::new(&decoded, &[3, h, w])?,
            crop,
            self.config.interpolation,
            TensorMut::new(&mut resized, &[3, oh, ow])?,
            layout,
        )?
        .launch(s, Workspace::from_allocator(a))?
        .detach();
        let shaped = if flip {
            let mut flipped = a.alloc::<u8>(s, 3 * oh * ow)?;
            horizontal_flip(
                &Tensor::new(&resized, &[3, oh, ow])?,
                TensorMut::new(&mut flipped, &[3, oh, ow])?,
                layout,
            )?
            .launch(s, Workspace::from_allocator(a))?
            .detach();
            flipped
        } else {
            resized
        };
        let plane = 3 * oh * ow;
        let out = TensorMut::strided(
            &mut slot.images,
            &[3, oh, ow],
            &[oh * ow, ow, 1],
            index * plane,
        )?;
        Ok(normalize(
            &Tensor::new(&shaped, &[3, oh, ow])?,
            &self.config.mean,
            &self.config.std,
            out,
            layout,
        )?
        .launch(s, Workspace::from_allocator(a))?
        .detach())
    }
}

/// A batch of images queued by [`Pipeline::load`]: `[n, 3, height, width]`
/// f32, NCHW. Use [`images`](Batch::images) in operators on any stream: they
/// are ordered after the batch's DVPP work with no host synchronize. Dropping
/// the batch hands its memory back to the pipeline, which writes it again
/// only in order behind every use queued so far.
pub struct Batch {
    slot: Option<Slot>,
    ring: Ring,
    shape: [usize; 4],
    augmentations: Vec<(Crop, bool)>,
    last: Option<Detached>,
}

impl std::fmt::Debug for Batch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("shape", &self.shape)
            .field("augmentations", &self.augmentations)
            .finish_non_exhaustive()
    }
}

impl Batch {
    /// `[n, 3, height, width]`.
    pub fn shape(&self) -> [usize; 4] {
        self.shape
    }

    /// The images' memory (its first `n * 3 * height * width` elements).
    pub fn images(&self) -> &DeviceBuffer<f32> {
        &self
            .slot
            .as_ref()
            .expect("a batch holds its slot until dropped")
            .images
    }

    /// The images as a `[n, 3, height, width]` tensor.
    pub fn tensor(&self) -> Result<Tensor<'_>> {
        let [_, c, h, w] = self.shape;
        Tensor::strided(self.images(), &self.shape, &[c * h * w, h * w, w, 1], 0)
    }

    /// The crop and flip drawn for each image, in order.
    pub fn augmentations(&self) -> &[(Crop, bool)] {
        &self.augmentations
    }

    /// Waits on the host until the batch's DVPP work has run, reporting its
    /// errors: a file the decoder refused on the device fails the DVPP
    /// stream, whose synchronize (called here) reports it. Training does not
    /// need it: operators are ordered after the batch anyway.
    pub fn wait(&mut self) -> Result<()> {
        match self.last.take() {
            Some(last) => {
                let stream = last.stream();
                last.wait()?;
                stream.map_or(Ok(()), |s| s.synchronize())
            }
            None => Ok(()),
        }
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.take() {
            self.ring
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(slot);
        }
    }
}
