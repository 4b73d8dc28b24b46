//! What a dataset's headers say ([`Probe`]), read cheaply (a few hundred bytes per file) so the
//! summary panel can say what every dataset is even when its full reader fails. Each format's
//! `probe.rs` fills it; layout rules: ../shared/FORMATS-NOTES.md.

use crate::error::Result;
use crate::formats::{DatasetGroup, InputFile};

/// What the headers of a dataset say.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Probe {
    /// Stable format id, the same as `Dataset::format`: "hpctoolkit", "prof2", "hpctoolkit-xml",
    /// "hpcrun", "uftrace", "dcpi".
    pub format: String,
    /// Layout or era within the format ("v4.0 final", "hpcrun profile 04.00b" ...); "unknown" when
    /// the header could not be read.
    pub layout: String,
    pub title: String,
    /// Header facts in display order.
    pub facts: Vec<(String, String)>,
    /// Counts the headers state (metrics, contexts, profiles, trace lines, tasks ...).
    pub counts: Vec<(String, u64)>,
    /// Why the headers could not be read in full (a truncated or corrupt header).
    pub problem: Option<crate::error::Error>,
}

/// Longest text header read by a probe (XML prologue, DCPI header, uftrace info text).
pub(crate) const TEXT_HEAD: u64 = 16 * 1024;
/// Longest string a probe reads from a binary header (title, names).
pub(crate) const MAX_NAME: u64 = 4096;

/// Probes the headers of every file of `group` that tells its format's layout.
pub fn probe(group: &DatasetGroup) -> Probe {
    let mut p = Probe {
        format: group.format_id().to_string(),
        layout: "unknown".into(),
        title: String::new(),
        facts: Vec::new(),
        counts: Vec::new(),
        problem: None,
    };
    if let Err(e) = group.format.probe(group, &mut p) {
        p.problem = Some(e);
    }
    p
}

impl Probe {
    pub(crate) fn fact(&mut self, k: &str, v: impl Into<String>) {
        self.facts.push((k.to_string(), v.into()));
    }

    pub(crate) fn count(&mut self, k: &str, n: u64) {
        self.counts.push((k.to_string(), n));
    }

    /// The value of header fact `k`, if the headers state it.
    pub fn fact_value(&self, k: &str) -> Option<&str> {
        self.facts.iter().find(|f| f.0 == k).map(|f| f.1.as_str())
    }

    /// Count `k`, if the headers state it.
    pub fn count_value(&self, k: &str) -> Option<u64> {
        self.counts.iter().find(|c| c.0 == k).map(|c| c.1)
    }
}

