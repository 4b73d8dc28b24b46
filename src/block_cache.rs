//! A byte source over a slow random-access backend (a Blob read with FileReaderSync, a URL read
//! with HTTP Range requests): reads are served from aligned blocks kept in a small LRU cache, and
//! the blocks one read misses are fetched with one backend call.

// Sequential misses grow a read-ahead window (doubling up to `max_ahead` blocks), so a parser
// reading record by record makes few calls while scattered reads cost one small block each; a few
// such streams are followed at once (a parser reading a table while it looks things up
// elsewhere). Large reads bypass the cache. Batches of scattered ranges go to the backend as exact
// ranges (one HTTP multi-range request) or, for backends without a cheap batch, as aligned runs of
// whole blocks, neighbours merged.

use crate::bytes::ReadAt;
use std::cell::RefCell;
use std::collections::HashMap;

/// Fetches bytes `start..end` of the backing file (the cache never asks past `size`).
pub trait Fetch {
    fn fetch(&self, start: u64, end: u64) -> Result<Vec<u8>, String>;
    /// Fills `buf` with bytes `start..start + buf.len()`; backends that can copy straight into
    /// it (a JavaScript ArrayBuffer into wasm memory) save a copy. Default: `fetch`.
    fn fetch_into(&self, start: u64, buf: &mut [u8]) -> Result<(), String> {
        let bytes = self.fetch(start, start + buf.len() as u64)?;
        if bytes.len() != buf.len() {
            return Err(format!(
                "read of {} bytes at {start} returned {} bytes",
                buf.len(),
                bytes.len()
            ));
        }
        buf.copy_from_slice(&bytes);
        Ok(())
    }
    /// Advice that `start..end` will be read next, in order (see `ReadAt::advise_sequential`).
    fn advise(&self, _start: u64, _end: u64) {}
    /// Advice that each `[start, end)` range (whole blocks, in offset order) will be read soon
    /// (see `ReadAt::will_need`).
    fn will_need(&self, _ranges: &[(u64, u64)]) {}
    /// Where the bytes held ahead of time from `start` on end (a backend with bytes fetched
    /// before they were asked, see src/session/staging.rs), if it holds `start`: read-ahead
    /// stops there rather than ask for more than is at hand.
    fn held_until(&self, _start: u64) -> Option<u64> {
        None
    }
    /// The bytes of every `start..end` range, concatenated in order. Backends with a cheap batch
    /// (an HTTP multi-range request) override this; the default fetches each range.
    fn fetch_many(&self, ranges: &[(u64, u64)]) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        for &(a, b) in ranges {
            let bytes = self.fetch(a, b)?;
            if bytes.len() as u64 != b - a {
                return Err(format!(
                    "read of bytes {a}..{b} returned {} bytes",
                    bytes.len()
                ));
            }
            out.extend_from_slice(&bytes);
        }
        Ok(out)
    }
}

impl<F: Fn(u64, u64) -> Result<Vec<u8>, String>> Fetch for F {
    fn fetch(&self, start: u64, end: u64) -> Result<Vec<u8>, String> {
        self(start, end)
    }
}

/// Counters of backend traffic, for benchmarks and the page's network readout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub fetches: u64,
    pub bytes: u64,
    pub hits: u64,
}

struct State {
    /// block index -> (bytes, last use tick)
    blocks: HashMap<u64, (Vec<u8>, u64)>,
    tick: u64,
    stats: CacheStats,
    /// Sequential streams followed: the block after each one's last fetched run and that run's
    /// read-ahead window (blocks), most recently used last.
    streams: Vec<(u64, u64)>,
}

/// `ReadAt` over a `Fetch` backend with `capacity` cached blocks of `block` bytes. Its reads
/// run on `BlockCache<dyn Fetch>`: one copy of them for every backend type.
pub struct BlockCache<F: Fetch + ?Sized> {
    size: u64,
    block: u64,
    capacity: usize,
    max_ahead: u64,
    /// Whether `read_many_at` fetches ranges exactly (a multi-range backend) or as blocks.
    exact_batches: bool,
    state: RefCell<State>,
    backend: F,
}

