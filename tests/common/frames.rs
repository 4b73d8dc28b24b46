//! Trace frames of a dataset read lazily, against the exact frames of the same files in memory
//! (tests/remote_reads.rs, tests/staged_reads.rs): a synthetic database, sessions opened on it,
//! and the exact frame of a [`FrameRequest`].

use hpcscope::analysis::timeline::progressive::ReadCost;
use hpcscope::analysis::timeline::view::{frame_packed, TimelineCache};
use hpcscope::model::Dataset;
use hpcscope::session::{FrameRequest, Session};
use hpcscope::synth::{SynthDb, SynthSpec};

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
    frame_packed(
        ds,
        &mut TimelineCache::with_cost(ReadCost::MEMORY),
        req.rows,
        req.t0_ns,
        req.t1_ns,
        req.width,
        req.height,
        req.depth,
    )
    .unwrap()
}
