mod experiments;
mod perft;
mod plot;
mod replay;
mod simulate;
mod solve;
mod summarize;
