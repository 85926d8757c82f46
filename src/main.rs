#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (its include/mimalloc.h, `mi_option_e`; the crate names no
/// constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() {
    // By default mimalloc hands freed pages back to the system 10 ms after they are freed, and a
    // batch's column buffers, freed and allocated again for the next batch, are then faulted in
    // again: 0.4-0.75 s of system time per 50,000 round-detail matches on one thread (2.1 s of
    // user time), against 0.07-0.2 s with purging off, for 9 MB more resident memory. Purging
    // stays off unless MIMALLOC_PURGE_DELAY says otherwise (`set_default` yields to it).
    // SAFETY: sets an option of the allocator; no other thread exists yet.
    unsafe { libmimalloc_sys::mi_option_set_default(MI_OPTION_PURGE_DELAY, -1) };
    std::process::exit(rajapasu::cli::main());
}