/// The first [`TEXT_HEAD`] bytes of a text file.
pub(crate) fn text_head(f: &InputFile) -> Result<String> {
    let n = f.source.len().min(TEXT_HEAD);
    let b = f.source.bytes(0, n, "text header")?;
    Ok(String::from_utf8_lossy(&b).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::group;

    fn file(path: &str, bytes: Vec<u8>) -> InputFile {
        InputFile::from_vec(path, bytes)
    }

    fn one(files: Vec<InputFile>) -> Probe {
        let (groups, _) = group(files);
        assert_eq!(groups.len(), 1, "{groups:?}");
        probe(&groups[0])
    }

    /// An hpcrun trace file that holds only its header.
    fn hpctrace(path: &str) -> InputFile {
        file(path, b"HPCRUN-trace______01.01b".to_vec())
    }

    fn assert_names(p: &Probe, format: &str, layout: &str, title: &str) {
        assert_eq!(p.format, format);
        assert_eq!(p.layout, layout);
        assert_eq!(p.title, title);
    }

    fn put_u64(b: &mut Vec<u8>, at: usize, v: u64) {
        if b.len() < at + 8 {
            b.resize(at + 8, 0);
        }
        b[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }

    /// A minimal meta.db: header (0x90 bytes), General section at 0x90 (title at 0xa0),
    /// Identifier Names at 0xb0 (one name at 0xc8), Metrics section at 0xd0.
    fn meta_db(sz_metric: u8, n_metrics: u32) -> Vec<u8> {
        let mut b = b"HPCTOOLKITmeta\x04\x00".to_vec();
        b.resize(0x100, 0);
        put_u64(&mut b, 0x18, 0x90); // pGeneral
        put_u64(&mut b, 0x28, 0xb0); // pIdNames
        put_u64(&mut b, 0x38, 0xd0); // pMetrics
        put_u64(&mut b, 0x90, 0xa0); // pTitle
        b[0xa0..0xa5].copy_from_slice(b"demo\0");
        put_u64(&mut b, 0xb0, 0xc0); // ppNames
        b[0xb8] = 1; // nKinds
        put_u64(&mut b, 0xc0, 0xc8); // ppNames[0]
        b[0xc8..0xcd].copy_from_slice(b"RANK\0");
        b[0xd8..0xdc].copy_from_slice(&n_metrics.to_le_bytes()); // nMetrics
        b[0xdc] = sz_metric; // szMetric
        b
    }

    /// A minimal profile.db: header, Profile Info section at 0x30.
    fn profile_db(sz_profile: u8, n: u32) -> Vec<u8> {
        let mut b = b"HPCTOOLKITprof\x04\x00".to_vec();
        b.resize(0x48, 0);
        put_u64(&mut b, 0x18, 0x30); // pProfileInfos
        b[0x38..0x3c].copy_from_slice(&n.to_le_bytes()); // nProfiles
        b[0x3c] = sz_profile; // szProfile
        b
    }

    #[test]
    fn hpctoolkit_layouts_by_stride() {
        let p = one(vec![
            file("d/meta.db", meta_db(32, 3)),
            file("d/profile.db", profile_db(48, 5)),
        ]);
        assert_names(&p, "hpctoolkit", "v4.0 final", "demo");
        assert_eq!(p.count_value("metrics"), Some(3));
        assert_eq!(p.count_value("profiles"), Some(4));
        assert_eq!(p.fact_value("identifier kinds"), Some("RANK"));
        assert_eq!(p.problem, None);

        let p = one(vec![
            file("d/meta.db", meta_db(24, 1)),
            file("d/profile.db", profile_db(40, 2)),
        ]);
        assert_eq!(p.layout, "v4.0 draft (April 2022)");
        let p = one(vec![
            file("d/meta.db", meta_db(32, 1)),
            file("d/profile.db", profile_db(40, 2)),
        ]);
        assert_eq!(p.layout, "v4.0 draft (May 2022)");
        // meta.db alone, final-shaped.
        let p = one(vec![file("d/meta.db", meta_db(32, 1))]);
        assert_eq!(p.layout, "v4.0 final");
    }

    #[test]
    fn truncated_meta_names_file_and_offset() {
        let mut b = meta_db(32, 1);
        b.truncate(0xd4);
        let p = one(vec![file("d/meta.db", b)]);
        let e = p.problem.expect("truncated header");
        assert_eq!(e.file, "d/meta.db");
        assert_eq!(e.kind, crate::ErrorKind::Truncated);
        assert_eq!(e.offset, Some(0xd8));
        assert_eq!(e.what, "nMetrics");
    }

    #[test]
    fn hpcrun_magic_and_pairs() {
        let mut b = b"HPCRUN-profile____04.00b".to_vec();
        b.extend_from_slice(&1u32.to_be_bytes()); // one nv-pair
        b.extend_from_slice(&12u32.to_be_bytes());
        b.extend_from_slice(b"program-name");
        b.extend_from_slice(&4u32.to_be_bytes());
        b.extend_from_slice(b"demo");
        let p = one(vec![
            file("m/demo-000000-000-0-1-0.hpcrun", b),
            hpctrace("m/demo-000000-000-0-1-0.hpctrace"),
        ]);
        assert_names(&p, "hpcrun", "hpcrun profile 04.00b", "demo");
        assert_eq!(p.fact_value("trace version"), Some("01.01b"));
        assert_eq!(p.count_value("trace lines"), Some(1));
        // A pair count the file cannot hold is an error, not an allocation.
        let mut b = b"HPCRUN-profile____02.00b".to_vec();
        b.extend_from_slice(&2u32.to_be_bytes());
        b.extend_from_slice(&0xffff_fff0u32.to_be_bytes());
        let p = one(vec![file("m/x.hpcrun", b)]);
        assert_eq!(p.layout, "hpcrun profile 02.00b");
        assert!(p.problem.is_some());
    }

    #[test]
    fn uftrace_info_header() {
        let mut b = b"Ftrace!\0".to_vec();
        b.extend_from_slice(&4u32.to_le_bytes()); // version
        b.extend_from_slice(&40u16.to_le_bytes()); // header size
        b.push(1); // little-endian
        b.push(2); // 64-bit
        b.resize(40, 0);
        b.extend_from_slice(b"exename:/usr/bin/demo\ncmdline:demo -x\nnr_tid:3 1 2 3\n");
        let p = one(vec![
            file("u/uftrace.data/info", b),
            file("u/uftrace.data/1.dat", vec![0; 16]),
        ]);
        assert_names(&p, "uftrace", "uftrace file version 4", "demo");
        assert_eq!(p.count_value("tasks"), Some(3));
        assert_eq!(p.fact_value("command line"), Some("demo -x"));
    }

    #[test]
    fn xml_era_and_prof2() {
        let xml = b"<?xml version=\"1.0\"?>\n<HPCToolkitExperiment version=\"2.2\">\n<Header n=\"a &amp; b\">".to_vec();
        let p = one(vec![
            file("x/experiment.xml", xml.clone()),
            hpctrace("x/t-000000-000-1-2-0.hpctrace"),
        ]);
        assert_names(&p, "hpctoolkit-xml", "experiment.xml v2.2", "a & b");
        let mut prof = b"HPCPROF-profdb__\x01\x00".to_vec();
        prof.extend_from_slice(&[0; 14]);
        prof.extend_from_slice(b"tfBDFORP");
        let p = one(vec![
            file("p/experiment.xml", xml),
            file("p/profile.db", prof),
        ]);
        assert_eq!(p.format, "prof2");
        assert_eq!(p.layout, "prof2 pre-release 1.0 (big-endian)");
        assert_eq!(p.fact_value("profile.db version"), Some("1.0"));
    }

    #[test]
    fn dcpi_header_lines() {
        let p = one(vec![file(
            "prof",
            b"image 1a2b\nepoch 2201011200\nplatform alpha\npath /bin/ls\nsamples\n\0\0".to_vec(),
        )]);
        assert_names(&p, "dcpi", "DCPI profile", "ls");
        assert_eq!(p.fact_value("platform"), Some("alpha"));
    }
}
