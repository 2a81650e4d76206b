//! The `tieout` binary: everything lives in the library; this only hands over.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    tieout::cli::main()
}
