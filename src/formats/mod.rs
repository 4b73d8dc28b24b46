//! Format detection from file names and magic bytes, grouping of a dropped set of files into
//! datasets, and dispatch to the reader of each format. One folder or file per format below.

pub mod dcpi;
pub mod hpcrun;
pub mod hpctoolkit;
pub mod probe;
pub mod prof2;
pub mod uftrace;

use crate::bytes::Source;
use crate::error::{Error, Result};
use crate::model::Dataset;

/// One dropped or opened file: its path relative to the drop ('/'-separated, folder names kept so
/// datasets can be grouped), and its bytes.
#[derive(Clone, Debug)]
pub struct InputFile {
    pub path: String,
    pub source: Source,
}

/// What a single file is, from its name and first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// HPCToolkit v4.0 (final or 2022 drafts): `HPCTOOLKIT` + `meta`/`prof`/`ctxt`/`trce`.
    HpcMetaDb,
    HpcProfileDb,
    HpcCctDb,
    HpcTraceDb,
    /// HPCToolkit pre-release "prof2": `HPCTOOLKIT_expmt`, `HPCPROF-profdb__`, `-cctdb___`, `-tracedb_`.
    Prof2MetaDb,
    Prof2ProfileDb,
    Prof2CctDb,
    Prof2TraceDb,
    /// `experiment.xml` (prof2 calling-context tree, or the older XML-era database).
    ExperimentXml,
    /// hpcrun measurement files.
    HpcrunProfile,
    HpcrunTrace,
    Hpcstruct,
    /// DCPI-style sample profile (ASCII header, binary chunks).
    Dcpi,
    /// uftrace record directory members.
    UftraceInfo,
    UftraceTaskTxt,
    UftraceMap,
    UftraceSym,
    UftraceDbg,
    UftraceDat,
    UftracePerfDat,
    /// A known companion that carries no data we read (metrics/*.yaml, src/ copies, FORMATS.md ...).
    Companion,
    Unknown,
}

/// Bytes of the head of a file that detection looks at.
pub const HEAD_LEN: u64 = 512;

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Recognises a file from its name and first bytes (up to [`HEAD_LEN`]).
pub fn detect_file(path: &str, head: &[u8]) -> FileKind {
    let name = base_name(path);
    if head.starts_with(b"HPCTOOLKIT_expmt") {
        return FileKind::Prof2MetaDb;
    }
    if head.starts_with(b"HPCTOOLKIT") && head.len() >= 14 {
        match &head[10..14] {
            b"meta" => return FileKind::HpcMetaDb,
            b"prof" => return FileKind::HpcProfileDb,
            b"ctxt" => return FileKind::HpcCctDb,
            b"trce" => return FileKind::HpcTraceDb,
            _ => {}
        }
    }
    if head.starts_with(b"HPCPROF-") && head.len() >= 16 {
        match &head[8..16] {
            b"profdb__" => return FileKind::Prof2ProfileDb,
            b"cctdb___" => return FileKind::Prof2CctDb,
            b"tracedb_" => return FileKind::Prof2TraceDb,
            _ => {}
        }
    }
    if head.starts_with(b"HPCRUN-profile") {
        return FileKind::HpcrunProfile;
    }
    if head.starts_with(b"HPCRUN-trace") {
        return FileKind::HpcrunTrace;
    }
    if head.starts_with(b"Ftrace!\0") {
        return FileKind::UftraceInfo;
    }
    let is_xml = head.starts_with(b"<?xml") || head.starts_with(b"<");
    if name.ends_with(".hpcstruct") && is_xml {
        return FileKind::Hpcstruct;
    }
    if name == "experiment.xml" && is_xml {
        return FileKind::ExperimentXml;
    }
    if name == "task.txt"
        && (head.starts_with(b"SESS") || head.starts_with(b"TASK") || head.is_empty())
    {
        return FileKind::UftraceTaskTxt;
    }
    if name.starts_with("sid-") && name.ends_with(".map") {
        return FileKind::UftraceMap;
    }
    if name.ends_with(".sym") && looks_like_sym(head) {
        return FileKind::UftraceSym;
    }
    if name.ends_with(".dbg") {
        return FileKind::UftraceDbg;
    }
    if name.starts_with("perf-cpu") && name.ends_with(".dat") {
        return FileKind::UftracePerfDat;
    }
    if name.ends_with(".dat")
        && name[..name.len() - 4].chars().all(|c| c.is_ascii_digit())
        && name.len() > 4
    {
        return FileKind::UftraceDat;
    }
    if looks_like_dcpi(head) {
        return FileKind::Dcpi;
    }
    let companion = name.ends_with(".yaml")
        || name.ends_with(".md")
        || name.ends_with(".opts")
        || name == "default.opts"
        || path.contains("/src/")
        || path.starts_with("src/")
        || path.contains("/metrics/");
    if companion {
        return FileKind::Companion;
    }
    FileKind::Unknown
}

