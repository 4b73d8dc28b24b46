//! Progressive trace frames (coarse pass, refinement, staged and deferred reads) on the hand-built
//! traces of the parent module, against the exact frame.

use super::*;

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

/// The mixed lines in memory (`plain`, with its frame index) and as trace bytes (`bt`).
struct Mixed {
    plain: Dataset,
    ix: FrameIndex,
    bt: ByteTrace,
}

impl Mixed {
    fn new() -> Mixed {
        let lines = mixed_lines();
        let plain = trace_ds(lines.clone());
        Mixed {
            ix: FrameIndex::new(&plain),
            bt: ByteTrace::from_lines(&lines),
            plain,
        }
    }

    /// The same dataset, its trace read through `read` (which serves the bytes of `bt`).
    fn reading(&self, read: Arc<dyn ReadAt>) -> Dataset {
        let (cct, fs) = tree();
        dataset(
            cct,
            fs,
            self.plain.trace.clone(),
            Box::new(ByteTrace {
                src: Source::new("trace.db", read),
                lines: self.bt.lines.clone(),
            }),
        )
    }
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
                let f = FrameJob::new(&rows, win, 100, depth, cost)
                    .exact(&ds, &ix)
                    .unwrap();
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
    let f = FrameJob::new(&rows, win, 4, 1, ReadCost::BLOB)
        .exact(&ds, &ix)
        .unwrap();
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
    let f = FrameJob::new(&[0], win, 1, 1, ReadCost::BLOB)
        .exact(&ds, &ix)
        .unwrap();
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
    let f = FrameJob::new(&[0], zoom, 1, 1, ReadCost::BLOB)
        .exact(&ds, &ix)
        .unwrap();
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
    let m = Mixed::new();
    let ix = &m.ix;
    let flaky = || {
        m.reading(Arc::new(Flaky {
            inner: m.bt.src.clone(),
            calls: AtomicU64::new(0),
            // ByteTrace reads sample by sample and a failed row starts again: rare
            // failures keep the test fast.
            every: 997,
            seen: Default::default(),
        }))
    };
    let rows: Vec<u32> = (0..6).collect();
    for win in [
        Window::new(0, 200_000, 640),
        Window::new(12_345, 13_000, 300),
    ] {
        let want = sample_frame(&m.plain, ix, &rows, win, 100, 2).unwrap();
        for cost in COSTS {
            let ds = flaky();
            let mut job = FrameJob::new(&rows, win, 100, 2, cost);
            if cost.batched {
                // The coarse pass either happens whole or not at all.
                let mut tries = 0;
                while job.sample_coarse(&ds, ix, 3, 16).is_err() {
                    tries += 1;
                    assert!(tries < 100);
                }
            }
            let (mut errors, mut calls) = (0, 0);
            while !job.is_exact() {
                let (keys, state) = (job.frame().keys.clone(), job.state.clone());
                calls += 1;
                assert!(calls < 10_000, "no progress");
                if job.refine(&ds, ix, &mut || true).is_err() {
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
    let m = Mixed::new();
    let (ix, bt) = (&m.ix, &m.bt);
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
    let ds = m.reading(Arc::new(BlockCache::new(fetch, size, 256, 16)));
    let rows: Vec<u32> = (0..6).collect();
    let win = Window::new(0, 200_000, 640);
    let want = sample_frame(&m.plain, ix, &rows, win, 100, 2).unwrap();
    let mut job = FrameJob::new(&rows, win, 100, 2, ReadCost::BLOB);
    let mut deferred = 0;
    loop {
        staging.set_defer(true);
        let r = job.refine(&ds, ix, &mut || false);
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
