//! Timeline sampling on hand-built traces read through a byte source, with exact expected colours.
// Source takes an Arc<dyn ReadAt>, and the sources here (like the wasm ones) are not Send.
#![allow(clippy::arc_with_non_send_sync)]

use super::progressive::{exact_frame, FrameJob, ReadCost, RowState};
use super::*;
use crate::bytes::{ReadAt, Source};
use crate::model::{
    CctBuilder, EntryKind, Frame, Function, LexicalType, NoLazyData, TraceInfo, TraceLineInfo,
};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Trace lines stored as 12-byte samples (u64 time, u32 node, little-endian) in one source, read
/// only through named bounds-checked reads, as a real reader does.
struct ByteTrace {
    src: Source,
    /// (byte offset, sample count) per line.
    lines: Vec<(u64, u64)>,
}

impl ByteTrace {
    fn from_lines(lines: &[Vec<(u64, u32)>]) -> ByteTrace {
        let mut bytes = Vec::new();
        let mut index = Vec::new();
        for l in lines {
            index.push((bytes.len() as u64, l.len() as u64));
            for &(t, n) in l {
                bytes.extend_from_slice(&t.to_le_bytes());
                bytes.extend_from_slice(&n.to_le_bytes());
            }
        }
        ByteTrace {
            src: Source::from_vec("trace.db", bytes),
            lines: index,
        }
    }
    fn time(&self, line: usize, i: u64) -> Result<u64> {
        self.src
            .u64_le_at(self.lines[line].0 + 12 * i, "sample time")
    }
}

impl LazyData for ByteTrace {
    fn profile_values(&self, _prof: usize) -> Result<crate::model::SparseValues> {
        Ok(Default::default())
    }
    fn trace_samples(&self, line: usize, start: u64, count: u64) -> Result<Vec<TraceSample>> {
        let (off, n) = self.lines[line];
        let end = start.saturating_add(count).min(n);
        (start..end)
            .map(|i| {
                Ok(TraceSample {
                    time: self.src.u64_le_at(off + 12 * i, "sample time")?,
                    node: self.src.u32_le_at(off + 12 * i + 8, "sample ctx")?,
                })
            })
            .collect()
    }
    fn trace_find(&self, line: usize, time: u64) -> Result<Option<u64>> {
        let n = self.lines[line].1;
        let (mut lo, mut hi) = (0u64, n);
        // Invariant: samples < lo are <= time, samples >= hi are > time.
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.time(line, mid)? <= time {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo.checked_sub(1))
    }
}

fn func(name: &str) -> Function {
    Function {
        name: name.into(),
        module: None,
        offset: None,
        file: None,
        line: None,
    }
}

fn lexical(t: LexicalType) -> Frame {
    Frame {
        relation: Relation::Lexical,
        lexical_type: t,
        line: Some(7),
        ..Frame::root()
    }
    .in_context()
}

trait InContext {
    fn in_context(self) -> Frame;
}
impl InContext for Frame {
    fn in_context(mut self) -> Frame {
        self.kind = NodeKind::Context;
        self
    }
}

fn dataset(
    cct: crate::model::Cct,
    functions: Vec<Function>,
    trace: Option<TraceInfo>,
    data: Box<dyn LazyData>,
) -> Dataset {
    Dataset {
        format: "test".into(),
        layout: String::new(),
        title: String::new(),
        files: vec![],
        facts: vec![],
        id_names: vec![],
        modules: vec![],
        source_files: vec![],
        functions,
        cct,
        metrics: vec![],
        profiles: vec![],
        summary_profile: None,
        trace,
        taxonomy: None,
        warnings: vec![],
        data,
    }
}

/// root(0) -> entry "main thread"(1) -> main(2) -> line(3) -> solve(4) -> loop(5) -> mpi_wait(6)
///                                              -> io(7);   solve(4) -> line(8)
/// Node indexes equal insertion order here because insertion is already preorder.
fn tree() -> (crate::model::Cct, Vec<Function>) {
    let mut b = CctBuilder::new(0);
    let ep = b.add(0, 1, Frame::entry(EntryKind::MainThread));
    let main = b.add(ep, 2, Frame::call(0));
    let l = b.add(main, 3, lexical(LexicalType::Line));
    let solve = b.add(l, 4, Frame::call(1));
    let lp = b.add(solve, 5, lexical(LexicalType::Loop));
    let _wait = b.add(lp, 6, Frame::call(2));
    let _io = b.add(main, 7, Frame::call(3));
    let _l2 = b.add(solve, 8, lexical(LexicalType::Line));
    let cct = b.finish("t").unwrap();
    cct.check().unwrap();
    assert_eq!(cct.ctx_id, vec![0, 1, 2, 3, 4, 5, 6, 8, 7]);
    let fs = ["main", "solve", "mpi_wait", "io"].map(func).to_vec();
    (cct, fs)
}
// Preorder node indexes of the tree above.
const ROOT: u32 = 0;
const ENTRY: u32 = 1;
const MAIN: u32 = 2;
const SOLVE: u32 = 4;
const LOOP: u32 = 5;
const WAIT: u32 = 6;
const SOLVE_LINE: u32 = 7;
const IO: u32 = 8;

