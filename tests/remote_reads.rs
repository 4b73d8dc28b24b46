//! Trace frames over a URL on a server that answers one range per request (object stores: see
//! `Session::add_remote_deferred`), driven as the Worker drives them: a step stops when rows want
//! bytes, names every range they want (several rows at once, for concurrent requests), the caller
//! stages them and continues. Frames must equal the exact frames of the same database in memory,
//! with no synchronous read during steps and no request smaller than a block.

use common::frames::{exact_frame, in_memory, open, staged_frame, trace_db, Carried, Want};
use hpcscope::analysis::timeline::progressive::ReadCost;
use hpcscope::session::staging::WANTS_MAX;
use hpcscope::session::{FrameRequest, LazyFile, ReadPlan, Session};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

mod common;

const RANKS: u32 = 32;
/// 1.2 MB per line, 38 MB in all: more than the block cache holds (16 MiB).
const SAMPLES: u64 = 100_000;

type Remote = Carried;

/// Steps of `req` until exact: returns the frame and the number of wants of each stop.
fn remote_frame(s: &mut Remote, id: u32, req: &FrameRequest) -> (Vec<u32>, Vec<usize>) {
    staged_frame(s, id, req, 200, |s| {
        let wants: Vec<Want> = s
            .take_wanted_reads()
            .into_iter()
            .map(|w| (w.stage, w.start, w.end, w.handle.clone()))
            .collect();
        assert!(!wants.is_empty(), "a pending step names its ranges");
        assert!(wants.len() <= WANTS_MAX, "{} wants", wants.len());
        assert!(s.take_wanted_reads().is_empty(), "taken");
        wants
    })
}

#[test]
fn remote_frames_ask_for_many_rows_at_once_and_equal_exact_frames() {
    let files = trace_db(RANKS, SAMPLES);
    let (mem, mem_id) = in_memory("db", &files);

    // trace.db behind the deferred remote source; the backend logs every synchronous request.
    let trace: Arc<Vec<u8>> = Arc::new(files.iter().find(|f| f.0 == "trace.db").unwrap().1.clone());
    let requests: Rc<RefCell<Vec<(u64, u64)>>> = Rc::default();
    let (t2, r2) = (trace.clone(), requests.clone());
    let fetch = move |a: u64, b: u64| {
        r2.borrow_mut().push((a, b));
        Ok(t2[a as usize..b as usize].to_vec())
    };
    let mut lazy: Remote = Session::new();
    for (n, b) in &files {
        let path = format!("db/{n}");
        if n == "trace.db" {
            let file = LazyFile {
                path,
                size: trace.len() as u64,
                fetch: fetch.clone(),
                plan: ReadPlan::REMOTE_SINGLE,
            };
            lazy.add_remote_deferred(file, trace.clone());
        } else {
            lazy.add_file(path, b.clone());
        }
    }
    let lazy_id = open(&mut lazy);
    eprintln!("opening: {} requests", requests.borrow().len());
    assert_eq!(
        lazy.timeline(lazy_id).unwrap().1.cost,
        ReadCost::RANGED_SINGLE
    );
    // Opening read through the backend synchronously, never less than a block but at the end.
    let block = ReadPlan::REMOTE_SINGLE.block;
    for &(a, b) in requests.borrow().iter() {
        assert!(
            b - a >= block || b == trace.len() as u64,
            "request {a}..{b}"
        );
    }
    let ds_mem = mem.dataset(mem_id).unwrap();
    let t = lazy.dataset(lazy_id).unwrap().trace.as_ref().unwrap();
    let whole = (t.max_time.unwrap() - t.min_time.unwrap()) as f64;
    let rows: Vec<u32> = (0..RANKS).collect();
    for (t0, t1) in [
        (0.0, whole + 1.0),
        (whole * 0.3, whole * 0.31),
        (whole * 0.5, whole * 0.9),
    ] {
        let req = FrameRequest {
            rows: &rows,
            t0_ns: t0,
            t1_ns: t1,
            width: 400,
            height: RANKS,
            depth: 3,
        };
        let want = exact_frame(ds_mem, &req);
        requests.borrow_mut().clear();
        let (got, rounds) = remote_frame(&mut lazy, lazy_id, &req);
        assert_eq!(got, want, "window {t0}..{t1}");
        assert!(
            requests.borrow().is_empty(),
            "synchronous reads {:?}",
            requests.borrow()
        );
        // Rows wait together: the first stop names as many rows as it may.
        assert!(rounds[0] > 1, "window {t0}..{t1}: {rounds:?}");
        let total: usize = rounds.iter().sum();
        eprintln!("window {t0}..{t1}: {} rounds, {total} ranges", rounds.len());
        if t0 == 0.0 {
            // Zoomed out: one range per line, whole, so RANKS ranges in RANKS / WANTS_MAX rounds.
            assert_eq!(total, RANKS as usize);
            assert_eq!(rounds.len(), (RANKS as usize).div_ceil(WANTS_MAX));
        }
    }
    assert!(lazy.remote_staged_reads().staged_reads > 0);
    assert_eq!(lazy.blob_reads().staged_reads, 0);
}

