//! Stripe-looking object ids (`ch_3Q...`, `cus_Q...`), deterministic per seed.
//!
//! Each prefix draws from its own ChaCha stream, so adding objects of one kind does not
//! renumber the ids of the others (golden files of other rooms survive a refinement of
//! one object type).

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Hands out ids, one deterministic stream per prefix.
#[derive(Debug)]
pub struct Ids {
    seed: u64,
    streams: BTreeMap<&'static str, ChaCha8Rng>,
}

/// FNV-1a, to turn a prefix into a stream number.
fn fnv(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl Ids {
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            streams: BTreeMap::new(),
        }
    }

    /// A fresh id: `prefix` + `len` base-62 characters (Stripe uses 14 for `cus_`/`si_`
    /// and 24 for most others).
    pub fn next(&mut self, prefix: &'static str, len: usize) -> String {
        self.next_in(prefix, prefix, len)
    }

    /// A fresh id from the stream named `stream` (objects added to the demo later draw
    /// from their own stream, so the ids already in the demo do not move).
    pub fn next_in(&mut self, stream: &'static str, prefix: &'static str, len: usize) -> String {
        let seed = self.seed;
        let rng = self.streams.entry(stream).or_insert_with(|| {
            let mut r = ChaCha8Rng::seed_from_u64(seed ^ fnv(stream));
            r.set_stream(fnv(stream));
            r
        });
        let mut out = String::with_capacity(prefix.len() + len);
        out.push_str(prefix);
        for _ in 0..len {
            let i = rng.random_range(0..ALPHABET.len());
            out.push(char::from(ALPHABET[i]));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_independent_and_repeatable() {
        let mut a = Ids::new(7);
        let mut b = Ids::new(7);
        let a1 = a.next("ch_", 24);
        let _ = b.next("cus_", 14);
        let b1 = b.next("ch_", 24);
        assert_eq!(a1, b1);
        assert_eq!(a1.len(), 27);
        assert!(a1.starts_with("ch_"));
        assert_ne!(a.next("ch_", 24), a1);
    }
}
