//! `<module>.dbg` (debug info saved with `--srcline` / `-a`) and argument specs. A `.dbg` file has
//! `F: <offset> <name>` blocks with `L: <line> <file>`, `A: @<argspec>` and `R: @<retspec>` lines;
//! specs look like `arg1/s,arg2/p%RSI,fparg1/64` (uftrace `utils/argspec.c`). Only sizes and formats
//! matter here: they say how many payload bytes follow a record with the "more" bit.

use crate::bytes::Source;
use crate::error::{Error, Result};
use std::collections::HashMap;

/// How an argument is stored in a record payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgFormat {
    /// Integers (d, i, u, x, o, p, e:enum, c) and anything of a fixed size.
    Int,
    Float,
    /// `s` and `S` (std::string): u16 length + bytes.
    Str,
    /// `t<size>` passed by value: `size` bytes.
    Struct,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgSpec {
    /// 1-based argument index; `RETVAL` for the return value.
    pub idx: i32,
    pub fmt: ArgFormat,
    /// Display letter ('d', 'u', 'x', 'p', 's', 'f', 'c', 'e', 't', ...); 'a' for an integer
    /// without a format (uftrace's ARG_FMT_AUTO).
    pub letter: char,
    pub size: u32,
    pub float_arg: bool,
}

pub const RETVAL: i32 = -1;

/// Argument and return-value specs of one function.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FuncSpecs {
    pub args: Vec<ArgSpec>,
    pub rets: Vec<ArgSpec>,
}

impl FuncSpecs {
    /// The specs of an exit record's payload (return values), else of an entry's (arguments).
    pub fn of(&self, exit: bool) -> &[ArgSpec] {
        if exit {
            &self.rets
        } else {
            &self.args
        }
    }
    /// The return-value specs when `retval`, else the argument specs.
    pub fn list_mut(&mut self, retval: bool) -> &mut Vec<ArgSpec> {
        if retval {
            &mut self.rets
        } else {
            &mut self.args
        }
    }
}

/// Parses one item (`arg2/p%RSI`, `fparg1/64`, `retval/f64`); `None` when uftrace rejects it too.
pub fn parse_arg_item(s: &str, lp64: bool) -> Option<ArgSpec> {
    let long = if lp64 { 8 } else { 4 };
    let (idx, mut fmt, mut size, suffix, float_arg) = if let Some(r) = s.strip_prefix("fparg") {
        let n = r.bytes().take_while(|b| b.is_ascii_digit()).count();
        let idx: i32 = r.get(..n)?.parse().ok()?;
        (idx, ArgFormat::Float, 8, &r[n..], true)
    } else if let Some(r) = s.strip_prefix("arg") {
        let n = r.bytes().take_while(|b| b.is_ascii_digit()).count();
        let idx: i32 = r.get(..n)?.parse().ok()?;
        (idx, ArgFormat::Int, long, &r[n..], false)
    } else if let Some(r) = s.strip_prefix("retval") {
        (RETVAL, ArgFormat::Int, long, r, false)
    } else {
        return None;
    };
    let mut letter = if fmt == ArgFormat::Float { 'f' } else { 'a' };
    // Drop a register or stack location: `%RSI`, `%stack+8`.
    let suffix = suffix.split('%').next().unwrap_or("");
    let Some(mut rest) = suffix.strip_prefix('/') else {
        return suffix.is_empty().then_some(ArgSpec {
            idx,
            fmt,
            letter,
            size,
            float_arg,
        });
    };
    let c = rest.chars().next()?;
    match c {
        // One letter, a format and a size of its own or the default.
        'd' | 'u' | 'x' | 'o' | 'p' | 's' | 'S' | 'c' | 'f' => {
            letter = c;
            (fmt, size) = match c {
                's' | 'S' => (ArgFormat::Str, size),
                'c' => (ArgFormat::Int, 1),
                'f' => (ArgFormat::Float, 8),
                _ => (ArgFormat::Int, size),
            };
            rest = &rest[1..];
        }
        'i' => {
            letter = 'i';
            fmt = ArgFormat::Int;
            if let Some(r) = rest.strip_prefix("ip") {
                size = 4;
                rest = r;
            } else {
                rest = &rest[1..];
            }
        }
        'e' => {
            // `e:<enum name>`: default size (long); the name runs to the end.
            letter = 'e';
            fmt = ArgFormat::Int;
            if !rest[1..].starts_with(':') {
                return None;
            }
            rest = "";
        }
        't' => {
            letter = 't';
            fmt = ArgFormat::Struct;
            let r = &rest[1..];
            let n = r.bytes().take_while(|b| b.is_ascii_digit()).count();
            size = r.get(..n)?.parse().ok()?;
            rest = "";
        }
        _ if fmt == ArgFormat::Float && c.is_ascii_digit() => {}
        _ => return None,
    }
    if !rest.is_empty() {
        let bits: u32 = rest.parse().ok()?;
        size = match bits {
            8 | 16 | 32 | 64 => bits / 8,
            80 if fmt == ArgFormat::Float => 10,
            _ => return None,
        };
    }
    Some(ArgSpec {
        idx,
        fmt,
        letter,
        size,
        float_arg,
    })
}

