//! `tieout schedule`: the files that run the morning dunning on weekdays, rendered as
//! text: a systemd user service and timer (Linux), a launchd agent (macOS) and a crontab
//! line. Nothing is installed; the same inputs give the same bytes (no dates, no random
//! names), so a second run on the same day writes identical files.

use std::path::{Path, PathBuf};

/// What the schedule runs and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// Hour and minute, on Monday to Friday.
    pub hour: u8,
    pub minute: u8,
    /// The IANA zone the time is in (and `--tz` of the run).
    pub zone: String,
    /// The tieout binary (absolute).
    pub bin: PathBuf,
    /// The folder the run writes its files and the post into (absolute).
    pub reports: PathBuf,
    /// The keychain profile (`None`: the default one).
    pub profile: Option<String>,
    /// An environment file with `STRIPE_API_KEY=` (mode 0600) instead of the keychain.
    pub env_file: Option<PathBuf>,
}

pub const SERVICE_NAME: &str = "tieout-dunning.service";
pub const TIMER_NAME: &str = "tieout-dunning.timer";
pub const PLIST_NAME: &str = "com.tieout.dunning.plist";
pub const CRONTAB_NAME: &str = "crontab.txt";
/// The post's file name in the reports folder.
pub const SUMMARY_NAME: &str = "summary.txt";

/// Parses `HH:MM` (24-hour clock).
pub fn parse_time(text: &str) -> Result<(u8, u8), String> {
    let bad = || format!("'{text}' is not a time HH:MM (24-hour clock, e.g. 07:30)");
    let (h, m) = text.split_once(':').ok_or_else(bad)?;
    if h.len() != 2 || m.len() != 2 {
        return Err(bad());
    }
    let hour: u8 = h.parse().map_err(|_| bad())?;
    let minute: u8 = m.parse().map_err(|_| bad())?;
    if hour > 23 || minute > 59 {
        return Err(bad());
    }
    Ok((hour, minute))
}

/// Whether an argument needs no quoting anywhere: letters, digits and `/._-=:+@,`.
fn plain(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-=:+@,".contains(c))
}

