//! Encoders of final-layout HPCToolkit v4.0 databases from a [`SynthDb`] (meta.db, profile.db,
//! cct.db, trace.db as HPCToolkit's `doc/FORMATS.md` specifies them and hpcprof lays them out:
//! `szProfile` 48, sections in hpcprof's order, 8-byte footers), into files or memory.

mod cct;
pub mod draft;
mod meta;
mod profile;
pub mod taxonomy;
mod trace;

use super::bytes::{align, ByteWriter};
use super::SynthDb;
use std::io::{self, Write};

/// Default memory budget for one chunk of context-major values while writing cct.db.
pub const CCT_CHUNK_BYTES: u64 = 64 << 20;

/// The common file header: magic, format, version 4.0, and room for `sections` (size, offset)
/// pairs patched in later.
fn file_header(b: &mut ByteWriter, format: &[u8; 4], sections: usize) {
    b.bytes(b"HPCTOOLKIT");
    b.bytes(format);
    b.u8(4);
    b.u8(0);
    b.zeros(16 * sections as u64);
}

/// Where a sparse block lands: values start, index start, end.
#[derive(Clone, Copy, Debug, Default)]
struct Block {
    values: u64,
    index: u64,
    end: u64,
}

/// Profile-major block: 10-byte (metric, value) pairs, then 12-byte (ctx, start) indices.
fn prof_block(cursor: u64, n_values: u64, n_ctxs: u64) -> Block {
    let values = align(cursor, 4);
    let index = align(values + 10 * n_values, 4);
    Block {
        values,
        index,
        end: index + 12 * n_ctxs,
    }
}

/// Context-major block: 12-byte (profile, value) pairs, then 10-byte (metric, start) indices.
fn ctx_block(cursor: u64, n_values: u64, n_metrics: u64) -> Block {
    let values = align(cursor, 4);
    let index = values + 12 * n_values;
    Block {
        values,
        index,
        end: index + 10 * n_metrics,
    }
}

/// Bytes written per file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WriteReport {
    pub files: Vec<(String, u64)>,
}

impl WriteReport {
    pub fn total(&self) -> u64 {
        self.files.iter().map(|f| f.1).sum()
    }
}

impl SynthDb {
    pub fn write_meta<W: Write>(&self, w: &mut W) -> io::Result<u64> {
        let bytes = self.meta_bytes();
        w.write_all(&bytes)?;
        Ok(bytes.len() as u64)
    }

    /// Writes the database into `dir` (created if missing) through buffered file writers.
    pub fn write_dir(&self, dir: &std::path::Path) -> io::Result<WriteReport> {
        std::fs::create_dir_all(dir)?;
        let create = |name: &str| -> io::Result<io::BufWriter<std::fs::File>> {
            Ok(io::BufWriter::with_capacity(
                1 << 20,
                std::fs::File::create(dir.join(name))?,
            ))
        };
        let mut report = WriteReport::default();
        let mut w = create("meta.db")?;
        report
            .files
            .push(("meta.db".into(), self.write_meta(&mut w)?));
        w.flush()?;
        let st = self.stats();
        let mut w = create("profile.db")?;
        report
            .files
            .push(("profile.db".into(), self.write_profile(&st, &mut w)?));
        w.flush()?;
        let mut w = create("cct.db")?;
        report.files.push((
            "cct.db".into(),
            self.write_cct(&st, &mut w, CCT_CHUNK_BYTES)?,
        ));
        w.flush()?;
        drop(st);
        if self.spec.samples > 0 {
            let mut w = create("trace.db")?;
            report
                .files
                .push(("trace.db".into(), self.write_trace(&mut w)?));
            w.flush()?;
        } else {
            let _ = std::fs::remove_file(dir.join("trace.db"));
        }
        Ok(report)
    }

    /// The whole database in memory as (file name, bytes), for small databases.
    pub fn to_files(&self) -> Vec<(String, Vec<u8>)> {
        let st = self.stats();
        let mut out = vec![("meta.db".to_string(), self.meta_bytes())];
        let mut v = Vec::new();
        // Writes into a Vec cannot fail; a layout bug would, and must not pass silently.
        self.write_profile(&st, &mut v)
            .expect("profile.db layout matches its counting pass");
        out.push(("profile.db".to_string(), v));
        let mut v = Vec::new();
        self.write_cct(&st, &mut v, CCT_CHUNK_BYTES)
            .expect("cct.db layout matches its counting pass");
        out.push(("cct.db".to_string(), v));
        if self.spec.samples > 0 {
            let mut v = Vec::new();
            self.write_trace(&mut v)
                .expect("trace.db layout matches its plan");
            out.push(("trace.db".to_string(), v));
        }
        out
    }
}