fn trace_ds(lines: Vec<Vec<(u64, u32)>>) -> Dataset {
    let (cct, fs) = tree();
    let all: Vec<u64> = lines.iter().flatten().map(|s| s.0).collect();
    let info = TraceInfo {
        min_time: all.iter().min().copied(),
        max_time: all.iter().max().copied(),
        lines: lines
            .iter()
            .enumerate()
            .map(|(i, l)| TraceLineInfo {
                prof_index: i as u32,
                samples: l.len() as u64,
            })
            .collect(),
    };
    let data = ByteTrace::from_lines(&lines);
    dataset(cct, fs, Some(info), Box::new(data))
}

#[test]
fn frame_index_counts_call_frames_only() {
    let (cct, fs) = tree();
    let ds = dataset(cct, fs, None, Box::new(NoLazyData));
    let ix = FrameIndex::new(&ds);
    // Keys in first-appearance preorder: main 1, solve 2, mpi_wait 3, io 4.
    assert_eq!(ix.names, vec!["main", "solve", "mpi_wait", "io"]);
    assert_eq!(ix.path_depth(ROOT), 0);
    assert_eq!(ix.path_depth(ENTRY), 0);
    assert_eq!(ix.path_depth(MAIN), 1);
    assert_eq!(ix.path_depth(3), 1); // the line under main is in main
    assert_eq!(ix.path_depth(LOOP), 2); // the loop is in solve
    assert_eq!(ix.path_depth(WAIT), 3);
    assert_eq!(ix.frames(WAIT), vec![MAIN, SOLVE, WAIT]);
    assert_eq!(ix.frames(SOLVE_LINE), vec![MAIN, SOLVE]);
    assert_eq!(ix.key_at(WAIT, 0), 1);
    assert_eq!(ix.key_at(WAIT, 1), 2);
    assert_eq!(ix.key_at(WAIT, 2), 3);
    assert_eq!(ix.key_at(WAIT, 9), 3); // deepest frame when the stack is shallower
    assert_eq!(ix.key_at(LOOP, 2), 2);
    assert_eq!(ix.key_at(IO, 1), 4);
    assert_eq!(ix.key_at(ROOT, 0), 0);
    assert_eq!(ix.key_at(ENTRY, 3), 0);
    assert_eq!(ix.key_at(999, 0), 0); // out-of-range node from a damaged file
    assert_eq!(ix.max_depth(), 3);
    assert_eq!(ix.name(3), "mpi_wait");
    assert_eq!(ix.name(0), "");
}

#[test]
fn same_function_in_two_contexts_shares_a_key() {
    let mut b = CctBuilder::new(0);
    let a = b.add(0, 1, Frame::call(0));
    b.add(a, 2, Frame::call(1));
    let c = b.add(0, 3, Frame::call(2));
    b.add(c, 4, Frame::call(1));
    let ds = dataset(
        b.finish("t").unwrap(),
        ["a", "leaf", "c"].map(func).to_vec(),
        None,
        Box::new(NoLazyData),
    );
    let ix = FrameIndex::new(&ds);
    assert_eq!(ix.names, vec!["a", "leaf", "c"]);
    assert_eq!(ix.key_at(2, 1), 2);
    assert_eq!(ix.key_at(4, 1), 2);
    assert_eq!(ix.key_at(4, 0), 3);
}

#[test]
fn exact_pixel_colours() {
    // Line 0: main at 10, mpi_wait at 40, io at 70. Line 1: solve's line at 0, root (idle) at 50.
    let ds = trace_ds(vec![
        vec![(10, MAIN), (40, WAIT), (70, IO)],
        vec![(0, SOLVE_LINE), (50, ROOT)],
    ]);
    let ix = FrameIndex::new(&ds);
    // 10 columns over [0, 100): column c stands for time 10c.
    let f = sample_frame(&ds, &ix, &[0, 1], Window::new(0, 100, 10), 100, 2).unwrap();
    assert_eq!(f.lines, vec![0, 1]);
    #[rustfmt::skip]
    assert_eq!(f.keys, vec![
        0, 1, 1, 1, 3, 3, 3, 4, 4, 4,
        2, 2, 2, 2, 2, 0, 0, 0, 0, 0,
    ]);
    assert_eq!(&f.nodes[..4], &[NONE, MAIN, MAIN, MAIN]);
    // Depth 0: everything under main is main.
    let f = sample_frame(&ds, &ix, &[0, 1], Window::new(0, 100, 10), 100, 0).unwrap();
    #[rustfmt::skip]
    assert_eq!(f.keys, vec![
        0, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        1, 1, 1, 1, 1, 0, 0, 0, 0, 0,
    ]);
    // A zoomed window [35, 45) over 4 columns: times 35, 37, 40, 42 (left edges, integer math).
    let f = sample_frame(&ds, &ix, &[0], Window::new(35, 45, 4), 1, 1).unwrap();
    assert_eq!(f.keys, vec![1, 1, 2, 2]);
    // Rows are given in display order (filtered/grouped): line 1 first.
    let f = sample_frame(&ds, &ix, &[1, 0], Window::new(0, 100, 2), 100, 5).unwrap();
    assert_eq!(f.keys, vec![2, 0, 0, 3]);
}

#[test]
fn time_before_first_sample_and_after_last() {
    let ds = trace_ds(vec![vec![(1000, WAIT)]]);
    let ix = FrameIndex::new(&ds);
    let f = sample_frame(&ds, &ix, &[0], Window::new(0, 2000, 4), 1, 2).unwrap();
    // Times 0, 500 are before the single sample; 1000 and 1500 are in it (it stays in force).
    assert_eq!(f.keys, vec![0, 0, 3, 3]);
    // Entirely before the first sample.
    let f = sample_frame(&ds, &ix, &[0], Window::new(0, 999, 8), 1, 2).unwrap();
    assert_eq!(f.keys, vec![0; 8]);
    assert_eq!(f.nodes, vec![NONE; 8]);
}

