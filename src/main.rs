fn main() {
    std::process::exit(rajapasu::cli::main());
}
