//! A global allocator that counts the bytes allocated while [`allocated`] runs its closure, for
//! test binaries of one test each. Only the calling thread's allocations count: the test
//! harness's own threads allocate when they are scheduled (its bookkeeping and output), which on
//! a loaded machine falls inside the closure's time.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

pub struct Counting;

thread_local! {
    // A constant initialiser and no destructor: reading it never allocates, also from inside
    // the allocator.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}
static BYTES: AtomicUsize = AtomicUsize::new(0);
static CALLS: AtomicUsize = AtomicUsize::new(0);

/// Whether this thread is inside [`allocated`].
fn counting() -> bool {
    COUNTING.try_with(Cell::get).unwrap_or(false)
}

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if counting() {
            BYTES.fetch_add(l.size(), Ordering::Relaxed);
            CALLS.fetch_add(1, Ordering::Relaxed);
        }
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if counting() {
            BYTES.fetch_add(new, Ordering::Relaxed);
            CALLS.fetch_add(1, Ordering::Relaxed);
        }
        System.realloc(p, l, new)
    }
}

/// Bytes allocated and allocator calls by this thread while `f` runs (`f` must not hand work to
/// other threads).
pub fn allocated<T>(f: impl FnOnce() -> T) -> (T, usize, usize) {
    BYTES.store(0, Ordering::SeqCst);
    CALLS.store(0, Ordering::SeqCst);
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (
        r,
        BYTES.load(Ordering::SeqCst),
        CALLS.load(Ordering::SeqCst),
    )
}
