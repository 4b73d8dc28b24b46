//! `hpcscope report --html OUT.html [--views LIST] [--max-mb N] [--template FILE] DIR`: one
//! self-contained page of a dataset (no server, no network): the viewer from the template `npm run
//! build` writes (scripts/build-report.mjs) plus the dataset's files, zlib + base64. Over --max-mb
//! the trace files are left out; still over, nothing is written (docs/embedding.md).

use crate::formats::{
    self, hpcrun, hpctoolkit, hpctoolkit_xml, prof2, DatasetGroup, FileKind, COMPANION, UNKNOWN,
};
use flate2::{write::ZlibEncoder, Compression};
use std::io::Write;
use std::path::{Path, PathBuf};

const USAGE: &str = "usage: hpcscope report --html OUT.html [--views summary,profile,timeline] \
[--max-mb N] [--template FILE] DIR";

/// Views a report can offer (www/views/index.js ids); the page shows those the dataset has.
pub const VIEWS: [&str; 4] = ["summary", "profile", "timeline", "histogram"];
/// Default bound on the written page.
pub const DEFAULT_MAX_MB: u64 = 50;
/// Where `npm run build` puts the template, below the repository (or an installed package).
pub const TEMPLATE_NAME: &str = "report-template.html";
/// Markers of the template that this fills; the rest is copied byte for byte (its scripts are
/// allowed by their hashes in the page's Content-Security-Policy).
const MARKERS: [&str; 8] = [
    "{{VERSION}}",
    "{{TITLE}}",
    "{{META}}",
    "{{NOTES}}",
    "{{VIEWS}}",
    "{{VIEW}}",
    "{{DATA_FILES}}",
    "{{DATA}}",
];
/// Files are compressed in reads of this size.
const CHUNK: u64 = 4 << 20;

/// What a report holds and how big it is.
#[derive(Debug)]
pub struct Report {
    pub html: String,
    /// Files packed into the page: path (relative to the dataset folder's parent) and size.
    pub files: Vec<(String, u64)>,
    /// Trace files left out to stay under the bound.
    pub dropped: Vec<(String, u64)>,
    /// Views offered, in tab order.
    pub views: Vec<String>,
    /// Bytes of the compressed data (before base64).
    pub packed_bytes: usize,
}

/// Why a report could not be made.
#[derive(Debug, PartialEq)]
pub enum ReportError {
    /// The template lacks a marker: not a report template, or from another version.
    Template(String),
    /// Reading a dataset file failed.
    Read(String),
    /// Over the bound even without the trace: the compressed data passed `packed_limit` bytes.
    TooLarge {
        max_bytes: u64,
        packed_limit: u64,
        trace_left_out: bool,
    },
}

impl std::fmt::Display for ReportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReportError::Template(m) | ReportError::Read(m) => f.write_str(m),
            ReportError::TooLarge {
                max_bytes,
                packed_limit,
                trace_left_out,
            } => {
                write!(
                f,
                "the report would be over its limit of {} ({}the data compresses to more than {} \
                 of the page); pass a larger --max-mb",
                mb(*max_bytes),
                if *trace_left_out { "even without the trace, " } else { "" },
                mb(*packed_limit)
            )
            }
        }
    }
}

fn mb(n: u64) -> String {
    format!("{:.1} MB", n as f64 / 1_000_000.0)
}

/// Whether a file only feeds the Trace view (left out when the page has no Trace view or when
/// the page would be over its bound).
pub fn trace_only(kind: FileKind) -> bool {
    [
        hpctoolkit::TRACE_DB,
        prof2::TRACE_DB,
        hpcrun::TRACE,
        hpctoolkit_xml::MT,
    ]
    .contains(&kind)
}

/// Escapes text for HTML content and double-quoted attributes.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Standard base64 (RFC 4648, with padding).
pub fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(base64_len(bytes.len()));
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        let digits = [18, 12, 6, 0].map(|s| ABC[((n >> s) & 63) as usize] as char);
        out.push(digits[0]);
        out.push(digits[1]);
        out.push(if c.len() > 1 { digits[2] } else { '=' });
        out.push(if c.len() > 2 { digits[3] } else { '=' });
    }
    out
}

/// Length of the base64 text of `n` bytes.
pub fn base64_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

