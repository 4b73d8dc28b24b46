//! Frame names as integer ids: an interner keyed by a fast hash of the text (every string stored
//! once) and one pass over a run's nodes giving each the id of the name `Dataset::frame_name`
//! prints. Comparisons match two runs' trees by these ids; `frames::Names` names view frames.

use crate::model::IdMap;
use crate::model::{Dataset, Frame, LexicalType, NodeKind, NONE};

// A 1M-context run has ~360,000 distinct names (mostly `file:line` of source lines): keyed
// SipHash maps, each string formatted and stored twice, cost most of a comparison's time.

/// Strings interned once each, their text in one buffer: ids count up from 0 in first-seen
/// order.
#[derive(Clone, Debug, Default)]
pub struct Interner {
    text: String,
    /// End of each string in `text` (its start is the previous one's end).
    ends: Vec<usize>,
    /// Open addressing, linear probing: (hash << 32) | (id + 1) of a string, 0 for an empty
    /// slot, so a probe compares text only where the 32-bit hash matches. Its length is a power
    /// of two, at least twice the number of strings.
    table: Vec<u64>,
}

/// A fast 64-bit hash of a string's bytes, eight at a time (names are not chosen by an attacker
/// who could gain from collisions: a collision costs one text compare).
fn text_hash(s: &str) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let b = s.as_bytes();
    let mut h = (b.len() as u64).wrapping_mul(K);
    let mut chunks = b.chunks_exact(8);
    let mut word = [0u8; 8];
    for c in &mut chunks {
        word.copy_from_slice(c);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    h ^ (h >> 32)
}

