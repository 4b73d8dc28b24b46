//! The summary probe of a uftrace record directory: the `info` header (magic, version, header size,
//! endian, class) and its text lines, and the task data files (seed 004).

use super::{DAT, INFO};
use crate::bytes::Endian;
use crate::error::Result;
use crate::formats::probe::{Probe, TEXT_HEAD};
use crate::formats::DatasetGroup;

pub(super) fn probe(g: &DatasetGroup, p: &mut Probe) -> Result<()> {
    let tasks = g.files_of(DAT).count();
    p.count("task data files", tasks as u64);
    let data_bytes: u64 = g.files_of(DAT).map(|f| f.source.len()).sum();
    p.fact("record data", format!("{data_bytes} bytes"));
    let Some(info) = g.file(INFO) else {
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
    p.fact(
        "byte order",
        if endian == Endian::Little {
            "little-endian"
        } else {
            "big-endian"
        },
    );
    p.fact(
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
                p.fact("executable", v);
            } else if let Some(v) = line.strip_prefix("cmdline:") {
                p.fact("command line", v);
            } else if let Some(v) = line.strip_prefix("nr_tid:") {
                if let Some(first) = v.split_whitespace().next() {
                    if let Ok(n) = first.parse::<u64>() {
                        p.count("tasks", n);
                    }
                }
            }
        }
    }
    Ok(())
}
