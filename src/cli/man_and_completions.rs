//! `tieout completions SHELL` and `tieout man [--out DIR]`: the conventions of a
//! command-line tool, made from the same clap definition as `--help`, so a new command or
//! option is completed and documented the moment it exists (clap_complete, clap_mangen).

use std::io::Write as _;
use std::path::PathBuf;

use clap::{Args, CommandFactory, ValueEnum};
use clap_complete::Shell;

use super::{Cli, CmdResult, Failure};

/// `tieout completions`' options.
#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_name = "SHELL", value_parser = parse_shell)]
    pub shell: Shell,
}

/// `tieout man`'s options.
#[derive(Debug, Clone, Args)]
pub struct ManArgs {
    /// Write tieout.1 and one page per command (tieout-dunning.1, …) into this folder
    /// instead of printing tieout.1.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace pages written by an earlier, different tieout.
    #[arg(long, requires = "out")]
    pub force: bool,
}

/// A shell by name, the error listing the ones there are.
fn parse_shell(s: &str) -> Result<Shell, String> {
    Shell::from_str(s, true).map_err(|_| {
        let names: Vec<String> = Shell::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
            .collect();
        format!(
            "no completions for '{s}'; choose one of {}",
            names.join(", ")
        )
    })
}

/// Prints the completion script of `shell` on stdout.
pub fn completions(args: &CompletionsArgs) -> CmdResult {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "tieout", &mut script);
    write_stdout(&script)
}

/// Prints tieout.1, or writes every page into `--out` (all of them or none).
pub fn man(args: &ManArgs) -> CmdResult {
    let pages = pages()?;
    match &args.out {
        None => {
            let top = pages
                .iter()
                .find(|(name, _)| name == "tieout.1")
                .map(|(_, roff)| roff.as_slice())
                .unwrap_or_default();
            write_stdout(top)
        }
        Some(dir) => {
            let files: Vec<(&str, Vec<u8>)> = pages
                .iter()
                .map(|(name, roff)| (name.as_str(), roff.clone()))
                .collect();
            for (path, _) in super::write_exports(dir, &files, args.force)? {
                println!("{}", path.display());
            }
            Ok(())
        }
    }
}

/// Every man page: `tieout.1` first, then one per visible command, each named as
/// `man` looks it up (`tieout-dunning.1` for `man tieout-dunning`).
pub fn pages() -> Result<Vec<(String, Vec<u8>)>, Failure> {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    let mut todo = vec![cmd];
    while let Some(c) = todo.pop() {
        let subs: Vec<clap::Command> = c
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .cloned()
            .collect();
        let man = clap_mangen::Man::new(c);
        let mut roff = Vec::new();
        man.render(&mut roff)
            .map_err(|e| Failure::other(format!("could not render a man page: {e}")))?;
        out.push((man.get_filename(), roff));
        todo.extend(subs.into_iter().rev());
    }
    Ok(out)
}

/// `bytes` on stdout; a closed pipe (`tieout man | head`) is not an error.
fn write_stdout(bytes: &[u8]) -> CmdResult {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Failure::other(format!("could not write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}
