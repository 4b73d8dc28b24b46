//! The summary probe of a uftrace record directory (seed 004): the `info` header and the start of
//! its text lines, read by the reader's own [`InfoHeader`], and the task data files.

use super::info::InfoHeader;
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
    let header = InfoHeader::read(&info.source)?;
    p.layout = format!("uftrace file version {}", header.version);
    p.fact(
        "byte order",
        if header.endian == Endian::Little {
            "little-endian"
        } else {
            "big-endian"
        },
    );
    p.fact(
        "ELF class",
        match header.class {
            1 => "32-bit",
            2 => "64-bit",
            _ => "unknown",
        },
    );
    // The text part follows the binary header: "exename:...", "cmdline:..." lines.
    for (key, v) in header.text_lines(&info.source, TEXT_HEAD)? {
        match key.as_str() {
            "exename" => {
                p.title = v.rsplit('/').next().unwrap_or(&v).to_string();
                p.fact("executable", v);
            }
            "cmdline" => p.fact("command line", v),
            "nr_tid" => {
                if let Some(first) = v.split_whitespace().next() {
                    if let Ok(n) = first.parse::<u64>() {
                        p.count("tasks", n);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}
