//! Hash maps keyed by ids the readers and the analysis make (node, name and function ids, uftrace's
//! `parent << 32 | func` tree keys): a multiply per word instead of SipHash, which costs more than
//! the work per record and most of the time of building a 1M-node merged tree in wasm.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The hasher of [`IdMap`]: rustc-hash's multiply, finished with a rotation. Keys are ids, not
/// attacker-chosen strings.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl IdHasher {
    #[inline]
    fn add(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        // The multiply leaves the low bits depending only on the key's low bits, and the table
        // picks buckets by the low bits: keys `parent << 32 | func` of one function (a deep
        // recursion) all landed in one probe chain, quadratic. Rotating brings the well-mixed
        // high bits down (as rustc-hash 2 does).
        self.0.rotate_left(26)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(b as u64);
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.add(n as u64);
    }
    fn write_u32(&mut self, n: u32) {
        self.add(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

/// HashMap keyed by ids, with [`IdHasher`].
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;
