//! HPCToolkit v4 databases of ../shared/corpus: every final-layout transcript equals, value for
//! value, the golden YAML written by HPCToolkit's hpctesttool; drafts open and report their layout;
//! truncated and bit-flipped files give errors or warnings, never panics or hangs.

use common::golden;
use common::yaml::{self, Node};
use hpcscope::formats::{self, hpctoolkit, DatasetGroup, InputFile};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

mod common;

fn corpus() -> Option<PathBuf> {
    common::corpus_dir("hpctoolkit")
}

fn dirs(sub: &str) -> Vec<PathBuf> {
    common::corpus_subdirs(&format!("hpctoolkit/{sub}")).unwrap_or_default()
}

fn group_of(dir: &Path) -> DatasetGroup {
    let inputs = hpcscope::cli::read_inputs(dir).unwrap();
    let (mut groups, _) = formats::group(inputs);
    assert_eq!(groups.len(), 1, "{}", dir.display());
    groups.remove(0)
}

fn transcript(g: &DatasetGroup) -> Value {
    let mut out = Vec::new();
    hpcscope::cli::dump::write_json(g, &mut out).unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// A nullable integer field as JSON.
fn int(n: &Node) -> Value {
    n.u64().map(Value::from).unwrap_or(Value::Null)
}

/// A nullable string field as JSON.
fn text(n: &Node) -> Value {
    n.str().map(Value::from).unwrap_or(Value::Null)
}

/// The index in `list` of the entry an alias designates, as JSON (null for a null alias).
fn index_of(list: &[Node], n: &Node) -> Value {
    yaml::position(list, n.alias())
        .map(Value::from)
        .unwrap_or(Value::Null)
}

/// The (key, inner key, value) of a map of maps of numbers keyed by integers (a profile's
/// `{ctx: {metric id: value}}`, a context's `{metric id: {profile: value}}`), in file order.
fn nested(n: &Node) -> Vec<(u64, u64, f64)> {
    let mut out = Vec::new();
    for (k, inner) in n.entries() {
        for (j, v) in inner.entries() {
            out.push((k.parse().unwrap(), j.parse().unwrap(), v.f64()));
        }
    }
    out
}

/// The transcript HPCToolkit's own reader implies, built from its YAML.
fn expected(golden: &Node) -> Value {
    let meta = golden.get("meta");
    let scope = |n: &Node| Value::from(golden::scope_name(golden, n));
    let modules = meta.get("modules").get("modules").seq();
    let files = meta.get("files").get("files").seq();
    let functions = meta.get("functions").get("functions").seq();
    let metrics: Vec<Value> = meta
        .get("metrics")
        .get("metrics")
        .seq()
        .iter()
        .map(|m| {
            json!({
                "name": text(m.get("name")),
                "scopes": m.get("scope_insts").seq().iter().map(|i| json!({
                    "scope": scope(i),
                    "prop_metric_id": int(i.get("prop_metric_id")),
                })).collect::<Vec<_>>(),
                "summaries": m.get("summaries").seq().iter().map(|s| json!({
                    "scope": scope(s),
                    "formula": text(s.get("formula")),
                    "combine": text(s.get("combine")),
                    "stat_metric_id": int(s.get("stat_metric_id")),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut contexts = Vec::new();
    for ep in meta.get("context").get("entry_points").seq() {
        contexts.push(json!({
            "ctx_id": int(ep.get("ctx_id")), "parent": null,
            "entry_point": text(ep.get("entry_point")),
            "relation": null, "lexical_type": null, "function": null, "file": null,
            "line": null, "module": null, "offset": null,
        }));
        // Preorder, iteratively: (node, parent ctx_id), children pushed in reverse.
        let ep_id = ep.get("ctx_id").u64().unwrap();
        let mut stack: Vec<(&Node, u64)> = ep
            .get("children")
            .seq()
            .iter()
            .rev()
            .map(|c| (c, ep_id))
            .collect();
        while let Some((c, parent)) = stack.pop() {
            contexts.push(json!({
                "ctx_id": int(c.get("ctx_id")), "parent": parent, "entry_point": null,
                "relation": text(c.get("relation")),
                "lexical_type": text(c.get("lexical_type")),
                "function": index_of(functions, c.get("function")),
                "file": index_of(files, c.get("file")),
                "line": int(c.get("line")),
                "module": index_of(modules, c.get("module")),
                "offset": int(c.get("offset")),
            }));
            let id = c.get("ctx_id").u64().unwrap();
            stack.extend(c.get("children").seq().iter().rev().map(|k| (k, id)));
        }
    }
    let profiles: Vec<Value> = golden::profiles(golden)
        .iter()
        .map(|p| {
            let id_tuple = match p.get("id_tuple").is_null() {
                true => Value::Null,
                false => Value::Array(
                    p.get("id_tuple")
                        .get("ids")
                        .seq()
                        .iter()
                        .map(|id| {
                            json!({
                                "kind": int(id.get("kind")),
                                "logical_id": int(id.get("logical_id")),
                                "physical_id": int(id.get("physical_id")),
                                "physical": id.get("flags").flags().contains(&"is_physical"),
                            })
                        })
                        .collect(),
                ),
            };
            let values: Vec<Value> = (nested(p.get("values")).into_iter())
                .map(|(ctx, mid, v)| json!([ctx, mid, v]))
                .collect();
            json!({
                "summary": p.get("flags").flags().contains(&"is_summary"),
                "id_tuple": id_tuple,
                "values": values,
            })
        })
        .collect();
    let mut context_values = Vec::new();
    for (i, c) in golden
        .get("context")
        .get("ctx_infos")
        .get("contexts")
        .seq()
        .iter()
        .enumerate()
    {
        for (mid, p, v) in nested(c.get("values")) {
            context_values.push(json!([i, mid, p, v]));
        }
    }
    let trace = match golden.get("trace").is_null() {
        true => Value::Null,
        false => {
            let t = golden.get("trace").get("ctx_traces");
            json!({
                "min": int(t.get("timestamp_range").get("min")),
                "max": int(t.get("timestamp_range").get("max")),
                "lines": t.get("traces").seq().iter().map(|l| json!({
                    "prof_index": int(l.get("prof_index")),
                    "samples": l.get("line").seq().iter().map(|e| json!([
                        e.get("timestamp").u64().unwrap(),
                        e.get("ctx_id").u64().unwrap(),
                    ])).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        }
    };
    json!({
        "format": "hpctoolkit",
        "title": text(meta.get("general").get("title")),
        "id_names": meta.get("id_names").get("names").seq().iter().map(text).collect::<Vec<_>>(),
        "metrics": metrics,
        "modules": modules.iter().map(|m| text(m.get("path"))).collect::<Vec<_>>(),
        "files": files.iter().map(|m| text(m.get("path"))).collect::<Vec<_>>(),
        "functions": functions.iter().map(|f| json!({
            "name": text(f.get("name")),
            "module": index_of(modules, f.get("module")),
            "offset": int(f.get("offset")),
            "file": index_of(files, f.get("file")),
            "line": int(f.get("line")),
        })).collect::<Vec<_>>(),
        "contexts": contexts,
        "profiles": profiles,
        "context_values": context_values,
        "trace": trace,
    })
}

/// Exact comparison; floats by bit pattern. Reports the first difference with its path.
fn diff(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let same = match (x.as_u64(), y.as_u64()) {
                (Some(p), Some(q)) => p == q,
                _ => match (x.as_f64(), y.as_f64()) {
                    (Some(p), Some(q)) => p.to_bits() == q.to_bits(),
                    _ => false,
                },
            };
            (!same).then(|| format!("{path}: {x} != {y}"))
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: length {} != {}", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| diff(&format!("{path}[{i}]"), p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            let kx: Vec<_> = x.keys().collect();
            let ky: Vec<_> = y.keys().collect();
            if kx != ky {
                return Some(format!("{path}: keys {kx:?} != {ky:?}"));
            }
            x.iter()
                .find_map(|(k, p)| diff(&format!("{path}.{k}"), p, &y[k]))
        }
        _ => (a != b).then(|| format!("{path}: {a} != {b}")),
    }
}

#[test]
fn transcripts_match_golden_yaml() {
    let dbs = dirs("v4");
    let mut checked = 0;
    for dir in &dbs {
        let name = dir.file_name().unwrap().to_str().unwrap().to_string();
        let golden = golden::golden(&name).unwrap_or_else(|| panic!("no golden for {name}"));
        let want = expected(&golden);
        let mut got = transcript(&group_of(dir));
        // Formula metrics are hpcscope's values of metrics/default.yaml's formulas, which
        // HPCToolkit's transcript does not have (taxonomy_corpus.rs checks them).
        let formulas = got.as_object_mut().unwrap().remove("formula_metrics");
        assert!(
            formulas.is_some_and(|f| f.is_array()),
            "{name}: no formula_metrics"
        );
        if let Some(d) = diff(&name, &got, &want) {
            panic!("transcript differs from golden: {d}");
        }
        checked += 1;
    }
    if !dbs.is_empty() {
        assert_eq!(checked, 23);
    }
}

#[test]
fn small_transcript_has_exact_values() {
    let Some(c) = corpus() else { return };
    let t = transcript(&group_of(&c.join("v4/hpctoolkit-tests-small.d")));
    assert_eq!(t["title"], "testmeas-small");
    assert_eq!(
        t["contexts"][0],
        json!({"ctx_id":1,"parent":null,"entry_point":"main_thread","relation":null,"lexical_type":null,"function":null,"file":null,"line":null,"module":null,"offset":null})
    );
    assert_eq!(t["contexts"][1]["function"], 2); // main
    assert_eq!(t["profiles"][0]["values"][0], json!([0, 3, 1.210259]));
    assert_eq!(
        t["profiles"][1]["id_tuple"][0],
        json!({"kind":1,"logical_id":0,"physical_id":296485632u64,"physical":true})
    );
    assert_eq!(
        t["trace"]["lines"][0]["samples"].as_array().unwrap().len(),
        13
    );
}

#[test]
fn model_of_small_database() {
    let Some(c) = corpus() else { return };
    let ds = formats::open(&group_of(&c.join("v4/hpctoolkit-tests-small.d"))).unwrap();
    assert_eq!(
        (ds.format.as_str(), ds.layout.as_str()),
        ("hpctoolkit", "v4.0 final")
    );
    ds.cct.check().unwrap();
    assert_eq!(ds.cct.tree.len(), 14); // root + 1 entry point + 12 contexts
    assert_eq!(ds.summary_profile, Some(0));
    assert_eq!(
        ds.profiles[1].label(&ds.id_names),
        "NODE 0 / CORE 0 / THREAD 0"
    );
    let m = &ds.metrics[0];
    assert_eq!(
        (
            m.inclusive(true),
            m.exclusive(true),
            m.inclusive(false),
            m.exclusive(false)
        ),
        (Some(3), Some(1), Some(3), Some(1))
    );
    // Inclusive cost of main (ctx 4) and exclusive cost of the spinsleep loop line (ctx 2).
    let main = ds.cct.node_of_ctx(4).unwrap();
    let line = ds.cct.node_of_ctx(2).unwrap();
    assert_eq!(ds.frame_name(main), "main");
    let summary = ds.data.profile_values(0).unwrap();
    assert_eq!(summary.get(main, 3), 1.210259);
    assert_eq!(summary.get(line, 1), 0.605316);
    let thread = ds.data.profile_values(1).unwrap();
    assert_eq!(thread.get(main, 3), 1.210259);
    assert_eq!(
        ds.data.context_values(main).unwrap(),
        vec![(1, 3, 1.210259)]
    );
    let t = ds.trace.as_ref().unwrap();
    assert_eq!(
        (t.min_time, t.max_time),
        (Some(1714021984008891000), Some(1714021985220628000))
    );
    assert_eq!((t.lines[0].prof_index, t.lines[0].samples), (1, 13));
    let s = ds.data.trace_samples(0, 1, 2).unwrap();
    assert_eq!(s[0].time, 1714021984109735000);
    assert_eq!(ds.cct.ctx_id[s[0].node as usize], 9);
    assert_eq!(ds.data.trace_find(0, 1714021984109735000).unwrap(), Some(1));
    assert_eq!(ds.data.trace_find(0, 1714021984109734999).unwrap(), Some(0));
    assert_eq!(ds.data.trace_find(0, 0).unwrap(), None);
    assert!(ds.facts.contains(&("trace samples".into(), "13".into())));
}

#[test]
fn empty_trace_sentinels_become_none() {
    let Some(c) = corpus() else { return };
    let ds = formats::open(&group_of(&c.join("v4/hpcviewer-d.x"))).unwrap();
    let t = ds.trace.as_ref().unwrap();
    assert_eq!((t.min_time, t.max_time), (None, None));
}

#[test]
fn drafts_open_and_report_layout() {
    let want = [
        ("hpcviewer-loop-inline", "v4.0 draft (April 2022)"),
        ("small-apr2022", "v4.0 draft (April 2022)"),
        ("small-may2022", "v4.0 draft (May 2022)"),
    ];
    let dbs = dirs("v4-draft");
    for dir in &dbs {
        let name = dir.file_name().unwrap().to_str().unwrap();
        let layout = want
            .iter()
            .find(|w| w.0 == name)
            .map(|w| w.1)
            .unwrap_or_else(|| panic!("unexpected draft {name}"));
        let g = group_of(dir);
        assert_eq!(hpctoolkit::detect_layout(&g).unwrap(), layout);
        let ds = formats::open(&g).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ds.layout, layout);
        ds.cct.check().unwrap();
        assert!(ds.cct.tree.len() > 1 && !ds.metrics.is_empty() && ds.summary_profile == Some(0));
        // Every profile reads, and the summary's root value is the sum of the threads'.
        for p in 0..ds.profiles.len() {
            ds.data.profile_values(p).unwrap();
        }
        let _ = transcript(&g);
    }
    if !dbs.is_empty() {
        let ds = formats::open(&group_of(&dirs("v4-draft")[1])).unwrap();
        assert_eq!(ds.title, "foo");
    }
}

#[test]
fn every_final_database_reports_final_layout() {
    for dir in dirs("v4") {
        assert_eq!(
            hpctoolkit::detect_layout(&group_of(&dir)).unwrap(),
            "v4.0 final",
            "{}",
            dir.display()
        );
    }
}

fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = ["meta.db", "profile.db", "cct.db", "trace.db"]
        .iter()
        .filter_map(|f| {
            std::fs::read(dir.join(f))
                .ok()
                .map(|b| (format!("db/{f}"), b))
        })
        .collect();
    v.sort();
    v
}

fn open_files(files: &[(String, Vec<u8>)]) -> hpcscope::Result<hpcscope::model::Dataset> {
    let inputs = files
        .iter()
        .map(|(p, b)| InputFile::from_vec(p.as_str(), b.clone()))
        .collect();
    let (groups, _) = formats::group(inputs);
    let g = groups
        .into_iter()
        .next()
        .ok_or_else(|| hpcscope::Error::unrecognized("db", "no group"))?;
    let ds = hpctoolkit::open(&g)?;
    // Touch every lazy part a viewer would.
    for p in 0..ds.profiles.len().min(4) {
        let _ = ds.data.profile_values(p);
    }
    for n in 0..ds.cct.tree.len().min(8) as u32 {
        let _ = ds.data.context_values(n);
    }
    if let Some(t) = &ds.trace {
        for l in 0..t.lines.len().min(4) {
            let _ = ds.data.trace_samples(l, 0, 100);
            let _ = ds.data.trace_find(l, u64::MAX / 2);
        }
    }
    Ok(ds)
}

/// A damaged database reads at most this many times the bytes the whole one does (counted).
const MAX_READ_RATIO: u64 = 4;

#[test]
fn truncated_and_flipped_files_never_panic() {
    let Some(c) = corpus() else { return };
    for name in [
        "v4/hpctoolkit-tests-small.d",
        "v4/hpcviewer-d.x",
        "v4-draft/small-apr2022",
        "v4-draft/small-may2022",
    ] {
        let files = files_of(&c.join(name));
        let (opened, base) = common::bytes_read(|| open_files(&files));
        assert!(opened.is_ok(), "{name}");
        let open_files = |f: &[(String, Vec<u8>)], what: String| {
            common::read_at_most(base, MAX_READ_RATIO, &what, || open_files(f))
        };
        for k in 0..files.len() {
            let len = files[k].1.len();
            // Truncations at many lengths (every length for the first 256 bytes, then a stride).
            let cuts: Vec<usize> = (0..len.min(256)).chain((256..len).step_by(37)).collect();
            for cut in cuts {
                let mut f = files.clone();
                f[k].1.truncate(cut);
                let _ = open_files(&f, format!("{name}: {} cut at {cut}", f[k].0));
            }
            // Flipped bytes: every byte of the headers, then a stride through the rest.
            let flips: Vec<usize> = (0..len.min(0x100))
                .chain((0x100..len).step_by(13))
                .collect();
            for at in flips {
                for mask in [0xffu8, 0x80] {
                    let mut f = files.clone();
                    f[k].1[at] ^= mask;
                    let what = format!("{name}: {} with {mask:#x} at {at:#x}", f[k].0);
                    let _ = open_files(&f, what);
                }
            }
        }
    }
}

#[test]
fn huge_counts_fail_fast() {
    let Some(c) = corpus() else { return };
    let files = files_of(&c.join("v4/hpctoolkit-tests-small.d"));
    let (_, base) = common::bytes_read(|| open_files(&files));
    let open_files = |f: &[(String, Vec<u8>)]| {
        common::read_at_most(base, MAX_READ_RATIO, "huge count", || open_files(f))
    };
    // profile.db: nProfiles = 2^32-1 at pProfileInfos+8; meta.db: nMetrics; cct.db: nCtxs.
    for (file, ptr_at, field) in [
        ("db/profile.db", 0x18usize, 8usize),
        ("db/meta.db", 0x38, 8),
        ("db/cct.db", 0x18, 8),
    ] {
        let mut f = files.clone();
        let k = f.iter().position(|x| x.0 == file).unwrap();
        let sec = u64::from_le_bytes(f[k].1[ptr_at..ptr_at + 8].try_into().unwrap()) as usize;
        f[k].1[sec + field..sec + field + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let r = open_files(&f);
        if file == "db/cct.db" {
            // A damaged cct.db is left out with a warning.
            assert!(r
                .unwrap()
                .warnings
                .iter()
                .any(|w| w.to_string().contains("cct.db")));
        } else {
            assert!(r.is_err(), "{file}");
        }
    }
    // A value block claiming 2^60 values.
    let mut f = files.clone();
    let k = f.iter().position(|x| x.0 == "db/profile.db").unwrap();
    let sec = u64::from_le_bytes(f[k].1[0x18..0x20].try_into().unwrap()) as usize;
    let p_profiles = u64::from_le_bytes(f[k].1[sec..sec + 8].try_into().unwrap()) as usize;
    f[k].1[p_profiles..p_profiles + 8].copy_from_slice(&(1u64 << 60).to_le_bytes());
    assert!(open_files(&f).is_err());
}

#[test]
fn files_of_different_runs_are_refused() {
    let Some(c) = corpus() else { return };
    let a = files_of(&c.join("v4/hpctoolkit-tests-small.d"));
    let loops = files_of(&c.join("v4/hpctoolkit-tests-loops-cputime-t.d"));
    let nostruct = files_of(&c.join("v4/hpctoolkit-tests-small.nostruct.d"));
    let mut accepted = Vec::new();
    for (donor_name, donor) in [("loops", &loops), ("nostruct", &nostruct)] {
        for name in ["db/profile.db", "db/cct.db", "db/trace.db"] {
            let mut f = a.clone();
            let k = f.iter().position(|x| x.0 == name).unwrap();
            f[k].1 = donor.iter().find(|x| x.0 == name).unwrap().1.clone();
            match open_files(&f) {
                Err(e) => {
                    assert_eq!(e.kind, hpcscope::ErrorKind::Mismatch, "{name}: {e}");
                    assert!(e.to_string().contains("different runs"), "{e}");
                }
                Ok(_) => accepted.push(format!("{name} from {donor_name}")),
            }
        }
    }
    // The one swap that cannot be told: the trace of another analysis of the same measurement
    // (same threads) whose samples happen to name ids (1, 2) that this meta.db also has.
    assert_eq!(accepted, vec!["db/trace.db from nostruct".to_string()]);
}

#[test]
fn summary_metric_ids_must_be_declared_by_meta_db() {
    let Some(c) = corpus() else { return };
    let files = files_of(&c.join("v4/hpctoolkit-tests-small.d"));
    let k = files.iter().position(|x| x.0 == "db/profile.db").unwrap();
    let p = &files[k].1;
    let u64_at = |o: usize| u64::from_le_bytes(p[o..o + 8].try_into().unwrap());
    let sec = u64_at(0x18) as usize;
    let (p_profiles, n_profiles, sz) = (
        u64_at(sec) as usize,
        u32::from_le_bytes(p[sec + 8..sec + 12].try_into().unwrap()) as usize,
        p[sec + 0x0c] as usize,
    );
    // The summary profile's record (flags bit 0), its first and last stored values.
    let rec = (0..n_profiles)
        .map(|i| p_profiles + i * sz)
        .find(|&r| p[r + 0x28] & 1 != 0)
        .unwrap();
    let (n_values, p_values) = (u64_at(rec) as usize, u64_at(rec + 8) as usize);
    assert!(n_values > 1);
    assert!(open_files(&files).is_ok());
    for value in [0, n_values - 1] {
        let mut f = files.clone();
        let at = p_values + value * 10;
        f[k].1[at..at + 2].copy_from_slice(&0xfffeu16.to_le_bytes());
        let Err(e) = open_files(&f) else {
            panic!("value {value} with an undeclared metric id was accepted")
        };
        assert_eq!(e.kind, hpcscope::ErrorKind::Mismatch, "{e}");
        assert!(
            e.to_string()
                .contains("metric id 65534, which meta.db does not declare"),
            "{e}"
        );
    }
}
