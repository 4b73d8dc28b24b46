//! `uftrace.data/info`: the 40-byte binary header (magic `Ftrace!\0`, file version, header size,
//! endianness, address class, feature and info masks, max stack depth) followed by `key:value`
//! text lines (seed 004, "The info file"). Argument specs (`argspec`, `retspec`, `argauto`,
//! `retauto`, `auto-args`) are kept for sizing the payloads of records.

use crate::bytes::{Endian, Source};
use crate::error::{Error, Result};

pub const MAGIC: &[u8; 8] = b"Ftrace!\0";
/// Header bytes this reader knows; the file states its own size, which may be larger.
pub const MIN_HEADER_SIZE: u16 = 40;
/// Most bytes of text the reader accepts; a longer text part is an error.
const MAX_TEXT_LEN: u64 = 16 << 20;

/// Feature bits of `feat_mask` (uftrace.h `enum uftrace_feat_bits`).
pub const FEATURE_NAMES: [&str; 12] = [
    "PLTHOOK",
    "TASK_SESSION",
    "KERNEL",
    "ARGUMENT",
    "RETVAL",
    "SYM_REL_ADDR",
    "MAX_STACK",
    "EVENT",
    "PERF_EVENT",
    "AUTO_ARGS",
    "DEBUG_INFO",
    "ESTIMATE_RETURN",
];
pub const FEAT_SYM_REL_ADDR: u64 = 1 << 5;
pub const FEAT_ESTIMATE_RETURN: u64 = 1 << 11;

/// Info bits of `info_mask`: each names one group of text lines.
pub const INFO_NAMES: [&str; 14] = [
    "EXE_NAME",
    "EXE_BUILD_ID",
    "EXIT_STATUS",
    "CMDLINE",
    "CPUINFO",
    "MEMINFO",
    "OSINFO",
    "TASKINFO",
    "USAGEINFO",
    "LOADINFO",
    "ARG_SPEC",
    "RECORD_DATE",
    "PATTERN_TYPE",
    "VERSION",
];

/// The binary header of `info` (uftrace.h `struct uftrace_file_header`). Its numbers are in the
/// recording's byte order: uftrace byte-swaps them when the endian byte is not its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InfoHeader {
    pub version: u32,
    /// Bytes before the text part; at least [`MIN_HEADER_SIZE`].
    pub header_size: u16,
    /// ELF EI_DATA: 1 little-endian, 2 big-endian.
    pub endian: Endian,
    /// ELF EI_CLASS: 1 32-bit, 2 64-bit.
    pub class: u8,
    pub feat_mask: u64,
    pub info_mask: u64,
    pub max_stack: u16,
}

impl InfoHeader {
    /// Reads the header at the start of `src`: magic, endian byte, then the numbers in that order.
    pub fn read(src: &Source) -> Result<InfoHeader> {
        let magic: [u8; 8] = src.array(0, "info magic")?;
        if &magic != MAGIC {
            return Err(Error::bad_magic(
                src.name(),
                0,
                "info magic (expected Ftrace!)",
            ));
        }
        let endian = match src.u8_at(14, "endian")? {
            1 => Endian::Little,
            2 => Endian::Big,
            e => {
                return Err(Error::invalid(
                    src.name(),
                    14,
                    format!("endian byte {e} (expected 1 or 2)"),
                ))
            }
        };
        let version = src.u32_at(8, endian, "file version")?;
        let header_size = src.u16_at(12, endian, "header size")?;
        if header_size < MIN_HEADER_SIZE {
            return Err(Error::invalid(
                src.name(),
                12,
                format!("header size {header_size} smaller than {MIN_HEADER_SIZE}"),
            ));
        }
        let class = src.u8_at(15, "class")?;
        let feat_mask = src.u64_at(16, endian, "feature mask")?;
        let info_mask = src.u64_at(24, endian, "info mask")?;
        let max_stack = src.u16_at(32, endian, "max stack")?;
        src.check(0, header_size as u64, "info header")?;
        Ok(InfoHeader {
            version,
            header_size,
            endian,
            class,
            feat_mask,
            info_mask,
            max_stack,
        })
    }

