//! Trace frames over a source whose large reads are fetched asynchronously (a dropped File in
//! the Worker: see src/staging.rs): a read that is not staged fails with PENDING and names its
//! range, the caller stages the bytes and repeats the call. The frames must equal the exact
//! frames of the same database in memory, and no read may go to the synchronous backend.

use hpcscope::analysis::timeline::progressive::ReadCost;
use hpcscope::analysis::timeline::view::{frame_begin, frame_packed, frame_refine, TimelineCache};
use hpcscope::api::Workspace;
use hpcscope::block_cache::BlockCache;
use hpcscope::bytes::Source;
use hpcscope::formats::InputFile;
use hpcscope::model::Dataset;
use hpcscope::staging::{Staged, Staging, PENDING};
use hpcscope::synth::{SynthDb, SynthSpec};
use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

const RANKS: u32 = 8;
/// 4.8 MB per line, 38 MB in all: more than the stage holds (24 MiB).
const SAMPLES: u64 = 400_000;

fn open(ws: &mut Workspace, files: Vec<InputFile>) -> u32 {
    let r = ws.open_files(files);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    r.datasets[0].id
}

/// What the Worker does for a trace frame over a staged `file`: begin with reads deferred; while
/// a step stops at a read, stage the bytes it wants and repeat. Returns the exact frame, packed,
/// and the number of staged fetches (at most `max_fetches`).
#[allow(clippy::too_many_arguments)]
fn staged_frame(
    ds: &Dataset,
    tl: &mut TimelineCache,
    staging: &Staging,
    file: &[u8],
    rows: &[u32],
    (t0, t1): (f64, f64),
    (width, height, depth): (u32, u32, u32),
    max_fetches: u32,
) -> (Vec<u32>, u32) {
    staging.set_defer(true);
    let mut r = frame_begin(ds, tl, 0, rows, t0, t1, width, height, depth, &mut || false);
    staging.set_defer(false);
    let mut fetched = 0u32;
    loop {
        match r {
            Ok((packed, p)) if p.exact => return (packed, fetched),
            Ok(_) => panic!("refined until done, but not exact"),
            Err(e) => assert!(e.to_string().contains(PENDING), "{e}"),
        }
        let (a, b) = staging.take_want().expect("a pending read names its range");
        staging
            .put(a, b - a, |buf| {
                buf.copy_from_slice(&file[a as usize..b as usize])
            })
            .unwrap();
        fetched += 1;
        assert!(fetched <= max_fetches, "{fetched} staged fetches");
        staging.set_defer(true);
        r = frame_refine(ds, tl, 0, &mut || false);
        staging.set_defer(false);
    }
}

#[test]
fn staged_frames_equal_exact_frames_without_synchronous_reads() {
    let db = SynthDb::new(&SynthSpec {
        ranks: RANKS,
        threads: 1,
        contexts: 300,
        depth: 8,
        samples: SAMPLES,
        ..Default::default()
    })
    .unwrap();
    let files = db.to_files();
    let mut mem = Workspace::new();
    let mem_id = open(
        &mut mem,
        files
            .iter()
            .map(|(n, b)| InputFile {
                path: format!("db/{n}"),
                source: Source::from_vec(format!("db/{n}"), b.clone()),
            })
            .collect(),
    );

    // trace.db through a block cache over a staged backend that counts synchronous reads.
    let trace: Arc<Vec<u8>> = Arc::new(files.iter().find(|f| f.0 == "trace.db").unwrap().1.clone());
    let staging = Staging::new(trace.len() as u64, 1);
    let sync_reads = Rc::new(Cell::new(0u64));
    let (t2, s2) = (trace.clone(), sync_reads.clone());
    let fetch = Staged::new(
        move |a: u64, b: u64| {
            s2.set(s2.get() + 1);
            Ok(t2[a as usize..b as usize].to_vec())
        },
        staging.clone(),
    );
    let cache = BlockCache::new(fetch, trace.len() as u64, 64 << 10, 256).with_read_ahead(64);
    let mut cache = Some(cache);
    let mut lazy = Workspace::new();
    let lazy_id = open(
        &mut lazy,
        files
            .iter()
            .map(|(n, b)| {
                let path = format!("db/{n}");
                let source = match cache.take_if(|_| n == "trace.db") {
                    Some(c) => Source::new(path.as_str(), Arc::new(c)),
                    None => Source::from_vec(path.as_str(), b.clone()),
                };
                InputFile { path, source }
            })
            .collect(),
    );
    assert!(cache.is_none(), "trace.db read through the staged source");
    let ds_mem = mem.dataset(mem_id).unwrap();
    let ds = lazy.dataset(lazy_id).unwrap();
    let t = ds.trace.as_ref().unwrap();
    let whole = (t.max_time.unwrap() - t.min_time.unwrap()) as f64;
    let rows: Vec<u32> = (0..RANKS).collect();
    let mut tl = TimelineCache::with_cost(ReadCost::BLOB);
    // Zoomed out (every line read whole; again, partly from the stage), zoomed in (a search, then a short scan per row), and
    // a window past the end.
    for (k, (t0, t1)) in [
        (0.0, whole + 1.0),
        (0.0, whole + 1.0),
        (whole * 0.3, whole * 0.301),
        (whole * 0.5, whole * 0.9),
    ]
    .into_iter()
    .enumerate()
    {
        let want = frame_packed(
            ds_mem,
            &mut TimelineCache::with_cost(ReadCost::MEMORY),
            &rows,
            t0,
            t1,
            700,
            RANKS,
            3,
        )
        .unwrap();
        sync_reads.set(0);
        staging.forget_evicted();
        let (got, fetched) = staged_frame(
            ds,
            &mut tl,
            &staging,
            &trace,
            &rows,
            (t0, t1),
            (700, RANKS, 3),
            999,
        );
        assert_eq!(got, want, "window {t0}..{t1}");
        assert_eq!(sync_reads.get(), 0, "every read was staged");
        if k == 0 {
            // Each line whole, fetched in one piece (the scan's advice).
            assert_eq!(fetched, RANKS);
        }
        eprintln!("window {t0}..{t1}: {fetched} staged fetches");
    }
}

