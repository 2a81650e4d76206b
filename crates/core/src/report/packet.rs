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
#[serde(deny_unknown_fields)]
pub struct ManifestEntry {
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
}

/// `MANIFEST.json`: what the packet is of, and a checksum of every other file in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    /// SHA-256 of this manifest with an empty seal (compact JSON, fields in this order):
    /// an edit of any field above (the month, the account, an entry) made without
    /// recomputing it shows when the packet is verified. It proves the packet was not
    /// edited by hand, not who made it: it is no signature.
    #[serde(default)]
    pub seal: String,
}

impl Manifest {
    /// The manifest with its seal set.
    pub fn sealed(mut self) -> Self {
        self.seal = self.seal_digest();
        self
    }

    /// What the seal of this manifest's other fields is.
    pub fn seal_digest(&self) -> String {
        let mut unsealed = self.clone();
        unsealed.seal.clear();
        // A struct of strings and numbers always serialises.
        sha256_hex(&serde_json::to_vec(&unsealed).unwrap_or_default())
    }

    /// Why the manifest's own fields cannot be trusted, if they cannot.
    pub fn seal_problem(&self) -> Option<&'static str> {
        if self.seal.is_empty() {
            Some(
                "it has no seal: an older tieout wrote it or the seal was removed; make the packet again",
            )
        } else if self.seal != self.seal_digest() {
            Some("its fields were edited after it was written (the seal does not match them)")
        } else {
            None
        }
    }
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