/// uftrace .sym lines: `<hex addr> <TYPE> <name>` (0.13) or `<hex addr> <hex size> <TYPE> <name>`.
fn looks_like_sym(head: &[u8]) -> bool {
    // uftrace 0.13+ starts with `# symbols:` / `# path name:` comment lines.
    let line = head
        .split(|&b| b == b'\n')
        .find(|l| !l.starts_with(b"#"))
        .unwrap_or(&[]);
    let mut words = line.split(|&b| b == b' ').filter(|w| !w.is_empty());
    matches!(words.next(), Some(w) if w.iter().all(u8::is_ascii_hexdigit)) || head.is_empty()
}

/// A DCPI-style header starts with one of its keywords and is ASCII up to its `samples` line.
fn looks_like_dcpi(head: &[u8]) -> bool {
    const KEYS: [&[u8]; 12] = [
        b"image",
        b"epoch",
        b"platform",
        b"event",
        b"period",
        b"tsize",
        b"cpuspeed",
        b"cpuamask",
        b"cpuimplv",
        b"cpucount",
        b"path",
        b"version",
    ];
    let first = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let word = first
        .split(|&b| b == b' ' || b == b'\t')
        .next()
        .unwrap_or(&[]);
    if !KEYS.contains(&word) {
        return false;
    }
    // Lines up to "samples" must be printable text.
    let mut ascii_lines = 0;
    for line in head.split(|&b| b == b'\n') {
        if line.starts_with(b"samples") {
            return ascii_lines >= 1;
        }
        if !line
            .iter()
            .all(|&b| b == b'\t' || (0x20..0x7f).contains(&b))
        {
            return false;
        }
        ascii_lines += 1;
    }
    // The header may be longer than the head we were given: ASCII so far is enough.
    ascii_lines >= 3
}

/// Kind of a dataset formed from grouped files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DatasetKind {
    /// meta.db / profile.db / cct.db / trace.db (v4.0 final or drafts).
    HpctoolkitDb,
    /// Pre-release prof2 database (HPCPROF-* files, experiment.xml or HPCTOOLKIT_expmt meta.db).
    Prof2Db,
    /// XML-era database: experiment.xml with optional side files.
    HpctoolkitXml,
    /// hpcrun measurement folder.
    HpcrunMeasurement,
    /// uftrace record directory.
    Uftrace,
    /// A lone DCPI-style profile.
    Dcpi,
}

impl DatasetKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DatasetKind::HpctoolkitDb => "hpctoolkit",
            DatasetKind::Prof2Db => "prof2",
            DatasetKind::HpctoolkitXml => "hpctoolkit-xml",
            DatasetKind::HpcrunMeasurement => "hpcrun",
            DatasetKind::Uftrace => "uftrace",
            DatasetKind::Dcpi => "dcpi",
        }
    }
}

/// Files that form one dataset, with the folder they share.
#[derive(Clone, Debug)]
pub struct DatasetGroup {
    pub kind: DatasetKind,
    /// Folder the dataset's files share ("" for files dropped loose).
    pub root: String,
    pub files: Vec<(FileKind, InputFile)>,
}

impl DatasetGroup {
    /// The first file of a kind.
    pub fn file(&self, kind: FileKind) -> Option<&InputFile> {
        self.files.iter().find(|(k, _)| *k == kind).map(|(_, f)| f)
    }
    /// All files of a kind, in path order.
    pub fn files_of(&self, kind: FileKind) -> impl Iterator<Item = &InputFile> {
        self.files
            .iter()
            .filter(move |(k, _)| *k == kind)
            .map(|(_, f)| f)
    }
}

fn parent_dir(path: &str) -> &str {
    match path.rfind('/') {
        Some(i) => &path[..i],
        None => "",
    }
}

/// Reads the head of a file for detection; an unreadable head detects as `Unknown`.
pub fn head_of(src: &Source) -> Vec<u8> {
    src.bytes(0, src.len().min(HEAD_LEN), "file head")
        .map(|b| b.into_owned())
        .unwrap_or_default()
}