impl<F: Fetch> BlockCache<F> {
    pub fn new(backend: F, size: u64, block: u64, capacity: usize) -> BlockCache<F> {
        BlockCache {
            backend,
            size,
            block: block.max(1),
            capacity: capacity.max(2),
            max_ahead: 1,
            exact_batches: true,
            state: RefCell::new(State {
                blocks: HashMap::new(),
                tick: 0,
                stats: CacheStats::default(),
                streams: Vec::new(),
            }),
        }
    }

    /// Lets sequential misses fetch up to `blocks` blocks at once (capped at a quarter of the
    /// cache).
    pub fn with_read_ahead(mut self, blocks: u64) -> BlockCache<F> {
        self.max_ahead = blocks.clamp(1, (self.capacity / 4).max(1) as u64);
        self
    }

    /// Makes `read_many_at` fetch whole aligned blocks, runs of neighbouring blocks merged, and
    /// keep them: for backends where every range costs a request (one range per HTTP request),
    /// so no request is smaller than a block and a block serves every need inside it.
    pub fn with_block_batches(mut self) -> BlockCache<F> {
        self.exact_batches = false;
        self
    }

    pub fn stats(&self) -> CacheStats {
        self.state.borrow().stats
    }

    /// This cache with its backend as a `dyn Fetch`.
    fn dyn_cache(&self) -> &BlockCache<dyn Fetch + '_> {
        self
    }
}

impl BlockCache<dyn Fetch + '_> {
    fn fetch_checked(&self, start: u64, end: u64, st: &mut State) -> Result<Vec<u8>, String> {
        let bytes = self.backend.fetch(start, end)?;
        st.stats.fetches += 1;
        st.stats.bytes += bytes.len() as u64;
        if bytes.len() as u64 != end - start {
            return Err(format!(
                "read of bytes {start}..{end} returned {} bytes",
                bytes.len()
            ));
        }
        Ok(bytes)
    }

    fn insert(&self, st: &mut State, index: u64, bytes: Vec<u8>) {
        while st.blocks.len() >= self.capacity {
            let Some(oldest) = st
                .blocks
                .iter()
                .min_by_key(|(_, (_, t))| *t)
                .map(|(k, _)| *k)
            else {
                break;
            };
            st.blocks.remove(&oldest);
        }
        st.tick += 1;
        let t = st.tick;
        st.blocks.insert(index, (bytes, t));
    }
}

/// Sequential streams a cache follows at once.
const STREAMS: usize = 4;

/// Ranges of a batch closer than this are fetched as one (the gap costs less than a part's
/// headers in a multipart answer).
const COALESCE_GAP: u64 = 256;
/// Runs of missing blocks with at most this many blocks between them are fetched as one request
/// (a block more costs less than a round trip).
const BLOCK_GAP: u64 = 1;