/// Most specs kept per list: [`payload_len`] walks the list for every record with arguments,
/// so a hostile 1 MB list (`arg1/t0,arg1/t0,...`, each 0 bytes) made every record cost 100,000
/// steps. Real functions have a handful.
pub const MAX_SPECS: usize = 1024;

/// Parses a comma-separated spec list, skipping items that are not arguments (triggers).
pub fn parse_arg_list(s: &str, lp64: bool) -> Vec<ArgSpec> {
    s.split(',')
        .filter_map(|i| parse_arg_item(i.trim(), lp64))
        .take(MAX_SPECS)
        .collect()
}

/// Argument and return specs of the functions of one module, keyed by function offset (the
/// names and source lines the file also gives are not needed).
#[derive(Clone, Debug, Default)]
pub struct DebugInfo {
    pub funcs: HashMap<u64, FuncSpecs>,
}

impl DebugInfo {
    pub fn parse(src: &Source, lp64: bool) -> Result<DebugInfo> {
        if src.len() > 256 << 20 {
            return Err(Error::too_large(src.name(), 0, "debug info file"));
        }
        let bytes = src.bytes(0, src.len(), "debug info file")?;
        let text = String::from_utf8_lossy(&bytes);
        let mut out = DebugInfo::default();
        let mut cur: Option<u64> = None;
        for line in text.lines() {
            if let Some(r) = line.strip_prefix("F: ") {
                let off = r.split_once(' ').map_or(r, |(off, _)| off);
                cur = u64::from_str_radix(off, 16).ok();
                if let Some(o) = cur {
                    out.funcs.entry(o).or_default();
                }
            } else if let Some(f) = cur.and_then(|o| out.funcs.get_mut(&o)) {
                if let Some(r) = line.strip_prefix("A: @") {
                    f.args = parse_arg_list(r, lp64);
                } else if let Some(r) = line.strip_prefix("R: @") {
                    f.rets = parse_arg_list(r, lp64);
                }
            }
        }
        Ok(out)
    }
}

/// Bytes of an argument payload: `data` starts right after the record; returns the padded length
/// (a multiple of 8) or `None` when `data` is too short. Items are padded to 4, the whole to 8,
/// strings are u16 length + bytes (uftrace `read_task_arg`).
pub fn payload_len(specs: &[ArgSpec], retval: bool, data: &[u8]) -> Option<usize> {
    let mut len = 0usize;
    for s in specs.iter().filter(|s| (s.idx == RETVAL) == retval) {
        if s.size == 0 {
            continue;
        }
        let mut size = s.size as usize;
        if s.fmt == ArgFormat::Str {
            let b = data.get(len..len + 2)?;
            size = u16::from_le_bytes([b[0], b[1]]) as usize;
            len += 2;
        }
        len += size;
        len = (len + 3) & !3;
        if len > data.len() {
            return None;
        }
    }
    let padded = (len + 7) & !7;
    (padded <= data.len()).then_some(padded)
}

