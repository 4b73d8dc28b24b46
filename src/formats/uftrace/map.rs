//! `uftrace.data/sid-<SESSION>.map`: the memory map of a session, one line per module (uftrace
//! 0.13 writes `start-end perms offset dev inode path build-id:<hex>`; older versions copied
//! `/proc/<pid>/maps` whole). A module's base is the start of its first mapping (seed 004,
//! "The session .map file"; FORMATS-NOTES).

use crate::bytes::Source;
use crate::error::{Error, Result};

#[derive(Clone, Debug, PartialEq)]
pub struct MapModule {
    pub path: String,
    /// Load address: `.sym` addresses are relative to it.
    pub base: u64,
    /// One past the last mapped byte of the module.
    pub end: u64,
    pub build_id: Option<String>,
}

/// Parses a map file into modules, merging the mappings of one path; anonymous mappings and
/// pseudo files (`[stack]`, `[vdso]`) are dropped: no symbols belong to them.
pub fn parse_map(src: &Source) -> Result<Vec<MapModule>> {
    if src.len() > 64 << 20 {
        return Err(Error::too_large(src.name(), 0, "session map"));
    }
    let bytes = src.bytes(0, src.len(), "session map")?;
    let text = String::from_utf8_lossy(&bytes);
    let mut out: Vec<MapModule> = Vec::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let Some(range) = it.next() else { continue };
        let Some((s, e)) = range.split_once('-') else {
            continue;
        };
        let (Ok(start), Ok(end)) = (u64::from_str_radix(s, 16), u64::from_str_radix(e, 16)) else {
            continue;
        };
        // perms, offset, dev, inode, then the path (possibly with spaces) and a build-id suffix.
        let rest: Vec<&str> = it.skip(4).collect();
        if rest.is_empty() {
            continue;
        }
        let mut build_id = None;
        let mut words = rest.clone();
        if let Some(last) = words.last() {
            if let Some(id) = last.strip_prefix("build-id:") {
                build_id = Some(id.to_string());
                words.pop();
            }
        }
        let path = words.join(" ");
        if !path.starts_with('/') && !path.starts_with('.') {
            continue;
        }
        if let Some(m) = out.iter_mut().find(|m| m.path == path) {
            m.base = m.base.min(start);
            m.end = m.end.max(end);
            if m.build_id.is_none() {
                m.build_id = build_id;
            }
        } else {
            out.push(MapModule {
                path,
                base: start,
                end: end.max(start),
                build_id,
            });
        }
    }
    crate::sort::sort_by_key(&mut out, |m| m.base);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_segments_and_strips_build_id() {
        let text = "400000-401000 r-xp 00000000 08:01 11 /bin/t-abc\n\
600000-601000 rw-p 00000000 08:01 11 /bin/t-abc\n\
02443000-02475000 rw-p 00000000 00:00 0 [heap]\n\
7f00-8f00 r-xp 00000000 00:00 0 /lib/libc.so.6 build-id:abcd\n\
7ffe-7fff rwxp 00000000 00:00 0 [stack]\n\
garbage\n";
        let m = parse_map(&Source::from_vec("sid-1.map", text.as_bytes().to_vec())).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].base, m[0].end), (0x7f00, 0x8f00));
        assert_eq!(m[0].build_id.as_deref(), Some("abcd"));
        assert_eq!(m[1].path, "/bin/t-abc");
        assert_eq!((m[1].base, m[1].end), (0x400000, 0x601000));
    }
}
