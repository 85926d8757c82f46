//! A hint that a value will be read soon, so that a loop over scattered memory (the solver's
//! tables and moves) waits on several cache misses at once rather than one after another.

/// Asks the processor to fetch the cache line holding `value`. Does nothing where the target has
/// no such instruction; it never changes what a program computes.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of every x86_64 target; a prefetch reads nothing and cannot fault.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