impl BlockCache<dyn Fetch + '_> {
    /// `read_many_at` for backends without a cheap batch: the blocks of the `missing` ranges
    /// ((out position, offset, len)), in runs of neighbouring blocks, fetched with one
    /// `fetch_many` call (one request per run), cached, and copied out.
    fn read_missing_as_blocks(
        &self,
        missing: &[(usize, u64, u64)],
        out: &mut [u8],
    ) -> Result<(), String> {
        let mut blocks: Vec<u64> = missing
            .iter()
            .flat_map(|&(_, off, len)| off / self.block..=(off + len - 1) / self.block)
            .collect();
        crate::sort::sort_by(&mut blocks, |a, b| a.cmp(b));
        blocks.dedup();
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for b in blocks {
            match runs.last_mut() {
                Some(r) if b <= r.1 + 1 + BLOCK_GAP => r.1 = b,
                _ => runs.push((b, b)),
            }
        }
        let byte_runs: Vec<(u64, u64)> = runs
            .iter()
            .map(|&(a, b)| (a * self.block, ((b + 1) * self.block).min(self.size)))
            .collect();
        let mut st = self.state.borrow_mut();
        let fetched = self.fetch_runs(&mut st, byte_runs, "block runs")?;
        // Ranges are copied from the fetched runs (the cache may be too small for all of them);
        // the blocks are kept when the batch fits half the cache.
        fetched.copy_out(missing, out)?;
        if (fetched.bytes.len() as u64 / self.block) as usize <= self.capacity / 2 {
            for (k, r) in fetched.runs.iter().enumerate() {
                for (i, chunk) in fetched.run(k).chunks(self.block as usize).enumerate() {
                    self.insert(&mut st, r.0 / self.block + i as u64, chunk.to_vec());
                }
            }
        }
        Ok(())
    }

    /// Fetches `runs` (byte ranges [start, end) in offset order) with one `fetch_many` call,
    /// counted in the stats; an error naming the runs as `what` unless every byte came back.
    fn fetch_runs(
        &self,
        st: &mut State,
        runs: Vec<(u64, u64)>,
        what: &str,
    ) -> Result<FetchedRuns, String> {
        let bytes = self.backend.fetch_many(&runs)?;
        st.stats.fetches += 1;
        st.stats.bytes += bytes.len() as u64;
        let want: u64 = runs.iter().map(|r| r.1 - r.0).sum();
        if bytes.len() as u64 != want {
            return Err(format!(
                "batched read of {} {what} returned {} of {want} bytes",
                runs.len(),
                bytes.len()
            ));
        }
        let mut run_at = Vec::with_capacity(runs.len());
        let mut p = 0u64;
        for r in &runs {
            run_at.push(p);
            p += r.1 - r.0;
        }
        Ok(FetchedRuns {
            runs,
            run_at,
            bytes,
        })
    }
}

/// What one `fetch_many` call returned: the bytes of `runs`, back to back.
struct FetchedRuns {
    runs: Vec<(u64, u64)>,
    /// Start of each run within `bytes`.
    run_at: Vec<u64>,
    bytes: Vec<u8>,
}

impl FetchedRuns {
    /// The bytes of run `k`.
    fn run(&self, k: usize) -> &[u8] {
        let (r, at) = (self.runs[k], self.run_at[k]);
        &self.bytes[at as usize..(at + r.1 - r.0) as usize]
    }

    /// Copies each range (out position, offset, len), which lies within one run, into `out`.
    fn copy_out(&self, ranges: &[(usize, u64, u64)], out: &mut [u8]) -> Result<(), String> {
        for &(pos, off, len) in ranges {
            let k = self.runs.partition_point(|r| r.0 <= off).saturating_sub(1);
            let r = self.runs.get(k).ok_or("range outside the fetched runs")?;
            let from = (self.run_at[k] + off - r.0) as usize;
            let src = self
                .bytes
                .get(from..from + len as usize)
                .ok_or("range outside the fetched runs")?;
            out[pos..pos + len as usize].copy_from_slice(src);
        }
        Ok(())
    }
}

