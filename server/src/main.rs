//! The `wheelwright` binary: parses the command line and hands over to the library.

use clap::Parser;
use wheelwright_server::cli::{self, Cli};

/// mimalloc for every allocation of the process: Rust's through this, C's (tree-sitter's
/// parser, SQLite) through the crate's `override` of `malloc` and `free`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    if let Err(error) = cli::init_logging(&cli.log_level, cli.log_format) {
        eprintln!("wheelwright: {error:#}");
        return std::process::ExitCode::from(2);
    }
    match cli::execute(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            // A command that chose its exit code has printed what it had to say, or says
            // it here.
            if let Some(exit) = error.downcast_ref::<cli::Exit>() {
                if let Some(message) = &exit.message {
                    eprintln!("wheelwright: {message}");
                }
                return std::process::ExitCode::from(exit.code);
            }
            tracing::error!("{error:#}");
            eprintln!("wheelwright: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
