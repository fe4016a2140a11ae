//! 04 — virtual memory: reserve addresses, allocate physical pages, map them
//! at stable addresses, grow a "tensor" in place by mapping one more page,
//! the errors for bad sizes, and unmapping.
//!
//! `cargo run --example 04_reserve_mem`

use std::process::ExitCode;

use ascendcl::prelude::*;
use ascendcl::vmm::{self, Mapping, PageSize, PhysicalMemory, VirtualRange};
use ascendcl::{Error, MemoryInfo};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn mib(bytes: usize) -> usize {
    bytes >> 20
}

/// A growable device "tensor": a reserved range with pages mapped from its
/// start. Its address never changes; growing maps one more page after it.
struct Tensor {
    range: VirtualRange,
    pages: Vec<Mapping>,
    page: usize,
}

impl Tensor {
    fn new(ctx: &Context, capacity_pages: usize, page: usize) -> ascendcl::Result<Tensor> {
        Ok(Tensor {
            range: VirtualRange::reserve(ctx, capacity_pages * page, PageSize::Huge2M)?,
            pages: Vec::new(),
            page,
        })
    }

    /// Allocates one physical page and maps it right after the last one.
    fn grow(&mut self, ctx: &Context) -> ascendcl::Result<&mut Mapping> {
        let physical = PhysicalMemory::alloc(ctx, self.page, PageSize::Huge2M)?;
        // The mapping keeps `physical` alive; our handle can go.
        let index = self.pages.len();
        let mapping = self.range.map(index * self.page, &physical)?;
        self.pages.push(mapping);
        Ok(&mut self.pages[index])
    }

    fn bytes(&self) -> usize {
        self.pages.len() * self.page
    }
}

fn used(device: &Device, start: MemoryInfo) -> ascendcl::Result<usize> {
    Ok(start.free.saturating_sub(device.memory_info()?.free))
}

fn run() -> ascendcl::Result<()> {
    let (rt, backend) = ascendcl_examples::runtime()?;
    println!("backend: {backend}");
    let device = Device::open(&rt, 0)?;
    let ctx = device.default_context();
    let start = device.memory_info()?;

    // Every size and offset below must be a multiple of the granularity.
    let page = vmm::granularity(&ctx, PageSize::Huge2M)?;
    println!("granularity of 2 MiB-page memory: {} MiB", mib(page));

    // --- Reserve, allocate, map -----------------------------------------------
    // Reserving addresses costs no HBM: only physical allocations do.
    let mut tensor = Tensor::new(&ctx, 64, page)?;
    println!(
        "reserved {} MiB of addresses at {:p}; HBM used: {} MiB",
        mib(tensor.range.size()),
        tensor.range.as_device_ptr(),
        mib(used(&device, start)?)
    );
    let first = tensor.grow(&ctx)?;
    let base = first.as_device_ptr();
    // Mappings are ordinary device memory (of bytes): copies work on them.
    let data: Vec<u8> = (0..page).map(|i| (i % 251) as u8).collect();
    first.copy_from_host(&data)?;
    println!(
        "mapped page 0 at {base:p} and wrote {} MiB to it; HBM used: {} MiB",
        mib(page),
        mib(used(&device, start)?)
    );

    // --- Grow in place -------------------------------------------------------
    // torch_npu's expandable segments do exactly this: instead of allocating
    // a bigger buffer and copying, map more pages after the existing ones.
    let second = tensor.grow(&ctx)?;
    let second_ptr = second.as_device_ptr();
    second.fill_bytes(0xAB)?;
    println!(
        "grew the tensor to {} MiB: page 1 mapped at {second_ptr:p} = base + {} MiB; the base did not move",
        mib(tensor.bytes()),
        mib(second_ptr as usize - base as usize)
    );
    // Nothing was copied: page 0 still holds what we wrote, page 1 what we
    // filled. (The copies are synchronous, so no synchronize is needed.)
    let (page0, page1) = (tensor.pages[0].to_vec()?, tensor.pages[1].to_vec()?);
    if page0 != data || page1.iter().any(|&b| b != 0xAB) {
        return Err(Error::InvalidState(
            "the tensor's data changed when it grew".into(),
        ));
    }
    println!(
        "read back both pages: page 0 unchanged, page 1 all 0xAB; HBM used: {} MiB",
        mib(used(&device, start)?)
    );

    // --- Bad sizes are errors (checked before any runtime call) ---------------
    println!("bad sizes and offsets:");
    let spare = PhysicalMemory::alloc(&ctx, page, PageSize::Huge2M)?;
    let attempts: [(&str, ascendcl::Result<()>); 5] = [
        (
            "reserve 2 MiB + 1 byte",
            VirtualRange::reserve(&ctx, page + 1, PageSize::Huge2M).map(drop),
        ),
        (
            "allocate 0 bytes",
            PhysicalMemory::alloc(&ctx, 0, PageSize::Huge2M).map(drop),
        ),
        (
            "map at half a page",
            tensor.range.map(page / 2, &spare).map(drop),
        ),
        ("map over page 1", tensor.range.map(page, &spare).map(drop)),
        (
            "map past the end",
            tensor.range.map(tensor.range.size(), &spare).map(drop),
        ),
    ];
    for (what, result) in attempts {
        match result {
            Err(error) => println!("  {what}: {error}"),
            Ok(()) => return Err(Error::InvalidState(format!("{what} was accepted"))),
        }
    }
    drop(spare);

    // --- Unmapping -----------------------------------------------------------
    // A range cannot be released while something is mapped into it.
    let Tensor {
        range, mut pages, ..
    } = tensor;
    if let Err(error) = range.clone().release() {
        println!("releasing the range while mapped: {error}");
    }
    // Unmapping waits for queued work that uses the page (the runtime's own
    // unmap does not), then unmaps; the last mapping of a physical
    // allocation frees it.
    while let Some(mapping) = pages.pop() {
        let offset = mapping.offset();
        mapping.unmap()?;
        println!(
            "unmapped the page at offset {} MiB; {} MiB still mapped, HBM used: {} MiB",
            mib(offset),
            mib(range.mapped_bytes()),
            mib(used(&device, start)?)
        );
    }
    range.release()?;
    println!("released the range");
    Ok(())
}
