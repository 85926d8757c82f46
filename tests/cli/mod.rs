mod experiments;
mod perft;
mod plot;
mod replay;
mod simulate;
mod summarize;
mod solve;