/// A uftrace recording (tasks as rows, replayed from checkpoints without advice) through a staged
/// source: the frame is the exact one, with at most a few deferred reads (see
/// `a_reader_without_advice_defers_a_few_reads_then_reads_through` for many blocks).
#[test]
fn unadvised_block_reads_are_deferred_only_a_few_times() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/uftrace/public-opencv_tests/tests/uftrace.data"
    );
    let Ok(entries) = std::fs::read_dir(dir) else {
        eprintln!("skipping: ../shared/corpus absent");
        return;
    };
    let mut files: Vec<(String, Vec<u8>)> = entries
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| {
            (
                format!("uftrace.data/{}", e.file_name().to_string_lossy()),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    let dat = files.iter().position(|f| f.0.ends_with(".dat")).unwrap();
    let mem_files = || {
        files
            .iter()
            .map(|(n, b)| InputFile {
                path: n.clone(),
                source: Source::from_vec(n.as_str(), b.clone()),
            })
            .collect::<Vec<_>>()
    };
    let mut mem = Workspace::new();
    let mem_id = open(&mut mem, mem_files());
    // The .dat file through 256-byte blocks.
    let bytes: Arc<Vec<u8>> = Arc::new(files[dat].1.clone());
    let staging = Staging::new(bytes.len() as u64, 1);
    let b2 = bytes.clone();
    let fetch = Staged::new(
        move |a: u64, b: u64| Ok(b2[a as usize..b as usize].to_vec()),
        staging.clone(),
    );
    let mut lazy_files = mem_files();
    lazy_files[dat].source = Source::new(
        lazy_files[dat].path.as_str(),
        Arc::new(BlockCache::new(fetch, bytes.len() as u64, 256, 64)),
    );
    let mut lazy = Workspace::new();
    let lazy_id = open(&mut lazy, lazy_files);
    let ds_mem = mem.dataset(mem_id).unwrap();
    let ds = lazy.dataset(lazy_id).unwrap();
    let t = ds.trace.as_ref().unwrap();
    let whole = (t.max_time.unwrap() - t.min_time.unwrap()) as f64 + 1.0;
    let rows: Vec<u32> = (0..t.lines.len() as u32).collect();
    let want = frame_packed(
        ds_mem,
        &mut TimelineCache::with_cost(ReadCost::MEMORY),
        &rows,
        0.0,
        whole,
        500,
        rows.len() as u32,
        2,
    )
    .unwrap();
    let mut tl = TimelineCache::with_cost(ReadCost::BLOB);
    let (got, _) = staged_frame(
        ds,
        &mut tl,
        &staging,
        &bytes,
        &rows,
        (0.0, whole),
        (500, rows.len() as u32, 2),
        hpcscope::staging::UNADVISED_MAX,
    );
    assert_eq!(got, want);
}
