//! What every file of a v4.0 database shares (FORMATS.md "Common file structure": magic, format
//! code, version, section size/pointer pairs, footer), and which layout the database uses: the
//! final one or a 2022 draft, told apart by the strides the files state (../shared/FORMATS-NOTES.md).

use super::database::files;
use super::{meta, profile};
use crate::bytes::{Source, Table};
use crate::error::{Error, ErrorKind, Result};
use crate::formats::DatasetGroup;

pub const LAYOUT_FINAL: &str = "v4.0 final";
pub const LAYOUT_APRIL: &str = "v4.0 draft (April 2022)";
pub const LAYOUT_MAY: &str = "v4.0 draft (May 2022)";

/// Which of the three layouts behind the `HPCTOOLKIT....` + `04` magic a database uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// HPCToolkit releases since mid-2022: metric scopes table, entry points, profile flags.
    Final,
    /// Seed 001: szMetric 24, no scope table, no entry points, no profile flags.
    DraftApril,
    /// Final meta.db, but profile.db without flags (szProfile 40).
    DraftMay,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Final => LAYOUT_FINAL,
            Layout::DraftApril => LAYOUT_APRIL,
            Layout::DraftMay => LAYOUT_MAY,
        }
    }
}

/// Strides of the final layout that the drafts lack: meta.db `szMetric` 32 (April draft 24),
/// profile.db `szProfile` 48 in every real final file (both drafts write 40).
const FINAL_SZ_METRIC: u8 = 32;
const FINAL_SZ_PROFILE: u8 = 48;
/// The smallest strides any known layout states.
const MIN_SZ_METRIC: u8 = 24;
const MIN_SZ_PROFILE: u8 = 40;