    /// The `key:value` lines of the text part that lie in its first `max_len` bytes, in file order
    /// (lines without a colon are skipped; invalid UTF-8 is replaced).
    pub fn text_lines(&self, src: &Source, max_len: u64) -> Result<Vec<(String, String)>> {
        let start = self.header_size as u64;
        let len = src.len().saturating_sub(start).min(max_len);
        let text = src.bytes(start, len, "info text")?;
        let text = String::from_utf8_lossy(&text);
        Ok(text
            .lines()
            .filter_map(|l| {
                let (k, v) = l.split_once(':')?;
                Some((k.to_string(), v.to_string()))
            })
            .collect())
    }
}

/// The parsed info file.
#[derive(Clone, Debug)]
pub struct UftraceInfo {
    pub header: InfoHeader,
    /// Every `key:value` line, in file order.
    pub lines: Vec<(String, String)>,
}

impl UftraceInfo {
    pub fn parse(src: &Source) -> Result<UftraceInfo> {
        let header = InfoHeader::read(src)?;
        let text_len = src.len() - header.header_size as u64;
        // The text part is small (a few KB; auto-args specs make it ~16 KB): cap it anyway.
        if text_len > MAX_TEXT_LEN {
            return Err(Error::too_large(
                src.name(),
                header.header_size as u64,
                "info text",
            ));
        }
        let lines = header.text_lines(src, text_len)?;
        Ok(UftraceInfo { header, lines })
    }

    /// First value of `key` (keys with several lines, like `cpuinfo`, repeat).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.lines
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    /// Value of `key:name=value` inside a multi-line group (`taskinfo:tids=1,2`).
    pub fn sub(&self, key: &str, name: &str) -> Option<&str> {
        self.lines
            .iter()
            .filter(|(k, _)| k == key)
            .find_map(|(_, v)| v.strip_prefix(name)?.strip_prefix('='))
    }
    pub fn exename(&self) -> Option<&str> {
        self.get("exename")
    }
    pub fn cmdline(&self) -> Option<&str> {
        self.get("cmdline")
    }
    /// Task ids the recording says it has (`taskinfo:tids`).
    pub fn tids(&self) -> Vec<u32> {
        self.sub("taskinfo", "tids")
            .map(|s| s.split(',').filter_map(|t| t.trim().parse().ok()).collect())
            .unwrap_or_default()
    }
    pub fn little_endian(&self) -> bool {
        self.header.endian == Endian::Little
    }
    pub fn lp64(&self) -> bool {
        self.header.class != 1
    }
    pub fn has_feature(&self, bit: u64) -> bool {
        self.header.feat_mask & bit != 0
    }
    pub fn auto_args(&self) -> bool {
        self.get("auto-args")
            .map(|v| v.trim() == "1")
            .unwrap_or(false)
    }
    /// `pattern_type` (regex, glob or simple); uftrace's default is regex.
    pub fn pattern_type(&self) -> &str {
        self.get("pattern_type").unwrap_or("regex")
    }
    /// Names of the set feature bits ("PLTHOOK | TASK_SESSION ...").
    pub fn feature_names(&self) -> String {
        mask_names(self.header.feat_mask, &FEATURE_NAMES)
    }
    pub fn info_names(&self) -> String {
        mask_names(self.header.info_mask, &INFO_NAMES)
    }
}

fn mask_names(mask: u64, names: &[&str]) -> String {
    let v: Vec<String> = (0..64)
        .filter(|b| mask & (1u64 << b) != 0)
        .map(|b| {
            names
                .get(b)
                .map(|s| s.to_string())
                .unwrap_or(format!("bit{b}"))
        })
        .collect();
    v.join(" | ")
}
