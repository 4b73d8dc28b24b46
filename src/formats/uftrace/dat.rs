//! `<tid>.dat`: a task's records, 16 bytes each (seed 004, "The data (.dat) file"): a u64
//! timestamp in ns, then a u64 of 2-bit type (ENTRY 0, EXIT 1, LOST 2, EVENT 3), 1-bit "more",
//! 3-bit magic (5), 10-bit depth and 48-bit address. A record with "more" is followed by a
//! payload whose size the caller decides (argument specs, event length): FORMATS-NOTES, uftrace.

// Records are read through windows of the byte source, never the whole file at once.

use crate::bytes::Source;
use crate::error::{Error, Result};
use std::borrow::Cow;

pub const RECORD_SIZE: u64 = 16;
pub const RECORD_MAGIC: u64 = 5;
/// Bytes fetched per window.
pub const WINDOW: u64 = 1 << 20;
/// Bytes read per window by a pass over a whole file that is not in memory (a URL; a dropped
/// Blob is fed to the pass instead, see `stream.rs`): every read is a call out to JavaScript
/// that makes a new ArrayBuffer, whose cost falls with its size (reading a 397 MB file with
/// FileReaderSync in Chromium 156 took 2.3 s of CPU in 1 MiB reads, 1.6 s in 4 MiB reads, 0.9 s
/// in 16 MiB reads).
pub const STREAM_WINDOW: u64 = 16 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordKind {
    Entry,
    Exit,
    Lost,
    Event,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UftraceRecord {
    pub time: u64,
    pub kind: RecordKind,
    pub more: bool,
    pub depth: u16,
    /// Function address (ENTRY/EXIT), event id (EVENT) or number of lost records (LOST).
    pub addr: u64,
}

/// Decodes the two words of a record; `None` when the magic is wrong. `bits_from_msb` is for
/// big-endian recordings, whose C bitfields are laid out from the most significant bit.
pub fn decode(time: u64, word: u64, bits_from_msb: bool) -> Option<UftraceRecord> {
    let (ty, more, magic, depth, addr) = if bits_from_msb {
        (
            word >> 62,
            (word >> 61) & 1,
            (word >> 58) & 7,
            (word >> 48) & 0x3ff,
            word & 0xffff_ffff_ffff,
        )
    } else {
        (
            word & 3,
            (word >> 2) & 1,
            (word >> 3) & 7,
            (word >> 6) & 0x3ff,
            word >> 16,
        )
    };
    if magic != RECORD_MAGIC {
        return None;
    }
    let kind = match ty {
        0 => RecordKind::Entry,
        1 => RecordKind::Exit,
        2 => RecordKind::Lost,
        _ => RecordKind::Event,
    };
    Some(UftraceRecord {
        time,
        kind,
        more: more != 0,
        depth: depth as u16,
        addr,
    })
}

/// What the caller says about the payload after a record with the "more" bit.
pub enum Payload {
    /// This many bytes (a multiple of 8) follow.
    Len(usize),
    /// The bytes given were too few to tell: give me more.
    Short,
    /// No spec says how long it is: resynchronise on the next plausible record.
    Unknown,
}

/// Length of an EVENT payload: u16 length + data, padded so length + 2 is a multiple of 8.
pub fn event_payload_len(data: &[u8]) -> Payload {
    match data.get(..2) {
        Some(b) => {
            let len = u16::from_le_bytes([b[0], b[1]]) as usize + 2;
            let padded = (len + 7) & !7;
            if padded <= data.len() {
                Payload::Len(padded)
            } else {
                Payload::Short
            }
        }
        None => Payload::Short,
    }
}

/// Streams the records of one .dat file from an offset.
pub struct DatReader<'a> {
    src: &'a Source,
    little: bool,
    pos: u64,
    win: Cow<'a, [u8]>,
    win_start: u64,
    /// Bytes per window (`WINDOW`, or `STREAM_WINDOW` for a whole pass over a file not in memory).
    window: u64,
    /// Windows read past the source's block cache into one reused buffer (see `whole_pass`).
    streamed: bool,
    /// Records skipped over by resynchronisation, for a warning.
    pub resynced: u64,
    done: bool,
    /// Fed: the window holds the bytes given so far ([`feed`](Self::feed)) and nothing is read;
    /// a record they do not hold whole leaves the reader where it was and `starved` set.
    fed: bool,
    /// A fed reader's last read wanted bytes not fed yet.
    pub starved: bool,
}

/// What a fed [`DatReader`] keeps between two feeds (it borrows its source).
#[derive(Default)]
pub struct FedState {
    pos: u64,
    win: Vec<u8>,
    win_start: u64,
    resynced: u64,
    done: bool,
}

