//! Linux kernel symbol tables hpcrun saves next to perf measurements (`kernel_symbols/vmlinux.HOST`,
//! xz-compressed `/proc/kallsyms` text: `address type name [module]`). Only text symbols (`t`/`T`)
//! name code; an address belongs to the greatest symbol at or below it, as in hpcprof's
//! `finalizers/kernelsyms.cpp`, which also names them `name [module] [vmlinux]`.

use crate::error::{Error, Result};

/// Decompressed tables larger than this are refused (an xz bomb must not exhaust memory).
const MAX_TEXT: usize = 256 << 20;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelSymbols {
    /// (address, display name), sorted by address.
    symbols: Vec<(u64, String)>,
}

impl KernelSymbols {
    /// The symbol containing `addr`.
    pub fn lookup(&self, addr: u64) -> Option<(u64, &str)> {
        let i = self.symbols.partition_point(|s| s.0 <= addr);
        i.checked_sub(1)
            .and_then(|i| self.symbols.get(i))
            .map(|(a, n)| (*a, n.as_str()))
    }
    pub fn len(&self) -> usize {
        self.symbols.len()
    }
    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }
}

/// A `Write` that refuses to grow past a limit.
struct Bounded(Vec<u8>);
impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + buf.len() > MAX_TEXT {
            return Err(std::io::Error::other("kernel symbol table too large"));
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Reads a symbol table, xz-compressed or plain. Malformed lines are skipped and counted.
pub fn parse(bytes: &[u8], file: &str) -> Result<(KernelSymbols, usize)> {
    let text = if bytes.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0]) {
        let mut out = Bounded(Vec::new());
        lzma_rs::xz_decompress(&mut &bytes[..], &mut out)
            .map_err(|e| Error::invalid(file, 0, format!("xz-compressed symbol table: {e}")))?;
        out.0
    } else {
        bytes.to_vec()
    };
    let text = String::from_utf8_lossy(&text);
    let mut symbols = Vec::new();
    let mut bad = 0usize;
    for line in text.lines() {
        let mut w = line.split_whitespace();
        let (Some(addr), Some(ty), Some(name)) = (w.next(), w.next(), w.next()) else {
            if !line.trim().is_empty() {
                bad += 1;
            }
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr, 16) else {
            bad += 1;
            continue;
        };
        if ty.len() != 1 {
            bad += 1;
            continue;
        }
        if ty != "t" && ty != "T" {
            continue;
        }
        let display = match w.next() {
            Some(module) => format!("{name} {module} [vmlinux]"),
            None => format!("{name} [vmlinux]"),
        };
        symbols.push((addr, display));
    }
    crate::sort::sort_by_key(&mut symbols, |s| s.0);
    Ok((KernelSymbols { symbols }, bad))
}

#[cfg(test)]
mod tests;
