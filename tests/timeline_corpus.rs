//! Timeline sampling on the corpus's real traces: every cell of sampled frames equals a brute-force
//! answer from the whole line, and for HPCToolkit databases the call path at (line, time) equals
//! the one computed from HPCToolkit's own transcript (golden YAML: trace samples + context tree).

use common::yaml::Node;
use common::{corpus, golden};
use hpcscope::analysis::timeline::progressive::{FrameJob, ReadCost};
use hpcscope::analysis::timeline::{call_path_at, sample_frame, FrameIndex, Window};
use hpcscope::formats::{self};
use hpcscope::model::{Dataset, TraceSample};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

mod common;

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

/// The names of a call path's frames, outermost first.
fn frame_names(ix: &FrameIndex, frames: &[u32]) -> Vec<String> {
    frames
        .iter()
        .map(|&f| ix.name(ix.key_of(f)).to_string())
        .collect()
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

fn golden_of(yaml: &Node) -> Golden {
    let trace = yaml.get("trace");
    let traces = match trace.is_null() {
        true => &[][..],
        false => trace.get("ctx_traces").get("traces").seq(),
    }
    .iter()
    .map(|t| {
        let line = t.get("line").seq().iter();
        line.map(|e| {
            let ctx = e.get("ctx_id").u64().unwrap();
            (e.get("timestamp").u64().unwrap(), ctx as u32)
        })
        .collect()
    })
    .collect();
    // A frame is named by its function, else by its module and offset.
    let anchors = yaml.anchors();
    let target = |c: &Node, key: &str| c.get(key).alias().map(|a| anchors[&a]);
    let name_of = |c: &Node| -> String {
        if let Some(f) = target(c, "function") {
            return f.get("name").str().unwrap().to_string();
        }
        let module = target(c, "module").map(|m| base(m.get("path").str().unwrap()));
        match (module, c.get("offset").u64()) {
            (Some(m), Some(o)) => format!("{m}+{o:#x}"),
            (None, Some(o)) => format!("{o:#x}"),
            _ => "<unknown>".into(),
        }
    };
    // Preorder over the context tree with the frames down to each node: every call (and a
    // lexical context that names a function, an inlined call) is a frame, entry points are not.
    let mut frames = HashMap::new();
    frames.insert(0, Vec::new());
    let entry_points = yaml.get("meta").get("context").get("entry_points").seq();
    let mut stack: Vec<(&Node, Vec<String>)> =
        entry_points.iter().rev().map(|e| (e, Vec::new())).collect();
    while let Some((n, path)) = stack.pop() {
        for c in n.get("children").seq().iter().rev() {
            let mut p = path.clone();
            if c.get("relation").str() != Some("lexical") || target(c, "function").is_some() {
                p.push(name_of(c));
            }
            stack.push((c, p));
        }
        frames.insert(n.get("ctx_id").u64().unwrap() as u32, path);
    }
    Golden { traces, frames }
}

/// The last part of a path (`/a/libc.so.6` -> `libc.so.6`).
fn base(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[test]
fn call_paths_equal_hpctoolkit_transcript() {
    let Some(c) = corpus() else { return };
    let mut checked = 0;
    for (name, ds) in traced_datasets(&c) {
        if ds.format != "hpctoolkit" {
            continue;
        }
        let Some(yaml) = golden::golden_parts(&name, &["meta", "profile", "trace"]) else {
            eprintln!("no golden for {name}");
            continue;
        };
        let g = golden_of(&yaml);
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
                    let got = frame_names(&ix, &cp.frames);
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
fn golden_labels(yaml: &Node) -> Vec<String> {
    let names = golden::id_names(yaml);
    let profiles = golden::profiles(yaml);
    let traces = yaml.get("trace").get("ctx_traces").get("traces").seq();
    traces
        .iter()
        .map(|t| {
            let p = &profiles[t.get("prof_index").u64().unwrap() as usize];
            golden::profile_label(p, &names, false)
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
        let Some(yaml) = golden::golden_parts(&format!("{base}.d"), &["meta", "profile", "trace"])
        else {
            continue;
        };
        let (g, labels) = (golden_of(&yaml), golden_labels(&yaml));
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
                let got = frame_names(&ix, &cp.frames);
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