/// Groups dropped files into datasets by folder and kind. Returns the datasets and the paths of
/// files that belong to none (unrecognised files, or companions without a dataset).
pub fn group(files: Vec<InputFile>) -> (Vec<DatasetGroup>, Vec<String>) {
    use std::collections::BTreeMap;
    let mut by_dir: BTreeMap<String, Vec<(FileKind, InputFile)>> = BTreeMap::new();
    for f in files {
        let kind = detect_file(&f.path, &head_of(&f.source));
        // hpcrun's structs/ and an HPCToolkit database's metrics/ and src/ belong to the folder above.
        let mut dir = parent_dir(&f.path).to_string();
        loop {
            let last = base_name(&dir);
            if matches!(
                last,
                "structs" | "metrics" | "src" | "gpubins" | "kernel_symbols" | "vdso"
            ) && !dir.is_empty()
            {
                dir = parent_dir(&dir).to_string();
            } else {
                break;
            }
        }
        // Files deep under a database's src/ folder: attach to the folder that holds src/.
        if let Some(i) = dir
            .find("/src/")
            .or_else(|| dir.starts_with("src/").then_some(0))
        {
            dir = if i == 0 {
                String::new()
            } else {
                dir[..i].to_string()
            };
        }
        by_dir.entry(dir).or_default().push((kind, f));
    }
    let mut groups = Vec::new();
    let mut loose = Vec::new();
    for (dir, mut files) in by_dir {
        files.sort_by(|a, b| a.1.path.cmp(&b.1.path));
        let has = |k: FileKind| files.iter().any(|(fk, _)| *fk == k);
        let kind = if has(FileKind::HpcMetaDb) || has(FileKind::HpcProfileDb) {
            Some(DatasetKind::HpctoolkitDb)
        } else if has(FileKind::Prof2ProfileDb)
            || has(FileKind::Prof2MetaDb)
            || has(FileKind::Prof2CctDb)
        {
            Some(DatasetKind::Prof2Db)
        } else if has(FileKind::ExperimentXml) {
            // XML-era databases keep .hpctrace files (hpcrun's trace format) beside experiment.xml.
            Some(DatasetKind::HpctoolkitXml)
        } else if has(FileKind::HpcrunProfile) || has(FileKind::HpcrunTrace) {
            Some(DatasetKind::HpcrunMeasurement)
        } else if has(FileKind::UftraceInfo) || has(FileKind::UftraceDat) {
            Some(DatasetKind::Uftrace)
        } else {
            None
        };
        match kind {
            Some(kind) => {
                let (mine, rest): (Vec<_>, Vec<_>) =
                    files.into_iter().partition(|(k, _)| *k != FileKind::Dcpi);
                // Each DCPI profile is a dataset of its own even next to another dataset.
                for f in rest {
                    groups.push(DatasetGroup {
                        kind: DatasetKind::Dcpi,
                        root: f.1.path.clone(),
                        files: vec![f],
                    });
                }
                groups.push(DatasetGroup {
                    kind,
                    root: dir,
                    files: mine,
                });
            }
            None => {
                for f in files {
                    if f.0 == FileKind::Dcpi {
                        groups.push(DatasetGroup {
                            kind: DatasetKind::Dcpi,
                            root: f.1.path.clone(),
                            files: vec![f],
                        });
                    } else {
                        loose.push(f.1.path);
                    }
                }
            }
        }
    }
    (groups, loose)
}

