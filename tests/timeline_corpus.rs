//! Timeline sampling on the corpus's real traces: every cell of sampled frames equals a brute-force
//! answer from the whole line, and for HPCToolkit databases the call path at (line, time) equals
//! the one computed from HPCToolkit's own transcript (golden YAML: trace samples + context tree).

use hpcscope::analysis::timeline::progressive::{FrameJob, ReadCost};
use hpcscope::analysis::timeline::{call_path_at, sample_frame, FrameIndex, Window};
use hpcscope::formats::{self};
use hpcscope::model::{Dataset, TraceSample};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"));
    if p.is_dir() {
        Some(p.to_path_buf())
    } else {
        eprintln!("skipping: ../shared/corpus absent");
        None
    }
}

fn open(dir: &Path) -> Option<Dataset> {
    let inputs = hpcscope::cli::read_inputs(dir).ok()?;
    let (groups, _) = formats::group(inputs);
    let g = groups.first()?;
    match formats::open(g) {
        Ok(ds) => Some(ds),
        Err(e) => {
            eprintln!("skipping {}: {e}", dir.display());
            None
        }
    }
}

fn traced_datasets(c: &Path) -> Vec<(String, Dataset)> {
    let mut out = Vec::new();
    for sub in ["hpcrun", "hpctoolkit/v4"] {
        let Ok(rd) = std::fs::read_dir(c.join(sub)) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        dirs.sort();
        for d in dirs {
            if let Some(ds) = open(&d) {
                if ds
                    .trace
                    .as_ref()
                    .is_some_and(|t| t.lines.iter().any(|l| l.samples > 0))
                {
                    let name = d.file_name().unwrap().to_string_lossy().into_owned();
                    out.push((name, ds));
                }
            }
        }
    }
    out
}

fn in_force(samples: &[TraceSample], t: u64) -> Option<TraceSample> {
    let i = samples.partition_point(|s| s.time <= t);
    i.checked_sub(1).map(|i| samples[i])
}

#[test]
fn frames_equal_brute_force_on_corpus_traces() {
    let Some(c) = corpus() else { return };
    let sets = traced_datasets(&c);
    eprintln!("{} traced datasets", sets.len());
    for (name, ds) in &sets {
        let ix = FrameIndex::new(ds);
        let trace = ds.trace.as_ref().unwrap();
        let (Some(t0), Some(t1)) = (trace.min_time, trace.max_time) else {
            continue;
        };
        let lines: Vec<Vec<TraceSample>> = (0..trace.lines.len())
            .map(|l| ds.data.trace_samples(l, 0, trace.lines[l].samples).unwrap())
            .collect();
        for (l, s) in lines.iter().enumerate() {
            assert_eq!(s.len() as u64, trace.lines[l].samples, "{name} line {l}");
        }
        let rows: Vec<u32> = (0..trace.lines.len() as u32).collect();
        for width in [1u32, 7, 640] {
            for depth in [0u32, 1, 3, 1000] {
                let win = Window::new(t0, t1 + 1, width);
                let f = sample_frame(ds, &ix, &rows, win, 1000, depth).unwrap();
                assert_eq!(f.lines, rows);
                // Progressive frames refined to the end, whatever the source's cost model,
                // and after a coarse pass: the same answer.
                for cost in [ReadCost::MEMORY, ReadCost::BLOB, ReadCost::RANGED] {
                    let mut job = FrameJob::new(&rows, win, 1000, depth, cost);
                    job.sample_coarse(ds, &ix, 2, 8).unwrap();
                    job.refine(ds, &ix, &mut || false).unwrap();
                    assert!(job.is_exact());
                    assert_eq!(
                        job.shown().keys,
                        f.keys,
                        "{name}: progressive frame, width {width} depth {depth} {cost:?}"
                    );
                    assert_eq!(job.frame().nodes, f.nodes);
                }
                for (r, s) in lines.iter().enumerate() {
                    for c in 0..width {
                        let want = in_force(s, win.time(c))
                            .map(|s| ix.key_at(s.node, depth))
                            .unwrap_or(0);
                        assert_eq!(
                            f.keys[r * width as usize + c as usize],
                            want,
                            "{name} line {r} col {c}/{width} depth {depth}"
                        );
                    }
                }
            }
        }
        // Some cell shows a real frame.
        let f = sample_frame(ds, &ix, &rows, Window::new(t0, t1 + 1, 640), 1000, 2).unwrap();
        assert!(f.keys.iter().any(|&k| k != 0), "{name}: all cells empty");
    }
}

/// From a golden transcript: per trace (in file order) its samples (time, ctx id), and the call
/// frames of each context (names, outermost first), computed from the context tree's relations.
struct Golden {
    traces: Vec<Vec<(u64, u32)>>,
    frames: HashMap<u32, Vec<String>>,
}