/// A section's header slot (its size is at `0x10 + 0x10 * slot`, its pointer 8 bytes further) and
/// the name errors give it.
pub type Slot = (u64, &'static str);

/// (major, minor) version of any database file.
pub fn version(src: &Source) -> Result<(u8, u8)> {
    Ok((
        src.u8_at(0x0e, "major version")?,
        src.u8_at(0x0f, "minor version")?,
    ))
}

/// The header of a section that is one array: pointer, element count and element size at +0,
/// +8 and +0xc (profile.db's profile infos, cct.db's context infos).
#[derive(Clone, Copy, Debug)]
pub struct ArrayHeader {
    pub ptr: u64,
    pub count: u32,
    pub stride: u8,
}

impl ArrayHeader {
    /// The array, each element at least `min_stride` bytes, checked against the file.
    pub fn table(&self, src: &Source, min_stride: u64, what: &str) -> Result<Table> {
        src.table(
            self.ptr,
            self.count as u64,
            self.stride as u64,
            min_stride,
            what,
        )
    }
}

/// The array header of the section in `slot`, its fields named `names` ("pCtxs", "nCtxs",
/// "szCtx") in errors.
pub fn array_header(src: &Source, slot: Slot, names: [&str; 3]) -> Result<ArrayHeader> {
    array_at(src, section(src, slot)?.1, names)
}

/// [`array_header`] of the section at `sec`.
pub fn array_at(src: &Source, sec: u64, [p, n, sz]: [&str; 3]) -> Result<ArrayHeader> {
    Ok(ArrayHeader {
        ptr: src.u64_le_at(sec, p)?,
        count: src.u32_le_at(sec + 0x08, n)?,
        stride: src.u8_at(sec + 0x0c, sz)?,
    })
}

/// Size and pointer of the section in header slot `slot`; the pointer is checked to start inside
/// the file (so offsets a little past it cannot overflow). The pointer is read first: it is what
/// every reader needs, so a short header is reported as missing it.
pub fn section(src: &Source, (slot, name): Slot) -> Result<(u64, u64)> {
    let at = 0x10 + 0x10 * slot;
    let ptr = src.u64_le_at(at + 8, &format!("{name} section pointer"))?;
    let size = src.u64_le_at(at, &format!("{name} section size"))?;
    if ptr >= src.len() {
        return Err(src.err(
            ErrorKind::Invalid,
            at + 8,
            format!("{name} section pointer {ptr:#x} beyond the end of the file"),
        ));
    }
    Ok((size, ptr))
}

/// Checks magic, format code, major version 4 and footer of one file.
pub(super) fn check_file(src: &Source, code: &[u8; 4], footer: &[u8; 8]) -> Result<()> {
    let head: [u8; 16] = src.array(0, "file header")?;
    if &head[..10] != b"HPCTOOLKIT" || &head[10..14] != code {
        return Err(src.err(
            ErrorKind::BadMagic,
            0,
            format!(
                "magic (expected HPCTOOLKIT{})",
                String::from_utf8_lossy(code)
            ),
        ));
    }
    let (major, _) = version(src)?;
    if major != 4 {
        return Err(Error::unsupported(
            src.name(),
            Some(0x0e),
            format!("major version {major} (only 4 is known)"),
        ));
    }
    // Every format has a first section (meta.db: General Properties).
    section(src, (0, "first"))?;
    let len = src.len();
    let tail: [u8; 8] = src.array(len - 8, "footer")?;
    if &tail != footer {
        return Err(src.err(
            ErrorKind::Truncated,
            len - 8,
            format!(
                "footer (expected {}; file truncated?)",
                String::from_utf8_lossy(footer)
            ),
        ));
    }
    Ok(())
}

/// The layout the strides tell, from meta.db's `szMetric` and profile.db's `szProfile`, either of
/// which may be unknown (the probe names the era of a lone or damaged file this way).
pub fn from_strides(sz_metric: Option<u8>, sz_profile: Option<u8>) -> Layout {
    match (sz_metric, sz_profile) {
        (Some(m), _) if m < FINAL_SZ_METRIC => Layout::DraftApril,
        (Some(_), Some(p)) if p < FINAL_SZ_PROFILE => Layout::DraftMay,
        // Without meta.db a 40-byte profile stride still says "draft"; April and May share it.
        (None, Some(p)) if p < FINAL_SZ_PROFILE => Layout::DraftApril,
        _ => Layout::Final,
    }
}

/// The layout of a database whose two files must agree: meta.db `szMetric` 24 is the April draft;
/// otherwise profile.db `szProfile` below 48 (no flags) is the May draft. Strides smaller than any
/// layout's, or an April meta.db with a final profile.db, are errors.
pub(super) fn layout_of(meta: &Source, profile: &Source) -> Result<Layout> {
    let sz_metric = meta::metric_stride(meta)?;
    if sz_metric < MIN_SZ_METRIC {
        return Err(Error::invalid(
            meta.name(),
            0,
            format!("szMetric {sz_metric} is smaller than any known layout's"),
        ));
    }
    let sz_profile = profile::profile_stride(profile)?;
    if sz_profile < MIN_SZ_PROFILE {
        return Err(Error::invalid(
            profile.name(),
            0,
            format!("szProfile {sz_profile} is smaller than any known layout's"),
        ));
    }
    if sz_metric < FINAL_SZ_METRIC && sz_profile >= FINAL_SZ_PROFILE {
        return Err(Error::mismatch(
            profile.name(),
            "meta.db has the April-2022 draft layout but profile.db the final one: files from different databases",
        ));
    }
    Ok(from_strides(Some(sz_metric), Some(sz_profile)))
}

/// The layout name of an HPCToolkit database group ("v4.0 final", "v4.0 draft (April 2022)",
/// "v4.0 draft (May 2022)"), from headers and strides only.
pub fn detect_layout(group: &DatasetGroup) -> Result<&'static str> {
    let f = files(group)?;
    check_file(&f.meta, b"meta", b"_meta.db")?;
    check_file(&f.profile, b"prof", b"_prof.db")?;
    Ok(layout_of(&f.meta, &f.profile)?.name())
}

#[cfg(test)]
mod tests;