/// The zlib stream of `files` concatenated, or None once it grows past `limit` bytes (so a
/// multi-GB trace costs only the reads up to the limit).
fn pack(
    files: &[&(FileKind, formats::InputFile)],
    limit: u64,
) -> Result<Option<Vec<u8>>, ReportError> {
    let mut z = ZlibEncoder::new(Vec::new(), Compression::new(6));
    for (_, f) in files {
        let mut off = 0;
        while off < f.source.len() {
            let n = CHUNK.min(f.source.len() - off);
            let bytes = f
                .source
                .bytes(off, n, "report data")
                .map_err(|e| ReportError::Read(e.to_string()))?;
            z.write_all(&bytes)
                .map_err(|e| ReportError::Read(format!("{}: {e}", f.path)))?;
            if z.get_ref().len() as u64 > limit {
                return Ok(None);
            }
            off += n;
        }
    }
    let out = z
        .finish()
        .map_err(|e| ReportError::Read(format!("compressing: {e}")))?;
    Ok((out.len() as u64 <= limit).then_some(out))
}

/// The page of dataset `group` from `template`, offering `views` (ids of [`VIEWS`]), at most
/// `max_bytes` long.
pub fn build(
    template: &str,
    group: &DatasetGroup,
    views: &[String],
    max_bytes: u64,
) -> Result<Report, ReportError> {
    if let Some(m) = MARKERS.iter().find(|m| !template.contains(**m)) {
        return Err(ReportError::Template(format!(
            "not an hpcscope report template (no {m}): rebuild it with `npm run build`"
        )));
    }
    let probe = formats::probe::probe(group);
    let mut views: Vec<String> = views.to_vec();
    let files: Vec<&(FileKind, formats::InputFile)> = group
        .files
        .iter()
        .filter(|(k, _)| *k != COMPANION && *k != UNKNOWN)
        .filter(|(k, _)| views.iter().any(|v| v == "timeline") || !trace_only(*k))
        .collect();
    let title = [probe.title.as_str(), group.root.as_str()]
        .into_iter()
        .find(|t| !t.is_empty())
        .unwrap_or("dataset")
        .to_string();
    // Everything but the data, to know what the data may take.
    let fixed = template.len() as u64 + 4096 + 2 * title.len() as u64 + 64 * files.len() as u64;
    let limit = max_bytes.saturating_sub(fixed) / 4 * 3;
    let mut dropped = Vec::new();
    let mut chosen = files.clone();
    let mut packed = pack(&chosen, limit)?;
    if packed.is_none() && chosen.iter().any(|(k, _)| trace_only(*k)) {
        dropped = chosen
            .iter()
            .filter(|(k, _)| trace_only(*k))
            .map(|(_, f)| (f.path.clone(), f.source.len()))
            .collect();
        chosen.retain(|(k, _)| !trace_only(*k));
        views.retain(|v| v != "timeline");
        packed = pack(&chosen, limit)?;
    }
    let Some(packed) = packed else {
        return Err(ReportError::TooLarge {
            max_bytes,
            packed_limit: limit,
            trace_left_out: !dropped.is_empty(),
        });
    };
    let list: Vec<(String, u64)> = chosen
        .iter()
        .map(|(_, f)| (f.path.clone(), f.source.len()))
        .collect();
    let html = fill(template, &title, &probe, &views, &list, &dropped, &packed);
    if html.len() as u64 > max_bytes {
        // The allowance for the text around the data was too small (a very long title).
        return Err(ReportError::TooLarge {
            max_bytes,
            packed_limit: packed.len() as u64,
            trace_left_out: !dropped.is_empty(),
        });
    }
    Ok(Report {
        html,
        files: list,
        dropped,
        views,
        packed_bytes: packed.len(),
    })
}

/// The template with its markers replaced (text escaped; the file list as JSON in an attribute).
fn fill(
    template: &str,
    title: &str,
    probe: &formats::probe::Probe,
    views: &[String],
    files: &[(String, u64)],
    dropped: &[(String, u64)],
    packed: &[u8],
) -> String {
    let raw: u64 = files.iter().map(|f| f.1).sum();
    let meta = format!(
        "{} · {} · {} file{}, {} · made by hpcscope {}",
        formats::display_name(&probe.format),
        probe.layout,
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        mb(raw),
        env!("CARGO_PKG_VERSION")
    );
    let notes = if dropped.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = dropped
            .iter()
            .map(|(p, n)| format!("{} ({})", p, mb(*n)))
            .collect();
        format!(
            "<p class=\"note\">Left out to keep this page small: {}. The Trace view needs them.</p>\n",
            escape_html(&names.join(", "))
        )
    };
    let list = serde_json::Value::Array(
        files
            .iter()
            .map(|(p, n)| serde_json::json!({ "path": p, "size": n }))
            .collect(),
    );
    let first = if views.iter().any(|v| v == "profile") {
        "profile"
    } else {
        views.first().map_or("summary", |v| v.as_str())
    };
    // Data and file list last: nothing after them is looked at for markers.
    template
        .replace("{{VERSION}}", env!("CARGO_PKG_VERSION"))
        .replace("{{TITLE}}", &escape_html(title))
        .replace("{{META}}", &escape_html(&meta))
        .replace("{{NOTES}}", &notes)
        .replace("{{VIEWS}}", &escape_html(&views.join(" ")))
        .replace("{{VIEW}}", first)
        .replace("{{DATA_FILES}}", &escape_html(&list.to_string()))
        .replacen("{{DATA}}", &base64(packed), 1)
}