#[test]
fn empty_lines_and_sentinel_trace() {
    let ds = trace_ds(vec![vec![], vec![(5, MAIN)]]);
    let ix = FrameIndex::new(&ds);
    let f = sample_frame(&ds, &ix, &[0, 1], Window::new(0, 10, 2), 10, 0).unwrap();
    assert_eq!(f.keys, vec![0, 0, 0, 1]);
    // Sentinel min/max: the reader gives no time range and lines without samples.
    let (cct, fs) = tree();
    let info = TraceInfo {
        min_time: None,
        max_time: None,
        lines: vec![TraceLineInfo {
            prof_index: 1,
            samples: 0,
        }],
    };
    let ds = dataset(cct, fs, Some(info), Box::new(NoLazyData));
    let f = sample_frame(&ds, &ix, &[0], Window::new(0, 10, 3), 1, 0).unwrap();
    assert_eq!(f.keys, vec![0; 3]);
    assert_eq!(call_path_at(&ds, &ix, 0, 5).unwrap().sample, None);
    assert!(depth_view(&ds, &ix, 0, Window::new(0, 10, 3), 4)
        .unwrap()
        .is_empty());
    // No trace at all, an unknown line, an empty window: no rows of colour, no error.
    let (cct, fs) = tree();
    let ds = dataset(cct, fs, None, Box::new(NoLazyData));
    assert_eq!(
        sample_frame(&ds, &ix, &[0], Window::new(0, 10, 3), 1, 0)
            .unwrap()
            .keys,
        vec![0; 3]
    );
    let ds = trace_ds(vec![vec![(5, MAIN)]]);
    assert_eq!(
        sample_frame(&ds, &ix, &[7], Window::new(0, 10, 2), 1, 0)
            .unwrap()
            .keys,
        vec![0, 0]
    );
    assert_eq!(
        sample_frame(&ds, &ix, &[0], Window::new(10, 10, 2), 1, 0)
            .unwrap()
            .keys,
        vec![0, 0]
    );
}

#[test]
fn cursor_matches_brute_force_with_repeated_times() {
    // Irregular gaps and runs of equal timestamps.
    let mut line = Vec::new();
    let mut t = 3u64;
    for i in 0..5000u64 {
        line.push((t, (i % 9) as u32));
        t += [0, 1, 7, 0, 250, 3, 40_000][((i * 5 + i / 3) % 7) as usize];
    }
    let times: Vec<u64> = line.iter().map(|s| s.0).collect();
    let ds = trace_ds(vec![line.clone()]);
    let last = *times.last().unwrap();
    for width in [1u32, 7, 333, 4096, 20_000] {
        let mut cur = LineCursor::new(ds.data.as_ref(), 0, times.len() as u64);
        for c in 0..width {
            let q = column_time(0, last + 10, width, c);
            let expect = times.partition_point(|&x| x <= q).checked_sub(1);
            let got = cur.seek(q).unwrap();
            assert_eq!(
                got.map(|s| s.time),
                expect.map(|i| times[i]),
                "width {width} col {c}"
            );
            if let (Some(g), Some(i)) = (got, expect) {
                assert_eq!(g.node, line[i].1);
            }
        }
    }
    // Going back in time restarts with a search.
    let mut cur = LineCursor::new(ds.data.as_ref(), 0, times.len() as u64);
    cur.seek(last).unwrap();
    assert_eq!(cur.seek(3).unwrap().map(|s| s.time), Some(3));
    assert_eq!(cur.seek(2).unwrap(), None);
}

#[test]
fn unsorted_line_terminates_without_panic() {
    let line: Vec<(u64, u32)> = (0..1000u64)
        .map(|i| ((i * 7919) % 1000, (i % 5) as u32))
        .collect();
    let ds = trace_ds(vec![line]);
    let ix = FrameIndex::new(&ds);
    let f = sample_frame(&ds, &ix, &[0], Window::new(0, 1000, 500), 1, 3).unwrap();
    assert_eq!(f.keys.len(), 500);
}

