//! A recording opened from task files fed in order: the Worker feeds each piece of a dropped
//! `<tid>.dat` as it arrives, so the browser reads the next while this one is decoded (a
//! synchronous read per window costs as much again). The pass is [`super::open_report`]'s over the
//! bytes given: the same dataset and report, the same errors at the same offsets.

use super::dat::{DatReader, FedState};
use super::open::Prepared;
use super::report::UftraceReport;
use super::scan::TaskPass;
use crate::bytes::Source;
use crate::error::Result;
use crate::formats::DatasetGroup;
use crate::model::Dataset;

/// Bytes fed and not read past at most: a record's payload (a few KiB of arguments, or a
/// resynchronisation's search of 4 MiB) never needs more; past it the stream gives up (the
/// open then reads the file itself, as without a stream).
const FED_MAX: u64 = 32 << 20;

/// The task being fed: its pass (None once its records ended, when an error cut them short),
/// the reader's state and the bytes fed so far.
struct Fed {
    pass: Option<TaskPass>,
    st: FedState,
    got: u64,
}

/// A recording's open over task files fed in order.
pub struct Streaming {
    prep: Prepared,
    /// Whether the task files not in memory are fed (the others are read as they come).
    lazy: bool,
    /// The next task of `prep.files` to read.
    next: usize,
    cur: Option<Fed>,
}

impl Streaming {
    /// Reads the headers of `group` and its tasks up to the first file to feed: with `lazy`,
    /// those not in memory; without, none (the open reads every file itself).
    pub fn new(group: &DatasetGroup, lazy: bool) -> Result<Streaming> {
        let mut s = Streaming {
            prep: Prepared::new(group)?,
            lazy,
            next: 0,
            cur: None,
        };
        s.advance();
        Ok(s)
    }

    /// Paths of the files to feed, in the order to feed them.
    pub fn files(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (_, src) in &self.prep.files {
            if self.fed(src) {
                out.push(src.name().to_string());
            }
        }
        out
    }

    fn fed(&self, src: &Source) -> bool {
        self.lazy && src.as_slice().is_none()
    }

    /// Whether every task has been read.
    pub fn done(&self) -> bool {
        self.next >= self.prep.files.len()
    }

    /// Feeds the next `len` bytes of file `path` (written by `fill`) and decodes what they hold.
    /// Files come whole and in the order of [`files`](Self::files); false for bytes of another
    /// file, and for a record needing more than `FED_MAX` bytes (the caller then lets the open
    /// read the files itself).
    pub fn feed(&mut self, path: &str, len: usize, fill: impl FnOnce(&mut [u8])) -> bool {
        let (Some((tid, src)), Some(cur)) =
            (self.prep.files.get(self.next).cloned(), self.cur.as_mut())
        else {
            return false;
        };
        let mut ok = src.name() == path && cur.got + len as u64 <= src.len();
        if let Some(pass) = cur.pass.take().filter(|_| ok) {
            let mut reader =
                DatReader::fed(&src, self.prep.scan.little, std::mem::take(&mut cur.st));
            reader.feed(len, fill);
            cur.pass = self.prep.read(pass, tid, &src, &mut reader);
            ok = cur.pass.is_none() || reader.held() <= FED_MAX;
            cur.st = reader.fed_state();
        }
        cur.got += len as u64;
        // Fed whole, the reader read its last records itself.
        if ok && cur.got == src.len() {
            self.next += 1;
            self.cur = None;
            self.advance();
        }
        ok
    }

    /// Reads the tasks in memory from `next` on, and starts the first fed one (reading it whole
    /// when it is empty).
    #[inline(never)]
    fn advance(&mut self) {
        while let Some((tid, src)) = self.prep.files.get(self.next).cloned() {
            let pass = self.prep.scan.task_pass(tid);
            let little = self.prep.scan.little;
            let mut reader = match self.fed(&src) {
                true => DatReader::fed(&src, little, FedState::default()),
                false => DatReader::new(&src, little, 0).whole_pass(),
            };
            if let Some(pass) = self.prep.read(pass, tid, &src, &mut reader) {
                self.cur = Some(Fed {
                    pass: Some(pass),
                    st: reader.fed_state(),
                    got: 0,
                });
                return;
            }
            self.next += 1;
        }
    }