/// The open of a generated database whose files are all on a single-range server, planned as the
/// Worker plans it (www/worker-server.js `prefetchOpen`): each file's first 64 KiB staged from
/// its probe, then rounds of `open_prefetch`, each round's ranges fetched "concurrently" and
/// staged. The rounds are the open's sequential waves of requests: their number is fixed by the
/// readers' chain of reads (headers, then sections, then the summary and the checks' samples,
/// then the values the cct.db check picks), not by the size of the database: 3 here (the files'
/// footers, the sections being in the first 64 KiB; the summary profile, the trace check's samples
/// and the picked contexts' metric indices; the cct.db check's values). The open then reads
/// nothing synchronously, and gives what the bytes in memory give.
#[test]
fn a_planned_open_fetches_in_few_waves_then_reads_nothing_synchronously() {
    let files = trace_db(RANKS, 2_000);
    let (mem, mem_id) = in_memory("db", &files);
    let sync: Rc<RefCell<Vec<(String, u64, u64)>>> = Rc::default();
    let mut lazy: Remote = Session::new();
    let mut stages = Vec::new();
    for (n, b) in &files {
        let bytes = Arc::new(b.clone());
        let (log, name, all) = (sync.clone(), n.clone(), bytes.clone());
        let fetch = move |a: u64, e: u64| {
            log.borrow_mut().push((name.clone(), a, e));
            Ok(all[a as usize..e as usize].to_vec())
        };
        let size = bytes.len() as u64;
        let file = LazyFile {
            path: format!("db/{n}"),
            size,
            fetch,
            plan: ReadPlan::REMOTE_SINGLE,
        };
        let stage = lazy.add_remote_deferred(file, bytes.clone());
        let head = (64 << 10).min(size);
        lazy.stage_bytes(stage, 0, head, |buf| {
            buf.copy_from_slice(&bytes[..head as usize])
        })
        .unwrap();
        stages.push(stage);
    }
    assert_eq!(stages, [0, 1, 2, 3]);
    let mut waves: Vec<Vec<(u64, u64)>> = Vec::new();
    loop {
        let n = lazy.open_prefetch();
        let wants: Vec<(u32, u64, u64, Arc<Vec<u8>>)> = lazy
            .take_wanted_reads()
            .into_iter()
            .map(|w| (w.stage, w.start, w.end, w.handle.clone()))
            .collect();
        assert_eq!(n, wants.len());
        if n == 0 {
            break;
        }
        assert!(waves.len() < 8, "waves {waves:?}");
        waves.push(wants.iter().map(|w| (w.1, w.2)).collect());
        for (stage, a, e, file) in wants {
            lazy.stage_bytes(stage, a, e - a, |buf| {
                buf.copy_from_slice(&file[a as usize..e as usize])
            })
            .unwrap();
        }
    }
    eprintln!("planned open: {} waves {waves:?}", waves.len());
    // Rehearsals read nothing synchronously either.
    assert!(sync.borrow().is_empty(), "{:?}", sync.borrow());
    assert_eq!(waves.len(), 3, "{waves:?}");
    // Each wave's ranges are whole blocks (the last block of a file may be short).
    let block = ReadPlan::REMOTE_SINGLE.block;
    for w in &waves {
        for &(a, _) in w {
            assert_eq!(a % block, 0, "{waves:?}");
        }
    }
    let lazy_id = open(&mut lazy);
    assert!(
        sync.borrow().is_empty(),
        "synchronous reads {:?}",
        sync.borrow()
    );
    assert_eq!(
        lazy.summary(lazy_id).unwrap().counts,
        mem.summary(mem_id).unwrap().counts
    );
    let (lazy_ds, mem_ds) = (lazy.dataset(lazy_id).unwrap(), mem.dataset(mem_id).unwrap());
    assert_eq!(lazy_ds.cct.tree.len(), mem_ds.cct.tree.len());
    assert_eq!(
        lazy_ds.data.profile_values(0).unwrap(),
        mem_ds.data.profile_values(0).unwrap()
    );
}
