//! `tieout schedule --weekdays HH:MM [--tz ZONE] [--out DIR]`: prints (or writes into
//! DIR) a systemd user service and timer, a launchd agent and a crontab line that run
//! `tieout dunning --since last --summary …` on weekdays. Installs nothing.

use std::path::PathBuf;

use clap::Args;

use super::{CmdResult, Ctx, Failure};
use crate::app::schedule::{self, Schedule};

#[derive(Debug, Clone, Args)]
pub struct ScheduleArgs {
    /// The time on Monday to Friday, HH:MM (24-hour clock, in --tz).
    #[arg(long, value_name = "HH:MM", value_parser = schedule::parse_time)]
    pub weekdays: (u8, u8),
    /// Write the files into DIR instead of printing them.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Where the scheduled run writes its files and the post (default: ~/tieout/dunning).
    #[arg(long, value_name = "DIR")]
    pub reports: Option<PathBuf>,
    /// Read STRIPE_API_KEY from this file (mode 0600) instead of the keychain.
    #[arg(long, value_name = "FILE")]
    pub env_file: Option<PathBuf>,
    /// The tieout binary the jobs run (default: this one).
    #[arg(long, value_name = "PATH")]
    pub bin: Option<PathBuf>,
    /// Replace files an earlier, different `schedule --out` wrote.
    #[arg(long)]
    pub force: bool,
}

fn absolute(p: PathBuf, what: &str) -> Result<PathBuf, Failure> {
    if p.is_absolute() {
        return Ok(p);
    }
    std::env::current_dir()
        .map(|d| d.join(p))
        .map_err(|e| Failure::other(format!("{what}: the current folder is unknown ({e})")))
}

pub fn run(ctx: &Ctx, args: &ScheduleArgs) -> CmdResult {
    let bin = match &args.bin {
        Some(b) => absolute(b.clone(), "--bin")?,
        None => std::env::current_exe().map_err(|e| {
            Failure::other(format!(
                "could not tell where this tieout binary is ({e}); pass --bin PATH"
            ))
        })?,
    };
    let reports = match &args.reports {
        Some(r) => absolute(r.clone(), "--reports")?,
        None => directories::BaseDirs::new()
            .map(|b| b.home_dir().join("tieout").join("dunning"))
            .ok_or_else(|| Failure::usage("no home folder is known: pass --reports DIR"))?,
    };
    let env_file = args
        .env_file
        .clone()
        .map(|f| absolute(f, "--env-file"))
        .transpose()?;
    if let Some(f) = &env_file {
        match schedule::check_env_file(f) {
            Ok(Some(note)) => eprintln!("note: {note}"),
            Ok(None) => {}
            Err(e) => return Err(Failure::usage(e)),
        }
    }
    let profile = (ctx.global.profile != "default").then(|| ctx.global.profile.clone());
    let s = Schedule {
        hour: args.weekdays.0,
        minute: args.weekdays.1,
        zone: crate::time::zone_name(&ctx.tz),
        bin,
        reports,
        profile,
        env_file,
    };
    let files = s.files();
    match &args.out {
        None => {
            for (name, text) in &files {
                println!("# ---- {name} ----");
                print!("{text}");
                println!();
            }
        }
        Some(dir) => {
            let files: Vec<(&str, Vec<u8>)> = files
                .into_iter()
                .map(|(n, t)| (n, t.into_bytes()))
                .collect();
            for (path, _) in super::write_exports(dir, &files, args.force)? {
                println!("{}", path.display());
            }
            println!(
                "Nothing is installed: copy the files as each one's first lines say (systemd on Linux, launchd on macOS, or the crontab line)."
            );
        }
    }
    Ok(())
}
