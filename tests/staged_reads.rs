//! Trace frames over a source whose large reads are fetched asynchronously (a dropped File in
//! the Worker: see src/session/staging.rs), driven through the session's own step loop: a step
//! stops at a read that is not staged and names its range, the caller stages the bytes and
//! continues. The frames must equal the exact frames of the same database in memory, and no read
//! may go to the synchronous backend.

use common::frames::{exact_frame, in_memory, open, staged_frame, trace_db, Carried};
use hpcscope::analysis::timeline::progressive::ReadCost;
use hpcscope::session::{FrameRequest, LazyFile, ReadPlan, Session};
use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

mod common;

const RANKS: u32 = 8;
/// 4.8 MB per line, 38 MB in all: more than the stage holds (24 MiB).
const SAMPLES: u64 = 400_000;

/// A trace frame staged one wanted read at a time (the Worker's dropped files): the exact frame,
/// packed, and the number of staged fetches (at most `max_fetches`).
fn one_read_at_a_time(
    s: &mut Carried,
    id: u32,
    req: &FrameRequest,
    max_fetches: u32,
) -> (Vec<u32>, u32) {
    let (frame, stops) = staged_frame(s, id, req, max_fetches as usize, |s| {
        let w = s
            .take_wanted_read()
            .expect("a pending read names its range");
        vec![(w.stage, w.start, w.end, w.handle.clone())]
    });
    (frame, stops.len() as u32)
}

#[test]
fn staged_frames_equal_exact_frames_without_synchronous_reads() {
    let files = trace_db(RANKS, SAMPLES);
    let (mem, mem_id) = in_memory("db", &files);

    // trace.db staged, as the Worker adds a dropped Blob, over a backend that counts synchronous
    // reads; every read deferred (the Worker defers those of a block or more).
    let trace: Arc<Vec<u8>> = Arc::new(files.iter().find(|f| f.0 == "trace.db").unwrap().1.clone());
    let sync_reads = Rc::new(Cell::new(0u64));
    let (t2, s2) = (trace.clone(), sync_reads.clone());
    let fetch = move |a: u64, b: u64| {
        s2.set(s2.get() + 1);
        Ok(t2[a as usize..b as usize].to_vec())
    };
    let mut fetch = Some(fetch);
    let mut lazy: Carried = Session::new();
    for (n, b) in &files {
        let path = format!("db/{n}");
        match fetch.take_if(|_| n == "trace.db") {
            Some(fetch) => {
                let file = LazyFile {
                    path,
                    size: trace.len() as u64,
                    fetch,
                    plan: ReadPlan::BLOB,
                };
                lazy.add_staged(file, trace.clone(), 1)
            }
            None => lazy.add_file(path, b.clone()),
        }
    }
    assert!(fetch.is_none(), "trace.db read through the staged source");
    let lazy_id = open(&mut lazy);
    assert_eq!(lazy.timeline(lazy_id).unwrap().1.cost, ReadCost::BLOB);
    let ds_mem = mem.dataset(mem_id).unwrap();
    let t = lazy.dataset(lazy_id).unwrap().trace.as_ref().unwrap();
    let whole = (t.max_time.unwrap() - t.min_time.unwrap()) as f64;
    let rows: Vec<u32> = (0..RANKS).collect();
    // Zoomed out (every line read whole; again, partly from the stage), zoomed in (a search, then
    // a short scan per row), and a window past the end. The session keeps the trace state between
    // frames, as for the page.
    for (k, (t0, t1)) in [
        (0.0, whole + 1.0),
        (0.0, whole + 1.0),
        (whole * 0.3, whole * 0.301),
        (whole * 0.5, whole * 0.9),
    ]
    .into_iter()
    .enumerate()
    {
        let req = FrameRequest {
            rows: &rows,
            t0_ns: t0,
            t1_ns: t1,
            width: 700,
            height: RANKS,
            depth: 3,
        };
        let want = exact_frame(ds_mem, &req);
        sync_reads.set(0);
        let (got, fetched) = one_read_at_a_time(&mut lazy, lazy_id, &req, 999);
        assert_eq!(got, want, "window {t0}..{t1}");
        assert_eq!(sync_reads.get(), 0, "every read was staged");
        if k == 0 {
            // Each line whole, fetched in one piece (the scan's advice).
            assert_eq!(fetched, RANKS);
        }
        eprintln!("window {t0}..{t1}: {fetched} staged fetches");
    }
    assert!(lazy.blob_reads().staged_reads > 0);
}

/// A uftrace recording (tasks as rows, replayed from checkpoints without advice) through a staged
/// source: the frame is the exact one, with at most a few deferred reads (see
/// `a_reader_without_advice_defers_a_few_reads_then_reads_through` for many blocks).
#[test]
fn unadvised_block_reads_are_deferred_only_a_few_times() {
    let Some(dir) = common::corpus_dir("uftrace/public-opencv_tests/tests/uftrace.data") else {
        return;
    };
    let entries = std::fs::read_dir(dir).unwrap();
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
    let (mem, mem_id) = in_memory("", &files);
    // The .dat file staged, through 256-byte blocks (64 kept, no read-ahead).
    let bytes: Arc<Vec<u8>> = Arc::new(files[dat].1.clone());
    let b2 = bytes.clone();
    let fetch = move |a: u64, b: u64| Ok(b2[a as usize..b as usize].to_vec());
    let plan = ReadPlan {
        block: 256,
        cache_blocks: 64,
        read_ahead: 1,
    };
    let mut lazy: Carried = Session::new();
    for (i, (n, b)) in files.iter().enumerate() {
        if i == dat {
            let file = LazyFile {
                path: n.clone(),
                size: bytes.len() as u64,
                fetch: fetch.clone(),
                plan,
            };
            lazy.add_staged(file, bytes.clone(), 1);
        } else {
            lazy.add_file(n.clone(), b.clone());
        }
    }
    let lazy_id = open(&mut lazy);
    let ds_mem = mem.dataset(mem_id).unwrap();
    let t = lazy.dataset(lazy_id).unwrap().trace.as_ref().unwrap();
    let whole = (t.max_time.unwrap() - t.min_time.unwrap()) as f64 + 1.0;
    let rows: Vec<u32> = (0..t.lines.len() as u32).collect();
    let req = FrameRequest {
        rows: &rows,
        t0_ns: 0.0,
        t1_ns: whole,
        width: 500,
        height: rows.len() as u32,
        depth: 2,
    };
    let want = exact_frame(ds_mem, &req);
    let (got, _) = one_read_at_a_time(
        &mut lazy,
        lazy_id,
        &req,
        hpcscope::session::staging::UNADVISED_MAX,
    );
    assert_eq!(got, want);
}
