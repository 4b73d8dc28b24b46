//! Files claiming huge counts get an error (or a tolerant open) after little work (bytes read,
//! counted: at most a few times what the unpatched files cost), never an allocation sized by the
//! claim: every 4-byte field of each file's first 512 bytes (headers and section tables,
//! where the counts live) is set to u32::MAX and every 8-byte field to 2^60, in a generated HPCToolkit
//! v4 database, a generated uftrace recording, a generated DCPI profile and the first corpus hpcrun
//! measurement (when ../shared/corpus is there). Named fields are also checked one by one.

use hpcscope::formats::{self, InputFile};
use hpcscope::synth::{dcpi, uftrace, SynthDb, SynthSpec};
use hpcscope::work::{self, Work};

mod common;

type Files = Vec<(String, Vec<u8>)>;

/// Opens `files` under `dir`: Ok(true) opened, Ok(false) refused with an error.
fn open(dir: &str, files: &Files) -> bool {
    let inputs: Vec<InputFile> = files
        .iter()
        .map(|(name, bytes)| InputFile::from_vec(format!("{dir}/{name}"), bytes.clone()))
        .collect();
    let (groups, _) = formats::group(inputs);
    groups.iter().all(|g| formats::open(g).is_ok())
}

/// Bytes a variant may read: this many times what opening the unpatched files reads.
const MAX_WORK_RATIO: u64 = 4;

/// Opens `files` under `dir` as [`open`] does, and checks that it read at most
/// [`MAX_WORK_RATIO`] times `baseline` bytes.
/// Returns whether it opened and the bytes it read.
fn open_bounded(dir: &str, files: &Files, baseline: u64, what: &str) -> (bool, u64) {
    let (opened, read) = work::count(Work::BytesRead, || open(dir, files));
    assert!(
        read <= MAX_WORK_RATIO * baseline,
        "{what}: {read} bytes read, {baseline} for the unpatched files"
    );
    (opened, read)
}

/// Bytes read opening the unpatched files (checked to be counted in this build).
fn baseline(dir: &str, files: &Files) -> u64 {
    let (opened, read) = work::count(Work::BytesRead, || open(dir, files));
    assert!(opened, "{dir}");
    assert!(
        read > 0,
        "no bytes counted (work is counted only with debug assertions)"
    );
    read
}

/// Opens `files`, then sets each field of the first 512 bytes of each file to a huge value,
/// opening every variant. Returns (variants, refused); panics if the files do not open or a
/// variant reads more than [`MAX_WORK_RATIO`] times what the unpatched files take.
fn patch_all(dir: &str, files: &Files) -> (usize, usize) {
    assert!(open(dir, files), "{dir}: the unpatched files do not open");
    let base = baseline(dir, files);
    let (mut variants, mut refused, mut most) = (0, 0, 0);
    for (k, (name, bytes)) in files.iter().enumerate() {
        let end = bytes.len().min(512);
        for (width, value) in [(4usize, u32::MAX as u64), (8, 1u64 << 60)] {
            let mut at = 0;
            while at + width <= end {
                let mut f = files.clone();
                let b = &mut f[k].1;
                b[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
                let what = format!("{name} with {value:#x} at {at:#x}");
                let (opened, read) = open_bounded(dir, &f, base, &what);
                refused += usize::from(!opened);
                most = most.max(read);
                variants += 1;
                at += width;
            }
        }
    }
    eprintln!("{dir}: {base} bytes read unpatched, at most {most} by a patched variant");
    eprintln!("{dir}: {variants} patched variants, {refused} refused");
    (variants, refused)
}

fn with_u32(files: &Files, name: &str, at: usize, v: u32) -> Files {
    let mut f = files.clone();
    let b = &mut f.iter_mut().find(|(n, _)| n == name).unwrap().1;
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    f
}

fn u64_at(files: &Files, name: &str, at: usize) -> usize {
    let b = &files.iter().find(|(n, _)| n == name).unwrap().1;
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
}

fn database() -> Files {
    SynthDb::new(&SynthSpec {
        ranks: 1,
        threads: 2,
        contexts: 30,
        metrics: 1,
        samples: 20,
        ..SynthSpec::default()
    })
    .unwrap()
    .to_files()
}

#[test]
fn hpctoolkit_database_with_huge_counts() {
    let files = database();
    assert!(open("db.d", &files));
    // profile.db: nProfiles (profile info section + 8) claims 4G profiles of szProfile bytes.
    let sec = u64_at(&files, "profile.db", 0x18);
    assert!(!open(
        "db.d",
        &with_u32(&files, "profile.db", sec + 8, u32::MAX)
    ));
    // trace.db: trace header count (section + 8).
    let sec = u64_at(&files, "trace.db", 0x18);
    let base = baseline("db.d", &files);
    let patched = with_u32(&files, "trace.db", sec + 8, u32::MAX);
    open_bounded("db.d", &patched, base, "trace.db header count");
    let (variants, refused) = patch_all("db.d", &files);
    assert!(refused > variants / 4, "{refused} of {variants} refused");
}

#[test]
fn uftrace_recording_with_huge_fields() {
    let files = uftrace::deep_recording(50);
    let (variants, _) = patch_all("uftrace.data", &files);
    assert!(variants > 100);
}

#[test]
fn dcpi_profile_with_huge_counts() {
    let files: Files = vec![("p.dcpi".into(), dcpi::write(&dcpi::example(4, 64)))];
    let (_, refused) = patch_all("dcpi", &files);
    assert!(refused > 0);
}

#[test]
fn hpcrun_measurement_with_huge_counts() {
    let Some(dir) = common::corpus_dir("hpcrun") else {
        return;
    };
    let entries = std::fs::read_dir(dir).unwrap();
    let mut dirs: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    dirs.sort();
    let Some(m) = dirs.first() else { return };
    let mut files: Files = Vec::new();
    for e in std::fs::read_dir(m).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".hpcrun") && files.is_empty() {
            files.push((name, std::fs::read(e.path()).unwrap()));
        }
    }
    if files.is_empty() {
        eprintln!("skipping: no .hpcrun file in {}", m.display());
        return;
    }
    let (variants, _) = patch_all("m", &files);
    assert!(variants > 100);
}