impl BlockCache<dyn Fetch + '_> {
    fn dyn_advise_sequential(&self, offset: u64, len: u64) {
        let end = offset.saturating_add(len).min(self.size);
        if offset < end {
            self.backend.advise(offset, end);
        }
    }

    /// The blocks of the ranges not cached, runs of neighbours merged, go to the backend.
    fn dyn_will_need(&self, ranges: &[(u64, u64)]) {
        let st = self.state.borrow();
        let mut blocks: Vec<u64> = ranges
            .iter()
            .filter(|&&(off, len)| len > 0 && off < self.size)
            .flat_map(|&(off, len)| {
                let end = off.saturating_add(len).min(self.size);
                off / self.block..=(end - 1) / self.block
            })
            .filter(|b| !st.blocks.contains_key(b))
            .collect();
        drop(st);
        // A few block numbers: the shared sort (src/sort.rs) instead of a copy of std's.
        crate::sort::sort_by_key(&mut blocks, |&b| b);
        blocks.dedup();
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for b in blocks {
            match runs.last_mut() {
                Some(r) if b == r.1 + 1 => r.1 = b,
                _ => runs.push((b, b)),
            }
        }
        let byte_runs: Vec<(u64, u64)> = runs
            .iter()
            .map(|&(a, b)| (a * self.block, ((b + 1) * self.block).min(self.size)))
            .collect();
        if !byte_runs.is_empty() {
            self.backend.will_need(&byte_runs);
        }
    }

    fn dyn_read_uncached_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        offset
            .checked_add(buf.len() as u64)
            .filter(|&e| e <= self.size)
            .ok_or_else(|| format!("read of {} bytes at {offset} past the end", buf.len()))?;
        self.backend.fetch_into(offset, buf)?;
        let mut st = self.state.borrow_mut();
        st.stats.fetches += 1;
        st.stats.bytes += buf.len() as u64;
        Ok(())
    }

    /// Ranges whose blocks are cached are copied; the others are fetched exactly (not as whole
    /// blocks: a batch is many small scattered reads, where blocks would multiply the transfer)
    /// with one `fetch_many` call, nearby ranges merged, and not kept in the cache.
    fn dyn_read_many_at(&self, ranges: &[(u64, u64)], out: &mut [u8]) -> Result<(), String> {
        let mut st = self.state.borrow_mut();
        // (out position, offset, len) of each range not served from the cache.
        let mut missing: Vec<(usize, u64, u64)> = Vec::new();
        let mut at = 0usize;
        for &(off, len) in ranges {
            let n = usize::try_from(len).map_err(|_| "range too large".to_string())?;
            let end = off
                .checked_add(len)
                .filter(|&e| e <= self.size)
                .ok_or_else(|| format!("read of {len} bytes at {off} past the end"))?;
            let dst = out
                .get_mut(at..at.saturating_add(n))
                .ok_or("ranges longer than the output")?;
            let cached = len > 0
                && (off / self.block..=(end - 1) / self.block).all(|b| st.blocks.contains_key(&b));
            if cached {
                let mut done = 0usize;
                for b in off / self.block..=(end - 1) / self.block {
                    let bytes = &st.blocks.get(&b).ok_or("block evicted while reading")?.0;
                    let within = (off + done as u64 - b * self.block) as usize;
                    let src = bytes.get(within..).ok_or("read past the end of a block")?;
                    let k = src.len().min(n - done);
                    dst[done..done + k].copy_from_slice(&src[..k]);
                    done += k;
                }
                st.stats.hits += 1;
            } else if len > 0 {
                missing.push((at, off, len));
            }
            at += n;
        }
        if missing.is_empty() {
            return Ok(());
        }
        if !self.exact_batches {
            drop(st);
            return self.read_missing_as_blocks(&missing, out);
        }
        let mut order: Vec<usize> = (0..missing.len()).collect();
        crate::sort::sort_by_key(&mut order, |&i| missing[i].1);
        // Merged fetch runs [start, end) in offset order.
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for &i in &order {
            let (_, off, len) = missing[i];
            match runs.last_mut() {
                Some(r) if off <= r.1.saturating_add(COALESCE_GAP) => r.1 = r.1.max(off + len),
                _ => runs.push((off, off + len)),
            }
        }
        self.fetch_runs(&mut st, runs, "ranges")?
            .copy_out(&missing, out)
    }

    fn dyn_read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        if buf.is_empty() {
            return Ok(());
        }
        let end = offset
            .checked_add(buf.len() as u64)
            .filter(|&e| e <= self.size)
            .ok_or_else(|| format!("read of {} bytes at {offset} past the end", buf.len()))?;
        let mut st = self.state.borrow_mut();
        let first = offset / self.block;
        let last = (end - 1) / self.block;
        let nblocks = last - first + 1;
        // A read larger than half the cache would evict everything useful: go straight through.
        if nblocks as usize > self.capacity / 2 {
            let bytes = self.fetch_checked(offset, end, &mut st)?;
            buf.copy_from_slice(&bytes);
            return Ok(());
        }
        // Fetch the missing blocks of the range in one call (from the first missing to the last
        // missing block: cached ones in between are fetched again rather than split the call).
        let missing: Vec<u64> = (first..=last)
            .filter(|b| !st.blocks.contains_key(b))
            .collect();
        if let (Some(&a), Some(&b)) = (missing.first(), missing.last()) {
            // A miss right after a stream's last fetch reads ahead, twice as far each time; any
            // other starts a stream (forgetting the least recently used).
            let window = match st.streams.iter().position(|&(next, _)| next == a) {
                Some(i) => (st.streams.remove(i).1 * 2).min(self.max_ahead),
                None => {
                    if st.streams.len() >= STREAMS {
                        st.streams.remove(0);
                    }
                    1
                }
            };
            let nblocks_total = self.size.div_ceil(self.block);
            let mut b = b.max(a + window - 1).min(nblocks_total.saturating_sub(1));
            // Bytes held ahead of time that end inside the window: read ahead to their end
            // only, so the request is answered from them.
            if b > last {
                if let Some(held) = self.backend.held_until(a * self.block) {
                    let held_last = if held >= self.size {
                        nblocks_total.saturating_sub(1)
                    } else {
                        (held / self.block).saturating_sub(1)
                    };
                    if held_last >= last {
                        b = b.min(held_last);
                    }
                }
            }
            // Never fetch again what is cached just past the range.
            while b > last && st.blocks.contains_key(&b) {
                b -= 1;
            }
            st.streams.push((b + 1, window));
            let start = a * self.block;
            let stop = ((b + 1) * self.block).min(self.size);
            let bytes = self.fetch_checked(start, stop, &mut st)?;
            for (k, chunk) in bytes.chunks(self.block as usize).enumerate() {
                self.insert(&mut st, a + k as u64, chunk.to_vec());
            }
        } else {
            st.stats.hits += 1;
        }
        let mut done = 0usize;
        for b in first..=last {
            st.tick += 1;
            let t = st.tick;
            let (bytes, used) = st.blocks.get_mut(&b).ok_or("block evicted while reading")?;
            *used = t;
            let at = offset + done as u64;
            let within = (at - b * self.block) as usize;
            let src = bytes.get(within..).ok_or("read past the end of a block")?;
            let n = src.len().min(buf.len() - done);
            buf[done..done + n].copy_from_slice(&src[..n]);
            done += n;
        }
        if done != buf.len() {
            return Err(format!("short read: {done} of {} bytes", buf.len()));
        }
        Ok(())
    }
}

