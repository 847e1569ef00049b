//! The `kotef` binary: the command line (`cli`), the Action step (`action`) and the server's
//! flags (`serve`) — the glue between a user's words and the library. Parses the command line
//! and exits with the contract's code.

mod action;
mod cli;
mod serve;

use clap::Parser as _;

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("KOTEF_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = cli::Cli::parse();
    let code = cli::main_with(cli).await;
    std::process::exit(code);
}
