//! A cheap look at the headers of a grouped dataset: format, layout/era, a few facts and counts,
//! read from file headers only (a few hundred bytes each), so the summary panel can say what every
//! dataset is even when its full reader is missing or fails. Layout rules: ../shared/FORMATS-NOTES.md.

use crate::bytes::{Endian, Source};
use crate::error::{Error, Result};
use crate::formats::{DatasetGroup, DatasetKind, FileKind, InputFile};

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
    pub problem: Option<Error>,
}

/// Longest text header read by a probe (XML prologue, DCPI header, uftrace info text).
const TEXT_HEAD: u64 = 16 * 1024;
/// Longest string a probe reads from a binary header (title, names).
const MAX_NAME: u64 = 4096;

/// Probes the headers of every file of `group` that tells its format's layout.
pub fn probe(group: &DatasetGroup) -> Probe {
    let mut p = Probe {
        format: group.kind.as_str().to_string(),
        layout: "unknown".into(),
        title: String::new(),
        facts: Vec::new(),
        counts: Vec::new(),
        problem: None,
    };
    let r = match group.kind {
        DatasetKind::HpctoolkitDb => probe_hpctoolkit(group, &mut p),
        DatasetKind::Prof2Db => probe_prof2(group, &mut p),
        DatasetKind::HpctoolkitXml => probe_xml_era(group, &mut p),
        DatasetKind::HpcrunMeasurement => probe_hpcrun(group, &mut p),
        DatasetKind::Uftrace => probe_uftrace(group, &mut p),
        DatasetKind::Dcpi => probe_dcpi(group, &mut p),
    };
    if let Err(e) = r {
        p.problem = Some(e);
    }
    p
}

fn fact(p: &mut Probe, k: &str, v: impl Into<String>) {
    p.facts.push((k.to_string(), v.into()));
}

fn count(p: &mut Probe, k: &str, n: u64) {
    p.counts.push((k.to_string(), n));
}

// ---------------------------------------------------------------------------------------------
// HPCToolkit v4.0 (final, April-2022 and May-2022 drafts): FORMATS.md "Common file structure".

/// Which v4.0 layout a database uses, from the strides its headers state (FORMATS-NOTES.md:
/// the version bytes are 4.0 in all three).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HpcLayout {
    Final,
    DraftApril2022,
    DraftMay2022,
}

impl HpcLayout {
    pub fn as_str(self) -> &'static str {
        match self {
            HpcLayout::Final => "v4.0 final",
            HpcLayout::DraftApril2022 => "v4.0 draft (April 2022)",
            HpcLayout::DraftMay2022 => "v4.0 draft (May 2022)",
        }
    }
}

/// Strides of the final layout that the drafts lack: meta.db `szMetric` 32 (draft 24), profile.db
/// `szProfile` 48 in every real final file (the drafts write 40).
const FINAL_SZ_METRIC: u8 = 32;
const FINAL_SZ_PROFILE: u8 = 48;

/// The layout from meta.db's `szMetric` and profile.db's `szProfile` (either may be absent).
pub fn hpc_layout(sz_metric: Option<u8>, sz_profile: Option<u8>) -> HpcLayout {
    match (sz_metric, sz_profile) {
        (Some(m), _) if m < FINAL_SZ_METRIC => HpcLayout::DraftApril2022,
        (Some(_), Some(p)) if p < FINAL_SZ_PROFILE => HpcLayout::DraftMay2022,
        // Without meta.db a 40-byte profile stride still says "draft"; April and May share it.
        (None, Some(p)) if p < FINAL_SZ_PROFILE => HpcLayout::DraftApril2022,
        _ => HpcLayout::Final,
    }
}

/// Pointer to the section at header slot `slot` (0x10 + 0x10 * slot holds its size, +8 its
/// pointer), checked to start inside the file.
fn section(src: &Source, slot: u64, what: &str) -> Result<u64> {
    let at = 0x18 + 0x10 * slot;
    let ptr = src.u64_le_at(at, what)?;
    if ptr >= src.len() {
        return Err(src.err(
            crate::ErrorKind::Invalid,
            at,
            format!("{what} pointer {ptr:#x} beyond the end of the file"),
        ));
    }
    Ok(ptr)
}

