//! `hpcscope fixture dcpi FILE` / `hpcscope fixture prof2 DIR`: writes the project's generated
//! examples of the formats no public sample exists for (a DCPI profile from seed 003's grammar, a
//! prof2 database with a binary meta.db from seed 000, a uftrace recording `depth` calls deep),
//! for browser tests and demos.

use crate::bytes::Endian;
use crate::synth::{dcpi, prof2, uftrace};
use std::path::Path;

const USAGE: &str = "usage: hpcscope fixture dcpi [--chunks N] [--len N] FILE
       hpcscope fixture prof2 [--little-endian] DIR
       hpcscope fixture uftrace-deep [--depth N] DIR";

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
    let mut out = None;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--chunks" => chunks = number(it.next(), "--chunks")?.min(1 << 16),
            "--len" => len = number(it.next(), "--len")?.min(1 << 20),
            "--little-endian" => endian = Endian::Little,
            "--depth" => depth = number(it.next(), "--depth")?.min(10_000_000),
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
            let dir = Path::new(&out);
            std::fs::create_dir_all(dir).map_err(|e| format!("{out}: {e}"))?;
            for (name, bytes) in prof2::sample_database(endian) {
                let p = dir.join(name);
                std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
            }
            eprintln!("wrote {out}/{{meta,profile,cct,trace}}.db");
        }
        "uftrace-deep" => {
            let dir = Path::new(&out);
            std::fs::create_dir_all(dir).map_err(|e| format!("{out}: {e}"))?;
            for (name, bytes) in uftrace::deep_recording(depth) {
                let p = dir.join(name);
                std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
            }
            eprintln!("wrote {out}: main -> recurse x {depth}");
        }
        other => return Err(format!("unknown fixture kind '{other}'\n{USAGE}")),
    }
    Ok(())
}
