//! Streaming JSON writers: one JSON array per object type, written object by object to a
//! buffered file, so a million balance transactions never sit in memory as one value.
//! Layout: `[` newline, one compact object per line separated by `,`, `]` newline —
//! byte-deterministic and diff-friendly.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

/// What went wrong while writing a generated account.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    #[error("could not write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not serialise an object for {path}: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{0}")]
    Invalid(String),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> GenError + '_ {
    move |source| GenError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `[obj,\nobj,...]` to a file as objects arrive.
#[derive(Debug)]
pub struct ArrayWriter {
    path: PathBuf,
    w: BufWriter<File>,
    count: u64,
}

impl ArrayWriter {
    pub fn create(path: &Path) -> Result<Self, GenError> {
        let file = File::create(path).map_err(io_err(path))?;
        let mut w = BufWriter::with_capacity(1 << 16, file);
        w.write_all(b"[").map_err(io_err(path))?;
        Ok(Self {
            path: path.to_path_buf(),
            w,
            count: 0,
        })
    }

    pub fn push<T: Serialize>(&mut self, value: &T) -> Result<(), GenError> {
        let sep: &[u8] = if self.count == 0 { b"\n" } else { b",\n" };
        self.w.write_all(sep).map_err(io_err(&self.path))?;
        serde_json::to_writer(&mut self.w, value).map_err(|source| GenError::Json {
            path: self.path.clone(),
            source,
        })?;
        self.count += 1;
        Ok(())
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Closes the array and flushes; returns how many objects were written.
    pub fn finish(mut self) -> Result<u64, GenError> {
        let tail: &[u8] = if self.count == 0 { b"]\n" } else { b"\n]\n" };
        self.w.write_all(tail).map_err(io_err(&self.path))?;
        self.w.flush().map_err(io_err(&self.path))?;
        Ok(self.count)
    }
}

/// Writes `{"key": value,\n...}` (`payout_lines.json`) as entries arrive.
#[derive(Debug)]
pub struct MapWriter {
    path: PathBuf,
    w: BufWriter<File>,
    count: u64,
}

impl MapWriter {
    pub fn create(path: &Path) -> Result<Self, GenError> {
        let file = File::create(path).map_err(io_err(path))?;
        let mut w = BufWriter::with_capacity(1 << 16, file);
        w.write_all(b"{").map_err(io_err(path))?;
        Ok(Self {
            path: path.to_path_buf(),
            w,
            count: 0,
        })
    }

    pub fn entry<T: Serialize>(&mut self, key: &str, value: &T) -> Result<(), GenError> {
        let sep: &[u8] = if self.count == 0 { b"\n" } else { b",\n" };
        self.w.write_all(sep).map_err(io_err(&self.path))?;
        let json = |source| GenError::Json {
            path: self.path.clone(),
            source,
        };
        serde_json::to_writer(&mut self.w, key).map_err(json)?;
        self.w.write_all(b":").map_err(io_err(&self.path))?;
        serde_json::to_writer(&mut self.w, value).map_err(|source| GenError::Json {
            path: self.path.clone(),
            source,
        })?;
        self.count += 1;
        Ok(())
    }

    pub fn finish(mut self) -> Result<u64, GenError> {
        let tail: &[u8] = if self.count == 0 { b"}\n" } else { b"\n}\n" };
        self.w.write_all(tail).map_err(io_err(&self.path))?;
        self.w.flush().map_err(io_err(&self.path))?;
        Ok(self.count)
    }
}

/// Writes one whole value (pretty-printed) to a file: `account.json`, `meta.json`, ...
pub fn write_value<T: Serialize>(path: &Path, value: &T) -> Result<(), GenError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|source| GenError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    text.push('\n');
    std::fs::write(path, text).map_err(io_err(path))
}

/// Writes text as is.
pub fn write_text(path: &Path, text: &str) -> Result<(), GenError> {
    std::fs::write(path, text).map_err(io_err(path))
}