fn hpc_version(src: &Source) -> Result<(u8, u8)> {
    Ok((
        src.u8_at(0x0e, "major version")?,
        src.u8_at(0x0f, "minor version")?,
    ))
}

fn probe_hpctoolkit(g: &DatasetGroup, p: &mut Probe) -> Result<()> {
    let meta = g.file(FileKind::HpcMetaDb).map(|f| &f.source);
    let prof = g.file(FileKind::HpcProfileDb).map(|f| &f.source);
    let mut sz_metric = None;
    let mut sz_profile = None;
    if let Some(meta) = meta {
        let (major, minor) = hpc_version(meta)?;
        fact(p, "version", format!("{major}.{minor}"));
        let general = section(meta, 0, "General Properties section")?;
        let title_ptr = meta.u64_le_at(general, "pTitle")?;
        p.title = meta.cstr_at(title_ptr, MAX_NAME, "database title")?;
        let names = section(meta, 1, "Identifier Names section")?;
        let pp_names = meta.u64_le_at(names, "ppNames")?;
        let n_kinds = meta.u8_at(names + 8, "nKinds")?;
        let mut kinds = Vec::new();
        for i in 0..u64::from(n_kinds) {
            let ptr = meta.u64_le_at(pp_names + 8 * i, "identifier name pointer")?;
            kinds.push(meta.cstr_at(ptr, MAX_NAME, "identifier name")?);
        }
        if !kinds.is_empty() {
            fact(p, "identifier kinds", kinds.join(", "));
        }
        let metrics = section(meta, 2, "Performance Metrics section")?;
        let n_metrics = meta.u32_le_at(metrics + 8, "nMetrics")?;
        sz_metric = Some(meta.u8_at(metrics + 0x0c, "szMetric")?);
        count(p, "metrics", n_metrics.into());
    }
    if let Some(prof) = prof {
        if meta.is_none() {
            let (major, minor) = hpc_version(prof)?;
            fact(p, "version", format!("{major}.{minor}"));
        }
        let infos = section(prof, 0, "Profile Info section")?;
        let n = prof.u32_le_at(infos + 8, "nProfiles")?;
        sz_profile = Some(prof.u8_at(infos + 0x0c, "szProfile")?);
        // Profile 0 is the summary profile (statistics over the others), not a measured thread.
        count(p, "profiles", u64::from(n).saturating_sub(1));
    }
    let layout = hpc_layout(sz_metric, sz_profile);
    // The reader's own layout detection is the reference when the files are whole; ours, from the
    // same strides, still names the era of files the reader rejects (truncated, bad footer).
    p.layout = match crate::formats::hpctoolkit::detect_layout(g) {
        Ok(name) => name.to_string(),
        Err(_) => layout.as_str().into(),
    };
    if let Some(s) = sz_metric {
        fact(p, "meta.db szMetric", s.to_string());
    }
    if let Some(s) = sz_profile {
        fact(p, "profile.db szProfile", s.to_string());
    }
    if let Some(cct) = g.file(FileKind::HpcCctDb) {
        let cct = &cct.source;
        let infos = section(cct, 0, "Context Info section")?;
        // Entry 0 is the implicit global context, not a node of the tree.
        let n = cct.u32_le_at(infos + 8, "nCtxs")?;
        count(p, "contexts", u64::from(n).saturating_sub(1));
    }
    if let Some(trace) = g.file(FileKind::HpcTraceDb) {
        let trace = &trace.source;
        let headers = section(trace, 0, "Context Trace Headers section")?;
        let n = trace.u32_le_at(headers + 8, "nTraces")?;
        count(p, "trace lines", n.into());
        if layout == HpcLayout::Final {
            let min = trace.u64_le_at(headers + 0x10, "minTimestamp")?;
            let max = trace.u64_le_at(headers + 0x18, "maxTimestamp")?;
            // An empty trace stores the sentinels (i64::MAX, i64::MIN): no time range.
            if min <= max && max != 0x8000_0000_0000_0000 {
                fact(p, "time range", format_ns(max - min));
            }
        }
    }
    Ok(())
}

