//! A DCPI-style profile as a format-neutral dataset: root -> image -> one node per chunk (address
//! range) -> one node per sampled address, one metric (the header's `event`) in execution and
//! function scopes, header lines as facts, and the address histogram behind `LazyData`.

use super::{DcpiProfile, LineClass, ParsedDcpi};
use crate::error::{Error, Result};
use crate::model::{
    Cct, CctBuilder, CodeRef, Dataset, FileEntry, Frame, Function, LazyData, LexicalType, Metric,
    Module, ProfileInfo, Relation, ScopeKind, SparseValues,
};
use std::sync::Arc;

/// Most bins [`histogram`] makes, whatever the caller asks (a canvas is a few thousand pixels).
pub const MAX_BINS: usize = 1 << 16;

/// `bins` equal-width bins over the sampled address range: (first address of the bin, samples).
/// Empty when nothing was sampled; at most one bin per address and [`MAX_BINS`] bins.
pub fn histogram(p: &DcpiProfile, bins: usize) -> Vec<(u64, u64)> {
    let bins = bins.min(MAX_BINS);
    let mut lo = u64::MAX;
    let mut hi = 0u64;
    for (a, _) in p.address_counts() {
        lo = lo.min(a);
        hi = hi.max(a);
    }
    if bins == 0 || lo > hi {
        return Vec::new();
    }
    let span = (hi - lo) as u128 + 1;
    let width = u64::try_from(span.div_ceil(bins as u128))
        .unwrap_or(u64::MAX)
        .max(1);
    let n = span.div_ceil(width as u128) as usize;
    let mut out: Vec<(u64, u64)> = (0..n as u64).map(|i| (lo + i * width, 0)).collect();
    for (a, c) in p.address_counts() {
        if let Some(slot) = out.get_mut(((a - lo) / width) as usize) {
            slot.1 += c as u64;
        }
    }
    out
}

/// The epoch as a date, reading two-digit years 70-99 as 19xx (DCPI's era) and others as 20xx.
fn epoch_text(v: &str) -> Option<String> {
    let d = |r: std::ops::Range<usize>| v.get(r);
    match v.len() {
        10 => {
            let yy: u32 = d(0..2)?.parse().ok()?;
            let year = if yy >= 70 { 1900 + yy } else { 2000 + yy };
            Some(format!(
                "{year}-{}-{} {}:{} UTC",
                d(2..4)?,
                d(4..6)?,
                d(6..8)?,
                d(8..10)?
            ))
        }
        14 => Some(format!(
            "{}-{}-{} {}:{}:{} UTC",
            d(0..4)?,
            d(4..6)?,
            d(6..8)?,
            d(8..10)?,
            d(10..12)?,
            d(12..14)?
        )),
        _ => None,
    }
}

/// Value ids of the one metric: samples at the node itself, and in its subtree.
const EXCLUSIVE_ID: u16 = 0;
const INCLUSIVE_ID: u16 = 1;

struct DcpiData {
    profile: Arc<DcpiProfile>,
    values: SparseValues,
}

impl LazyData for DcpiData {
    fn profile_values(&self, prof: usize) -> Result<SparseValues> {
        Ok(if prof == 0 {
            self.values.clone()
        } else {
            SparseValues::default()
        })
    }
    fn context_values(&self, node: u32) -> Result<Vec<(u32, u16, f64)>> {
        let mut out = Vec::new();
        for id in [EXCLUSIVE_ID, INCLUSIVE_ID] {
            let v = self.values.get(node, id);
            if v != 0.0 {
                out.push((0, id, v));
            }
        }
        Ok(out)
    }
    fn address_histogram(&self, bins: usize) -> Result<Vec<(u64, u64)>> {
        Ok(histogram(&self.profile, bins))
    }
}

/// The image's display name: its `path` line, else `image <id>`.
fn image_label(p: &DcpiProfile) -> String {
    match (p.get("path"), p.get("image")) {
        (Some(path), _) => path.to_string(),
        (None, Some(id)) => format!("image {id}"),
        (None, None) => "image".to_string(),
    }
}

/// Fills the model: root -> image -> chunk (address range) -> sampled address.
pub fn to_dataset(parsed: ParsedDcpi, path: &str, size: u64) -> Result<Dataset> {
    let ParsedDcpi {
        profile, warnings, ..
    } = parsed;
    let label = image_label(&profile);
    let sampled: u64 = profile.totals().0;
    // ctx ids are u32: the tree must fit (it always does below 16 GiB of file).
    if sampled + profile.chunks.len() as u64 + 2 > u32::MAX as u64 {
        return Err(Error::too_large(
            path,
            0,
            "DCPI profile with more than 2^32 nodes",
        ));
    }
    let (functions, cct, values) = tree(&profile, &label, path)?;
    let metrics = metrics(profile.get("event").unwrap_or("samples"));
    let facts = facts(&profile);
    let profile = Arc::new(profile);
    Ok(Dataset {
        format: "dcpi".into(),
        layout: "DCPI profile".into(),
        title: label.clone(),
        files: vec![FileEntry {
            path: path.to_string(),
            size,
        }],
        facts,
        id_names: vec!["SUMMARY".into()],
        modules: vec![Module { path: label }],
        source_files: Vec::new(),
        functions,
        cct,
        metrics,
        profiles: vec![ProfileInfo {
            summary: true,
            id_tuple: Vec::new(),
        }],
        summary_profile: Some(0),
        trace: None,
        taxonomy: None,
        warnings,
        data: Box::new(DcpiData { profile, values }),
    })
}

