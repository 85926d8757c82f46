//! The game exported as files (docs/serve.md): its move list, its trace (exactly what `replay`
//! prints) and the replay page of `show`, each as a download.

use axum::extract::RawQuery;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::params::{Params, GAME_PARAMS};
use crate::app::export::{move_list, replay_page, trace_lines};

fn download(content_type: &'static str, name: &'static str, body: String) -> Response {
    let disposition = format!("attachment; filename=\"{name}\"");
    ([(header::CONTENT_TYPE, content_type.to_string()), (header::CONTENT_DISPOSITION, disposition)], body).into_response()
}

/// The moves as `replay --moves` takes them (the game checked first: a bad one is a 400).
pub async fn moves_route(RawQuery(query): RawQuery) -> Result<Response, ApiError> {
    let params = Params::parse(query.as_deref().unwrap_or(""), &GAME_PARAMS)?;
    let spec = params.game_spec()?;
    spec.game().map_err(ApiError::from)?;
    Ok(download("text/plain; charset=utf-8", "moves.txt", move_list(&spec.moves)))
}

/// The trace: the JSON lines `replay` prints for the moves.
pub async fn trace_route(RawQuery(query): RawQuery) -> Result<Response, ApiError> {
    let params = Params::parse(query.as_deref().unwrap_or(""), &GAME_PARAMS)?;
    let lines = trace_lines(&params.game_spec()?).map_err(ApiError::from)?;
    Ok(download("application/x-ndjson", "trace.jsonl", lines))
}

/// The replay page `show --moves` writes, opening at `ply` (default 0, as `show`'s).
pub async fn show_route(RawQuery(query): RawQuery) -> Result<Response, ApiError> {
    let mut known = GAME_PARAMS.to_vec();
    known.push("ply");
    let params = Params::parse(query.as_deref().unwrap_or(""), &known)?;
    let ply = params.count("ply", 0, 0, u32::MAX as u64)? as u32;
    let page = replay_page(&params.game_spec()?, ply).map_err(ApiError::from)?;
    Ok(download("text/html; charset=utf-8", "replay.html", page))
}