/// A generated trace line of `n` samples, sample i at time 1000 + 100 i in node `i / 1000 % 3`
/// (mpi_wait, io, solve's line), served by a ReadAt that counts the bytes it is asked for.
struct SynthLine {
    n: u64,
    read: Arc<AtomicU64>,
    calls: Arc<AtomicU64>,
}
impl ReadAt for SynthLine {
    fn size(&self) -> u64 {
        self.n * 12
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::result::Result<(), String> {
        self.read.fetch_add(buf.len() as u64, Ordering::Relaxed);
        self.calls.fetch_add(1, Ordering::Relaxed);
        for (k, b) in buf.iter_mut().enumerate() {
            let at = offset + k as u64;
            let (i, within) = (at / 12, (at % 12) as usize);
            let mut rec = [0u8; 12];
            rec[..8].copy_from_slice(&(1000 + 100 * i).to_le_bytes());
            rec[8..]
                .copy_from_slice(&[WAIT, IO, SOLVE_LINE][(i / 1000 % 3) as usize].to_le_bytes());
            *b = rec[within];
        }
        Ok(())
    }
}

#[test]
fn bytes_read_follow_pixels_not_trace_size() {
    let n = 10_000_000u64;
    let read = Arc::new(AtomicU64::new(0));
    let calls = Arc::new(AtomicU64::new(0));
    let src = Source::new(
        "trace.db",
        Arc::new(SynthLine {
            n,
            read: read.clone(),
            calls: calls.clone(),
        }),
    );
    assert!(src.as_slice().is_none());
    let (cct, fs) = tree();
    let info = TraceInfo {
        min_time: Some(1000),
        max_time: Some(1000 + 100 * (n - 1)),
        lines: vec![TraceLineInfo {
            prof_index: 0,
            samples: n,
        }],
    };
    let data = ByteTrace {
        src,
        lines: vec![(0, n)],
    };
    let ds = dataset(cct, fs, Some(info), Box::new(data));
    let ix = FrameIndex::new(&ds);
    let (t0, t1) = (1000, 1000 + 100 * n);
    let f = sample_frame(&ds, &ix, &[0], Window::new(t0, t1, 1000), 1, 2).unwrap();
    let bytes = read.load(Ordering::Relaxed);
    // Column c stands for sample 10,000 c, in block (10 c) % 3 of 1000 samples.
    for c in 0..1000usize {
        let expect = [3, 4, 2][(10 * c) % 3];
        assert_eq!(f.keys[c], expect, "column {c}");
    }
    // 120 MB of samples; the frame reads under 0.5 % of it: a handful of 12-byte reads per column.
    eprintln!(
        "1000-px frame over {n} samples: {bytes} bytes in {} reads, {:?}",
        calls.load(Ordering::Relaxed),
        f.stats
    );
    assert!(bytes < 600_000, "read {bytes} bytes");
    // A zoomed-in frame over a 1/1000 of the line reads about as much, not less per sample.
    read.store(0, Ordering::Relaxed);
    let span = t1 - t0;
    let f = sample_frame(
        &ds,
        &ix,
        &[0],
        Window::new(t0 + span / 2, t0 + span / 2 + span / 1000, 1000),
        1,
        0,
    )
    .unwrap();
    assert!(f.keys.iter().all(|&k| k == 1));
    let zoomed = read.load(Ordering::Relaxed);
    assert!(zoomed < 300_000, "read {zoomed} bytes");
    // Twice the pixels, about twice the bytes: cost follows pixels.
    read.store(0, Ordering::Relaxed);
    sample_frame(&ds, &ix, &[0], Window::new(t0, t1, 2000), 1, 2).unwrap();
    let double = read.load(Ordering::Relaxed);
    assert!(
        double < 2 * bytes + 50_000 && double > bytes,
        "{double} vs {bytes}"
    );
}

#[test]
fn hundred_thousand_deep_path() {
    // main -> f -> f -> ... 100,000 call frames, each under a lexical loop node.
    let depth = 100_000u32;
    let mut b = CctBuilder::new(0);
    let mut p = 0;
    let mut ctx = 1;
    for i in 0..depth {
        p = b.add(p, ctx, Frame::call(if i == 0 { 0 } else { 1 }));
        ctx += 1;
        p = b.add(p, ctx, lexical(LexicalType::Loop));
        ctx += 1;
    }
    let cct = b.finish("deep").unwrap();
    let leaf = cct.len() as u32 - 1;
    let info = TraceInfo {
        min_time: Some(0),
        max_time: Some(0),
        lines: vec![TraceLineInfo {
            prof_index: 0,
            samples: 1,
        }],
    };
    let ds = dataset(
        cct,
        ["main", "f"].map(func).to_vec(),
        Some(info),
        Box::new(ByteTrace::from_lines(&[vec![(0, leaf)]])),
    );
    let ix = FrameIndex::new(&ds);
    assert_eq!(ix.path_depth(leaf), depth);
    // Frame at depth d is node 2d + 1 (frames and loops alternate below the root).
    for d in [0u32, 1, 2, 777, 50_000, 99_998, 99_999, 250_000] {
        let f = ix.frame_at(leaf, d);
        assert_eq!(f, 2 * d.min(depth - 1) + 1, "depth {d}");
    }
    assert_eq!(ix.key_at(leaf, 0), 1);
    assert_eq!(ix.key_at(leaf, 50_000), 2);
    let f = sample_frame(&ds, &ix, &[0], Window::new(0, 10, 10), 1, 60_000).unwrap();
    assert_eq!(f.keys, vec![2; 10]);
    let cp = call_path_at(&ds, &ix, 0, 5).unwrap();
    assert_eq!(cp.frames.len(), depth as usize);
    assert_eq!(cp.frames[99_999], leaf - 1);
    // The depth view is capped by its row count, not the path depth.
    let rects = depth_view(&ds, &ix, 0, Window::new(0, 10, 10), 30).unwrap();
    assert_eq!(rects.len(), 30);
    assert!(rects.iter().all(|r| r.x0 == 0 && r.x1 == 10));
    assert_eq!(rects[29].node, 59);
}

#[test]
fn more_rows_than_pixels_picks_rows_like_hpcviewer() {
    let rows: Vec<u32> = (100..110).collect();
    assert_eq!(pick_rows(&rows, 4), vec![100, 102, 105, 107]);
    assert_eq!(pick_rows(&rows, 10), rows);
    assert_eq!(pick_rows(&rows, 50), rows);
    assert_eq!(pick_rows(&rows, 1), vec![100]);
    let ds = trace_ds(vec![
        vec![(0, MAIN)],
        vec![(0, SOLVE_LINE)],
        vec![(0, WAIT)],
        vec![(0, IO)],
    ]);
    let ix = FrameIndex::new(&ds);
    let f = sample_frame(&ds, &ix, &[0, 1, 2, 3], Window::new(0, 10, 1), 2, 5).unwrap();
    assert_eq!(f.lines, vec![0, 2]);
    assert_eq!(f.keys, vec![1, 3]);
}

#[test]
fn call_path_at_row_and_time() {
    let ds = trace_ds(vec![vec![(10, MAIN), (40, WAIT), (70, IO)]]);
    let ix = FrameIndex::new(&ds);
    let cp = call_path_at(&ds, &ix, 0, 45).unwrap();
    assert_eq!(
        cp.sample,
        Some((
            1,
            TraceSample {
                time: 40,
                node: WAIT
            }
        ))
    );
    assert_eq!(cp.frames, vec![MAIN, SOLVE, WAIT]);
    let names: Vec<String> = cp.frames.iter().map(|&f| ds.frame_name(f)).collect();
    assert_eq!(names, vec!["main", "solve", "mpi_wait"]);
    assert_eq!(call_path_at(&ds, &ix, 0, 9).unwrap().sample, None);
    assert_eq!(
        call_path_at(&ds, &ix, 0, 1_000).unwrap().frames,
        vec![MAIN, IO]
    );
    assert_eq!(
        call_path_at(&ds, &ix, 5, 40).unwrap().frames,
        Vec::<u32>::new()
    );
}

#[test]
fn depth_view_rectangles() {
    let ds = trace_ds(vec![vec![(10, MAIN), (40, WAIT), (60, LOOP), (70, IO)]]);
    let ix = FrameIndex::new(&ds);
    let r = depth_view(&ds, &ix, 0, Window::new(0, 100, 10), 4).unwrap();
    let got: Vec<(u32, u32, u32, u32)> = r.iter().map(|r| (r.depth, r.x0, r.x1, r.key)).collect();
    // main spans 1..10 at depth 0; solve 4..7 (mpi_wait then the loop in the same solve frame);
    // mpi_wait 4..6; io 7..10.
    assert_eq!(
        got,
        vec![(0, 1, 10, 1), (1, 4, 7, 2), (2, 4, 6, 3), (1, 7, 10, 4)]
    );
}

#[test]
fn summary_stacks_and_totals() {
    let ds = trace_ds(vec![
        vec![(10, MAIN), (40, WAIT), (70, IO)],
        vec![(0, SOLVE_LINE), (50, ROOT)],
    ]);
    let ix = FrameIndex::new(&ds);
    let f = sample_frame(&ds, &ix, &[0, 1], Window::new(0, 100, 10), 100, 2).unwrap();
    let s = summarize(&f);
    // Column 0: keys {0, 2}; column 4: {2, 3}; column 5: {0, 3}.
    assert_eq!(s.col_start.len(), 11);
    let col = |c: usize| {
        let (a, b) = (s.col_start[c] as usize, s.col_start[c + 1] as usize);
        s.keys[a..b]
            .iter()
            .zip(&s.counts[a..b])
            .map(|(&k, &n)| (k, n))
            .collect::<Vec<_>>()
    };
    assert_eq!(col(0), vec![(0, 1), (2, 1)]);
    assert_eq!(col(4), vec![(2, 1), (3, 1)]);
    assert_eq!(col(9), vec![(0, 1), (4, 1)]);
    assert_eq!(s.cells, 20);
    // 0: 1 + 5 = 6 cells; 2: 5; 1 (main): 3; 3: 3; 4: 3.
    assert_eq!(s.totals, vec![(0, 6), (2, 5), (1, 3), (3, 3), (4, 3)]);
}

#[test]
fn ticks_with_units() {
    let (step, t) = nice_ticks(0, 1_000_000_000, 5);
    assert_eq!(step, 200_000_000);
    let labels: Vec<&str> = t.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(
        labels,
        vec!["0 ms", "200 ms", "400 ms", "600 ms", "800 ms", "1000 ms"]
    );
    let (step, t) = nice_ticks(1_234, 1_300, 4);
    assert_eq!(step, 20);
    assert_eq!(t[0].offset_ns, 1_240);
    assert_eq!(t[0].label, "1240 ns");
    let (step, t) = nice_ticks(0, 12_000_000_000, 6);
    assert_eq!(step, 2_000_000_000);
    assert_eq!(t[1].label, "2 s");
    let (_, t) = nice_ticks(0, 3, 10);
    assert_eq!(
        t.iter().map(|t| t.label.as_str()).collect::<Vec<_>>(),
        vec!["0 ns", "1 ns", "2 ns", "3 ns"]
    );
    assert_eq!(format_offset(1_500_000, 500_000), "1500 us");
    assert_eq!(format_offset(1_500_000, 1_500_000), "1.5 ms");
    assert_eq!(format_offset(2_250_000_000, 1_250_000_000), "2.25 s");
    assert_eq!(format_offset(2_250_000_000, 250_000_000), "2250 ms");
    // Degenerate and extreme spans do not loop or overflow.
    assert_eq!(nice_ticks(5, 5, 0).1.len(), 1);
    assert!(nice_ticks(0, u64::MAX, 10).1.len() <= 11);
}

/// Lines with repeated times, gaps and a line starting late, over several windows.
fn mixed_lines() -> Vec<Vec<(u64, u32)>> {
    let nodes = [MAIN, WAIT, IO, SOLVE_LINE, ROOT];
    let dense: Vec<(u64, u32)> = (0..20_000u64)
        .map(|i| (i * 10 + (i % 7) / 3, nodes[(i / 37 % 5) as usize]))
        .collect();
    let sparse: Vec<(u64, u32)> = (0..40u64)
        .map(|i| (i * 5_000, nodes[(i % 4) as usize]))
        .collect();
    let late: Vec<(u64, u32)> = (0..500u64)
        .map(|i| (150_000 + i * 3, nodes[(i % 3) as usize]))
        .collect();
    let dup: Vec<(u64, u32)> = (0..300u64)
        .map(|i| (i / 4 * 400, nodes[(i % 5) as usize]))
        .collect();
    vec![dense, sparse, vec![], late, dup, vec![(60_000, IO)]]
}

const COSTS: [ReadCost; 3] = [ReadCost::MEMORY, ReadCost::BLOB, ReadCost::RANGED];

#[test]
fn progressive_frames_refine_to_the_exact_frame() {
    let ds = trace_ds(mixed_lines());
    let ix = FrameIndex::new(&ds);
    let rows: Vec<u32> = (0..6).collect();
    let windows = [
        Window::new(0, 200_000, 640),
        Window::new(0, 200_000, 7),
        Window::new(12_345, 13_000, 300),
        Window::new(149_000, 152_000, 50),
        Window::new(50, 51, 3),
        Window::new(300_000, 400_000, 10),
    ];
    for win in windows {
        for depth in [0u32, 2, 1000] {
            let want = sample_frame(&ds, &ix, &rows, win, 100, depth).unwrap();
            for cost in COSTS {
                let f = exact_frame(&ds, &ix, &rows, win, 100, depth, cost).unwrap();
                assert_eq!(f.keys, want.keys, "{win:?} depth {depth} {cost:?}");
                assert_eq!(f.nodes, want.nodes, "{win:?} depth {depth} {cost:?}");
                // Step by step, with the coarse pass first where the source batches reads.
                let mut job = FrameJob::new(&rows, win, 100, depth, cost);
                if cost.batched {
                    job.sample_coarse(&ds, &ix, 3, 16).unwrap();
                }
                let mut steps = 0;
                while !job.is_exact() {
                    assert!(job.refine(&ds, &ix, &mut || true).unwrap() <= 1);
                    steps += 1;
                    assert!(steps <= 6, "one row per step");
                }
                assert_eq!(
                    job.shown().keys,
                    want.keys,
                    "{win:?} depth {depth} {cost:?}"
                );
                assert_eq!(job.frame().nodes, want.nodes);
            }
        }
    }
    // Rows picked when there are more rows than pixels: the same picks as sample_frame.
    let win = Window::new(0, 200_000, 64);
    let want = sample_frame(&ds, &ix, &rows, win, 4, 1).unwrap();
    let f = exact_frame(&ds, &ix, &rows, win, 4, 1, ReadCost::BLOB).unwrap();
    assert_eq!((f.lines, f.keys), (want.lines, want.keys));
}

#[test]
fn rows_not_refined_show_a_refined_neighbour_and_say_so() {
    let ds = trace_ds(mixed_lines());
    let ix = FrameIndex::new(&ds);
    let rows: Vec<u32> = (0..6).collect();
    let win = Window::new(0, 200_000, 100);
    let want = sample_frame(&ds, &ix, &rows, win, 100, 2).unwrap();
    let mut job = FrameJob::new(&rows, win, 100, 2, ReadCost::BLOB);
    assert!(!job.is_exact());
    // Coarse-to-fine: row 0, then row 4 (n/2 of 8), then 2, 6 (absent) ...
    job.refine(&ds, &ix, &mut || true).unwrap();
    assert_eq!(job.state[0], RowState::Exact);
    let shown = job.shown();
    for r in 0..6 {
        assert_eq!(
            &shown.keys[r * 100..(r + 1) * 100],
            &want.keys[..100],
            "row {r} shows row 0"
        );
    }
    job.refine(&ds, &ix, &mut || true).unwrap();
    assert_eq!(job.state[4], RowState::Exact);
    let shown = job.shown();
    assert_eq!(
        &shown.keys[300..400],
        &want.keys[..100],
        "row 3 shows row 0"
    );
    assert_eq!(
        &shown.keys[500..600],
        &want.keys[400..500],
        "row 5 shows row 4"
    );
    assert_eq!(job.exact_rows(), 2);
}

#[test]
fn coarse_pass_reads_few_points_in_one_batch_and_real_samples() {
    let lines = mixed_lines();
    let ds = trace_ds(lines.clone());
    let ix = FrameIndex::new(&ds);
    let rows: Vec<u32> = (0..6).collect();
    // Columns every 1,000 ns up to 200,000, past the last sample (199,992).
    let win = Window::new(0, 201_000, 201);
    let mut job = FrameJob::new(&rows, win, 100, 1000, ReadCost::RANGED);
    job.sample_coarse(&ds, &ix, 256, 25).unwrap();
    // The whole run is shown: no search, 25 points of the dense line, every sample of the short
    // ones (which are then exact), and nothing of the empty line (exact too).
    assert_eq!(job.stats().finds, 0);
    assert_eq!(
        job.state,
        vec![
            RowState::Sampled,
            RowState::Sampled,
            RowState::Exact,
            RowState::Sampled,
            RowState::Sampled,
            RowState::Exact
        ]
    );
    let f = job.frame();
    let want = sample_frame(&ds, &ix, &rows, win, 100, 1000).unwrap();
    assert_eq!(&f.keys[2 * 201..3 * 201], &want.keys[2 * 201..3 * 201]);
    // Each cell of a sampled row holds a real sample of its line, at or before the column's time.
    for r in [0usize, 1, 3, 4] {
        for c in 0..201usize {
            let node = f.nodes[r * 201 + c];
            let t = win.time(c as u32);
            if node == NONE {
                // Only before the line's first sample (the late line).
                assert!(r == 3 && t < 150_000, "row {r} col {c}");
                continue;
            }
            assert!(
                lines[r].iter().any(|s| s.1 == node && s.0 <= t),
                "row {r} col {c}"
            );
        }
    }
    // A zoomed window: lock-step searches bound each row; a window of few samples is exact.
    let win = Window::new(150_100, 150_160, 30);
    let mut job = FrameJob::new(&rows, win, 100, 1000, ReadCost::RANGED);
    job.sample_coarse(&ds, &ix, 256, 64).unwrap();
    let want = sample_frame(&ds, &ix, &rows, win, 100, 1000).unwrap();
    assert!(job.is_exact(), "{:?}", job.state);
    assert_eq!(job.frame().keys, want.keys);
}

/// Counts read calls and bytes of a trace source.
struct Counting {
    inner: Source,
    calls: Arc<AtomicU64>,
    bytes: Arc<AtomicU64>,
}
impl ReadAt for Counting {
    fn size(&self) -> u64 {
        self.inner.len()
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::result::Result<(), String> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(buf.len() as u64, Ordering::Relaxed);
        read_from(&self.inner, offset, buf)
    }
}

/// `buf.len()` bytes of `src` at `offset`, for test sources wrapping another.
fn read_from(src: &Source, offset: u64, buf: &mut [u8]) -> std::result::Result<(), String> {
    src.read_into(offset, buf, "x").map_err(|e| e.to_string())
}

#[test]
fn blob_rows_are_scanned_with_few_large_reads() {
    // One line of 300,000 samples (3.6 MB) over 1,000 columns: probing would cost a read per
    // column; the Blob cost model scans it instead.
    let line: Vec<(u64, u32)> = (0..300_000u64)
        .map(|i| (i * 10, [MAIN, WAIT, IO][(i / 500 % 3) as usize]))
        .collect();
    let plain = ByteTrace::from_lines(std::slice::from_ref(&line));
    let calls = Arc::new(AtomicU64::new(0));
    let bytes = Arc::new(AtomicU64::new(0));
    let src = Source::new(
        "trace.db",
        Arc::new(Counting {
            inner: plain.src.clone(),
            calls: calls.clone(),
            bytes: bytes.clone(),
        }),
    );
    let (cct, fs) = tree();
    let info = TraceInfo {
        min_time: Some(0),
        max_time: Some(2_999_990),
        lines: vec![TraceLineInfo {
            prof_index: 0,
            samples: 300_000,
        }],
    };
    let data = ByteTrace {
        src,
        lines: plain.lines.clone(),
    };
    let ds = dataset(cct, fs, Some(info), Box::new(data));
    let ix = FrameIndex::new(&ds);
    let win = Window::new(0, 3_000_000, 1000);
    let f = exact_frame(&ds, &ix, &[0], win, 1, 1, ReadCost::BLOB).unwrap();
    let scan_calls = calls.swap(0, Ordering::Relaxed);
    let want = sample_frame(&ds, &ix, &[0], win, 1, 1).unwrap();
    let probe_calls = calls.load(Ordering::Relaxed);
    assert_eq!(f.keys, want.keys);
    // ByteTrace reads sample by sample, so count trace_samples calls through the stats instead.
    assert_eq!(f.stats.probes, 1, "one scan");
    // The window starts with the run: no search.
    assert_eq!(f.stats.finds, 0);
    // A zoomed window: one search, a scan of about the window's samples.
    let zoom = Window::new(1_000_000, 1_100_000, 1000);
    let f = exact_frame(&ds, &ix, &[0], zoom, 1, 1, ReadCost::BLOB).unwrap();
    assert_eq!(
        f.keys,
        sample_frame(&ds, &ix, &[0], zoom, 1, 1).unwrap().keys
    );
    assert_eq!((f.stats.finds, f.stats.probes), (1, 1));
    assert!(want.stats.probes >= 1000, "{:?}", want.stats);
    eprintln!("scan: {scan_calls} source reads, probing: {probe_calls}");
}

#[test]
fn progressive_unsorted_line_terminates() {
    let ds = trace_ds(vec![vec![
        (50, MAIN),
        (10, WAIT),
        (90, IO),
        (20, MAIN),
        (95, WAIT),
    ]]);
    let ix = FrameIndex::new(&ds);
    for cost in COSTS {
        let mut job = FrameJob::new(&[0], Window::new(0, 100, 10), 1, 2, cost);
        job.sample_coarse(&ds, &ix, 8, 2).unwrap();
        job.refine(&ds, &ix, &mut || false).unwrap();
        assert!(job.is_exact());
    }
}

/// A source where the first read of every `every`-th new offset fails, as a read deferred
/// while its bytes are fetched does (asked again, they are there).
struct Flaky {
    inner: Source,
    calls: AtomicU64,
    every: u64,
    seen: std::sync::Mutex<std::collections::HashSet<u64>>,
}
impl ReadAt for Flaky {
    fn size(&self) -> u64 {
        self.inner.len()
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::result::Result<(), String> {
        if self.seen.lock().unwrap().insert(offset)
            && self.calls.fetch_add(1, Ordering::Relaxed) % self.every == self.every - 1
        {
            return Err("not fetched yet".into());
        }
        read_from(&self.inner, offset, buf)
    }
}

#[test]
fn a_failed_read_leaves_the_job_as_it_was_and_the_call_can_be_repeated() {
    let lines = mixed_lines();
    let plain = trace_ds(lines.clone());
    let ix = FrameIndex::new(&plain);
    let bt = ByteTrace::from_lines(&lines);
    let flaky = || {
        let src = Source::new(
            "trace.db",
            Arc::new(Flaky {
                inner: bt.src.clone(),
                calls: AtomicU64::new(0),
                // ByteTrace reads sample by sample and a failed row starts again: rare
                // failures keep the test fast.
                every: 997,
                seen: Default::default(),
            }),
        );
        let (cct, fs) = tree();
        dataset(
            cct,
            fs,
            plain.trace.clone(),
            Box::new(ByteTrace {
                src,
                lines: bt.lines.clone(),
            }),
        )
    };
    let rows: Vec<u32> = (0..6).collect();
    for win in [
        Window::new(0, 200_000, 640),
        Window::new(12_345, 13_000, 300),
    ] {
        let want = sample_frame(&plain, &ix, &rows, win, 100, 2).unwrap();
        for cost in COSTS {
            let ds = flaky();
            let mut job = FrameJob::new(&rows, win, 100, 2, cost);
            if cost.batched {
                // The coarse pass either happens whole or not at all.
                let mut tries = 0;
                while job.sample_coarse(&ds, &ix, 3, 16).is_err() {
                    tries += 1;
                    assert!(tries < 100);
                }
            }
            let (mut errors, mut calls) = (0, 0);
            while !job.is_exact() {
                let (keys, state) = (job.frame().keys.clone(), job.state.clone());
                calls += 1;
                assert!(calls < 10_000, "no progress");
                if job.refine(&ds, &ix, &mut || true).is_err() {
                    errors += 1;
                    assert_eq!(job.state, state, "{cost:?}: no row changed state");
                    assert_eq!(job.frame().keys, keys, "{cost:?}: no cell written");
                }
            }
            if win.t0 == 0 {
                // Zoomed out, every row reads its line whole: some reads fail.
                assert!(errors > 0, "{cost:?}: the source failed some reads");
            }
            assert_eq!(job.frame().keys, want.keys, "{win:?} {cost:?}");
            assert_eq!(job.frame().nodes, want.nodes, "{win:?} {cost:?}");
        }
    }
}

#[test]
fn a_reader_without_advice_defers_a_few_reads_then_reads_through() {
    use crate::block_cache::BlockCache;
    use crate::session::staging::{Staged, Staging, UNADVISED_MAX};
    // ByteTrace reads sample by sample and never advises: 20,000 samples through 256-byte
    // blocks are ~940 block reads per row. Deferring each would repeat the row ~940 times.
    let lines = mixed_lines();
    let plain = trace_ds(lines.clone());
    let ix = FrameIndex::new(&plain);
    let bt = ByteTrace::from_lines(&lines);
    let size = bt.src.len();
    let staging = Staging::new(size, 1);
    let inner = bt.src.clone();
    let fetch = Staged::new(
        move |a: u64, b: u64| {
            inner
                .bytes(a, b - a, "x")
                .map(|c| c.into_owned())
                .map_err(|e| e.to_string())
        },
        staging.clone(),
    );
    let (cct, fs) = tree();
    let ds = dataset(
        cct,
        fs,
        plain.trace.clone(),
        Box::new(ByteTrace {
            src: Source::new("trace.db", Arc::new(BlockCache::new(fetch, size, 256, 16))),
            lines: bt.lines.clone(),
        }),
    );
    let rows: Vec<u32> = (0..6).collect();
    let win = Window::new(0, 200_000, 640);
    let want = sample_frame(&plain, &ix, &rows, win, 100, 2).unwrap();
    let mut job = FrameJob::new(&rows, win, 100, 2, ReadCost::BLOB);
    let mut deferred = 0;
    loop {
        staging.set_defer(true);
        let r = job.refine(&ds, &ix, &mut || false);
        staging.set_defer(false);
        if r.is_ok() && job.is_exact() {
            break;
        }
        let (a, b) = staging.take_want().expect("a failed read wants its range");
        staging
            .put(a, b - a, |buf| {
                buf.copy_from_slice(&bt.src.bytes(a, b - a, "x").unwrap())
            })
            .unwrap();
        deferred += 1;
        assert!(deferred <= UNADVISED_MAX, "{deferred} deferred reads");
    }
    assert_eq!(deferred, UNADVISED_MAX);
    assert!(staging.stats().sync_reads > 100, "{:?}", staging.stats());
    assert_eq!(job.frame().keys, want.keys);
}
