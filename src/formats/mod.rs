//! The formats hpcscope reads, one folder each, and their registry: a file's kind from its name and
//! first bytes ([`detect_file`]), a folder's files grouped into datasets ([`group()`]), and each
//! dataset probed and opened by its format's [`Format`]. Adding a format = one folder + one line in
//! [`FORMATS`].

pub mod ctx_ids;
pub mod dcpi;
pub mod group;
pub mod hpcrun;
pub mod hpctoolkit;
pub mod hpctoolkit_xml;
pub mod probe;
pub mod prof2;
pub mod uftrace;
pub mod xml;

pub use group::{group, DatasetGroup};
pub use probe::Probe;

use crate::bytes::Source;
use crate::error::Result;
use crate::model::Dataset;

/// One dropped or opened file: its path relative to the drop ('/'-separated, folder names kept so
/// datasets can be grouped), and its bytes.
#[derive(Clone, Debug)]
pub struct InputFile {
    pub path: String,
    pub source: Source,
}

impl InputFile {
    /// A file held in memory, its source named by its path (as error messages then name it).
    pub fn from_vec(path: impl Into<String>, bytes: Vec<u8>) -> InputFile {
        let path = path.into();
        InputFile {
            source: Source::from_vec(path.as_str(), bytes),
            path,
        }
    }
}

/// What a single file is: the format that claims it (its [`Format::id`]) and its role there
/// (`"meta.db"`, `"task data"` ...). Each format module names its kinds as constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileKind {
    pub format: &'static str,
    pub role: &'static str,
}

impl FileKind {
    pub const fn new(format: &'static str, role: &'static str) -> FileKind {
        FileKind { format, role }
    }
}

/// `experiment.xml`: the calling-context tree of a prof2 database, or an XML-era database. Which one
/// depends on the files beside it, so the kind belongs to no single format.
pub const EXPERIMENT_XML: FileKind = FileKind::new("", "experiment.xml");
/// A known companion that carries no data we read (metrics/*.yaml, src/ copies, FORMATS.md ...).
pub const COMPANION: FileKind = FileKind::new("", "companion");
pub const UNKNOWN: FileKind = FileKind::new("", "unknown");

/// One format: how its files are recognised and grouped, and how a dataset of it is probed and read.
pub trait Format: Sync {
    /// Stable id, the same as `Dataset::format` ("hpctoolkit", "uftrace" ...).
    fn id(&self) -> &'static str;
    /// Name shown to users ("HPCToolkit database").
    fn display_name(&self) -> &'static str;
    /// The kind of a file of this format from its path, base name and first bytes (up to
    /// [`HEAD_LEN`]); None when the file is not one of this format's.
    fn detect(&self, path: &str, name: &str, head: &[u8]) -> Option<FileKind>;
    /// Whether the files of one folder (with their kinds) form a dataset of this format.
    fn claims(&self, files: &[(FileKind, InputFile)]) -> bool;
    /// True when every file of this format is a dataset of its own, wherever it lies.
    fn one_dataset_per_file(&self) -> bool {
        false
    }
    /// Reads the headers for the summary (layout, title, facts, counts) into `p`.
    fn probe(&self, group: &DatasetGroup, p: &mut Probe) -> Result<()>;
    /// Reads the dataset into the model.
    fn open(&self, group: &DatasetGroup) -> Result<Dataset>;
}

/// A format told as data: its [`Format`] methods are its fields. Formats whose folder is a dataset
/// as soon as it holds one file of some kinds (every format but uftrace) are registered so.
pub struct FormatEntry {
    pub id: &'static str,
    pub display_name: &'static str,
    /// [`Format::detect`]: path, base name, head.
    pub detect: fn(&str, &str, &[u8]) -> Option<FileKind>,
    /// A folder with a file of one of these kinds is a dataset of this format ([`Format::claims`]).
    pub claimed_by: &'static [FileKind],
    pub one_dataset_per_file: bool,
    pub probe: fn(&DatasetGroup, &mut Probe) -> Result<()>,
    pub open: fn(&DatasetGroup) -> Result<Dataset>,
}

impl Format for FormatEntry {
    fn id(&self) -> &'static str {
        self.id
    }
    fn display_name(&self) -> &'static str {
        self.display_name
    }
    fn detect(&self, path: &str, name: &str, head: &[u8]) -> Option<FileKind> {
        (self.detect)(path, name, head)
    }
    fn claims(&self, files: &[(FileKind, InputFile)]) -> bool {
        files.iter().any(|(k, _)| self.claimed_by.contains(k))
    }
    fn one_dataset_per_file(&self) -> bool {
        self.one_dataset_per_file
    }
    fn probe(&self, group: &DatasetGroup, p: &mut Probe) -> Result<()> {
        (self.probe)(group, p)
    }
    fn open(&self, group: &DatasetGroup) -> Result<Dataset> {
        (self.open)(group)
    }
}

/// Every format, in the order detection and grouping ask them.
pub static FORMATS: [&dyn Format; 6] = [
    &hpctoolkit::HPCTOOLKIT,
    &prof2::PROF2,
    &hpctoolkit_xml::HPCTOOLKIT_XML,
    &hpcrun::HPCRUN,
    &uftrace::UFTRACE,
    &dcpi::DCPI,
];

/// The format with id `id`.
pub fn format(id: &str) -> Option<&'static dyn Format> {
    FORMATS.iter().copied().find(|f| f.id() == id)
}

