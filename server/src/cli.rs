//! The `wheelwright` command line: flags, environment variables and what each command does.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use tracing_subscriber::EnvFilter;

use crate::ServeConfig;

/// Explorer, scorer and leaderboard for coding-agent benchmarks.
#[derive(Debug, Parser)]
#[command(name = "wheelwright", version, about)]
pub struct Cli {
    /// Log filter: a level (error, warn, info, debug, trace) or a tracing directive list.
    #[arg(long, global = true, env = "WHEELWRIGHT_LOG", default_value = "info")]
    pub log_level: String,
    /// Log line format.
    #[arg(long, global = true, env = "WHEELWRIGHT_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the app, the API and the data.
    Serve(ServeArgs),
    /// Print the definitions of a Python file and the calls in each (what the analysis page shows).
    Analyze {
        /// The Python file.
        file: PathBuf,
        /// Print JSON (identical to POST /api/v1/analyze) instead of a table.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "WHEELWRIGHT_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Directory for the SQLite database and stored runs.
    #[arg(long, env = "WHEELWRIGHT_DATA_DIR", default_value = "wheelwright-data")]
    pub data_dir: PathBuf,
    /// Directory of the built browser app (`trunk build --release` writes `dist/`).
    #[arg(long, env = "WHEELWRIGHT_APP_DIR", default_value = "dist")]
    pub app_dir: PathBuf,
}

impl From<ServeArgs> for ServeConfig {
    fn from(args: ServeArgs) -> Self {
        Self {
            addr: args.addr,
            data_dir: args.data_dir,
            app_dir: args.app_dir,
        }
    }
}

/// Installs the global tracing subscriber (logs go to standard error).
pub fn init_logging(level: &str, format: LogFormat) -> anyhow::Result<()> {
    let filter = EnvFilter::try_new(level)
        .with_context(|| format!("invalid --log-level {level:?}; try info or debug"))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
    Ok(())
}

/// Runs one parsed command line.
pub async fn execute(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => crate::run(args.into()).await,
        Command::Analyze { file, json } => {
            let source = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let outline = wheelwright_core::outline::outline(&source);
            let mut out = std::io::stdout().lock();
            if json {
                serde_json::to_writer_pretty(&mut out, &outline)?;
                writeln!(out)?;
            } else {
                print_outline(&mut out, &outline)?;
            }
            Ok(())
        }
    }
}

fn print_outline(
    out: &mut impl Write,
    outline: &wheelwright_core::outline::Outline,
) -> std::io::Result<()> {
    writeln!(out, "{:<8} {:<40} {:>11}  calls", "kind", "name", "lines")?;
    for d in &outline.definitions {
        let calls: Vec<&str> = d
            .calls
            .iter()
            .map(|c| c.callee.as_deref().unwrap_or("<expr>"))
            .collect();
        let kind = serde_json::to_value(d.kind)?;
        writeln!(
            out,
            "{:<8} {:<40} {:>5}-{:<5}  {}",
            kind.as_str().unwrap_or(""),
            d.qualified_name,
            d.start_line,
            d.end_line,
            calls.join(", ")
        )?;
    }
    if outline.syntax_errors {
        for d in &outline.diagnostics {
            writeln!(out, "line {}: {}", d.line, d.message)?;
        }
    }
    Ok(())
}
