//! The month-end close packet as data: the files of a folder plus `MANIFEST.json` (SHA-256
//! and size of every file), the steps of writing it, and what can go wrong. Writing and
//! verifying the folder on disk is the IO crate's `packet_dir`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The manifest's file name.
pub const MANIFEST: &str = "MANIFEST.json";

/// One file of the packet as the manifest records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
}

/// `MANIFEST.json`: what the packet is of, and a checksum of every other file in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub packet: String,
    pub month: String,
    pub time_zone: String,
    pub account_id: String,
    pub mode: String,
    pub origin: String,
    pub api_version: String,
    pub tieout_version: String,
    pub data_read_at_utc: String,
    pub files: Vec<ManifestEntry>,
}

#[derive(Debug, thiserror::Error)]
pub enum PacketError {
    #[error(
        "{0} already holds a close packet; pass --force to replace it, or choose another --out folder"
    )]
    Exists(PathBuf),
    #[error(
        "{0} exists and is not empty (and holds no close packet); choose an empty or new --out folder"
    )]
    NotEmpty(PathBuf),
    #[error("could not write the packet at {path}: {source}; nothing was changed there")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} has no readable {MANIFEST} ({why}); is it a tieout close packet?")]
    BadManifest { path: PathBuf, why: String },
    /// The account's data could not be turned into the packet's files.
    #[error("{0}")]
    Data(String),
    /// The journal the account map asks for cannot be made (an unmapped category, a name
    /// a format refuses): a problem of the map, said with what to change.
    #[error("{0}")]
    Journal(String),
}

pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> PacketError + '_ {
    move |source| PacketError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Manifest entries for a set of files, in name order.
pub fn entries(files: &BTreeMap<String, Vec<u8>>) -> Vec<ManifestEntry> {
    files
        .iter()
        .map(|(name, bytes)| ManifestEntry {
            name: name.clone(),
            bytes: bytes.len() as u64,
            sha256: sha256_hex(bytes),
        })
        .collect()
}

/// How far a packet export got (for a progress line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Computing one part of the packet ("the tie-out of 2026-10").
    Building(String),
    /// Writing file `done` of `total` (the manifest included) into the staging folder.
    Writing {
        name: String,
        done: usize,
        total: usize,
    },
    /// Every file is written; the folder is being moved into place.
    Moving,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Building(what) => write!(f, "building {what}"),
            Step::Writing { name, done, total } => {
                write!(f, "writing {name} ({done}/{total} files)")
            }
            Step::Moving => f.write_str("moving the packet into place"),
        }
    }
}
