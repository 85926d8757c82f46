mod experiments;
mod perft;
mod plot;
mod replay;
mod show;
mod simulate;
mod summarize;
