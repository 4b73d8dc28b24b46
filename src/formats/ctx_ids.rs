//! Context ids as a database's tree gives them, made unique: the readers of experiment.xml and
//! meta.db keep a context's own id when it is new and give a missing, zero or repeated one a fresh
//! synthetic id (no per-thread values attach to those).

use std::collections::HashSet;

/// The first synthetic id; databases number their contexts from 1 up, far below this.
const FIRST_SYNTHETIC: u32 = 0x8000_0000;

/// The context ids given out so far.
pub struct CtxIds {
    used: IdSet,
    next_synthetic: u32,
    /// How many contexts were given a synthetic id.
    pub renumbered: u64,
}

impl Default for CtxIds {
    fn default() -> CtxIds {
        let mut used = IdSet {
            bits: Vec::new(),
            sparse: HashSet::new(),
        };
        used.insert(0);
        CtxIds {
            used,
            next_synthetic: FIRST_SYNTHETIC,
            renumbered: 0,
        }
    }
}

impl CtxIds {
    /// `id` when it is given and not taken yet (0 always is), else the next free synthetic id.
    pub fn claim(&mut self, id: Option<u32>) -> u32 {
        match id {
            Some(c) if self.used.insert(c) => c,
            _ => {
                self.renumbered += 1;
                while !self.used.insert(self.next_synthetic) {
                    self.next_synthetic = self.next_synthetic.wrapping_add(1);
                }
                self.next_synthetic
            }
        }
    }
}

/// Ids seen so far: a bitmap for ids below [`IdSet::DENSE`] (hpcprof numbers scopes from 1 up,
/// one per scope), a hash set above, so a huge id costs no huge bitmap.
struct IdSet {
    bits: Vec<u64>,
    sparse: HashSet<u32>,
}

impl IdSet {
    /// Ids below this (16 Mi: a 2 MB bitmap at most) go in the bitmap.
    const DENSE: u32 = 1 << 24;

    /// Adds `id`; false when it was there already.
    fn insert(&mut self, id: u32) -> bool {
        if id >= Self::DENSE {
            return self.sparse.insert(id);
        }
        let (word, bit) = ((id / 64) as usize, 1u64 << (id % 64));
        if word >= self.bits.len() {
            self.bits.resize((word + 1).next_power_of_two(), 0);
        }
        let fresh = self.bits[word] & bit == 0;
        self.bits[word] |= bit;
        fresh
    }
}
