//! The `kotef` binary: the command line (`cli`), the Action step (`action`) and the server's
//! flags (`serve`) — the glue between a user's words and the library. Parses the command line
//! and exits with the contract's code.

mod action;
mod cli;
mod serve;

use clap::Parser as _;

fn main() {
    // Before anything else: no same-user process may read this one's memory or environment.
    kotef_core::process::set_non_dumpable();
    // Inside `setup`'s sandbox this binary is the egress bridge, and nothing else.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(kotef_tools::egress::BRIDGE_COMMAND) {
        std::process::exit(kotef_tools::egress::bridge::main(&args[1..]));
    }
    // Whatever a command leaves behind (`setsid`) comes back here to be ended.
    kotef_core::reaper::become_subreaper();
    if let Ok(exe) = std::env::current_exe() {
        kotef::setup::set_bridge_exe(exe);
    }
    init_tracing(args.first().map(String::as_str) == Some("action"));
    let cli = cli::Cli::parse();
    // The command line has read what it needs; secrets leave the environment while the
    // process still has one thread (later reads go through `kotef_core::process::var`).
    kotef_core::process::harden();
    // Nor may any process read a secret, or a secret file's path, from its command line.
    kotef_core::process::blank_args(kotef_core::process::SECRET_FLAGS);
    let code = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(cli::main_with(cli)),
        Err(e) => {
            eprintln!("kotef: cannot start the async runtime: {e}");
            1
        }
    };
    std::process::exit(code);
}

/// Tracing to stderr at `KOTEF_LOG` (default `warn`). In an Actions step (`kotef action`),
/// `RUNNER_DEBUG=1` (a re-run with debug logging) lowers kotef's own level to `debug`, and
/// every line is redacted and defused so that none is read as a workflow command.
fn init_tracing(in_action: bool) {
    let debug = in_action && kotef::actions_log::runner_debug(|k| std::env::var(k).ok());
    let default = if debug {
        "warn,kotef=debug,kotef_github=debug,kotef_model=debug,kotef_tools=debug,kotef_core=debug"
    } else {
        "warn"
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("KOTEF_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    if in_action {
        builder
            .with_ansi(false)
            .with_writer(kotef::actions_log::SafeStderr::new(
                kotef_core::Redactor::from_env(),
            ))
            .init();
    } else {
        builder
            .with_writer(std::io::stderr)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init();
    }
}