/// The template: `--template FILE`, else `$HPCSCOPE_REPORT_TEMPLATE`, else dist/report-template.html
/// of the repository this program was built in or lies in.
fn find_template(given: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(p) =
        given.or_else(|| std::env::var_os("HPCSCOPE_REPORT_TEMPLATE").map(PathBuf::from))
    {
        return Ok(p);
    }
    let mut candidates = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        // target/{debug,release}/hpcscope -> the repository's dist/.
        candidates.extend(
            exe.ancestors()
                .skip(1)
                .take(4)
                .map(|a| a.join("dist").join(TEMPLATE_NAME)),
        );
    }
    candidates.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("dist")
            .join(TEMPLATE_NAME),
    );
    candidates.push(Path::new("dist").join(TEMPLATE_NAME));
    candidates.into_iter().find(|p| p.is_file()).ok_or_else(|| {
        format!(
            "no report template found: build the viewer first (`npm run build` writes \
             dist/{TEMPLATE_NAME}) or pass --template FILE"
        )
    })
}

pub fn run(args: &[String]) -> Result<(), String> {
    let mut out = None;
    let mut views: Vec<String> = VIEWS.iter().map(|v| v.to_string()).collect();
    let mut max_mb = DEFAULT_MAX_MB as f64;
    let mut template = None;
    let mut dir = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--html" => out = Some(PathBuf::from(it.next().ok_or(USAGE)?)),
            "--views" => {
                let list = it.next().ok_or(USAGE)?;
                views = list
                    .split(',')
                    .map(|v| v.trim().to_string())
                    .filter(|v| !v.is_empty())
                    .collect();
                if let Some(v) = views.iter().find(|v| !VIEWS.contains(&v.as_str())) {
                    return Err(format!("unknown view '{v}' (views: {})", VIEWS.join(", ")));
                }
                if views.is_empty() {
                    return Err(USAGE.into());
                }
            }
            "--max-mb" => {
                let v = it.next().ok_or(USAGE)?;
                max_mb = v
                    .parse()
                    .ok()
                    .filter(|x: &f64| x.is_finite() && *x > 0.0)
                    .ok_or_else(|| format!("bad --max-mb '{v}'"))?;
            }
            "--template" => template = Some(PathBuf::from(it.next().ok_or(USAGE)?)),
            _ if dir.is_none() && !a.starts_with('-') => dir = Some(a.clone()),
            _ => return Err(USAGE.into()),
        }
    }
    let (Some(out), Some(dir)) = (out, dir) else {
        return Err(USAGE.into());
    };
    let template_path = find_template(template)?;
    let template = std::fs::read_to_string(&template_path)
        .map_err(|e| format!("{}: {e}", template_path.display()))?;
    let group = super::first_dataset(&dir, |n, root| {
        format!("note: {dir} holds {n} datasets; the report shows {root}")
    })?;
    let max_bytes = (max_mb * 1_000_000.0) as u64;
    let report = build(&template, &group, &views, max_bytes).map_err(|e| format!("{dir}: {e}"))?;
    std::fs::write(&out, &report.html).map_err(|e| format!("{}: {e}", out.display()))?;
    for (p, n) in &report.dropped {
        eprintln!(
            "note: left out {p} ({}): the report would be over --max-mb {max_mb}; no Trace view",
            mb(*n)
        );
    }
    let raw: u64 = report.files.iter().map(|f| f.1).sum();
    println!(
        "wrote {}: {} bytes ({}; limit {}): {} file{} of {} bytes packed into {} bytes; views: {}",
        out.display(),
        report.html.len(),
        mb(report.html.len() as u64),
        mb(max_bytes),
        report.files.len(),
        if report.files.len() == 1 { "" } else { "s" },
        raw,
        report.packed_bytes,
        report.views.join(" ")
    );
    Ok(())
}

#[cfg(test)]
mod tests;
