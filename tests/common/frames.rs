//! Trace frames of a dataset read lazily, against the exact frames of the same files in memory
//! (tests/remote_reads.rs, tests/staged_reads.rs): a synthetic database, sessions opened on it,
//! and the exact frame of a [`FrameRequest`].

use hpcscope::analysis::timeline::progressive::ReadCost;
use hpcscope::analysis::timeline::view::{frame_packed, TimelineCache};
use hpcscope::model::Dataset;
use hpcscope::session::staging::PENDING;
use hpcscope::session::{FrameRequest, Session, Step};
use hpcscope::synth::{SynthDb, SynthSpec};
use std::sync::Arc;

/// The files of a synthetic HPCToolkit database with a trace: `ranks` lines of `samples`
/// samples each, over 300 contexts up to 8 deep.
pub fn trace_db(ranks: u32, samples: u64) -> Vec<(String, Vec<u8>)> {
    SynthDb::new(&SynthSpec {
        ranks,
        threads: 1,
        contexts: 300,
        depth: 8,
        samples,
        ..Default::default()
    })
    .unwrap()
    .to_files()
}

/// Opens the files queued in `s`, which make one dataset without errors; its id.
pub fn open<H>(s: &mut Session<H>) -> u32 {
    let r = s.open_pending();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    r.datasets[0].id
}

/// A session with `files` in memory under folder `dir` ("" for none), opened; with the
/// dataset's id.
pub fn in_memory(dir: &str, files: &[(String, Vec<u8>)]) -> (Session, u32) {
    let mut s: Session = Session::new();
    for (n, b) in files {
        let path = if dir.is_empty() {
            n.clone()
        } else {
            format!("{dir}/{n}")
        };
        s.add_file(path, b.clone());
    }
    let id = open(&mut s);
    (s, id)
}

/// The exact frame `req` asks for, packed, computed from `ds` in memory.
pub fn exact_frame(ds: &Dataset, req: &FrameRequest) -> Vec<u32> {
    frame_packed(ds, &mut TimelineCache::with_cost(ReadCost::MEMORY), req).unwrap()
}

/// A session whose deferred files carry their bytes as the handle a wanted read comes back with
/// (the Worker's carry their Blob).
pub type Carried = Session<Arc<Vec<u8>>>;

/// A read a stopped step wants: (stage, start, end, the file's bytes).
pub type Want = (u32, u64, u64, Arc<Vec<u8>>);

/// What the Worker does for a trace frame (www/engine.js, `finishStep`), through the session's
/// real step loop: `timeline_begin`; while a step stops at reads, `take` names the reads it wants,
/// each is read from the file and staged (`stage_bytes`), and `timeline_refine` resumed. No time
/// budget: every step runs until it finishes or wants a read. Returns the exact frame, packed,
/// and the number of reads wanted at each stop (at most `max_stops` stops).
pub fn staged_frame(
    s: &mut Carried,
    id: u32,
    req: &FrameRequest,
    max_stops: usize,
    mut take: impl FnMut(&mut Carried) -> Vec<Want>,
) -> (Vec<u32>, Vec<usize>) {
    let mut step = s.timeline_begin(id, 0, req, &mut || false).unwrap();
    let mut stops = Vec::new();
    loop {
        match step {
            Step::Frame(packed, p) if p.exact => return (packed, stops),
            Step::Frame(..) => panic!("refined until done, but not exact"),
            Step::Wants(e) => assert!(e.to_string().contains(PENDING), "{e}"),
        }
        let wants = take(s);
        stops.push(wants.len());
        for (stage, a, b, file) in wants {
            s.stage_bytes(stage, a, b - a, |buf| {
                buf.copy_from_slice(&file[a as usize..b as usize])
            })
            .unwrap();
        }
        assert!(stops.len() <= max_stops, "{} stops", stops.len());
        step = s.timeline_refine(id, 0, true, &mut || false).unwrap();
    }
}
