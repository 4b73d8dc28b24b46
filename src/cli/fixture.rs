//! `hpcscope fixture KIND OUT`: writes the project's generated examples, for browser tests and
//! demos, of the formats no public sample exists for (DCPI, prof2 with a binary meta.db, deep
//! uftrace recordings) and of those whose public samples live outside the repository.

// Kinds: a DCPI profile from seed 003's grammar, a prof2 database with a binary meta.db from seed
// 000, a uftrace recording `depth` calls deep; an hpcrun measurement folder, a threaded uftrace
// recording, a May-2022 draft HPCToolkit database whose cct.db lacks some contexts' values.

use crate::bytes::Endian;
use crate::synth::{self, dcpi, prof2, uftrace};
use std::path::Path;

const USAGE: &str = "usage: hpcscope fixture dcpi [--chunks N] [--len N] FILE
       hpcscope fixture prof2 [--little-endian] DIR
       hpcscope fixture uftrace-deep [--depth N] DIR
       hpcscope fixture hpcrun [--threads N] [--samples N] DIR
       hpcscope fixture uftrace [--tasks N] [--iterations N] DIR
       hpcscope fixture xml [--size BYTES] [--threads N] DIR
       hpcscope fixture hpctoolkit-draft DIR";

fn number(v: Option<&String>, what: &str) -> Result<u32, String> {
    v.and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{what} needs a number\n{USAGE}"))
}

pub fn run(args: &[String]) -> Result<(), String> {
    let Some((kind, rest)) = args.split_first() else {
        return Err(USAGE.into());
    };
    let mut chunks = 8u32;
    let mut len = 256u32;
    let mut endian = Endian::Big;
    let mut depth = 100_000u32;
    let mut hpcrun_spec = synth::hpcrun::HpcrunSpec::default();
    let mut uftrace_spec = synth::uftrace_recording::UftraceSpec::default();
    let mut xml_size = 1u64 << 20;
    let mut out = None;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--chunks" => chunks = number(it.next(), "--chunks")?.min(1 << 16),
            "--len" => len = number(it.next(), "--len")?.min(1 << 20),
            "--little-endian" => endian = Endian::Little,
            "--depth" => depth = number(it.next(), "--depth")?.min(10_000_000),
            "--threads" => hpcrun_spec.threads = number(it.next(), "--threads")?.clamp(1, 1024),
            "--samples" => hpcrun_spec.samples = number(it.next(), "--samples")?.min(10_000_000),
            "--size" => xml_size = number(it.next(), "--size")?.max(1024) as u64,
            "--tasks" => uftrace_spec.tasks = number(it.next(), "--tasks")?.clamp(1, 1024),
            "--iterations" => {
                uftrace_spec.iterations = number(it.next(), "--iterations")?.min(1_000_000)
            }
            _ if out.is_none() && !a.starts_with("--") => out = Some(a.clone()),
            _ => return Err(format!("unexpected '{a}'\n{USAGE}")),
        }
    }
    let out = out.ok_or_else(|| USAGE.to_string())?;
    match kind.as_str() {
        "dcpi" => {
            let bytes = dcpi::write(&dcpi::example(chunks, len));
            std::fs::write(&out, &bytes).map_err(|e| format!("{out}: {e}"))?;
            eprintln!("wrote {out} ({} bytes)", bytes.len());
        }
        "prof2" => {
            write_all(Path::new(&out), prof2::sample_database(endian))?;
            eprintln!("wrote {out}/{{meta,profile,cct,trace}}.db");
        }
        "uftrace-deep" => {
            write_all(Path::new(&out), uftrace::deep_recording(depth))?;
            eprintln!("wrote {out}: main -> recurse x {depth}");
        }
        "hpcrun" => {
            let m = synth::hpcrun::Measurement::generate(&hpcrun_spec);
            write_all(Path::new(&out), m.files())?;
            eprintln!(
                "wrote {out}: {} threads x {} samples, structs/{}.hpcstruct",
                hpcrun_spec.threads, hpcrun_spec.samples, hpcrun_spec.program
            );
        }
        "uftrace" => {
            let r = synth::uftrace_recording::Recording::generate(&uftrace_spec);
            write_all(Path::new(&out), r.files())?;
            eprintln!(
                "wrote {out}: {} tasks x {} compute calls",
                uftrace_spec.tasks, uftrace_spec.iterations
            );
        }
        "xml" => {
            let spec = synth::hpctoolkit_xml::XmlDbSpec::of_size(xml_size, hpcrun_spec.threads);
            let files = synth::hpctoolkit_xml::database(&spec);
            let bytes: usize = files.iter().map(|f| f.1.len()).sum();
            write_all(Path::new(&out), files)?;
            eprintln!(
                "wrote {out}: XML-era database, {} scopes x {} threads, {bytes} bytes",
                spec.scopes, spec.threads
            );
        }
        "hpctoolkit-draft" => {
            let db = synth::SynthDb::new(&synth::SynthSpec {
                title: "draft lacking cct.db values".into(),
                ranks: 2,
                threads: 2,
                contexts: 120,
                depth: 6,
                samples: 0,
                ..synth::SynthSpec::default()
            })?;
            let (files, dropped) = db.draft_lacking_values();
            write_all(Path::new(&out), files)?;
            eprintln!(
                "wrote {out}: May-2022 draft layout, cct.db without the values of {} contexts, metrics/default.yaml",
                dropped.len()
            );
        }
        other => return Err(format!("unknown fixture kind '{other}'\n{USAGE}")),
    }
    Ok(())
}

/// Writes `files` (paths relative to `dir`, subfolders made as needed) under `dir`.
fn write_all(dir: &Path, files: Vec<(impl AsRef<Path>, Vec<u8>)>) -> Result<(), String> {
    for (name, bytes) in files {
        let p = dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}