/// A duration in nanoseconds, for display.
pub fn format_ns(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if ns >= 1_000_000 {
        format!("{:.3} ms", ns as f64 / 1e6)
    } else if ns >= 1_000 {
        format!("{:.3} µs", ns as f64 / 1e3)
    } else {
        format!("{ns} ns")
    }
}

// ---------------------------------------------------------------------------------------------
// HPCToolkit pre-release "prof2" (seed 000): 16-byte magic, then major/minor version bytes.

fn probe_prof2(g: &DatasetGroup, p: &mut Probe) -> Result<()> {
    let mut big_endian = None;
    let mut version = None;
    for (kind, name) in [
        (FileKind::Prof2MetaDb, "meta.db"),
        (FileKind::Prof2ProfileDb, "profile.db"),
        (FileKind::Prof2CctDb, "cct.db"),
        (FileKind::Prof2TraceDb, "trace.db"),
    ] {
        let Some(f) = g.file(kind) else { continue };
        let src = &f.source;
        let major = src.u8_at(0x10, "major version")?;
        let minor = src.u8_at(0x11, "minor version")?;
        fact(p, &format!("{name} version"), format!("{major}.{minor}"));
        // The profile.db's version names the era, as the prof2 reader does; else the first file's.
        if version.is_none() || kind == FileKind::Prof2ProfileDb {
            version = Some(format!("{major}.{minor}"));
        }
        if big_endian.is_none() {
            big_endian = footer_endian(src);
        }
    }
    if let Some(xml) = g.file(FileKind::ExperimentXml) {
        let head = text_head(xml)?;
        if let Some(v) = xml_attr(&head, "HPCToolkitExperiment", "version") {
            fact(p, "experiment.xml version", v);
        }
        if let Some(t) = xml_attr(&head, "Header", "n") {
            p.title = t;
        }
    }
    // Real prof2 files are big-endian (footers `tfBDFORP`, `rtfBDTCC`); the seed also allows
    // little-endian ones.
    let version = version.map(|v| format!(" {v}")).unwrap_or_default();
    p.layout = match big_endian {
        Some(false) => format!("prof2 pre-release{version} (little-endian)"),
        _ => format!("prof2 pre-release{version} (big-endian)"),
    };
    Ok(())
}