/// Opens a grouped dataset with its format's reader.
pub fn open(group: &DatasetGroup) -> Result<Dataset> {
    match group.kind {
        DatasetKind::HpctoolkitDb => hpctoolkit::open(group),
        DatasetKind::Prof2Db => prof2::open(group),
        DatasetKind::HpcrunMeasurement => hpcrun::open(group),
        DatasetKind::Uftrace => uftrace::open(group),
        DatasetKind::Dcpi => dcpi::open(group),
        DatasetKind::HpctoolkitXml => Err(Error::unsupported(
            &group.root,
            None,
            "XML-era HPCToolkit databases (experiment.xml v2) are not read yet",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(path: &str, bytes: &[u8]) -> InputFile {
        InputFile {
            path: path.into(),
            source: Source::from_vec(path, bytes.to_vec()),
        }
    }

    #[test]
    fn detects_magics() {
        assert_eq!(
            detect_file("x/meta.db", b"HPCTOOLKITmeta\x04\x00"),
            FileKind::HpcMetaDb
        );
        assert_eq!(
            detect_file("x/profile.db", b"HPCTOOLKITprof\x04\x00"),
            FileKind::HpcProfileDb
        );
        assert_eq!(
            detect_file("x/cct.db", b"HPCTOOLKITctxt\x04\x00"),
            FileKind::HpcCctDb
        );
        assert_eq!(
            detect_file("x/trace.db", b"HPCTOOLKITtrce\x04\x00"),
            FileKind::HpcTraceDb
        );
        assert_eq!(
            detect_file("x/meta.db", b"HPCTOOLKIT_expmt\x01\x00"),
            FileKind::Prof2MetaDb
        );
        assert_eq!(
            detect_file("x/profile.db", b"HPCPROF-profdb__\x01\x00"),
            FileKind::Prof2ProfileDb
        );
        assert_eq!(
            detect_file("x/cct.db", b"HPCPROF-cctdb___\x01\x00"),
            FileKind::Prof2CctDb
        );
        assert_eq!(
            detect_file("x/trace.db", b"HPCPROF-tracedb_\x01\x00"),
            FileKind::Prof2TraceDb
        );
        assert_eq!(
            detect_file("m/a.hpcrun", b"HPCRUN-profile____04.00b"),
            FileKind::HpcrunProfile
        );
        assert_eq!(
            detect_file("m/a.hpctrace", b"HPCRUN-trace______01.01b"),
            FileKind::HpcrunTrace
        );
        assert_eq!(
            detect_file("u/info", b"Ftrace!\0\x04\0\0\0"),
            FileKind::UftraceInfo
        );
        assert_eq!(
            detect_file("u/123.dat", &[0x28, 0, 0]),
            FileKind::UftraceDat
        );
        assert_eq!(
            detect_file("u/perf-cpu0.dat", &[1, 2]),
            FileKind::UftracePerfDat
        );
        assert_eq!(
            detect_file("u/a.out.sym", b"0000000000001040 T main\n"),
            FileKind::UftraceSym
        );
        assert_eq!(
            detect_file("u/sid-0123.map", b"55d0-55d1 r-xp"),
            FileKind::UftraceMap
        );
        assert_eq!(
            detect_file("u/task.txt", b"SESS timestamp=1"),
            FileKind::UftraceTaskTxt
        );
        assert_eq!(
            detect_file("p/experiment.xml", b"<?xml version"),
            FileKind::ExperimentXml
        );
        assert_eq!(
            detect_file(
                "prof",
                b"image 1234\nepoch 2201011200\nplatform alpha\nsamples\n\0\0"
            ),
            FileKind::Dcpi
        );
        assert_eq!(
            detect_file("random.bin", &[0x9c, 0x00, 0xff, 0x12]),
            FileKind::Unknown
        );
        assert_eq!(
            detect_file("d/metrics/default.yaml", b"version: 1"),
            FileKind::Companion
        );
    }

    #[test]
    fn groups_by_folder() {
        let files = vec![
            f("a.d/meta.db", b"HPCTOOLKITmeta\x04\x00"),
            f("a.d/profile.db", b"HPCTOOLKITprof\x04\x00"),
            f("a.d/metrics/default.yaml", b"x"),
            f("m.m/x-000000-000-1-2-0.hpcrun", b"HPCRUN-profile____04.00b"),
            f("m.m/structs/x.hpcstruct", b"<?xml"),
            f("u/uftrace.data/info", b"Ftrace!\0"),
            f("u/uftrace.data/1.dat", b"\0"),
            f("lone.prof", b"image 1\nepoch 2201011200\nsamples\n"),
            f("noise.bin", &[0xde, 0xad]),
        ];
        let (groups, loose) = group(files);
        let kinds: Vec<_> = groups
            .iter()
            .map(|g| (g.kind, g.root.as_str(), g.files.len()))
            .collect();
        assert!(
            kinds.contains(&(DatasetKind::HpctoolkitDb, "a.d", 3)),
            "{kinds:?}"
        );
        assert!(
            kinds.contains(&(DatasetKind::HpcrunMeasurement, "m.m", 2)),
            "{kinds:?}"
        );
        assert!(
            kinds.contains(&(DatasetKind::Uftrace, "u/uftrace.data", 2)),
            "{kinds:?}"
        );
        assert!(
            kinds.contains(&(DatasetKind::Dcpi, "lone.prof", 1)),
            "{kinds:?}"
        );
        assert_eq!(loose, vec!["noise.bin".to_string()]);
    }
}