/// Display name of a format id ("Unknown format" for ids no format has).
pub fn display_name(id: &str) -> &'static str {
    format(id).map_or("Unknown format", |f| f.display_name())
}

/// Bytes of the head of a file that detection looks at.
pub const HEAD_LEN: u64 = 512;

pub(crate) fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether a head looks like XML (`<?xml` prologue or a first element).
pub(crate) fn is_xml(head: &[u8]) -> bool {
    head.starts_with(b"<")
}

/// Recognises a file from its name and first bytes (up to [`HEAD_LEN`]).
pub fn detect_file(path: &str, head: &[u8]) -> FileKind {
    let name = base_name(path);
    if let Some(kind) = FORMATS.iter().find_map(|f| f.detect(path, name, head)) {
        return kind;
    }
    if name == "experiment.xml" && is_xml(head) {
        return EXPERIMENT_XML;
    }
    let companion = name.ends_with(".yaml")
        || name.ends_with(".md")
        || name.ends_with(".opts")
        || name == "default.opts"
        || path.contains("/src/")
        || path.starts_with("src/")
        || path.contains("/metrics/");
    if companion {
        return COMPANION;
    }
    UNKNOWN
}

/// Reads the head of a file for detection; an unreadable head detects as [`UNKNOWN`].
pub fn head_of(src: &Source) -> Vec<u8> {
    src.bytes(0, src.len().min(HEAD_LEN), "file head")
        .map(|b| b.into_owned())
        .unwrap_or_default()
}

/// Opens a grouped dataset with its format's reader.
pub fn open(group: &DatasetGroup) -> Result<Dataset> {
    group.format.open(group)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(path: &str, bytes: &[u8]) -> InputFile {
        InputFile::from_vec(path, bytes.to_vec())
    }

    #[test]
    fn detects_magics() {
        assert_eq!(
            detect_file("x/meta.db", b"HPCTOOLKITmeta\x04\x00"),
            hpctoolkit::META_DB
        );
        assert_eq!(
            detect_file("x/profile.db", b"HPCTOOLKITprof\x04\x00"),
            hpctoolkit::PROFILE_DB
        );
        assert_eq!(
            detect_file("x/cct.db", b"HPCTOOLKITctxt\x04\x00"),
            hpctoolkit::CCT_DB
        );
        assert_eq!(
            detect_file("x/trace.db", b"HPCTOOLKITtrce\x04\x00"),
            hpctoolkit::TRACE_DB
        );
        assert_eq!(
            detect_file("x/meta.db", b"HPCTOOLKIT_expmt\x01\x00"),
            prof2::META_DB
        );
        assert_eq!(
            detect_file("x/profile.db", b"HPCPROF-profdb__\x01\x00"),
            prof2::PROFILE_DB
        );
        assert_eq!(
            detect_file("x/cct.db", b"HPCPROF-cctdb___\x01\x00"),
            prof2::CCT_DB
        );
        assert_eq!(
            detect_file("x/trace.db", b"HPCPROF-tracedb_\x01\x00"),
            prof2::TRACE_DB
        );
        assert_eq!(
            detect_file("m/a.hpcrun", b"HPCRUN-profile____04.00b"),
            hpcrun::PROFILE
        );
        assert_eq!(
            detect_file("m/a.hpctrace", b"HPCRUN-trace______01.01b"),
            hpcrun::TRACE
        );
        assert_eq!(detect_file("u/info", b"Ftrace!\0\x04\0\0\0"), uftrace::INFO);
        assert_eq!(detect_file("u/123.dat", &[0x28, 0, 0]), uftrace::DAT);
        assert_eq!(detect_file("u/perf-cpu0.dat", &[1, 2]), uftrace::PERF_DAT);
        assert_eq!(
            detect_file("u/a.out.sym", b"0000000000001040 T main\n"),
            uftrace::SYM
        );
        assert_eq!(
            detect_file("u/sid-0123.map", b"55d0-55d1 r-xp"),
            uftrace::MAP
        );
        assert_eq!(
            detect_file("u/task.txt", b"SESS timestamp=1"),
            uftrace::TASK_TXT
        );
        assert_eq!(
            detect_file("p/experiment.xml", b"<?xml version"),
            EXPERIMENT_XML
        );
        assert_eq!(
            detect_file(
                "prof",
                b"image 1234\nepoch 2201011200\nplatform alpha\nsamples\n\0\0"
            ),
            dcpi::PROFILE
        );
        assert_eq!(
            detect_file("random.bin", &[0x9c, 0x00, 0xff, 0x12]),
            UNKNOWN
        );
        assert_eq!(
            detect_file("d/metrics/default.yaml", b"version: 1"),
            COMPANION
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
            .map(|g| (g.format_id(), g.root.as_str(), g.files.len()))
            .collect();
        assert!(kinds.contains(&("hpctoolkit", "a.d", 3)), "{kinds:?}");
        assert!(kinds.contains(&("hpcrun", "m.m", 2)), "{kinds:?}");
        assert!(
            kinds.contains(&("uftrace", "u/uftrace.data", 2)),
            "{kinds:?}"
        );
        assert!(kinds.contains(&("dcpi", "lone.prof", 1)), "{kinds:?}");
        assert_eq!(loose, vec!["noise.bin".to_string()]);
    }
}