/// Byte order from a prof2 footer: the little-endian writer spells it forwards.
fn footer_endian(src: &Source) -> Option<bool> {
    let n = src.len();
    let footer: [u8; 8] = src.array(n.checked_sub(8)?, "footer").ok()?;
    match &footer {
        b"tfBDFORP" | b"rtfBDTCC" | b"nmBDFORP" | b"ecrtBDFR" => Some(true),
        b"PROFDBft" | b"CCTDBftr" | b"PROFDBmn" => Some(false),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// XML-era HPCToolkit databases: experiment.xml (`<HPCToolkitExperiment version="2.2">`).

fn probe_xml_era(g: &DatasetGroup, p: &mut Probe) -> Result<()> {
    let xml = g
        .file(FileKind::ExperimentXml)
        .ok_or_else(|| Error::mismatch(&g.root, "XML-era database without experiment.xml"))?;
    let head = text_head(xml)?;
    let version = xml_attr(&head, "HPCToolkitExperiment", "version").ok_or_else(|| {
        Error::invalid(
            xml.source.name(),
            0,
            "experiment.xml without an HPCToolkitExperiment version",
        )
    })?;
    p.layout = format!("experiment.xml v{version}");
    if let Some(t) = xml_attr(&head, "Header", "n") {
        p.title = t;
    }
    let mut side = std::collections::BTreeMap::<&str, u64>::new();
    for (_, f) in &g.files {
        let name = f.path.rsplit('/').next().unwrap_or(&f.path);
        for ext in [".metric-db", ".mdb", ".mt", ".hpctrace"] {
            if name.ends_with(ext) {
                *side.entry(ext).or_default() += 1;
            }
        }
    }
    let side: Vec<String> = side.iter().map(|(e, n)| format!("{n} x {e}")).collect();
    fact(
        p,
        "side files",
        if side.is_empty() {
            "none".to_string()
        } else {
            side.join(", ")
        },
    );
    let traces = g
        .files
        .iter()
        .filter(|(_, f)| f.path.ends_with(".hpctrace"))
        .count();
    if traces > 0 {
        count(p, "trace lines", traces as u64);
    }
    Ok(())
}

/// The first [`TEXT_HEAD`] bytes of a text file.
fn text_head(f: &InputFile) -> Result<String> {
    let n = f.source.len().min(TEXT_HEAD);
    let b = f.source.bytes(0, n, "text header")?;
    Ok(String::from_utf8_lossy(&b).into_owned())
}

/// Value of attribute `attr` of the first `<tag ...>` element in `text` (no entity decoding
/// beyond the common five: names are shown, never interpreted).
fn xml_attr(text: &str, tag: &str, attr: &str) -> Option<String> {
    let open = format!("<{tag}");
    let mut from = 0;
    let start = loop {
        let i = from + text.get(from..)?.find(&open)?;
        let after = text.as_bytes().get(i + open.len()).copied();
        if matches!(after, Some(b' ' | b'\t' | b'\n' | b'\r' | b'>' | b'/')) {
            break i;
        }
        from = i + open.len();
    };
    let end = start + text.get(start..)?.find('>')?;
    let element = text.get(start..end)?;
    let key = format!(" {attr}=\"");
    let v0 = element.find(&key)? + key.len();
    let v1 = v0 + element.get(v0..)?.find('"')?;
    let raw = element.get(v0..v1)?;
    Some(
        raw.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&apos;", "'")
            .replace("&amp;", "&"),
    )
}

// ---------------------------------------------------------------------------------------------
// hpcrun measurement files (seed 002): `HPCRUN-profile____04.00b` then [nv-pair]*.

/// Version and byte order from the 24-byte magic line (`HPCRUN-profile____` `04.00` `b`).
fn hpcrun_magic(src: &Source, prefix: &str) -> Result<(String, Endian)> {
    let magic = src.bytes(0, 24, "magic and version")?;
    let text = String::from_utf8_lossy(&magic).into_owned();
    let version = text
        .strip_prefix(prefix)
        .map(|v| v.trim_start_matches('_').to_string())
        .ok_or_else(|| src.err(crate::ErrorKind::BadMagic, 0, "hpcrun magic"))?;
    let endian = match version.as_bytes().last() {
        Some(b'b') => Endian::Big,
        Some(b'l') => Endian::Little,
        _ => {
            return Err(src.err(
                crate::ErrorKind::Unsupported,
                18,
                format!("hpcrun version '{version}' without byte order letter"),
            ))
        }
    };
    Ok((version, endian))
}

/// The header's name-value pairs: `u32 count`, then `u32 len` + chars for each name and value.
fn hpcrun_nv_pairs(src: &Source, endian: Endian) -> Result<Vec<(String, String)>> {
    let mut at = 24u64;
    let n = src.u32_at(at, endian, "nv-pair count")?;
    at += 4;
    if n > 64 {
        return Err(src.err(
            crate::ErrorKind::TooLarge,
            24,
            format!("{n} header name-value pairs"),
        ));
    }
    let mut out = Vec::new();
    let string = |at: &mut u64, what: &str| -> Result<String> {
        let len = src.u32_at(*at, endian, what)?;
        if u64::from(len) > MAX_NAME {
            return Err(src.err(
                crate::ErrorKind::TooLarge,
                *at,
                format!("{what} length {len}"),
            ));
        }
        let b = src.bytes(*at + 4, len.into(), what)?;
        *at += 4 + u64::from(len);
        Ok(String::from_utf8_lossy(&b).into_owned())
    };
    for _ in 0..n {
        let k = string(&mut at, "nv-pair name")?;
        let v = string(&mut at, "nv-pair value")?;
        out.push((k, v));
    }
    Ok(out)
}

fn probe_hpcrun(g: &DatasetGroup, p: &mut Probe) -> Result<()> {
    let profiles: Vec<&InputFile> = g.files_of(FileKind::HpcrunProfile).collect();
    let traces: Vec<&InputFile> = g.files_of(FileKind::HpcrunTrace).collect();
    let structs = g.files_of(FileKind::Hpcstruct).count();
    count(p, "profiles", profiles.len() as u64);
    count(p, "trace lines", traces.len() as u64);
    if structs > 0 {
        count(p, "structure files", structs as u64);
    }
    if let Some(first) = profiles.first() {
        let (version, endian) = hpcrun_magic(&first.source, "HPCRUN-profile")?;
        p.layout = format!("hpcrun profile {version}");
        let pairs = hpcrun_nv_pairs(&first.source, endian)?;
        // Named as the hpcrun reader names them, so the summary shows each once.
        for (k, v) in pairs {
            match k.as_str() {
                "program-name" => {
                    p.title = v.clone();
                    fact(p, "program", v);
                }
                "program-path" => fact(p, "program path", v),
                "mpi-rank" => fact(p, "MPI rank", v),
                _ => {}
            }
        }
    }
    if let Some(first) = traces.first() {
        let (version, _) = hpcrun_magic(&first.source, "HPCRUN-trace")?;
        if profiles.is_empty() {
            p.layout = format!("hpcrun trace {version}");
        }
        fact(p, "trace version", version);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// uftrace record directory (seed 004): `info` header (magic, version, header size, endian, class).

fn probe_uftrace(g: &DatasetGroup, p: &mut Probe) -> Result<()> {
    let tasks = g.files_of(FileKind::UftraceDat).count();
    count(p, "task data files", tasks as u64);
    let data_bytes: u64 = g
        .files_of(FileKind::UftraceDat)
        .map(|f| f.source.len())
        .sum();
    fact(p, "record data", format!("{data_bytes} bytes"));
    let Some(info) = g.file(FileKind::UftraceInfo) else {
        p.layout = "uftrace (no info file)".into();
        return Ok(());
    };
    let src = &info.source;
    let magic = src.bytes(0, 8, "info magic")?;
    if &magic[..] != b"Ftrace!\0" {
        return Err(src.err(crate::ErrorKind::BadMagic, 0, "uftrace info magic"));
    }
    let endian = match src.u8_at(14, "endian")? {
        1 => Endian::Little,
        2 => Endian::Big,
        e => {
            return Err(src.err(
                crate::ErrorKind::Invalid,
                14,
                format!("endian byte {e} (expected 1 or 2)"),
            ))
        }
    };
    let version = src.u32_at(8, endian, "file version")?;
    let header_size = src.u16_at(12, endian, "header size")?;
    let class = src.u8_at(15, "elf class")?;
    p.layout = format!("uftrace file version {version}");
    fact(
        p,
        "byte order",
        if endian == Endian::Little {
            "little-endian"
        } else {
            "big-endian"
        },
    );
    fact(
        p,
        "ELF class",
        match class {
            1 => "32-bit",
            2 => "64-bit",
            _ => "unknown",
        },
    );
    // The text part follows the binary header: "exename:...", "cmdline:..." lines.
    let start = u64::from(header_size);
    if start < src.len() {
        let n = (src.len() - start).min(TEXT_HEAD);
        let text = src.bytes(start, n, "info text")?;
        let text = String::from_utf8_lossy(&text);
        for line in text.lines() {
            if let Some(v) = line.strip_prefix("exename:") {
                p.title = v.rsplit('/').next().unwrap_or(v).to_string();
                fact(p, "executable", v);
            } else if let Some(v) = line.strip_prefix("cmdline:") {
                fact(p, "command line", v);
            } else if let Some(v) = line.strip_prefix("nr_tid:") {
                if let Some(first) = v.split_whitespace().next() {
                    if let Ok(n) = first.parse::<u64>() {
                        count(p, "tasks", n);
                    }
                }
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// DCPI-style profile (seed 003): ASCII `key value` lines up to `samples`.

fn probe_dcpi(g: &DatasetGroup, p: &mut Probe) -> Result<()> {
    let f = g
        .file(FileKind::Dcpi)
        .ok_or_else(|| Error::mismatch(&g.root, "DCPI dataset without a profile file"))?;
    p.layout = "DCPI profile".into();
    let head = text_head(f)?;
    for line in head.lines() {
        if line.starts_with("samples") {
            break;
        }
        let mut parts = line.splitn(2, [' ', '\t']);
        let key = parts.next().unwrap_or("");
        let value = parts.next().unwrap_or("").trim();
        if key.is_empty() {
            continue;
        }
        if key == "path" || (key == "image" && p.title.is_empty()) {
            p.title = value.rsplit('/').next().unwrap_or(value).to_string();
        }
        fact(p, key, value);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{group, InputFile};

    fn file(path: &str, bytes: Vec<u8>) -> InputFile {
        InputFile {
            path: path.into(),
            source: Source::from_vec(path, bytes),
        }
    }

    fn one(files: Vec<InputFile>) -> Probe {
        let (groups, _) = group(files);
        assert_eq!(groups.len(), 1, "{groups:?}");
        probe(&groups[0])
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
        assert_eq!(p.format, "hpctoolkit");
        assert_eq!(p.layout, "v4.0 final");
        assert_eq!(p.title, "demo");
        assert!(p.counts.contains(&("metrics".into(), 3)));
        assert!(p.counts.contains(&("profiles".into(), 4)));
        assert!(p
            .facts
            .contains(&("identifier kinds".into(), "RANK".into())));
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
            file(
                "m/demo-000000-000-0-1-0.hpctrace",
                b"HPCRUN-trace______01.01b".to_vec(),
            ),
        ]);
        assert_eq!(p.format, "hpcrun");
        assert_eq!(p.layout, "hpcrun profile 04.00b");
        assert_eq!(p.title, "demo");
        assert!(p.facts.contains(&("trace version".into(), "01.01b".into())));
        assert!(p.counts.contains(&("trace lines".into(), 1)));
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
        assert_eq!(p.format, "uftrace");
        assert_eq!(p.layout, "uftrace file version 4");
        assert_eq!(p.title, "demo");
        assert!(p.counts.contains(&("tasks".into(), 3)));
        assert!(p.facts.contains(&("command line".into(), "demo -x".into())));
    }

    #[test]
    fn xml_era_and_prof2() {
        let xml = b"<?xml version=\"1.0\"?>\n<HPCToolkitExperiment version=\"2.2\">\n<Header n=\"a &amp; b\">".to_vec();
        let p = one(vec![
            file("x/experiment.xml", xml.clone()),
            file(
                "x/t-000000-000-1-2-0.hpctrace",
                b"HPCRUN-trace______01.01b".to_vec(),
            ),
        ]);
        assert_eq!(p.format, "hpctoolkit-xml");
        assert_eq!(p.layout, "experiment.xml v2.2");
        assert_eq!(p.title, "a & b");
        let mut prof = b"HPCPROF-profdb__\x01\x00".to_vec();
        prof.extend_from_slice(&[0; 14]);
        prof.extend_from_slice(b"tfBDFORP");
        let p = one(vec![
            file("p/experiment.xml", xml),
            file("p/profile.db", prof),
        ]);
        assert_eq!(p.format, "prof2");
        assert_eq!(p.layout, "prof2 pre-release 1.0 (big-endian)");
        assert!(p
            .facts
            .contains(&("profile.db version".into(), "1.0".into())));
    }

    #[test]
    fn dcpi_header_lines() {
        let p = one(vec![file(
            "prof",
            b"image 1a2b\nepoch 2201011200\nplatform alpha\npath /bin/ls\nsamples\n\0\0".to_vec(),
        )]);
        assert_eq!(p.format, "dcpi");
        assert_eq!(p.layout, "DCPI profile");
        assert_eq!(p.title, "ls");
        assert!(p.facts.contains(&("platform".into(), "alpha".into())));
    }

    #[test]
    fn xml_attr_needs_whole_tag_name() {
        let t = "<HeaderX n=\"no\"/><Header n=\"yes\">";
        assert_eq!(xml_attr(t, "Header", "n").as_deref(), Some("yes"));
        assert_eq!(xml_attr(t, "Missing", "n"), None);
    }
}
