//! The progress bar: on stderr when it is a terminal, never otherwise or with --quiet.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

pub fn bar(total: u64, label: &str, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} matches {rate} ETA {eta}")
            .expect("valid template")
            .with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0} matches/s", state.per_sec());
            }),
    );
    bar.set_prefix(label.to_string());
    bar
}

/// A bar of positions (exact analysis, `rajapasu solve`): a count while the total is unknown
/// (enumeration), then a bar ([`positions_style`]).
pub fn positions_bar(label: &str, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(positions_style(false));
    bar.set_prefix(label.to_string());
    bar
}

/// The style of [`positions_bar`]: with a bar once the total is known.
pub fn positions_style(total_known: bool) -> ProgressStyle {
    let template = if total_known {
        "{prefix} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} positions, {msg}"
    } else {
        "{prefix} [{elapsed_precise}] {human_pos} positions, {msg}"
    };
    ProgressStyle::with_template(template).expect("valid template")
}