impl Interner {
    /// Slot of `s` (hash `h`): where it is, or the empty slot where it would go.
    fn slot(&self, s: &str, h: u32) -> (usize, Option<u32>) {
        let mask = self.table.len() - 1;
        let mut k = h as usize & mask;
        loop {
            match self.table[k] {
                0 => return (k, None),
                e if (e >> 32) as u32 == h => {
                    let id = (e as u32).wrapping_sub(1);
                    if self.get(id) == Some(s) {
                        return (k, Some(id));
                    }
                }
                _ => {}
            }
            k = (k + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let len = (self.table.len() * 2).max(64);
        let old = std::mem::replace(&mut self.table, vec![0; len]);
        let mask = len - 1;
        for e in old.into_iter().filter(|&e| e != 0) {
            let mut k = (e >> 32) as usize & mask;
            while self.table[k] != 0 {
                k = (k + 1) & mask;
            }
            self.table[k] = e;
        }
    }

    /// Id of `s` of hash `h`, its text stored when new.
    fn intern(&mut self, s: &str, h: u32) -> u32 {
        if (self.ends.len() + 1) * 2 > self.table.len() {
            self.grow();
        }
        let (k, found) = self.slot(s, h);
        if let Some(id) = found {
            return id;
        }
        let id = self.ends.len() as u32;
        self.text.push_str(s);
        self.ends.push(self.text.len());
        self.table[k] = (h as u64) << 32 | (id as u64 + 1);
        id
    }

    pub fn id(&mut self, s: &str) -> u32 {
        self.intern(s, text_hash(s) as u32)
    }

    /// Id of `s` if it was interned.
    pub fn find(&self, s: &str) -> Option<u32> {
        if self.table.is_empty() {
            return None;
        }
        self.slot(s, text_hash(s) as u32).1
    }

    pub fn get(&self, i: u32) -> Option<&str> {
        let i = i as usize;
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start..end)
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The strings in id order, as owned strings.
    pub fn into_strings(self) -> Vec<String> {
        self.to_vec()
    }

    /// The strings in id order.
    pub fn to_vec(&self) -> Vec<String> {
        (0..self.len() as u32)
            .map(|i| self.get(i).unwrap_or("").to_string())
            .collect()
    }
}

/// Interned names of one run's frames, made on demand: what `Dataset::frame_name` prints, each
/// function's name interned once and every other frame's once per distinct naming fields.
pub struct FrameTexts<'a> {
    ds: &'a Dataset,
    /// Interned name of each function (`NONE` until first asked).
    function: Vec<u32>,
    /// Names of loops and source lines (named by file and line alone) in one array per (file,
    /// loop or line), indexed by line: a function's lines are near each other in the tree and
    /// in these arrays, so most lookups stay in cache where a hash map's would not.
    by_line: Vec<Vec<u32>>,
    /// Array slots still allowed (4 per node): a file's line numbers are bounded by nothing.
    budget: usize,
    seen: IdMap<FrameFields, u32>,
    buf: String,
}

impl<'a> FrameTexts<'a> {
    pub fn new(ds: &'a Dataset) -> FrameTexts<'a> {
        FrameTexts {
            ds,
            function: vec![NONE; ds.functions.len()],
            by_line: vec![Vec::new(); ds.source_files.len() * 2],
            budget: ds.cct.tree.len() * 4 + 4096,
            seen: IdMap::default(),
            buf: String::new(),
        }
    }

    /// Id in `names` of node `i`'s name (as `Dataset::frame_name(i)` prints it).
    pub fn id(&mut self, names: &mut Interner, i: u32) -> u32 {
        let Some(f) = self.ds.cct.frame.get(i as usize) else {
            return names.id("");
        };
        if f.kind == NodeKind::Context {
            if let Some(slot) = f
                .code
                .function
                .and_then(|x| self.function.get_mut(x as usize))
            {
                if *slot == NONE {
                    let name = f
                        .code
                        .function
                        .and_then(|x| self.ds.functions.get(x as usize))
                        .map_or("", |x| x.name.as_str());
                    *slot = names.id(name);
                }
                return *slot;
            }
        }
        if let Some(slot) = self.line_slot(f) {
            if let Some(&id) = self.by_line[slot.0].get(slot.1).filter(|&&id| id != NONE) {
                return id;
            }
            let id = self.make(names, i);
            if let Some(x) = self.by_line[slot.0].get_mut(slot.1) {
                *x = id;
            }
            return id;
        }
        let key = FrameFields::of(f);
        if let Some(&id) = self.seen.get(&key) {
            return id;
        }
        let id = self.make(names, i);
        self.seen.insert(key, id);
        id
    }

    fn make(&mut self, names: &mut Interner, i: u32) -> u32 {
        self.buf.clear();
        self.ds.write_frame_name(i, &mut self.buf);
        names.id(&self.buf)
    }

    /// (array, line) of a loop or source line named by its file and line (`FrameFields::of`),
    /// the array grown to hold it while the budget allows; `None` for other frames.
    fn line_slot(&mut self, f: &Frame) -> Option<(usize, usize)> {
        let is_loop = f.lexical_type == LexicalType::Loop;
        if f.kind != NodeKind::Context || !(is_loop || f.lexical_type == LexicalType::Line) {
            return None;
        }
        let k = f.code.file? as usize * 2 + is_loop as usize;
        let line = f.code.line? as usize;
        let v = self.by_line.get_mut(k)?;
        if line >= v.len() {
            let more = line + 1 - v.len();
            if more > self.budget {
                return None;
            }
            self.budget -= more;
            v.resize(line + 1, NONE);
        }
        Some((k, line))
    }
}

/// The fields `Dataset::frame_name` reads of a frame that names no function.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct FrameFields {
    kind: u8,
    lexical: u8,
    file: u32,
    line: u32,
    module: u32,
    offset: u64,
    has_offset: bool,
}

impl FrameFields {
    /// The fields that name `f` (a frame whose function, if any, is not a valid index): loops and
    /// source lines are named by file and line alone, other frames by module, offset, file, line.
    fn of(f: &crate::model::Frame) -> FrameFields {
        let none = u32::MAX;
        let mut k = FrameFields {
            kind: match f.kind {
                NodeKind::Root => 0,
                NodeKind::EntryPoint(crate::model::EntryKind::MainThread) => 1,
                NodeKind::EntryPoint(crate::model::EntryKind::ApplicationThread) => 2,
                NodeKind::EntryPoint(crate::model::EntryKind::UnknownEntry) => 3,
                NodeKind::Context => 4,
            },
            lexical: f.lexical_type as u8,
            file: f.code.file.unwrap_or(none),
            line: f.code.line.unwrap_or(none),
            module: f.code.module.unwrap_or(none),
            offset: f.code.offset.unwrap_or(0),
            has_offset: f.code.offset.is_some(),
        };
        let by_file_line = f.lexical_type == LexicalType::Loop
            || (f.lexical_type == LexicalType::Line && f.code.file.is_some());
        if k.kind != 4 || by_file_line {
            k.module = none;
            k.offset = 0;
            k.has_offset = false;
        }
        if k.kind != 4 {
            k.lexical = 0;
            k.file = none;
            k.line = none;
        }
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interner_keeps_first_seen_ids_through_growth_and_collisions() {
        let mut n = Interner::default();
        assert_eq!(n.find("a"), None);
        let words: Vec<String> = (0..5000).map(|k| format!("f{k}.c:{}", k * 7)).collect();
        for (k, w) in words.iter().enumerate() {
            assert_eq!(n.id(w), k as u32);
        }
        for (k, w) in words.iter().enumerate().rev() {
            assert_eq!(n.id(w), k as u32);
            assert_eq!(n.find(w), Some(k as u32));
            assert_eq!(n.get(k as u32), Some(w.as_str()));
        }
        assert_eq!(n.len(), 5000);
        assert_eq!(n.id(""), 5000);
        assert_eq!(n.get(5000), Some(""));
        assert_eq!(n.find("f1.c:8"), None);
        // Strings of one hash still get their own ids, and are found by their text.
        let mut c = Interner::default();
        assert_eq!(c.intern("x", 7), 0);
        assert_eq!(c.intern("y", 7), 1);
        assert_eq!(c.intern("x", 7), 0);
        assert_eq!(c.to_vec(), ["x", "y"]);
        assert_eq!((c.slot("y", 7).1, c.slot("z", 7).1), (Some(1), None));
    }

    #[test]
    fn text_hash_reads_every_byte() {
        let a = text_hash("main.c:1087");
        assert_ne!(a, text_hash("main.c:1088"));
        assert_ne!(text_hash("abcdefgh"), text_hash("abcdefgh\0"));
        assert_eq!(a, text_hash(&String::from("main.c:1087")));
    }
}
