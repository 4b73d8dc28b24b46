//! `uftrace.data/info`: the 40-byte binary header (magic `Ftrace!\0`, file version, header size,
//! endianness, address class, feature and info masks, max stack depth) followed by `key:value`
//! text lines (seed 004, "The info file"). Argument specs (`argspec`, `retspec`, `argauto`,
//! `retauto`, `auto-args`) are kept for sizing the payloads of records.

use crate::bytes::Source;
use crate::error::{Error, Result};

pub const MAGIC: &[u8; 8] = b"Ftrace!\0";
/// Header bytes this reader knows; the file states its own size, which may be larger.
pub const MIN_HEADER_SIZE: u16 = 40;

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

/// The parsed info file.
#[derive(Clone, Debug, Default)]
pub struct UftraceInfo {
    pub version: u32,
    pub header_size: u16,
    /// ELF EI_DATA: 1 little-endian, 2 big-endian.
    pub endian: u8,
    /// ELF EI_CLASS: 1 32-bit, 2 64-bit.
    pub class: u8,
    pub feat_mask: u64,
    pub info_mask: u64,
    pub max_stack: u16,
    /// Every `key:value` line, in file order.
    pub lines: Vec<(String, String)>,
}

impl UftraceInfo {
    pub fn parse(src: &Source) -> Result<UftraceInfo> {
        let magic: [u8; 8] = src.array(0, "info magic")?;
        if &magic != MAGIC {
            return Err(Error::bad_magic(
                src.name(),
                0,
                "info magic (expected Ftrace!)",
            ));
        }
        let version = src.u32_le_at(8, "file version")?;
        let header_size = src.u16_le_at(12, "header size")?;
        if header_size < MIN_HEADER_SIZE {
            return Err(Error::invalid(
                src.name(),
                12,
                format!("header size {header_size} smaller than {MIN_HEADER_SIZE}"),
            ));
        }
        let endian = src.u8_at(14, "endian")?;
        let class = src.u8_at(15, "class")?;
        if !(1..=2).contains(&endian) {
            return Err(Error::invalid(
                src.name(),
                14,
                format!("endian byte {endian}"),
            ));
        }
        let feat_mask = src.u64_le_at(16, "feature mask")?;
        let info_mask = src.u64_le_at(24, "info mask")?;
        let max_stack = src.u16_le_at(32, "max stack")?;
        src.check(0, header_size as u64, "info header")?;
        let text_len = src.len() - header_size as u64;
        // The text part is small (a few KB; auto-args specs make it ~16 KB): cap it anyway.
        if text_len > 16 << 20 {
            return Err(Error::too_large(
                src.name(),
                header_size as u64,
                "info text",
            ));
        }
        let text = src.bytes(header_size as u64, text_len, "info text")?;
        let text = String::from_utf8_lossy(&text);
        let lines = text
            .lines()
            .filter_map(|l| {
                let (k, v) = l.split_once(':')?;
                Some((k.to_string(), v.to_string()))
            })
            .collect();
        Ok(UftraceInfo {
            version,
            header_size,
            endian,
            class,
            feat_mask,
            info_mask,
            max_stack,
            lines,
        })
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
        self.endian == 1
    }
    pub fn lp64(&self) -> bool {
        self.class != 1
    }
    pub fn has_feature(&self, bit: u64) -> bool {
        self.feat_mask & bit != 0
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
        mask_names(self.feat_mask, &FEATURE_NAMES)
    }
    pub fn info_names(&self) -> String {
        mask_names(self.info_mask, &INFO_NAMES)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn info_bytes(text: &str) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&4u32.to_le_bytes()); // version
        b.extend_from_slice(&40u16.to_le_bytes()); // header size
        b.push(1); // little-endian
        b.push(2); // 64-bit
        b.extend_from_slice(&0x363u64.to_le_bytes()); // features
        b.extend_from_slice(&0x3bffu64.to_le_bytes()); // info mask
        b.extend_from_slice(&1024u16.to_le_bytes()); // max stack
        b.extend_from_slice(&[0; 6]); // reserved
        b.extend_from_slice(text.as_bytes());
        b
    }

    #[test]
    fn parses_header_and_lines() {
        let src = Source::from_vec(
            "info",
            info_bytes("exename:/bin/x\ntaskinfo:lines=2\ntaskinfo:nr_tid=2\ntaskinfo:tids=5,7\nauto-args:1\n"),
        );
        let i = UftraceInfo::parse(&src).unwrap();
        assert_eq!(i.version, 4);
        assert_eq!(i.max_stack, 1024);
        assert_eq!(i.exename(), Some("/bin/x"));
        assert_eq!(i.tids(), vec![5, 7]);
        assert!(i.auto_args());
        assert_eq!(
            i.feature_names(),
            "PLTHOOK | TASK_SESSION | SYM_REL_ADDR | MAX_STACK | PERF_EVENT | AUTO_ARGS"
        );
    }

    #[test]
    fn rejects_bad_magic_and_short_header() {
        let mut b = info_bytes("");
        b[0] = b'X';
        assert!(UftraceInfo::parse(&Source::from_vec("info", b)).is_err());
        let mut b = info_bytes("");
        b[12] = 8;
        assert!(UftraceInfo::parse(&Source::from_vec("info", b)).is_err());
        assert!(UftraceInfo::parse(&Source::from_vec("info", MAGIC.to_vec())).is_err());
    }
}