/// How the payload after an ENTRY (`exit` false) or EXIT record with the "more" bit is sized:
/// from the function's specs for that direction; no spec means resynchronising on the next record.
/// A spec of size 0 (an empty struct returned by value: `uftrace dump` prints "length = 0") is a
/// payload of 0 bytes. The streaming pass and every re-read size payloads with this one rule, so a
/// re-read from a checkpoint lands on the records the pass read.
pub fn record_payload(specs: &[ArgSpec], exit: bool, data: &[u8]) -> super::dat::Payload {
    use super::dat::Payload;
    if specs.is_empty() {
        return Payload::Unknown;
    }
    match payload_len(specs, exit, data) {
        Some(n) => Payload::Len(n),
        None => Payload::Short,
    }
}

/// Argument values of a payload as text, like `uftrace replay` prints them: `arg1=10`,
/// `arg2=0x7ffe41a0fc38`, `arg1="hello"`, `retval=2.5`. Stops at the first item that does not fit.
pub fn format_payload(specs: &[ArgSpec], retval: bool, data: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    for s in specs.iter().filter(|s| (s.idx == RETVAL) == retval) {
        if s.size == 0 {
            continue;
        }
        let label = if retval {
            "retval".to_string()
        } else if s.float_arg {
            format!("fparg{}", s.idx)
        } else {
            format!("arg{}", s.idx)
        };
        let text = if s.fmt == ArgFormat::Str {
            let Some(b) = data.get(pos..pos + 2) else {
                break;
            };
            let len = u16::from_le_bytes([b[0], b[1]]) as usize;
            let Some(chars) = data.get(pos + 2..pos + 2 + len) else {
                break;
            };
            pos += 2 + len;
            format!("{:?}", String::from_utf8_lossy(chars))
        } else {
            let size = s.size as usize;
            let Some(b) = data.get(pos..pos + size) else {
                break;
            };
            pos += size;
            let mut w = [0u8; 8];
            let n = size.min(8);
            w[..n].copy_from_slice(&b[..n]);
            let u = u64::from_le_bytes(w);
            match (s.fmt, s.letter) {
                // `%#f`, as uftrace prints floats: six decimals.
                (ArgFormat::Float, _) if size == 4 => {
                    format!("{:.6}", f32::from_bits(u as u32))
                }
                (ArgFormat::Float, _) if size == 8 => format!("{:.6}", f64::from_bits(u)),
                (ArgFormat::Float, _) => "(long double)".to_string(),
                (ArgFormat::Struct, _) => format!("struct{{{size} bytes}}"),
                (_, 'x') | (_, 'p') => format!("{u:#x}"),
                // uftrace (utils/argspec.c): unsigned and unformatted integers beyond
                // +-100000 print in hex, but a 32-bit negative one in a 64-bit slot
                // (0xffff0001..=0xffffffff) as the int it is.
                (_, 'u') if u > 100_000 => format!("{u:#x}"),
                (_, 'u') => format!("{u}"),
                (_, 'a') => {
                    let shift = 64 - 8 * n as u32;
                    let i = ((u << shift) as i64) >> shift;
                    if (-100_000..=100_000).contains(&i) {
                        format!("{i}")
                    } else if u > 0xffff_0000 && u <= 0xffff_ffff {
                        format!("{}", u as u32 as i32)
                    } else {
                        format!("{u:#x}")
                    }
                }
                (_, 'o') => format!("{u:#o}"),
                (_, 'c') => format!("{:?}", (u as u8) as char),
                _ => {
                    // Signed, sign-extended from its size.
                    let shift = 64 - 8 * n as u32;
                    format!("{}", ((u << shift) as i64) >> shift)
                }
            }
        };
        out.push(format!("{label}={text}"));
        pos = (pos + 3) & !3;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_sizes() {
        let p = |s| parse_arg_item(s, true).unwrap();
        assert_eq!(p("arg1").size, 8);
        assert_eq!(p("arg2/p%RSI").size, 8);
        assert_eq!(p("arg3/d32").size, 4);
        assert_eq!(p("arg1/c").size, 1);
        assert_eq!(p("arg1/ip").size, 4);
        assert_eq!(p("fparg1/64").size, 8);
        assert_eq!(p("fparg2/80").size, 10);
        assert_eq!(p("retval/f32").size, 4);
        assert_eq!(p("retval").idx, RETVAL);
        assert_eq!(p("arg1/s").fmt, ArgFormat::Str);
        assert_eq!(p("arg3/e:uft_mmap_prot").size, 8);
        assert_eq!(p("arg3/t16:mystruct%RDI+RSI").size, 16);
        assert!(parse_arg_item("depth=2", true).is_none());
        assert!(parse_arg_item("arg1/d12", true).is_none());
        assert_eq!(parse_arg_item("arg1", false).unwrap().size, 4);
    }

    #[test]
    fn formats_values() {
        let specs = parse_arg_list("arg1/d32,arg2/s,fparg1/64,retval/x", true);
        let mut data = (-5i32).to_le_bytes().to_vec();
        data.extend_from_slice(&2u16.to_le_bytes());
        data.extend_from_slice(b"hi"); // 2 + 2 bytes: already 4-aligned
        data.extend_from_slice(&2.5f64.to_le_bytes());
        assert_eq!(
            format_payload(&specs, false, &data),
            vec!["arg1=-5", "arg2=\"hi\"", "fparg1=2.500000"]
        );
        // Unformatted integers, as uftrace 0.13's replay prints them (corpus recorded-single-args:
        // `quicksort(0x7ffe41a0fad0, 0, -1)`): small ones in decimal, large ones in hex, a
        // negative int in a 64-bit slot as that int.
        let auto = parse_arg_list("arg1,arg2,arg3,arg4,arg5/u", true);
        let data: Vec<u8> = [7u64, 0xffff_ffff, 100_001, (-3i64) as u64, 100_001]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(
            format_payload(&auto, false, &data),
            vec![
                "arg1=7",
                "arg2=-1",
                "arg3=0x186a1",
                "arg4=-3",
                "arg5=0x186a1"
            ]
        );
        assert_eq!(
            format_payload(&specs, true, &255u64.to_le_bytes()),
            vec!["retval=0xff"]
        );
        assert_eq!(format_payload(&specs, false, &[1]), Vec::<String>::new());
    }

    #[test]
    fn spec_lists_are_capped() {
        let list = vec!["arg1/t0"; 100_000].join(",");
        assert_eq!(parse_arg_list(&list, true).len(), MAX_SPECS);
    }

    #[test]
    fn payload_lengths() {
        let specs = parse_arg_list("arg1/p,arg2/u,arg3/s", true);
        // p (8) + u (8) + "hello, %s" (2 + 9 -> 12) = 28 -> padded to 32.
        let mut data = vec![0u8; 16];
        data.extend_from_slice(&9u16.to_le_bytes());
        data.extend_from_slice(b"hello, %s");
        data.resize(40, 0);
        assert_eq!(payload_len(&specs, false, &data), Some(32));
        assert_eq!(payload_len(&specs, true, &data), Some(0));
        assert_eq!(payload_len(&specs, false, &data[..30]), None);
        let ret = parse_arg_list("retval/d32", true);
        assert_eq!(payload_len(&ret, true, &[0u8; 8]), Some(8));
    }

    #[test]
    fn empty_struct_return_is_an_empty_payload() {
        // recorded-cxx: std::__iterator_category returns an empty tag struct; its EXIT record has
        // the "more" bit and the next record follows at once. Whatever bytes follow are not its.
        let ret = parse_arg_list("retval/t0:random_access_iterator_tag", true);
        let next_record = [0xb8u8, 0xc4, 0x38, 0xf9, 0xc3, 0x01, 0, 0];
        assert!(matches!(
            record_payload(&ret, true, &next_record),
            super::super::dat::Payload::Len(0)
        ));
        assert!(matches!(
            record_payload(&ret, true, &[]),
            super::super::dat::Payload::Len(0)
        ));
        // No spec: the size is unknown; a spec whose bytes are not all there: read more.
        assert!(matches!(
            record_payload(&[], true, &next_record),
            super::super::dat::Payload::Unknown
        ));
        let d32 = parse_arg_list("retval/d32", true);
        assert!(matches!(
            record_payload(&d32, true, &[1, 2]),
            super::super::dat::Payload::Short
        ));
    }
}