    /// The dataset and report, once [`done`](Self::done).
    pub fn finish(self, group: &DatasetGroup) -> Result<(Dataset, UftraceReport)> {
        self.prep.complete(group)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block_cache::BlockCache;
    use crate::formats::{group, InputFile};
    use std::sync::Arc;

    /// A recording's files: (name, bytes).
    type Files = Vec<(String, Vec<u8>)>;

    /// The files of every recording to check: the fixtures (scheduler switches, LOST records,
    /// forks), a generated one with arguments and three tasks, the corpus's when it is there,
    /// and damaged copies of two (a .dat cut inside a record, a record's magic broken).
    fn recordings() -> Vec<(String, Files)> {
        let root = env!("CARGO_MANIFEST_DIR");
        let mut dirs: Vec<std::path::PathBuf> = Vec::new();
        for base in [
            format!("{root}/tests/fixtures/uftrace"),
            format!("{root}/../shared/corpus/uftrace"),
        ] {
            let Ok(rd) = std::fs::read_dir(&base) else {
                eprintln!("{base} absent: its recordings are not checked");
                continue;
            };
            for e in rd.flatten() {
                for d in [e.path().join("uftrace.data"), e.path()] {
                    if d.join("info").is_file() {
                        dirs.push(d);
                    }
                }
            }
        }
        dirs.sort();
        let mut out = Vec::new();
        for d in dirs {
            let files = std::fs::read_dir(&d)
                .unwrap()
                .flatten()
                .filter(|e| e.path().is_file())
                .map(|e| {
                    let name = e.file_name().to_string_lossy().to_string();
                    (name, std::fs::read(e.path()).unwrap())
                })
                .collect();
            out.push((d.display().to_string(), files));
        }
        let spec = crate::synth::uftrace_recording::UftraceSpec {
            tasks: 3,
            iterations: 300,
            seed: 5,
        };
        let synth = crate::synth::uftrace_recording::Recording::generate(&spec).files();
        out.push(("generated".into(), synth.clone()));
        let deep = crate::synth::uftrace::deep_recording(60);
        for (what, cut) in [("cut", true), ("bad magic", false)] {
            let mut files = deep.clone();
            let dat = files.iter_mut().find(|f| f.0.ends_with(".dat")).unwrap();
            let n = dat.1.len();
            if cut {
                dat.1.truncate(n - 5);
            } else {
                dat.1[n / 2 / 16 * 16 + 8] ^= 0x38;
            }
            out.push((format!("deep, {what}"), files));
        }
        out
    }

    /// The group of `files`, the .dat files read through a block cache (not in memory) when
    /// `lazy`.
    fn group_of(files: &[(String, Vec<u8>)], lazy: bool) -> DatasetGroup {
        let inputs = files.iter().map(|(name, bytes)| {
            let path = format!("rec/{name}");
            if !(lazy && name.ends_with(".dat") && !name.starts_with("perf")) {
                return InputFile::from_vec(path, bytes.clone());
            }
            let b = bytes.clone();
            let fetch = move |a: u64, e: u64| Ok(b[a as usize..e as usize].to_vec());
            let cache = BlockCache::new(fetch, bytes.len() as u64, 4096, 4);
            #[allow(clippy::arc_with_non_send_sync)]
            let source = Source::new(path.as_str(), Arc::new(cache));
            InputFile { path, source }
        });
        let (groups, _) = group(inputs.collect());
        groups
            .into_iter()
            .find(|g| g.format_id() == super::super::ID)
            .unwrap()
    }

    /// What the pass left: every task's timeline index, values and counts, and the warnings.
    fn facts(p: &Prepared) -> String {
        let mut s = format!("{:?}\n", p.warnings);
        for t in &p.tasks {
            let l = &t.line;
            s += &format!(
                "{} {} {:?} {:?} {} {} {:?} {:?}\n",
                l.tid, l.samples, l.checkpoints, l.sched, t.comm, t.idle_ns, t.counts, l.sessions
            );
            s += &format!("{:?}\n", t.acc.stats.iter().collect::<Vec<_>>());
            s += &format!(
                "{:?} {:?}\n",
                t.acc.node_vals.iter().collect::<Vec<_>>(),
                t.acc.zero
            );
        }
        s
    }

    fn dump(r: Result<(Dataset, UftraceReport)>) -> String {
        match r {
            Ok((ds, report)) => {
                let mut out = Vec::new();
                crate::cli::dump::write_model(&mut out, &ds).unwrap();
                format!("{}\n{report:?}", String::from_utf8(out).unwrap())
            }
            Err(e) => format!("error: {e}"),
        }
    }

    /// Fed in pieces of every size from one byte to whole files, each recording opens to the
    /// same pass, dataset, report and errors as when the open reads the files itself.
    #[test]
    fn fed_pieces_open_as_reading_does() {
        for (name, files) in recordings() {
            let mem = group_of(&files, false);
            let read = Streaming::new(&mem, false).unwrap();
            assert!(read.done() && read.files().is_empty(), "{name}");
            let want = facts(&read.prep);
            let want_dump = dump(read.finish(&mem));
            for piece in [1usize, 5, 16, 24, 1000, 4096, 100_000, usize::MAX] {
                let lazy = group_of(&files, true);
                let mut s = Streaming::new(&lazy, true).unwrap();
                let paths = s.files();
                let dats = files
                    .iter()
                    .filter(|f| f.0.ends_with(".dat") && !f.0.starts_with("perf"));
                assert_eq!(paths.len(), dats.count(), "{name}");
                for p in &paths {
                    let bytes = &files
                        .iter()
                        .find(|f| format!("rec/{}", f.0) == *p)
                        .unwrap()
                        .1;
                    // Pieces of varying size around `piece`, as a stream hands them out.
                    let mut at = 0;
                    let mut k = 0;
                    while at < bytes.len() {
                        let n = piece.saturating_add(k % 3).min(bytes.len() - at);
                        assert!(s.feed(p, n, |buf| buf.copy_from_slice(&bytes[at..at + n])));
                        at += n;
                        k += 1;
                    }
                }
                assert!(s.done(), "{name}, pieces of {piece}");
                assert_eq!(facts(&s.prep), want, "{name}, pieces of {piece}");
                assert_eq!(
                    dump(s.finish(&lazy)),
                    want_dump,
                    "{name}, pieces of {piece}"
                );
            }
        }
    }

    /// Bytes of another file, or more than the file holds, are refused.
    #[test]
    fn refuses_what_does_not_follow() {
        let files = crate::synth::uftrace::deep_recording(5);
        let lazy = group_of(&files, true);
        let mut s = Streaming::new(&lazy, true).unwrap();
        let p = s.files().remove(0);
        let len = lazy
            .files
            .iter()
            .find(|f| f.1.path == p)
            .unwrap()
            .1
            .source
            .len() as usize;
        assert!(!s.feed("rec/other.dat", 16, |_| {}));
        assert!(!s.feed(&p, len + 1, |_| {}));
    }
}