fn golden(path: &Path) -> Option<Golden> {
    let f = std::fs::File::open(path).ok()?;
    let mut xz = Vec::new();
    std::io::BufReader::new(f).read_to_end(&mut xz).ok()?;
    let mut out = Vec::new();
    lzma_rs::xz_decompress(&mut xz.as_slice(), &mut out).ok()?;
    let text = String::from_utf8(out).ok()?;
    // Anchored functions and modules.
    let mut names: HashMap<String, String> = HashMap::new();
    let mut paths: HashMap<String, String> = HashMap::new();
    struct Item {
        col: usize,
        parent: Option<usize>,
        ctx: Option<u32>,
        context: bool,
        lexical: bool,
        func: Option<String>,
        module: Option<String>,
        offset: Option<u64>,
    }
    let mut items: Vec<Item> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    let mut anchor: Option<(bool, String)> = None; // (is function, id)
    let mut cur_item: Option<usize> = None;
    let mut traces: Vec<Vec<(u64, u32)>> = Vec::new();
    let mut elem_time: Option<u64> = None;
    let mut in_elem = false;
    // A long `name:`/`path:` value continues on deeper lines (folded with a space), or starts on
    // the next line when it does not fit at all: (is function, id, indent of the key).
    let mut pending: Option<(bool, String, usize)> = None;
    for line in text.lines() {
        let t = line.trim_start();
        let col = line.len() - t.len();
        if let Some((is_fn, id, kcol)) = pending.take() {
            if col > kcol && !t.starts_with("- ") && !t.contains(": ") && !t.ends_with(':') {
                let map = if is_fn { &mut names } else { &mut paths };
                let v = map.entry(id.clone()).or_default();
                if !v.is_empty() {
                    v.push(' ');
                }
                v.push_str(t.trim_matches('\''));
                pending = Some((is_fn, id, kcol));
                continue;
            }
        }
        if let Some(rest) = t.strip_prefix("- ") {
            cur_item = None;
            anchor = None;
            in_elem = false;
            let (id, tag) = match rest.strip_prefix('&') {
                Some(r) => {
                    let mut sp = r.splitn(2, ' ');
                    (sp.next().map(str::to_string), sp.next().unwrap_or(""))
                }
                None => (None, rest),
            };
            if tag.starts_with("!meta.db/v4/Function") {
                anchor = id.map(|i| (true, i));
            } else if tag.starts_with("!meta.db/v4/Module") {
                anchor = id.map(|i| (false, i));
            } else if tag.starts_with("!meta.db/v4/Context ")
                || tag.starts_with("!meta.db/v4/EntryPoint ")
            {
                while stack.last().is_some_and(|&i| items[i].col >= col) {
                    stack.pop();
                }
                items.push(Item {
                    col,
                    parent: stack.last().copied(),
                    ctx: None,
                    context: tag.starts_with("!meta.db/v4/Context "),
                    lexical: false,
                    func: None,
                    module: None,
                    offset: None,
                });
                stack.push(items.len() - 1);
                cur_item = Some(items.len() - 1);
            } else if tag.starts_with("!trace.db/v4/ContextTrace ") {
                traces.push(Vec::new());
            } else if tag.starts_with("!trace.db/v4/ContextTraceElement") {
                in_elem = true;
            }
            continue;
        }
        let Some((key, val)) = t.split_once(':') else {
            continue;
        };
        let val = val.trim();
        if let Some((is_fn, id)) = &anchor {
            let v = val.trim_matches('\'').replace("''", "'");
            if (*is_fn && key == "name") || (!*is_fn && key == "path") {
                pending = Some((*is_fn, id.clone(), col));
            }
            if *is_fn && key == "name" {
                names.insert(id.clone(), v);
            } else if !*is_fn && key == "path" {
                paths.insert(id.clone(), v);
            }
        } else if let Some(i) = cur_item {
            let it = &mut items[i];
            match key {
                "ctx_id" => it.ctx = val.parse().ok(),
                "relation" => it.lexical = val.ends_with(" lexical"),
                "function" => it.func = val.strip_prefix('*').map(str::to_string),
                "module" => it.module = val.strip_prefix('*').map(str::to_string),
                "offset" => it.offset = val.parse().ok(),
                _ => {}
            }
        } else if in_elem {
            match key {
                "timestamp" => elem_time = val.parse().ok(),
                "ctx_id" => {
                    if let (Some(tm), Ok(c), Some(tr)) = (elem_time, val.parse(), traces.last_mut())
                    {
                        tr.push((tm, c));
                    }
                }
                _ => {}
            }
        }
    }
    let name_of = |it: &Item| -> String {
        if let Some(n) = it.func.as_ref().and_then(|f| names.get(f)) {
            return n.clone();
        }
        let m = it
            .module
            .as_ref()
            .and_then(|m| paths.get(m))
            .map(|p| p.rsplit('/').next().unwrap_or(p).to_string());
        match (m, it.offset) {
            (Some(m), Some(o)) => format!("{m}+{o:#x}"),
            (None, Some(o)) => format!("{o:#x}"),
            _ => "<unknown>".into(),
        }
    };
    let mut frames = HashMap::new();
    frames.insert(0, Vec::new());
    for (i, it) in items.iter().enumerate() {
        let Some(ctx) = it.ctx else { continue };
        let mut path = Vec::new();
        let mut j = Some(i);
        while let Some(k) = j {
            let x = &items[k];
            if x.context && (!x.lexical || x.func.is_some()) {
                path.push(name_of(x));
            }
            j = x.parent;
        }
        path.reverse();
        frames.insert(ctx, path);
    }
    Some(Golden { traces, frames })
}