impl<'a> DatReader<'a> {
    pub fn new(src: &'a Source, little: bool, start: u64) -> DatReader<'a> {
        DatReader {
            src,
            little,
            pos: start,
            win: Cow::Borrowed(&[]),
            win_start: start,
            window: WINDOW,
            streamed: false,
            resynced: 0,
            done: false,
            fed: false,
            starved: false,
        }
    }

    /// A reader of the bytes fed so far, where the last one (`st`) stopped.
    pub fn fed(src: &'a Source, little: bool, st: FedState) -> DatReader<'a> {
        let mut r = DatReader::new(src, little, st.pos);
        r.win = Cow::Owned(st.win);
        r.win_start = st.win_start;
        r.resynced = st.resynced;
        r.done = st.done;
        r.fed = true;
        r
    }

    /// What to make the next fed reader from.
    pub fn fed_state(self) -> FedState {
        FedState {
            pos: self.pos,
            win: self.win.into_owned(),
            win_start: self.win_start,
            resynced: self.resynced,
            done: self.done,
        }
    }

    /// Appends the next `len` bytes of the file, written by `fill`, dropping those before the
    /// next record; once they reach the file's end the reader reads on its own again.
    pub fn feed(&mut self, len: usize, fill: impl FnOnce(&mut [u8])) {
        let mut v = std::mem::take(&mut self.win).into_owned();
        let gone = (self.pos.saturating_sub(self.win_start) as usize).min(v.len());
        let keep = v.len() - gone;
        v.copy_within(gone.., 0);
        self.win_start += gone as u64;
        // Resized from the last window's length, not the kept bytes': pieces of about the same
        // size are written over the old bytes without zeroing them first.
        v.resize(keep + len, 0);
        fill(&mut v[keep..]);
        self.win = Cow::Owned(v);
        self.starved = false;
        self.fed = (self.win_start + self.win.len() as u64) < self.src.len();
    }

    /// Bytes fed and not yet read past.
    pub fn held(&self) -> u64 {
        (self.win_start + self.win.len() as u64).saturating_sub(self.pos)
    }

    /// For a pass reading every record once: when the file is not in memory, windows of
    /// `STREAM_WINDOW` bytes read straight into one reused buffer, past the source's block cache
    /// (which they would only flush, and which would copy them twice more).
    pub fn whole_pass(mut self) -> DatReader<'a> {
        if self.src.as_slice().is_none() {
            self.window = STREAM_WINDOW;
            self.streamed = true;
        }
        self
    }
    /// Length of the file.
    pub fn src_len(&self) -> u64 {
        self.src.len()
    }

    /// File offset of the next record.
    pub fn pos(&self) -> u64 {
        self.pos
    }

    fn fill(&mut self, at: u64, min: u64) -> Result<()> {
        if self.fed {
            self.starved = true;
            return Err(Error::io(
                self.src.name(),
                Some(at),
                "task records not fed yet",
            ));
        }
        let len = self.window.max(min).min(self.src.len().saturating_sub(at));
        if self.streamed {
            let mut buf = match std::mem::take(&mut self.win) {
                Cow::Owned(v) => v,
                Cow::Borrowed(_) => Vec::new(),
            };
            let n = usize::try_from(len)
                .map_err(|_| Error::too_large(self.src.name(), at, "task records"))?;
            buf.resize(n, 0);
            self.src.read_streamed(at, &mut buf, "task records")?;
            self.win = Cow::Owned(buf);
        } else {
            self.win = self.src.bytes(at, len, "task records")?;
        }
        self.win_start = at;
        Ok(())
    }

    fn word(&self, rel: usize) -> Option<u64> {
        let b: [u8; 8] = self.win.get(rel..rel + 8)?.try_into().ok()?;
        Some(if self.little {
            u64::from_le_bytes(b)
        } else {
            u64::from_be_bytes(b)
        })
    }

    /// The next record when it is a plain ENTRY or EXIT (no payload) lying wholly in the current
    /// window: the hot loop's fast path. `None` means "ask [`next`](Self::next)", which then
    /// reads the same record with every check; the reader has not moved.
    #[inline(always)]
    pub fn next_plain(&mut self) -> Option<(u64, UftraceRecord)> {
        let rel = self.pos.wrapping_sub(self.win_start) as usize;
        let b: &[u8; 16] = self.win.get(rel..rel.checked_add(16)?)?.try_into().ok()?;
        let (t, w) = b.split_at(8);
        let (t, w): ([u8; 8], [u8; 8]) = (t.try_into().ok()?, w.try_into().ok()?);
        let (time, word) = if self.little {
            (u64::from_le_bytes(t), u64::from_le_bytes(w))
        } else {
            (u64::from_be_bytes(t), u64::from_be_bytes(w))
        };
        let rec = decode(time, word, !self.little)?;
        if rec.more || !matches!(rec.kind, RecordKind::Entry | RecordKind::Exit) {
            return None;
        }
        let at = self.pos;
        self.pos += RECORD_SIZE;
        Some((at, rec))
    }

    /// The next record and its offset; `Ok(None)` at the end. A truncated last record ends the
    /// stream with an error naming its offset, as does a record with a bad magic.
    /// `payload` is a `dyn` (one copy of this function for the pass and the replays: it is
    /// called only for records with a payload).
    pub fn next(
        &mut self,
        payload: &mut dyn FnMut(&UftraceRecord, &[u8]) -> Payload,
    ) -> Result<Option<(u64, UftraceRecord)>> {
        if self.done {
            return Ok(None);
        }
        let end = self.src.len();
        if self.pos >= end {
            self.done = true;
            return Ok(None);
        }
        if self.pos + RECORD_SIZE > end {
            self.done = true;
            return Err(Error::truncated(self.src.name(), self.pos, "task record"));
        }
        let mut rel = (self.pos - self.win_start) as usize;
        if self.pos < self.win_start || rel + RECORD_SIZE as usize > self.win.len() {
            self.fill(self.pos, RECORD_SIZE)?;
            rel = 0;
        }
        let (Some(time), Some(word)) = (self.word(rel), self.word(rel + 8)) else {
            self.done = true;
            return Err(Error::truncated(self.src.name(), self.pos, "task record"));
        };
        let Some(rec) = decode(time, word, !self.little) else {
            self.done = true;
            return Err(Error::invalid(
                self.src.name(),
                self.pos,
                "task record magic (expected 5)",
            ));
        };
        let at = self.pos;
        let mut next = at + RECORD_SIZE;
        if rec.more {
            let mut grow = WINDOW;
            loop {
                let data_rel = rel + RECORD_SIZE as usize;
                let data = self.win.get(data_rel..).unwrap_or(&[]);
                match payload(&rec, data) {
                    Payload::Len(n) => {
                        next += n as u64;
                        break;
                    }
                    Payload::Short => {
                        let have = self.win.len() as u64;
                        if self.win_start + have >= end {
                            self.done = true;
                            return Err(Error::truncated(
                                self.src.name(),
                                at + RECORD_SIZE,
                                "record payload",
                            ));
                        }
                        // A payload never exceeds a few windows (u16 strings): grow a bounded number of times.
                        if grow > 16 * WINDOW {
                            self.done = true;
                            return Err(Error::too_large(
                                self.src.name(),
                                at + RECORD_SIZE,
                                "record payload",
                            ));
                        }
                        grow *= 2;
                        self.fill(at, grow)?;
                        rel = 0;
                    }
                    Payload::Unknown => {
                        next = self.resync(at, rel, &rec)?;
                        break;
                    }
                }
            }
        }
        self.pos = next;
        Ok(Some((at, rec)))
    }

    /// Finds the next offset after the record at `at` (8-aligned) that holds a plausible record:
    /// right magic and a timestamp not before this one and within a minute of it.
    fn resync(&mut self, at: u64, _rel: usize, rec: &UftraceRecord) -> Result<u64> {
        let end = self.src.len();
        let mut cand = at + RECORD_SIZE;
        // Bounded search: payloads are below 1 MB.
        let limit = (at + RECORD_SIZE + 4 * WINDOW).min(end);
        while cand + RECORD_SIZE <= limit {
            if cand < self.win_start || cand + RECORD_SIZE > self.win_start + self.win.len() as u64
            {
                self.fill(cand, RECORD_SIZE)?;
            }
            let r = (cand - self.win_start) as usize;
            if let (Some(t), Some(w)) = (self.word(r), self.word(r + 8)) {
                if let Some(n) = decode(t, w, !self.little) {
                    if n.time >= rec.time && n.time - rec.time < 60_000_000_000 {
                        self.resynced += 1;
                        return Ok(cand);
                    }
                }
            }
            cand += 8;
        }
        self.resynced += 1;
        Ok(limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn word(ty: u64, more: bool, depth: u64, addr: u64) -> u64 {
        ty | (more as u64) << 2 | RECORD_MAGIC << 3 | depth << 6 | addr << 16
    }

    #[test]
    fn decodes_fields() {
        // From recorded-single: entry of __monstartup at depth 0.
        let r = decode(0x1c3ce733a17, 0x56366928e0800028, false).unwrap();
        assert_eq!(r.kind, RecordKind::Entry);
        assert!(!r.more);
        assert_eq!(r.depth, 0);
        assert_eq!(r.addr, 0x56366928e080);
        let r = decode(5, word(1, true, 1023, 0xabc), false).unwrap();
        assert_eq!(
            (r.kind, r.more, r.depth, r.addr),
            (RecordKind::Exit, true, 1023, 0xabc)
        );
        assert!(decode(5, 0, false).is_none());
    }

    #[test]
    // A Source holds an Arc<dyn ReadAt>; a block cache (RefCell inside) is what the browser's
    // sources are, single-threaded.
    #[allow(clippy::arc_with_non_send_sync)]
    fn whole_pass_reads_large_windows_past_the_cache() {
        use crate::block_cache::BlockCache;
        use std::sync::Arc;
        // 2.5 windows of records (so the last window is partial), some with an 8-byte payload.
        let n = (STREAM_WINDOW * 5 / 2 / RECORD_SIZE) as usize;
        let mut b = Vec::with_capacity(n * 24);
        for i in 0..n as u64 {
            let more = i % 1000 == 7;
            b.extend_from_slice(&(i * 3).to_le_bytes());
            b.extend_from_slice(&word(i % 2, more, i % 10, 0x1000 + i % 77).to_le_bytes());
            if more {
                b.extend_from_slice(&[9u8; 8]);
            }
        }
        let data = b.clone();
        let fetch = move |a: u64, e: u64| Ok(data[a as usize..e as usize].to_vec());
        let cache =
            Arc::new(BlockCache::new(fetch, b.len() as u64, 64 << 10, 256).with_read_ahead(64));
        let lazy = Source::new("1.dat", cache.clone());
        let mem = Source::from_vec("1.dat", b.clone());
        let mut r_mem = DatReader::new(&mem, true, 0).whole_pass();
        let mut r_lazy = DatReader::new(&lazy, true, 0).whole_pass();
        assert_eq!(r_mem.window, WINDOW);
        assert_eq!(r_lazy.window, STREAM_WINDOW);
        let mut len = |rec: &UftraceRecord, _: &[u8]| Payload::Len(if rec.more { 8 } else { 0 });
        let mut count = 0usize;
        loop {
            let a = r_mem.next(&mut len).unwrap();
            let z = r_lazy.next(&mut len).unwrap();
            assert_eq!(a, z);
            if a.is_none() {
                break;
            }
            count += 1;
        }
        assert_eq!(count, n);
        // Every byte read once, in windows of STREAM_WINDOW bytes, none through the cache's
        // blocks; a window starts at the first record the last one did not hold whole, so a
        // payload across a window's end is read twice (a few bytes).
        let stats = cache.stats();
        assert_eq!(stats.hits, 0);
        let total = b.len() as u64;
        assert!(
            stats.bytes >= total && stats.bytes < total + 64,
            "{}",
            stats.bytes
        );
        assert_eq!(stats.fetches, total.div_ceil(STREAM_WINDOW));
    }

    #[test]
    fn reads_payloads_and_reports_truncation() {
        let mut b = Vec::new();
        for (t, w) in [
            (10u64, word(0, true, 0, 0x10)),
            (20, word(1, false, 0, 0x10)),
        ] {
            b.extend_from_slice(&t.to_le_bytes());
            b.extend_from_slice(&w.to_le_bytes());
            if t == 10 {
                b.extend_from_slice(&[7u8; 8]); // an 8-byte argument
            }
        }
        let src = Source::from_vec("1.dat", b.clone());
        let mut r = DatReader::new(&src, true, 0);
        let (o1, r1) = r.next(&mut |_, _| Payload::Len(8)).unwrap().unwrap();
        assert_eq!((o1, r1.time), (0, 10));
        let (o2, r2) = r.next(&mut |_, _| Payload::Len(8)).unwrap().unwrap();
        assert_eq!((o2, r2.time, r2.kind), (24, 20, RecordKind::Exit));
        assert!(r.next(&mut |_, _| Payload::Len(0)).unwrap().is_none());
        // Unknown payload size: resynchronises on the next record.
        let mut r = DatReader::new(&src, true, 0);
        r.next(&mut |_, _| Payload::Unknown).unwrap();
        assert_eq!(r.pos(), 24);
        // Truncated: error, then the end.
        let src = Source::from_vec("1.dat", b[..30].to_vec());
        let mut r = DatReader::new(&src, true, 0);
        r.next(&mut |_, _| Payload::Len(8)).unwrap();
        assert!(r.next(&mut |_, _| Payload::Len(8)).is_err());
        assert!(r.next(&mut |_, _| Payload::Len(8)).unwrap().is_none());
    }
}
