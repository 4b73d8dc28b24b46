//! Timeline sampling on hand-built traces read through a byte source, with exact expected colours:
//! frame index, pixels, cursors, depth and summary views, ticks (progressive frames: progressive.rs).
// Source takes an Arc<dyn ReadAt>, and the sources here (like the wasm ones) are not Send.
#![allow(clippy::arc_with_non_send_sync)]

use super::progressive::{FrameJob, ReadCost, RowState};
use super::*;
use crate::bytes::{ReadAt, Source};
use crate::model::{
    CctBuilder, CodeRef, EntryKind, Frame, Function, LexicalType, NoLazyData, TraceInfo,
    TraceLineInfo,
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

fn lexical(t: LexicalType) -> Frame {
    Frame {
        relation: Relation::Lexical,
        lexical_type: t,
        code: CodeRef {
            line: Some(7),
            ..CodeRef::default()
        },
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
    let fs = ["main", "solve", "mpi_wait", "io"]
        .map(Function::named)
        .to_vec();
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
        ["a", "leaf", "c"].map(Function::named).to_vec(),
        None,
        Box::new(NoLazyData),
    );
    let ix = FrameIndex::new(&ds);
    assert_eq!(ix.names, vec!["a", "leaf", "c"]);
    assert_eq!(ix.key_at(2, 1), 2);
    assert_eq!(ix.key_at(4, 1), 2);
    assert_eq!(ix.key_at(4, 0), 3);
}

/// Line 0: main at 10, mpi_wait at 40, io at 70. Line 1: solve's line at 0, root (idle) at 50.
fn two_lines() -> Dataset {
    trace_ds(vec![
        vec![(10, MAIN), (40, WAIT), (70, IO)],
        vec![(0, SOLVE_LINE), (50, ROOT)],
    ])
}

#[test]
fn exact_pixel_colours() {
    let ds = two_lines();
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
    let leaf = cct.tree.len() as u32 - 1;
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
        ["main", "f"].map(Function::named).to_vec(),
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
    let ds = two_lines();
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

mod calls;
mod progressive;
