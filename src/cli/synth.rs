//! `hpcscope synth [options] OUT_DIR`: writes a synthetic final-layout HPCToolkit v4.0 database
//! (see `synth::hpctoolkit`), for benchmarks and tests; `--size 1G` picks the profile
//! count and trace length to reach about that many bytes; `--taxonomy` adds metrics/default.yaml.

use crate::synth::{SynthDb, SynthSpec};
use std::path::Path;
use std::time::Instant;

const USAGE: &str = "usage: hpcscope synth [--ranks R] [--threads T] [--contexts N] [--depth D] \
[--metrics M] [--samples S] [--seed X] [--title TEXT] [--size BYTES[K|M|G]] [--chain N] \
[--name TEXT]... [--name-file FILE]... [--taxonomy] [--sources] OUT_DIR
  --sources  also write the application's source files under OUT_DIR/src/ (hpcprof's layout)";

/// "1G", "512M", "100k", "12345" -> bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                _ => return Err(format!("bad size '{s}'")),
            };
            (&t[..i], m)
        }
        _ => (t, 1),
    };
    let x: f64 = num.parse().map_err(|_| format!("bad size '{s}'"))?;
    if !(x.is_finite() && x > 0.0) {
        return Err(format!("bad size '{s}'"));
    }
    Ok((x * mult as f64) as u64)
}

/// Picks ranks (unless given) and trace samples (unless given) so the database is about `target`
/// bytes: half in profile.db + cct.db, half in trace.db, as measured on 4- and 8-rank plans.
pub fn spec_for_size(
    mut spec: SynthSpec,
    target: u64,
    ranks_given: bool,
    samples_given: bool,
) -> Result<SynthSpec, String> {
    // Bytes of profile.db + cct.db for 4 and 8 ranks: the difference is what a rank adds, the
    // rest (summary profile, per-context tables, meta.db) is nearly fixed once a few ranks have
    // touched most contexts.
    let values_bytes = |ranks: u32| -> Result<(u64, u64), String> {
        let mut probe = spec.clone();
        probe.ranks = ranks;
        probe.samples = 0;
        let db = SynthDb::new(&probe)?;
        let st = db.stats();
        let mut sink = std::io::sink();
        let prof = db
            .write_profile(&st, &mut sink)
            .map_err(|e| e.to_string())?;
        let cct = db
            .write_cct(&st, &mut sink, 64 << 20)
            .map_err(|e| e.to_string())?;
        Ok((db.meta_bytes().len() as u64, prof + cct))
    };
    let (meta, four) = values_bytes(4)?;
    let (_, eight) = values_bytes(8)?;
    let per_rank = (eight.saturating_sub(four) / 4).max(1);
    let fixed = meta + four.saturating_sub(4 * per_rank);
    let threads = spec.threads as u64;
    let budget = target.saturating_sub(fixed);
    if !ranks_given {
        let want = if samples_given {
            budget / (per_rank + threads * 12 * spec.samples)
        } else {
            budget / 2 / per_rank
        };
        spec.ranks = want.clamp(1, 1 << 20) as u32;
    }
    let values_per_rank = per_rank;
    if !samples_given {
        let lines = spec.ranks as u64 * threads;
        let left = budget.saturating_sub(values_per_rank * spec.ranks as u64);
        spec.samples = (left / (12 * lines)).max(1);
    }
    Ok(spec)
}

