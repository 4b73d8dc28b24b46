//! Encoders of prof2 files (seed 000) in either byte order: profile.db, cct.db and trace.db here,
//! meta.db (`HPCTOOLKIT_expmt`, for which no public file exists) in meta.rs, the sample database in
//! sample.rs. Headers are padded to 0x80 as real files are. For fixtures and reader round trips.

mod meta;
mod sample;

pub use meta::meta_db;
pub use sample::{sample_database, sample_meta, sample_profiles, sample_trace};

use super::bytes::ByteWriter;
use crate::bytes::Endian;
use crate::formats::prof2::profile::{IdElem, END_MARKER as PROF_END};
use crate::formats::prof2::{cct, profile, trace};

/// One profile to write: its identifier tuple and, by ascending context id, its (metric id, value)
/// pairs (values of 0 are written as given: the writer does not judge).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileFixture {
    pub id_tuple: Vec<IdElem>,
    pub values: Vec<(u32, Vec<(u16, f64)>)>,
}

/// The start of a profile.db, cct.db or trace.db: its magic, version 1.0, the number of its
/// records and of its sections.
fn begin(e: Endian, magic: &[u8; 16], records: u32, sections: u16) -> ByteWriter {
    let mut w = ByteWriter::new(e);
    w.bytes(magic);
    w.bytes(&[1, 0]);
    w.u32(records);
    w.u16(sections);
    w
}

/// Writes a profile.db: header padded to 0x80, Profile Infos, identifier tuples, value blocks.
pub fn profile_db(profiles: &[ProfileFixture], e: Endian) -> Vec<u8> {
    let mut w = begin(e, profile::MAGIC, profiles.len() as u32, 2);
    w.pad_to(0x80);
    let pi_ptr = w.pos();
    w.pad_to(pi_ptr + profiles.len() as u64 * profile::PROF_INFO_SIZE);
    let idt_ptr = w.pos();
    let mut idt = Vec::new();
    for p in profiles {
        idt.push(w.pos());
        w.u16(p.id_tuple.len() as u16);
        for el in &p.id_tuple {
            w.u16(el.kind);
            w.u64(el.physical);
            w.u64(el.logical);
        }
    }
    let idt_size = w.pos() - idt_ptr;
    for (i, p) in profiles.iter().enumerate() {
        let prof_off = w.pos();
        let mut index = Vec::new();
        let mut n = 0u64;
        for (ctx, vals) in &p.values {
            index.push((*ctx, n));
            for &(mid, v) in vals {
                w.f64(v);
                w.u16(mid);
                n += 1;
            }
        }
        for (ctx, idx) in &index {
            w.u32(*ctx);
            w.u64(*idx);
        }
        w.u32(PROF_END);
        w.u64(n);
        let at = pi_ptr + i as u64 * profile::PROF_INFO_SIZE;
        w.set_u64(at, idt[i]);
        w.set_u64(at + 32, n);
        w.set_u32(at + 40, index.len() as u32);
        w.set_u64(at + 44, prof_off);
    }
    w.set_u64(24, profiles.len() as u64 * profile::PROF_INFO_SIZE);
    w.set_u64(32, pi_ptr);
    w.set_u64(40, idt_size);
    w.set_u64(48, idt_ptr);
    w.bytes(&profile::FOOTER.bytes(e));
    w.into_bytes()
}

/// Writes the cct.db holding the same values as `profiles`, context-major: one Context Info per
/// context id from 0 to the largest, each block sorted by (metric id, profile index).
pub fn cct_db(profiles: &[ProfileFixture], e: Endian) -> Vec<u8> {
    let mut by_ctx: std::collections::BTreeMap<u32, Vec<(u16, u32, f64)>> = Default::default();
    for (pi, p) in profiles.iter().enumerate() {
        for (ctx, vals) in &p.values {
            let e = by_ctx.entry(*ctx).or_default();
            e.extend(vals.iter().map(|&(m, v)| (m, pi as u32, v)));
        }
    }
    let num_ctx = by_ctx.keys().next_back().map_or(0, |&c| c + 1);
    let mut w = begin(e, cct::MAGIC, num_ctx, 1);
    w.u64(num_ctx as u64 * cct::CTX_INFO_SIZE);
    w.pad_to(0x80);
    let ci_ptr = w.pos();
    w.set_u64(32, ci_ptr);
    w.pad_to(ci_ptr + num_ctx as u64 * cct::CTX_INFO_SIZE);
    for ctx in 0..num_ctx {
        let mut vals = by_ctx.remove(&ctx).unwrap_or_default();
        vals.sort_by_key(|&(m, p, _)| (m, p));
        let off = w.pos();
        let mut mids: Vec<(u16, u64)> = Vec::new();
        for (i, &(m, p, v)) in vals.iter().enumerate() {
            if mids.last().map(|x| x.0) != Some(m) {
                mids.push((m, i as u64));
            }
            w.f64(v);
            w.u32(p);
        }
        if !vals.is_empty() {
            for &(m, i) in &mids {
                w.u16(m);
                w.u64(i);
            }
            w.u16(cct::END_MARKER);
            w.u64(vals.len() as u64);
        }
        let at = ci_ptr + ctx as u64 * cct::CTX_INFO_SIZE;
        w.set_u32(at, ctx);
        w.set_u64(at + 4, vals.len() as u64);
        w.set_u16(at + 12, mids.len() as u16);
        w.set_u64(at + 14, off);
    }
    w.bytes(&cct::FOOTER.bytes(e));
    w.into_bytes()
}

/// One trace line to write: (time ns, context id) samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceLineFixture {
    pub prof_info_idx: u32,
    pub trace_type: u16,
    pub samples: Vec<(u64, u32)>,
}

/// Writes a trace.db: header padded to 0x80 with the global time range (0/0 when there are no
/// samples, as the real writer leaves it), Trace Headers, lines. No footer, as in the seed.
pub fn trace_db(lines: &[TraceLineFixture], e: Endian) -> Vec<u8> {
    let mut w = begin(e, trace::MAGIC, lines.len() as u32, 1);
    w.u64(lines.len() as u64 * trace::TRACE_HEADER_SIZE);
    w.u64(0x80);
    let times = lines.iter().flat_map(|l| l.samples.iter().map(|s| s.0));
    let (min, max) = times.fold((u64::MAX, 0), |(a, b), t| (a.min(t), b.max(t)));
    let (min, max) = if min > max { (0, 0) } else { (min, max) };
    w.u64(min);
    w.u64(max);
    w.pad_to(0x80);
    let hdr = w.pos();
    w.pad_to(hdr + lines.len() as u64 * trace::TRACE_HEADER_SIZE);
    for (i, l) in lines.iter().enumerate() {
        let start = w.pos();
        for &(t, c) in &l.samples {
            w.u64(t);
            w.u32(c);
        }
        let at = hdr + i as u64 * trace::TRACE_HEADER_SIZE;
        w.set_u32(at, l.prof_info_idx);
        w.set_u16(at + 4, l.trace_type);
        w.set_u64(at + 6, start);
        w.set_u64(at + 14, w.pos());
    }
    w.into_bytes()
}
