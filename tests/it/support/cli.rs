//! Running the built `tieout` binary the way a user would, but sealed off: a cleared
//! environment, HOME and the XDG folders inside a temp dir (so caches, logs and audit files
//! never touch the real user folders), the fixed demo clock, and optionally the fake Stripe
//! server as the API with a test key.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use tieout_testkit::fake_stripe::{FakeStripe, TEST_KEY};

/// The demo's clock (TEAM.md "Demo fixtures"); passed as `--now` unless overridden.
pub const NOW: &str = "2026-11-30T12:00:00Z";

/// A sealed environment to run `tieout` in, kept for several runs (e.g. `sync` then
/// `status` share the cache). The temp dir is deleted when this is dropped.
pub struct Tieout {
    root: tempfile::TempDir,
    env: Vec<(String, String)>,
    global: Vec<String>,
    now: Option<String>,
}

/// What a run printed and how it ended.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// The exit code (`None` if killed by a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl RunOutput {
    /// Panics with both streams unless the run exited 0.
    #[track_caller]
    pub fn success(&self) -> &Self {
        self.code(0)
    }

    /// Panics with both streams unless the run exited with `code`.
    #[track_caller]
    pub fn code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code,
            Some(code),
            "expected exit code {code}\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

impl Default for Tieout {
    fn default() -> Self {
        Tieout::new()
    }
}

impl Tieout {
    /// A clean environment with no key and no API base (add them with `key`/`api_base`).
    pub fn new() -> Tieout {
        let root = tempfile::Builder::new()
            .prefix("tieout-it-")
            .tempdir()
            .expect("a temp dir for the test's HOME");
        let home = root.path().join("home");
        let mut env = vec![
            ("HOME".to_string(), home.display().to_string()),
            (
                "XDG_CONFIG_HOME".to_string(),
                home.join(".config").display().to_string(),
            ),
            (
                "XDG_DATA_HOME".to_string(),
                home.join(".local/share").display().to_string(),
            ),
            (
                "XDG_STATE_HOME".to_string(),
                home.join(".local/state").display().to_string(),
            ),
            (
                "XDG_CACHE_HOME".to_string(),
                home.join(".cache").display().to_string(),
            ),
            ("LANG".to_string(), "C.UTF-8".to_string()),
            ("TZ".to_string(), "UTC".to_string()),
            ("NO_COLOR".to_string(), "1".to_string()),
            ("RUST_BACKTRACE".to_string(), "0".to_string()),
            // Stripe failing for good gives up after 3 s without a success, not minutes.
            ("TIEOUT_GIVE_UP_AFTER".to_string(), "3".to_string()),
        ];
        if let Ok(path) = std::env::var("PATH") {
            env.push(("PATH".to_string(), path));
        }
        for dir in [".config", ".local/share", ".local/state", ".cache"] {
            std::fs::create_dir_all(home.join(dir)).expect("create the test's XDG folders");
        }
        std::fs::create_dir_all(root.path().join("work")).expect("create the work folder");
        Tieout {
            root,
            env,
            global: Vec::new(),
            now: Some(NOW.to_string()),
        }
    }

    /// A clean environment pointed at a fake server with the default test key.
    pub fn against(fake: &FakeStripe) -> Tieout {
        Tieout::new().key(TEST_KEY).api_base(&fake.base_url())
    }

    /// A clean environment with `--demo`.
    pub fn demo() -> Tieout {
        Tieout::new().arg("--demo")
    }

    /// Sets `STRIPE_API_KEY`.
    pub fn key(self, key: &str) -> Tieout {
        self.env("STRIPE_API_KEY", key)
    }

    /// Passes `--api-base URL`.
    pub fn api_base(self, url: &str) -> Tieout {
        self.arg("--api-base").arg(url)
    }

    /// Adds a global argument put before every command's own.
    pub fn arg(mut self, arg: &str) -> Tieout {
        self.global.push(arg.to_string());
        self
    }

    /// Sets (or replaces) an environment variable.
    pub fn env(mut self, name: &str, value: &str) -> Tieout {
        self.env.retain(|(k, _)| k != name);
        self.env.push((name.to_string(), value.to_string()));
        self
    }

    /// Removes an environment variable.
    pub fn env_remove(mut self, name: &str) -> Tieout {
        self.env.retain(|(k, _)| k != name);
        self
    }

    /// Another clock (`None`: no `--now`, the real one).
    pub fn now(mut self, now: Option<&str>) -> Tieout {
        self.now = now.map(str::to_string);
        self
    }

    /// The fake HOME.
    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    /// The current directory of runs (exports land here unless `--out` says otherwise).
    pub fn work_dir(&self) -> PathBuf {
        self.root.path().join("work")
    }

    /// The whole temp tree (to search for leaked secrets, list written files, ...).
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// The command that `run` would execute, for tests that need more control.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tieout"));
        cmd.env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(self.work_dir())
            .stdin(Stdio::null());
        if let Some(now) = &self.now {
            cmd.arg("--now").arg(now);
        }
        cmd.args(&self.global).args(args);
        cmd
    }

    /// Runs `tieout <global args> <args>` to completion.
    pub fn run(&self, args: &[&str]) -> RunOutput {
        let out = self.command(args).output().expect("the tieout binary runs");
        RunOutput {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Runs with `stdin` piped in (e.g. `login` reading a key from a pipe).
    pub fn run_with_stdin(&self, args: &[&str], stdin: &str) -> RunOutput {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the tieout binary starts");
        if let Some(mut pipe) = child.stdin.take() {
            // The command may exit before reading; a broken pipe is its business.
            let _ = pipe.write_all(stdin.as_bytes());
        }
        let out = child.wait_with_output().expect("the tieout binary ends");
        RunOutput {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}
