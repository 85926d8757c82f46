#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (its v2 include/mimalloc.h, `mi_option_e`; the crate
/// names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() {
    std::process::exit(rajapasu::cli::main(set_purge_delay));
}

/// Chooses when mimalloc hands freed pages back to the system, from the parsed command.
///
/// By default mimalloc hands them back 10 ms after they are freed, and a batch's column
/// buffers, freed and allocated again for the next batch, are then faulted in again: 0.4-0.75 s
/// of system time per 50,000 round-detail matches on one thread (2.1 s of user time), against
/// 0.07-0.2 s with purging off, for 9 MB more resident memory.
///
/// The commands bounded by --max-memory hand them back at once: their solves free large
/// tables and build others of other sizes, and the pages kept would put the process above its
/// bound (9x1 under round_winner, refused at 200M: 280 MB resident with purging off, 216 MB
/// so, for the same CPU time). MIMALLOC_PURGE_DELAY overrides either (`set_default` yields to
/// it).
///
/// One round solved in memory keeps its freed pages: its levels' tables and arrays are freed
/// and built again at other sizes within seconds, and with purging at once every such page
/// was faulted in again (the real board's round 1: 300,000 page faults; kept, 1,500, the large
/// arrays on huge pages, and about 1 s less of CPU time of 13, for 1.36-1.41 GiB resident
/// against 1.15-1.16 GiB; the accounted peak, what is allocated, 1.10 GiB either way:
/// docs/performance.md).
///
/// Setting it after the arguments are parsed is in time: mimalloc reads its options from the
/// environment when the process loads, and reads the purge delay again at every free that
/// may purge, so only the few pages that parsing freed were scheduled under its default.
fn set_purge_delay(memory: rajapasu::cli::MemoryUse) {
    let delay = match memory {
        rajapasu::cli::MemoryUse::Bounded => 0,
        rajapasu::cli::MemoryUse::Reused => -1,
    };
    // SAFETY: sets an option of the allocator (a plain store); no other thread exists yet.
    unsafe { libmimalloc_sys::mi_option_set_default(MI_OPTION_PURGE_DELAY, delay) };
}
