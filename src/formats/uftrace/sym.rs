//! `<module>.sym`: a module's symbol table as `nm` prints it, addresses relative to the module's
//! base (seed 004, "The symbol (.sym) file"). uftrace 0.13 writes `<addr> <type> <name>`, 0.14+
//! `<addr> <size> <type> <name>`; both are read. `?` lines mark ends (`__sym_end`, `__func_end`).

use crate::bytes::Source;
use crate::error::{Error, Result};

#[derive(Clone, Debug, PartialEq)]
pub struct Symbol {
    pub addr: u64,
    /// Stated size (0.14+ files), 0 when unknown.
    pub size: u64,
    pub kind: u8,
    pub name: String,
}

impl Symbol {
    /// Function-like types: text, weak, PLT, indirect; data and end markers resolve nothing.
    pub fn is_function(&self) -> bool {
        matches!(
            self.kind,
            b'T' | b't' | b'W' | b'w' | b'P' | b'i' | b'u' | b'V' | b'v'
        )
    }
}

/// A module's symbols sorted by address.
#[derive(Clone, Debug, Default)]
pub struct SymbolTable {
    pub symbols: Vec<Symbol>,
}

impl SymbolTable {
    pub fn parse(src: &Source) -> Result<SymbolTable> {
        if src.len() > 256 << 20 {
            return Err(Error::too_large(src.name(), 0, "symbol file"));
        }
        let bytes = src.bytes(0, src.len(), "symbol file")?;
        let text = String::from_utf8_lossy(&bytes);
        let mut symbols = Vec::new();
        for line in text.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let mut parts = line.splitn(2, ' ');
            let Some(Ok(addr)) = parts.next().map(|a| u64::from_str_radix(a, 16)) else {
                continue;
            };
            let rest = parts.next().unwrap_or("").trim_start();
            // 0.14+: a hex size column (never a single character) before the type letter.
            let (size, rest) = match rest.split_once(' ') {
                Some((w, r)) if w.len() > 1 && w.bytes().all(|b| b.is_ascii_hexdigit()) => {
                    (u64::from_str_radix(w, 16).unwrap_or(0), r.trim_start())
                }
                _ => (0, rest),
            };
            let mut tn = rest.splitn(2, ' ');
            let kind = match tn.next() {
                Some(t) if t.len() == 1 => t.as_bytes()[0],
                _ => continue,
            };
            let name = tn.next().unwrap_or("").trim().to_string();
            symbols.push(Symbol {
                addr,
                size,
                kind,
                name,
            });
        }
        // Stable: among equal addresses keep file order, so a function wins over a later marker.
        crate::sort::sort_by_key(&mut symbols, |s| s.addr);
        Ok(SymbolTable { symbols })
    }

    /// The function containing `offset`: greatest symbol start <= offset, when it is a function.
    pub fn lookup(&self, offset: u64) -> Option<usize> {
        let i = self.symbols.partition_point(|s| s.addr <= offset);
        if i == 0 {
            return None;
        }
        // Among several symbols at the same address prefer a function.
        let addr = self.symbols[i - 1].addr;
        let mut j = i - 1;
        loop {
            if self.symbols[j].is_function() {
                let s = &self.symbols[j];
                if s.size != 0 && offset >= s.addr.saturating_add(s.size) {
                    // Past a sized symbol's end: still the nearest start (uftrace 0.13 semantics);
                    // keep it, since records point inside functions.
                }
                return Some(j);
            }
            if j == 0 || self.symbols[j - 1].addr != addr {
                return None;
            }
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_formats_and_lookup() {
        let old = "# symbols: 4\n0000000000001030 P free\n0000000000001209 T fib\n000000000000124a t swap\n0000000000001669 ? __func_end\n";
        let t = SymbolTable::parse(&Source::from_vec("a.sym", old.as_bytes().to_vec())).unwrap();
        assert_eq!(t.symbols.len(), 4);
        assert_eq!(
            t.lookup(0x1218).map(|i| t.symbols[i].name.as_str()),
            Some("fib")
        );
        assert_eq!(
            t.lookup(0x124a).map(|i| t.symbols[i].name.as_str()),
            Some("swap")
        );
        assert_eq!(t.lookup(0x1000), None);
        assert_eq!(t.lookup(0x2000), None);
        let new =
            "0000000000001209 00000041 T fib\n000000000000124a 00000037 t std::swap<int> (x)\n";
        let t = SymbolTable::parse(&Source::from_vec("b.sym", new.as_bytes().to_vec())).unwrap();
        assert_eq!(t.symbols[0].size, 0x41);
        assert_eq!(t.symbols[1].name, "std::swap<int> (x)");
        assert_eq!(t.lookup(0x1250), Some(1));
    }
}
