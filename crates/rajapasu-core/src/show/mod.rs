//! The replay page: a match replayed through the engine with what a viewer needs
//! (laps and captures in order), its board drawing, and the self-contained HTML page whose
//! HTML, CSS and JavaScript live in `assets/show/`. Built from the engine only (no polars).

mod film;
mod page;
mod svg;

pub use film::{
    BoardState, Film, FilmMove, FilmRound, Lap, MatchOver, MoveCapture, RoundOver, Source,
    SOURCE_COLOURS,
};
pub use page::{
    board_style, page_data, page_html, palette_css, state_svg, PageInfo, BOARD_CSS, BOARD_SCRIPT,
    DATA_VERSION,
};
pub use svg::{board_svg, describe, dot_positions, pit_centre, MAX_DOTS};

#[cfg(test)]
mod tests;