/// Quotes one argument for a POSIX shell: bare when it is plainly safe, else in single
/// quotes.
fn sh_quote(s: &str) -> String {
    if plain(s) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Quotes one argument for a systemd `ExecStart=` line (double quotes, `\` and `"`
/// escaped, `%` doubled: systemd expands `%` specifiers).
fn systemd_quote(s: &str) -> String {
    let safe = plain(s);
    let s = s.replace('%', "%%");
    if safe {
        s
    } else {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl Schedule {
    /// The command line of the run: `tieout [--profile P] --tz Z dunning --since last
    /// --out DIR --summary DIR/summary.txt --force` (`--force`: each run replaces the
    /// previous run's files; the run history keeps what changed).
    pub fn args(&self) -> Vec<String> {
        let mut a = vec![self.bin.display().to_string()];
        if let Some(p) = &self.profile {
            a.push("--profile".into());
            a.push(p.clone());
        }
        a.extend(["--tz".to_string(), self.zone.clone(), "dunning".into()]);
        a.extend(["--since".to_string(), "last".into()]);
        a.extend(["--out".to_string(), self.reports.display().to_string()]);
        a.push("--summary".into());
        a.push(self.reports.join(SUMMARY_NAME).display().to_string());
        a.push("--force".into());
        a
    }

    fn key_note(&self) -> String {
        match &self.env_file {
            Some(f) => format!(
                "The key is read from STRIPE_API_KEY in {} (keep it mode 0600).",
                f.display()
            ),
            None => "The key is read from the OS keychain (`tieout login`); the keychain must be unlocked when the job runs.".to_string(),
        }
    }

    /// The command as one shell line: with an env file, it is sourced first.
    fn shell_line(&self) -> String {
        let cmd: Vec<String> = self.args().iter().map(|a| sh_quote(a)).collect();
        let cmd = cmd.join(" ");
        match &self.env_file {
            Some(f) => format!(
                "set -a && . {} && set +a && exec {cmd}",
                sh_quote(&f.display().to_string())
            ),
            None => cmd,
        }
    }

    /// `tieout-dunning.service` (a systemd user unit).
    pub fn service(&self) -> String {
        let exec: Vec<String> = self.args().iter().map(|a| systemd_quote(a)).collect();
        let mut o = String::new();
        o.push_str(
            "# Written by `tieout schedule`. Install: copy this file and tieout-dunning.timer to\n",
        );
        o.push_str("# ~/.config/systemd/user/, then: systemctl --user daemon-reload && systemctl --user enable --now tieout-dunning.timer\n");
        o.push_str(&format!("# {}\n", self.key_note()));
        o.push_str("[Unit]\n");
        o.push_str("Description=tieout: the morning dunning worklist and its channel post\n");
        o.push_str("Wants=network-online.target\n");
        o.push_str("After=network-online.target\n\n");
        o.push_str("[Service]\n");
        o.push_str("Type=oneshot\n");
        if let Some(f) = &self.env_file {
            o.push_str(&format!(
                "EnvironmentFile={}\n",
                systemd_quote(&f.display().to_string())
            ));
        }
        o.push_str(&format!(
            "WorkingDirectory={}\n",
            systemd_quote(&self.reports.display().to_string())
        ));
        o.push_str(&format!(
            "ExecStartPre=/bin/mkdir -p {}\n",
            systemd_quote(&self.reports.display().to_string())
        ));
        o.push_str(&format!("ExecStart={}\n", exec.join(" ")));
        o
    }

    /// `tieout-dunning.timer`: Monday to Friday at the time, in the zone; a run missed
    /// while the machine was off runs when it is next on (`Persistent=true`).
    pub fn timer(&self) -> String {
        let mut o = String::new();
        o.push_str("# Written by `tieout schedule`; see tieout-dunning.service.\n");
        o.push_str("[Unit]\n");
        o.push_str("Description=tieout: run the morning dunning on weekdays\n\n");
        o.push_str("[Timer]\n");
        o.push_str(&format!(
            "OnCalendar=Mon..Fri *-*-* {:02}:{:02}:00 {}\n",
            self.hour, self.minute, self.zone
        ));
        o.push_str("Persistent=true\n");
        o.push_str(&format!("Unit={SERVICE_NAME}\n\n"));
        o.push_str("[Install]\n");
        o.push_str("WantedBy=timers.target\n");
        o
    }

    /// `com.tieout.dunning.plist` (a launchd agent). launchd fires in the Mac's own time
    /// zone; the plist says so when the zone asked for is another.
    pub fn plist(&self) -> String {
        let mut o = String::new();
        o.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        o.push_str("<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n");
        o.push_str(
            "<!-- Written by `tieout schedule`. Install: copy to ~/Library/LaunchAgents/, then\n",
        );
        o.push_str("     launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/com.tieout.dunning.plist\n");
        o.push_str(&format!(
            "     Create the reports folder first (launchd does not): mkdir -p {}\n",
            xml_escape(&sh_quote(&self.reports.display().to_string()))
        ));
        o.push_str(&format!(
            "     launchd runs it at {:02}:{:02} in the Mac's own time zone; tieout cuts its dates in {}.\n",
            self.hour, self.minute, xml_escape(&self.zone)
        ));
        o.push_str(&format!("     {} -->\n", xml_escape(&self.key_note())));
        o.push_str("<plist version=\"1.0\">\n<dict>\n");
        o.push_str("  <key>Label</key>\n  <string>com.tieout.dunning</string>\n");
        o.push_str("  <key>ProgramArguments</key>\n  <array>\n");
        let args: Vec<String> = match &self.env_file {
            Some(_) => vec!["/bin/sh".into(), "-c".into(), self.shell_line()],
            None => self.args(),
        };
        for a in args {
            o.push_str(&format!("    <string>{}</string>\n", xml_escape(&a)));
        }
        o.push_str("  </array>\n");
        o.push_str(&format!(
            "  <key>WorkingDirectory</key>\n  <string>{}</string>\n",
            xml_escape(&self.reports.display().to_string())
        ));
        o.push_str("  <key>StartCalendarInterval</key>\n  <array>\n");
        for day in 1..=5 {
            o.push_str(&format!(
                "    <dict><key>Weekday</key><integer>{day}</integer><key>Hour</key><integer>{}</integer><key>Minute</key><integer>{}</integer></dict>\n",
                self.hour, self.minute
            ));
        }
        o.push_str("  </array>\n");
        let log = self
            .reports
            .join("tieout-dunning.log")
            .display()
            .to_string();
        o.push_str(&format!(
            "  <key>StandardOutPath</key>\n  <string>{}</string>\n",
            xml_escape(&log)
        ));
        o.push_str(&format!(
            "  <key>StandardErrorPath</key>\n  <string>{}</string>\n",
            xml_escape(&log)
        ));
        o.push_str("</dict>\n</plist>\n");
        o
    }

    /// `crontab.txt`: one line for `crontab -e` (with `CRON_TZ`, which cronie honours;
    /// other crons run in the system's zone).
    pub fn crontab(&self) -> String {
        let line = self.shell_line().replace('%', "\\%");
        let reports = sh_quote(&self.reports.display().to_string());
        format!(
            "# Written by `tieout schedule`. Add with `crontab -e`. {}\n# CRON_TZ is honoured by cronie; other crons use the system's time zone.\nCRON_TZ={}\n{} {} * * 1-5 mkdir -p {reports} && cd {reports} && {line} >> {reports}/tieout-dunning.log 2>&1\n",
            self.key_note(),
            self.zone,
            self.minute,
            self.hour,
        )
    }

    /// Every file, by name, in the order they are printed.
    pub fn files(&self) -> Vec<(&'static str, String)> {
        vec![
            (SERVICE_NAME, self.service()),
            (TIMER_NAME, self.timer()),
            (PLIST_NAME, self.plist()),
            (CRONTAB_NAME, self.crontab()),
        ]
    }
}

/// Checks that an environment file is only readable by its owner (Unix: no group or
/// other bits). A missing file is fine (the user creates it); the message says how.
pub fn check_env_file(path: &Path) -> Result<Option<String>, String> {
    match std::fs::metadata(path) {
        Err(_) => Ok(Some(format!(
            "{} does not exist yet: create it with `install -D -m 600 /dev/null {}` and put one line STRIPE_API_KEY=rk_live_... in it",
            path.display(),
            path.display()
        ))),
        Ok(meta) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = meta.permissions().mode() & 0o777;
                if mode & 0o077 != 0 {
                    return Err(format!(
                        "{} can be read by others (mode {mode:03o}): run `chmod 600 {}` first; a key file must be readable by you only",
                        path.display(),
                        path.display()
                    ));
                }
            }
            #[cfg(not(unix))]
            let _ = meta;
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(env_file: Option<&str>) -> Schedule {
        Schedule {
            hour: 7,
            minute: 30,
            zone: "Europe/Berlin".into(),
            bin: PathBuf::from("/usr/local/bin/tieout"),
            reports: PathBuf::from("/home/ada/billing reports"),
            profile: Some("live".into()),
            env_file: env_file.map(PathBuf::from),
        }
    }

    #[test]
    fn times_parse_strictly() {
        assert_eq!(parse_time("07:30"), Ok((7, 30)));
        assert_eq!(parse_time("23:59"), Ok((23, 59)));
        for bad in ["7:30", "24:00", "07:60", "0730", "aa:bb", ""] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_run_line_and_its_quoting() {
        let s = schedule(Some("/home/ada/.config/tieout/stripe.env"));
        assert_eq!(
            s.args().join(" "),
            "/usr/local/bin/tieout --profile live --tz Europe/Berlin dunning --since last --out /home/ada/billing reports --summary /home/ada/billing reports/summary.txt --force"
        );
        assert!(s.service().contains(
            "ExecStart=/usr/local/bin/tieout --profile live --tz Europe/Berlin dunning --since last --out \"/home/ada/billing reports\""
        ));
        assert!(
            s.service()
                .contains("EnvironmentFile=/home/ada/.config/tieout/stripe.env\n")
        );
        assert!(
            s.timer()
                .contains("OnCalendar=Mon..Fri *-*-* 07:30:00 Europe/Berlin\n")
        );
        let cron = s.crontab();
        assert!(
            cron.contains("\n30 7 * * 1-5 mkdir -p '/home/ada/billing reports' && "),
            "{cron}"
        );
        assert!(cron.contains("set -a && . /home/ada/.config/tieout/stripe.env && set +a && exec /usr/local/bin/tieout"), "{cron}");
        assert!(s.plist().contains("<string>/bin/sh</string>"));
        let keychain = schedule(None);
        assert!(!keychain.service().contains("EnvironmentFile"));
        assert!(keychain.plist().contains("<string>--since</string>"));
        assert_eq!(sh_quote("it's"), "'it'\\''s'");
        assert_eq!(systemd_quote("100%"), "\"100%%\"");
    }

    #[test]
    fn an_env_file_readable_by_others_is_refused() {
        let dir = tempfile::tempdir().expect("tmp");
        let f = dir.path().join("stripe.env");
        assert!(check_env_file(&f).expect("missing is fine").is_some());
        std::fs::write(&f, "STRIPE_API_KEY=rk_test_x\n").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).expect("chmod");
            let e = check_env_file(&f).expect_err("0644 refused");
            assert!(e.contains("chmod 600"), "{e}");
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).expect("chmod");
            assert_eq!(check_env_file(&f), Ok(None));
        }
    }
}