/// The functions (the image, then one per chunk), the tree and its values: samples at each
/// address (exclusive) and summed up through chunk, image and root (inclusive).
fn tree(
    profile: &DcpiProfile,
    label: &str,
    path: &str,
) -> Result<(Vec<Function>, Cct, SparseValues)> {
    let start = profile.text_start();
    let mut functions = vec![Function {
        module: Some(0),
        ..Function::named(crate::model::short_path(label))
    }];
    let mut b = CctBuilder::new(0);
    let mut triples = Vec::new();
    let mut next_id = 1u32;
    let image = b.add(
        0,
        next_id,
        Frame::context(
            Relation::Call,
            LexicalType::Function,
            CodeRef {
                module: Some(0),
                ..CodeRef::of_function(0)
            },
        ),
    );
    next_id += 1;
    let mut total = 0u64;
    for c in &profile.chunks {
        let first = start.saturating_add(c.offset as u64);
        let last = first.saturating_add((c.counts.len() as u64).saturating_sub(1));
        let f = functions.len() as u32;
        functions.push(Function {
            module: Some(0),
            offset: Some(c.offset as u64),
            ..Function::named(format!("{first:#x}-{last:#x}"))
        });
        let chunk = b.add(
            image,
            next_id,
            Frame::context(
                Relation::Lexical,
                LexicalType::Function,
                CodeRef {
                    function: Some(f),
                    ..CodeRef::at_point(Some(0), c.offset as u64)
                },
            ),
        );
        next_id += 1;
        let mut chunk_total = 0u64;
        for (i, &n) in c.counts.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let node = b.add(
                chunk,
                next_id,
                Frame::context(
                    Relation::Lexical,
                    LexicalType::Instruction,
                    CodeRef::at_point(Some(0), c.offset as u64 + i as u64),
                ),
            );
            next_id += 1;
            triples.push((node, EXCLUSIVE_ID, n as f64));
            triples.push((node, INCLUSIVE_ID, n as f64));
            chunk_total += n as u64;
        }
        triples.push((chunk, INCLUSIVE_ID, chunk_total as f64));
        total += chunk_total;
    }
    triples.push((image, INCLUSIVE_ID, total as f64));
    triples.push((0, INCLUSIVE_ID, total as f64));
    let cct: Cct = b.finish(path)?;
    // Each node's ctx id is its builder index (ids were handed out in insertion order).
    let triples = triples
        .into_iter()
        .filter_map(|(n, id, v)| cct.node_of_ctx(n).map(|node| (node, id, v)))
        .collect();
    let values = SparseValues::from_triples(triples);
    Ok((functions, cct, values))
}

/// The one metric, named after the header's `event`, in execution and function scopes.
fn metrics(event: &str) -> Vec<Metric> {
    vec![Metric::summed(
        event,
        "samples",
        &[
            ("execution", ScopeKind::Execution, INCLUSIVE_ID),
            ("function", ScopeKind::Function, EXCLUSIVE_ID),
        ],
    )]
}

/// Header lines (unknown and malformed ones marked, the epoch also as a date) and totals.
fn facts(profile: &DcpiProfile) -> Vec<(String, String)> {
    let start = profile.text_start();
    let mut facts = Vec::new();
    for l in &profile.header {
        let key = match l.class {
            LineClass::Unknown => format!("{} (unknown line, kept)", l.key),
            LineClass::Malformed => "malformed line".to_string(),
            _ => l.key.clone(),
        };
        let value = if l.class == LineClass::Malformed {
            l.raw.clone()
        } else if l.key == "epoch" {
            let v = l.value.trim_end();
            match epoch_text(v) {
                Some(t) => format!("{v} ({t})"),
                None => v.to_string(),
            }
        } else {
            l.value.clone()
        };
        facts.push((key, value));
    }
    facts.push((
        "text start".into(),
        if profile.get("tstart").is_some() {
            format!("{start:#x}")
        } else {
            "0 (no tstart line: addresses are image offsets)".into()
        },
    ));
    facts.push(("chunks".into(), profile.chunks.len().to_string()));
    let (offsets, samples) = profile.totals();
    facts.push(("addresses with samples".into(), offsets.to_string()));
    facts.push(("total samples".into(), samples.to_string()));
    let footer_ok = offsets == profile.footer.total_offsets as u64
        && samples == profile.footer.total_samples as u64;
    facts.push((
        "footer".into(),
        format!(
            "total_offsets {}, total_samples {} ({})",
            profile.footer.total_offsets,
            profile.footer.total_samples,
            if footer_ok {
                "match the chunks"
            } else {
                "DO NOT match the chunks"
            }
        ),
    ));
    {
        let mut addrs = profile.address_counts();
        if let Some((first, _)) = addrs.next() {
            let last = addrs.last().map(|(a, _)| a).unwrap_or(first);
            facts.push((
                "sampled addresses".into(),
                format!("{first:#x}..={last:#x}"),
            ));
        }
    }
    facts
}