impl<F: Fetch> ReadAt for BlockCache<F> {
    fn size(&self) -> u64 {
        self.size
    }
    fn advise_sequential(&self, offset: u64, len: u64) {
        self.dyn_cache().dyn_advise_sequential(offset, len)
    }
    fn will_need(&self, ranges: &[(u64, u64)]) {
        self.dyn_cache().dyn_will_need(ranges)
    }
    fn read_uncached_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        self.dyn_cache().dyn_read_uncached_at(offset, buf)
    }
    fn read_many_at(&self, ranges: &[(u64, u64)], out: &mut [u8]) -> Result<(), String> {
        self.dyn_cache().dyn_read_many_at(ranges, out)
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        self.dyn_cache().dyn_read_exact_at(offset, buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn data(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 7 % 251) as u8).collect()
    }

    /// A cache of `block`-byte blocks (at most `capacity`) over `d` in memory.
    fn cache_over(
        d: &[u8],
        block: u64,
        capacity: usize,
    ) -> BlockCache<impl Fn(u64, u64) -> Result<Vec<u8>, String> + '_> {
        let fetch = |a: u64, b: u64| Ok(d[a as usize..b as usize].to_vec());
        BlockCache::new(fetch, d.len() as u64, block, capacity)
    }

    /// The bytes of `ranges` (offset, length) of `d`, concatenated: what a batched read returns.
    fn concat(d: &[u8], ranges: &[(u64, u64)]) -> Vec<u8> {
        ranges
            .iter()
            .flat_map(|&(o, l)| d[o as usize..(o + l) as usize].to_vec())
            .collect()
    }

    #[test]
    fn reads_match_and_are_cached() {
        let d = data(10_000);
        let calls = Cell::new(0);
        let c = BlockCache::new(
            |a: u64, b: u64| {
                calls.set(calls.get() + 1);
                Ok(d[a as usize..b as usize].to_vec())
            },
            d.len() as u64,
            1000,
            6,
        );
        let mut buf = vec![0u8; 1500];
        c.read_exact_at(900, &mut buf).unwrap();
        assert_eq!(buf, &d[900..2400]);
        // Blocks 0..=2 fetched in one call of 3000 bytes.
        assert_eq!(calls.get(), 1);
        assert_eq!(c.stats().bytes, 3000);
        let mut small = [0u8; 10];
        c.read_exact_at(2990, &mut small).unwrap();
        assert_eq!(&small, &d[2990..3000]);
        assert_eq!(calls.get(), 1);
        // Last partial block.
        c.read_exact_at(9995, &mut small[..5]).unwrap();
        assert_eq!(&small[..5], &d[9995..]);
        assert_eq!(c.stats().bytes, 3000 + 1000);
        // Capacity 6: blocks 0, 1, 2, 9, then 5, 6, then 7 evicts the least recently used (0).
        c.read_exact_at(5000, &mut buf[..1200]).unwrap();
        assert_eq!(&buf[..1200], &d[5000..6200]);
        c.read_exact_at(7000, &mut small).unwrap();
        assert_eq!(c.stats().fetches, 4);
        c.read_exact_at(1000, &mut small).unwrap();
        assert_eq!(c.stats().fetches, 4);
        c.read_exact_at(0, &mut small).unwrap();
        assert_eq!(&small, &d[..10]);
        assert_eq!(c.stats().fetches, 5);
        // Past the end and large reads.
        assert!(c.read_exact_at(9995, &mut small).is_err());
        let mut big = vec![0u8; 5000];
        c.read_exact_at(3, &mut big).unwrap();
        assert_eq!(big, &d[3..5003]);
    }

    #[test]
    fn sequential_reads_grow_the_read_ahead() {
        let d = data(100_000);
        let c = cache_over(&d, 100, 64).with_read_ahead(8);
        let mut buf = [0u8; 10];
        // Record by record through 2,000 bytes (20 blocks): windows 1, 2, 4, 8, 8 blocks.
        for off in (0..2000).step_by(10) {
            c.read_exact_at(off, &mut buf).unwrap();
            assert_eq!(&buf, &d[off as usize..off as usize + 10]);
        }
        assert_eq!(c.stats().fetches, 5);
        // A scattered read fetches one block only.
        let before = c.stats().bytes;
        c.read_exact_at(50_000, &mut buf).unwrap();
        assert_eq!(c.stats().bytes - before, 100);
        // The last block of the file is short; read-ahead stops at the end.
        c.read_exact_at(99_990, &mut buf).unwrap();
        assert_eq!(&buf, &d[99_990..]);
    }

    #[test]
    fn interleaved_sequential_reads_each_grow_their_read_ahead() {
        let d = data(1_000_000);
        let c = cache_over(&d, 100, 256).with_read_ahead(8);
        let mut buf = [0u8; 10];
        // A table read record by record while each record is looked up far away: the table's
        // stream keeps doubling (1, 2, 4, 8, 8 blocks over 20 blocks) next to the lookups.
        for (i, off) in (0..2000).step_by(10).enumerate() {
            c.read_exact_at(off, &mut buf).unwrap();
            assert_eq!(&buf, &d[off as usize..off as usize + 10]);
            let far = 500_000 + 1000 * (i as u64 % 3);
            c.read_exact_at(far, &mut buf).unwrap();
        }
        // 5 fetches for the table, 3 for the lookups (one block each, then cached).
        assert_eq!(c.stats().fetches, 8);
    }

    #[test]
    fn batched_reads_fetch_exact_ranges_in_one_call() {
        let d = data(100_000);
        struct Many<'a> {
            d: &'a [u8],
            calls: Cell<u32>,
            batches: std::cell::RefCell<Vec<Vec<(u64, u64)>>>,
        }
        impl Fetch for Many<'_> {
            fn fetch(&self, a: u64, b: u64) -> Result<Vec<u8>, String> {
                self.calls.set(self.calls.get() + 1);
                Ok(self.d[a as usize..b as usize].to_vec())
            }
            fn fetch_many(&self, ranges: &[(u64, u64)]) -> Result<Vec<u8>, String> {
                self.batches.borrow_mut().push(ranges.to_vec());
                Ok(ranges
                    .iter()
                    .flat_map(|&(a, b)| self.d[a as usize..b as usize].to_vec())
                    .collect())
            }
        }
        let m = Many {
            d: &d,
            calls: Cell::new(0),
            batches: Default::default(),
        };
        let c = BlockCache::new(m, d.len() as u64, 1000, 16);
        // Block 5 cached by a plain read.
        let mut b = [0u8; 4];
        c.read_exact_at(5000, &mut b).unwrap();
        let ranges = [(90_000, 12), (5100, 8), (10, 12), (40, 12), (70_000, 3)];
        let mut out = vec![0u8; 47];
        c.read_many_at(&ranges, &mut out).unwrap();
        assert_eq!(out, concat(&d, &ranges));
        // One batch: the cached range is not fetched, 10 and 40 merge, offsets ascending.
        let batches = c.backend.batches.borrow();
        assert_eq!(
            *batches,
            vec![vec![(10, 52), (70_000, 70_003), (90_000, 90_012)]]
        );
        assert_eq!(c.stats().bytes, 1000 + 42 + 3 + 12);
        assert!(c.read_many_at(&[(99_999, 2)], &mut out[..2]).is_err());
    }

    #[test]
    fn block_batches_fetch_aligned_merged_blocks_and_keep_them() {
        let d = data(100_000);
        let log: std::cell::RefCell<Vec<(u64, u64)>> = Default::default();
        let c = BlockCache::new(
            |a: u64, b: u64| {
                log.borrow_mut().push((a, b));
                Ok(d[a as usize..b as usize].to_vec())
            },
            d.len() as u64,
            1000,
            64,
        )
        .with_block_batches();
        // Blocks 0, 2 (one block apart: merged with the gap), 40 and 41 (neighbours), 99 (short).
        let ranges = [(10, 8), (2500, 8), (40_990, 20), (99_990, 10)];
        let mut out = vec![0u8; 46];
        c.read_many_at(&ranges, &mut out).unwrap();
        assert_eq!(out, concat(&d, &ranges));
        assert_eq!(
            *log.borrow(),
            vec![(0, 3000), (40_000, 42_000), (99_000, 100_000)]
        );
        // The blocks are kept: reads inside them need no request.
        let mut b = [0u8; 16];
        c.read_exact_at(1500, &mut b).unwrap();
        c.read_many_at(&[(41_500, 4), (2000, 4)], &mut out[..8])
            .unwrap();
        assert_eq!(&out[..4], &d[41_500..41_504]);
        assert_eq!(log.borrow().len(), 3);
    }

    /// A backend holding `held` ahead of time (as a staged file does), logging fetches and the
    /// ranges it was told will be needed.
    struct Ahead<'a> {
        d: &'a [u8],
        held: (u64, u64),
        fetches: std::cell::RefCell<Vec<(u64, u64)>>,
        needed: std::cell::RefCell<Vec<(u64, u64)>>,
    }
    impl Ahead<'_> {
        fn over(d: &[u8], held: (u64, u64)) -> Ahead<'_> {
            Ahead {
                d,
                held,
                fetches: Default::default(),
                needed: Default::default(),
            }
        }
    }
    impl Fetch for Ahead<'_> {
        fn fetch(&self, a: u64, b: u64) -> Result<Vec<u8>, String> {
            self.fetches.borrow_mut().push((a, b));
            Ok(self.d[a as usize..b as usize].to_vec())
        }
        fn will_need(&self, ranges: &[(u64, u64)]) {
            self.needed.borrow_mut().extend_from_slice(ranges);
        }
        fn held_until(&self, start: u64) -> Option<u64> {
            (self.held.0 <= start && start < self.held.1).then_some(self.held.1)
        }
    }

    #[test]
    fn needed_ranges_go_to_the_backend_as_uncached_block_runs() {
        let d = data(100_000);
        let c = BlockCache::new(Ahead::over(&d, (0, 0)), d.len() as u64, 1000, 64);
        let mut b = [0u8; 10];
        c.read_exact_at(5500, &mut b).unwrap();
        // Block 5 is cached, so 4100..6100 needs blocks 4 and 6 (6 named twice, asked once); 99
        // is the short last block; an empty range needs nothing.
        c.will_need(&[(4100, 2000), (6900, 10), (30_000, 1), (99_500, 900), (0, 0)]);
        assert_eq!(
            *c.backend.needed.borrow(),
            vec![
                (4000, 5000),
                (6000, 7000),
                (30_000, 31_000),
                (99_000, 100_000)
            ]
        );
    }

    #[test]
    fn read_ahead_stops_where_the_bytes_held_ahead_end() {
        let d = data(100_000);
        let c = BlockCache::new(Ahead::over(&d, (10_000, 14_500)), d.len() as u64, 1000, 64)
            .with_read_ahead(8);
        let mut b = [0u8; 10];
        // A stream of reads from 10,000: windows of 1, 2, then 4 blocks would reach 17,000; the
        // held bytes end inside block 14, so the third fetch stops after block 13.
        for off in (10_000..13_000).step_by(500) {
            c.read_exact_at(off, &mut b).unwrap();
            assert_eq!(&b, &d[off as usize..off as usize + 10]);
        }
        assert_eq!(
            *c.backend.fetches.borrow(),
            vec![(10_000, 11_000), (11_000, 13_000)]
        );
        c.read_exact_at(13_000, &mut b).unwrap();
        assert_eq!(c.backend.fetches.borrow()[2], (13_000, 14_000));
        // Past the held bytes, read-ahead goes on as before.
        c.read_exact_at(14_000, &mut b).unwrap();
        assert_eq!(c.backend.fetches.borrow()[3], (14_000, 22_000));
    }

    #[test]
    fn backend_errors_and_short_answers_are_errors() {
        let c = BlockCache::new(|_: u64, _: u64| Err("HTTP 500".to_string()), 100, 10, 4);
        let mut b = [0u8; 4];
        assert_eq!(c.read_exact_at(0, &mut b).unwrap_err(), "HTTP 500");
        let c = BlockCache::new(|_: u64, _: u64| Ok(vec![1, 2]), 100, 10, 4);
        assert!(c.read_exact_at(0, &mut b).is_err());
    }
}