#[test]
fn call_paths_equal_hpctoolkit_transcript() {
    let Some(c) = corpus() else { return };
    let mut checked = 0;
    for (name, ds) in traced_datasets(&c) {
        if ds.format != "hpctoolkit" {
            continue;
        }
        let gpath = c.join(format!("hpctoolkit/golden/{name}.yaml.xz"));
        let Some(g) = golden(&gpath) else {
            eprintln!("no golden for {name}");
            continue;
        };
        let ix = FrameIndex::new(&ds);
        let trace = ds.trace.as_ref().unwrap();
        assert_eq!(g.traces.len(), trace.lines.len(), "{name}: trace lines");
        for (l, gl) in g.traces.iter().enumerate() {
            // Probe at every sample time, just before it and in between.
            for (i, &(t, ctx)) in gl.iter().enumerate() {
                for q in [t, t.saturating_sub(1), t + 1] {
                    let cp = call_path_at(&ds, &ix, l, q).unwrap();
                    let want = gl.iter().rposition(|&(tt, _)| tt <= q).map(|k| (k, gl[k]));
                    assert_eq!(
                        cp.sample.map(|(k, s)| (k as usize, s.time)),
                        want.map(|(k, (tt, _))| (k, tt)),
                        "{name} line {l} sample {i} at {q}"
                    );
                    let got: Vec<String> = cp
                        .frames
                        .iter()
                        .map(|&f| ix.name(ix.key_of(f)).to_string())
                        .collect();
                    let expect = want
                        .and_then(|(_, (_, c))| g.frames.get(&c).cloned())
                        .unwrap_or_default();
                    assert_eq!(got, expect, "{name} line {l} at {q} (ctx {ctx})");
                    checked += 1;
                }
            }
        }
    }
    eprintln!("{checked} call paths checked against golden transcripts");
}

/// Golden trace labels: "NODE 0 / CORE 0 / THREAD 2" per trace, in file order.
fn golden_labels(path: &Path) -> Vec<String> {
    let f = std::fs::File::open(path).unwrap();
    let mut xz = Vec::new();
    std::io::BufReader::new(f).read_to_end(&mut xz).unwrap();
    let mut out = Vec::new();
    lzma_rs::xz_decompress(&mut xz.as_slice(), &mut out).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .filter(|l| l.trim_start().starts_with("- !trace.db/v4/ContextTrace "))
        .map(|l| {
            let inner = l.rsplit_once("for {").map(|x| x.1).unwrap_or("");
            let inner = inner.trim_end().trim_end_matches('}');
            // Drop physical ids: "NODE 0 [0x11ac0300]" -> "NODE 0".
            inner
                .split(" / ")
                .map(|p| p.split(" [").next().unwrap_or(p))
                .collect::<Vec<_>>()
                .join(" / ")
        })
        .collect()
}

/// The hpcrun measurements behind the corpus databases (same runs): the call path shown at every
/// sample time of every thread equals the one in hpcprof's database of that run.
#[test]
fn hpcrun_call_paths_equal_the_database_built_from_them() {
    let Some(c) = corpus() else { return };
    let mut checked = 0;
    let mut datasets = 0;
    for (name, ds) in traced_datasets(&c) {
        let Some(base) = name.strip_suffix(".m") else {
            continue;
        };
        let gpath = c.join(format!("hpctoolkit/golden/{base}.d.yaml.xz"));
        let Some(g) = golden(&gpath) else { continue };
        let labels = golden_labels(&gpath);
        let ix = FrameIndex::new(&ds);
        let trace = ds.trace.as_ref().unwrap();
        datasets += 1;
        for (l, info) in trace.lines.iter().enumerate() {
            let label = ds.profiles[info.prof_index as usize].label(&ds.id_names);
            let gi = labels
                .iter()
                .position(|x| *x == label)
                .unwrap_or_else(|| panic!("{name}: no golden trace for {label} in {labels:?}"));
            let gl = &g.traces[gi];
            assert_eq!(gl.len() as u64, info.samples, "{name} {label}: samples");
            for &(t, ctx) in gl {
                let cp = call_path_at(&ds, &ix, l, t).unwrap();
                assert_eq!(
                    cp.sample.map(|s| s.1.time),
                    Some(t),
                    "{name} {label} at {t}"
                );
                let got: Vec<String> = cp
                    .frames
                    .iter()
                    .map(|&f| ix.name(ix.key_of(f)).to_string())
                    .collect();
                assert_eq!(
                    &got,
                    g.frames.get(&ctx).unwrap(),
                    "{name} {label} at {t} (golden ctx {ctx})"
                );
                checked += 1;
            }
        }
    }
    eprintln!("{checked} call paths in {datasets} hpcrun measurements equal their databases");
}