pub fn run(args: &[String]) -> Result<(), String> {
    let mut spec = SynthSpec {
        contexts: 5000,
        depth: 12,
        ..SynthSpec::default()
    };
    let mut size = None;
    let mut taxonomy = false;
    let mut out = None;
    let mut sources = false;
    let (mut ranks_given, mut samples_given) = (false, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = |name: &str| -> Result<String, String> {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))
        };
        let num = |v: String| -> Result<u64, String> {
            v.parse::<u64>()
                .map_err(|_| format!("'{v}' is not a number\n{USAGE}"))
        };
        let small = |v: u64| -> Result<u32, String> {
            u32::try_from(v).map_err(|_| format!("{v} is too large"))
        };
        match a.as_str() {
            "--ranks" => {
                spec.ranks = small(num(val(a)?)?)?;
                ranks_given = true;
            }
            "--threads" => spec.threads = small(num(val(a)?)?)?,
            "--contexts" => spec.contexts = small(num(val(a)?)?)?,
            "--depth" => spec.depth = small(num(val(a)?)?)?,
            "--metrics" => spec.metrics = small(num(val(a)?)?)?,
            "--samples" => {
                spec.samples = num(val(a)?)?;
                samples_given = true;
            }
            "--seed" => spec.seed = num(val(a)?)?,
            "--title" => spec.title = val(a)?,
            "--chain" => spec.chain = small(num(val(a)?)?)?,
            "--name" => spec.names.push(val(a)?),
            // For names an argument cannot carry (over 128 KB).
            "--name-file" => {
                let f = val(a)?;
                let bytes = std::fs::read(&f).map_err(|e| format!("{f}: {e}"))?;
                spec.names
                    .push(String::from_utf8_lossy(&bytes).into_owned());
            }
            "--size" => size = Some(parse_size(&val(a)?)?),
            "--taxonomy" => taxonomy = true,
            "--sources" => sources = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            s if s.starts_with('-') => return Err(format!("unknown option '{s}'\n{USAGE}")),
            s => {
                if out.replace(s.to_string()).is_some() {
                    return Err(format!("one OUT_DIR only\n{USAGE}"));
                }
            }
        }
    }
    let Some(out) = out else {
        return Err(USAGE.into());
    };
    let t0 = Instant::now();
    if let Some(target) = size {
        spec = spec_for_size(spec, target, ranks_given, samples_given)?;
    }
    let db = SynthDb::new(&spec)?;
    let max_depth = {
        let mut depth = vec![0u32; db.tree.nodes.len()];
        for i in 1..db.tree.nodes.len() {
            depth[i] = depth[db.tree.nodes[i].parent as usize] + 1;
        }
        depth.into_iter().max().unwrap_or(0)
    };
    say(format!(
        "synth: {} ranks x {} threads = {} profiles, {} contexts (tree depth {}), {} functions, \
         {} metrics, {} trace samples per line, seed {}",
        spec.ranks,
        spec.threads,
        db.profiles(),
        db.tree.nodes.len() - 1,
        max_depth,
        db.tree.functions.len(),
        spec.metrics,
        spec.samples,
        spec.seed
    ));
    let mut report = db
        .write_dir(Path::new(&out))
        .map_err(|e| format!("{out}: {e}"))?;
    if taxonomy {
        use crate::synth::hpctoolkit::taxonomy::TAXONOMY_PATH;
        let path = Path::new(&out).join(TAXONOMY_PATH);
        let text = db.metrics_yaml();
        std::fs::create_dir_all(path.parent().unwrap_or(Path::new(&out)))
            .and_then(|_| std::fs::write(&path, &text))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        report.files.push((TAXONOMY_PATH.into(), text.len() as u64));
    }
    if sources {
        for (name, text) in db.source_files() {
            let path = Path::new(&out).join(&name);
            let made = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|_| std::fs::write(&path, &text));
            made.map_err(|e| format!("{}: {e}", path.display()))?;
            report.files.push((name, text.len() as u64));
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    for (name, bytes) in &report.files {
        say(format!("  {name:<11} {:>15} bytes", group_digits(*bytes)));
    }
    let total = report.total();
    say(format!(
        "  {:<11} {:>15} bytes in {:.2} s ({:.0} MB/s) -> {out}",
        "total",
        group_digits(total),
        secs,
        total as f64 / 1e6 / secs.max(1e-9)
    ));
    Ok(())
}

/// Prints a line; a closed stdout (`| head`) must not abort a database write in progress.
fn say(line: String) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout(), "{line}");
}

fn group_digits(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("1G").unwrap(), 1 << 30);
        assert_eq!(parse_size("512m").unwrap(), 512 << 20);
        assert_eq!(parse_size("1.5K").unwrap(), 1536);
        assert_eq!(parse_size("777").unwrap(), 777);
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("-3M").is_err());
        assert_eq!(group_digits(1234567), "1,234,567");
    }

    #[test]
    fn size_target_is_approached() {
        let spec = SynthSpec {
            contexts: 300,
            ..SynthSpec::default()
        };
        let target = 4 << 20;
        let s = spec_for_size(spec, target, false, false).unwrap();
        let db = SynthDb::new(&s).unwrap();
        let total: u64 = db.to_files().iter().map(|f| f.1.len() as u64).sum();
        assert!(
            total > target * 7 / 10 && total < target * 13 / 10,
            "{total} bytes for a {target} target ({s:?})"
        );
    }
}
