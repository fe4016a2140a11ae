//! Heap allocations per launch, counted by a global allocator that a bench
//! binary installs:
//!
//! ```ignore
//! #[global_allocator]
//! static COUNTING: ascendcl_benches::allocs::CountingAllocator =
//!     ascendcl_benches::allocs::CountingAllocator;
//! ```
//!
//! Each thread counts its own allocations (a collective's ranks launch from
//! threads of their own), so a count taken around a block of launches is
//! that thread's launches only. The C mock allocates with `malloc` and is not
//! counted: this measures the Rust side, raw and safe alike.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: an allocation while the thread is being torn down is not
    // counted rather than a panic inside the allocator.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

/// The system allocator, counting every allocation and reallocation of the
/// calling thread.
#[derive(Debug, Clone, Copy)]
pub struct CountingAllocator;

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees are ours; the counter is a
// thread-local `Cell` that never allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract of `GlobalAlloc::alloc`, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: `ptr` was allocated by this allocator (that is, by `System`)
        // with `layout`: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as for `realloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// The calling thread's allocations so far.
pub fn allocations() -> u64 {
    ALLOCATIONS.try_with(Cell::get).unwrap_or(0)
}

/// Whether [`CountingAllocator`] is the global allocator of this binary.
pub fn counting() -> bool {
    let before = allocations();
    drop(std::hint::black_box(Box::new(0u64)));
    allocations() != before
}
