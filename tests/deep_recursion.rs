//! A 100,000-deep call path, in a generated HPCToolkit database (`SynthSpec::chain`) and a
//! generated uftrace recording (`synth::uftrace::deep_recording`): both open, the tree passes its
//! integrity check, and everything the views ask for (flame layout, tables, timeline) is computed
//! on the default 2 MB test-thread stack, so no step may recurse per level.

use hpcscope::analysis::flame::Viewport;
use hpcscope::analysis::profile::{ProfileView, TableKind, TableWindow};
use hpcscope::analysis::table::MAX_EXPAND_WORK;
use hpcscope::analysis::timeline::view::{self as tl, TimelineCache};
use hpcscope::formats::{self, uftrace, InputFile};
use hpcscope::model::Dataset;
use hpcscope::synth::uftrace::deep_recording;
use hpcscope::synth::{SynthDb, SynthSpec};
use hpcscope::work::{self, Work};

mod common;
use common::open_files;

const DEPTH: u32 = 100_000;
/// Instances a bounded bulk table operation may look at: each one regrouped under the budget is
/// also looked at by the test for children (a row's whole chain, quadratic, would be 5e9).
const BOUNDED_WORK: u64 = 3 * MAX_EXPAND_WORK as u64;

/// Deepest node and its depth.
fn deepest(ds: &Dataset) -> (u32, u32) {
    let (i, d) = ds
        .cct
        .tree
        .depth
        .iter()
        .enumerate()
        .max_by_key(|&(_, d)| *d)
        .unwrap();
    (i as u32, *d)
}

/// Runs what the views ask for and checks the deep path is reachable in each.
/// Context `cct`'s row of the `kind` table, revealed (its ancestors expanded) and read back.
fn revealed_row(pv: &mut ProfileView, ds: &Dataset, kind: TableKind, cct: u32) -> TableWindow {
    let row = pv.table_reveal(ds, kind, cct).unwrap().unwrap();
    pv.table_window(ds, kind, row as usize, 1).unwrap()
}

fn render_everything(ds: &Dataset, want_depth: u32, frames: &str) {
    let mut t = Laps(std::time::Instant::now());
    let mut pv = ProfileView::new(ds);
    let meta = pv.meta(ds);
    assert!(!meta.metrics.is_empty());
    for merged in [false, true] {
        pv.flame_config(ds, 0, merged, true).unwrap();
        let max = pv.flame_max_depth();
        assert!(max >= DEPTH, "flame depth {max} (merged {merged})");
        // The whole graph at once, and a window at the bottom of the chain.
        let all = Viewport {
            x0: 0.0,
            x1: 1.0,
            depth0: 0,
            depth1: max + 1,
            width_px: 1200.0,
            min_width_px: 0.0,
        };
        let w = pv.flame_layout(ds, 0, &all).unwrap().frames.rects;
        assert!(!w.node.is_empty());
        t.lap("flame layout");
        // Zoomed 40 frames above the bottom of the chain, the rest of it is laid out.
        let (leaf, _) = deepest(ds);
        let path = ds.cct.tree.path(leaf);
        let zoom = path[..path.len() - 80]
            .iter()
            .rev()
            .copied()
            .find(|&n| ds.cct.frame[n as usize].code.function.is_some())
            .unwrap();
        let w = pv.flame_layout(ds, zoom, &all).unwrap().frames.rects;
        let low = w.depth.iter().copied().min().unwrap();
        let high = w.depth.iter().copied().max().unwrap();
        let bottom = w
            .node
            .iter()
            .any(|&n| n == leaf || ds.cct.tree.parent[leaf as usize] == n);
        assert!(
            high - low >= 39 && bottom,
            "zoomed rows {low}..={high} of {max}"
        );
        t.lap("zoomed layout");
    }
    let (leaf, _) = deepest(ds);
    let path = pv.flame_path(leaf).len() as u32;
    assert!(
        path >= DEPTH,
        "breadcrumb of the deepest node: {path} frames"
    );
    pv.node_info(ds, leaf, 0).unwrap();
    t.lap("path, info");
    for kind in [TableKind::TopDown, TableKind::BottomUp, TableKind::Flat] {
        let n = pv.table_len(ds, kind).unwrap();
        assert!(n > 0);
        // Expanding a callers row costs its instances, and a recursion's rows hold depth minus
        // level instances each: fully expanded, the bottom-up table of a 100,000-deep recursion
        // is quadratic (hpcviewer's too), so it is expanded as far as a reader would scroll.
        let budget = if kind == TableKind::BottomUp {
            20
        } else {
            300_000
        };
        let rows = pv.table_expand_all(ds, kind, budget).unwrap();
        let win = pv.table_window(ds, kind, 0, rows as usize).unwrap();
        assert_eq!(win.rows.node.len() as u32, rows);
        if kind == TableKind::TopDown {
            // Revealing the deepest context expands the whole chain down to it.
            let w = revealed_row(&mut pv, ds, kind, leaf);
            assert!(w.cct[0] == leaf || w.cct[0] == ds.cct.tree.parent[leaf as usize]);
            let depth = w.rows.depth[0];
            assert!(depth >= DEPTH, "top-down row depth {depth}");
        }
        if kind == TableKind::Flat || kind == TableKind::BottomUp {
            assert!(
                win.labels.iter().any(|l| l.contains(frames)),
                "{kind:?} lists {frames}"
            );
        }
        t.lap(&format!("table {kind:?}"));
    }
    let _ = pv.table_hot_path(ds, TableKind::TopDown, 0, 0.05).unwrap();
    let _ = pv.search(ds, frames, false, false);
    t.lap("hot path, search");

    // Timeline: the deepest call path in force, the frame at the chain's bottom, the depth view.
    let mut cache = TimelineCache::default();
    let meta = cache.meta(ds).clone();
    t.lap("timeline meta");
    assert_eq!(meta.status, "ok");
    assert!(
        meta.max_depth >= want_depth,
        "timeline depth {}",
        meta.max_depth
    );
    let rows: Vec<u32> = meta.rows.iter().map(|r| r.line).collect();
    let d = meta.duration_ns;
    for depth in [0, meta.max_depth - 1] {
        let req = tl::FrameRequest {
            rows: &rows,
            t0_ns: 0.0,
            t1_ns: d,
            width: 200,
            height: 100,
            depth,
        };
        let f = tl::frame_packed(ds, &mut cache, &req).unwrap();
        assert_eq!(f[0], 200);
    }
    t.lap("timeline frame");
    let mut deepest_path = 0;
    for k in 0..10 {
        let cp = tl::call_path(ds, &mut cache, rows[0], d * k as f64 / 10.0).unwrap();
        deepest_path = deepest_path.max(cp.frames.len() as u32);
    }
    assert!(
        deepest_path >= DEPTH,
        "deepest timeline call path {deepest_path}"
    );
    t.lap("call paths");
    // The depth view shows the top levels of one line.
    let w = tl::LineWindow {
        line: rows[0],
        t0_ns: 0.0,
        t1_ns: d,
        width: 200,
    };
    let q = tl::depth_packed(ds, &mut cache, &w, 16).unwrap();
    assert!(q.len() >= 4 * 16);
    let _ = tl::summary_packed(&mut cache);
    t.lap("depth view");
}

struct Laps(std::time::Instant);
impl Laps {
    fn lap(&mut self, what: &str) {
        eprintln!("{what}: {:.2} s", self.0.elapsed().as_secs_f64());
        self.0 = std::time::Instant::now();
    }
}

#[test]
fn hpctoolkit_database_with_a_100000_deep_chain() {
    let ds = chain_db();
    ds.cct.check().unwrap();
    let (_, depth) = deepest(&ds);
    // root, main-thread entry, main, call site, then (recurse, line) per frame.
    assert_eq!(depth, 3 + 2 * DEPTH);
    let recurse = ds
        .functions
        .iter()
        .position(|f| f.name == "recurse")
        .unwrap();
    let calls = ds
        .cct
        .frame
        .iter()
        .filter(|f| f.code.function == Some(recurse as u32))
        .count();
    assert_eq!(calls as u32, DEPTH);
    render_everything(&ds, DEPTH, "recurse");
}

#[test]
fn uftrace_recording_100000_calls_deep() {
    let ds = open_files("uftrace.data", deep_recording(DEPTH));
    assert_eq!(ds.format, "uftrace");
    ds.cct.check().unwrap();
    let (_, depth) = deepest(&ds);
    assert_eq!(depth, DEPTH + 1, "main at 1, recurse at 2..");
    render_everything(&ds, DEPTH, "recurse");
}

/// `uftrace report` numbers of the deep recording, computed by hand from the record times.
#[test]
fn uftrace_report_of_the_deep_recording() {
    let files = deep_recording(DEPTH);
    let inputs: Vec<InputFile> = files
        .into_iter()
        .map(|(name, bytes)| InputFile::from_vec(format!("uftrace.data/{name}"), bytes))
        .collect();
    let (groups, _) = formats::group(inputs);
    let (_, rep) = uftrace::open_report(&groups[0]).unwrap();
    let row = rep
        .functions
        .iter()
        .find(|r| r.function == "recurse")
        .unwrap();
    assert_eq!(row.calls, DEPTH as u64);
    // Records are 100 ns apart: a frame lasts 200 ns longer than its callee, the innermost
    // 100 ns, so self time is 200 ns per frame but 100 for the innermost.
    assert_eq!(row.self_ns, 200 * (DEPTH as u64 - 1) + 100);
    let main = rep.functions.iter().find(|r| r.function == "main").unwrap();
    assert_eq!((main.calls, main.self_ns), (1, 200));
    assert_eq!(main.total_ns, (2 * DEPTH as u64 + 1) * 100);
}

/// The generated database's chain: `main -> recurse x DEPTH`, one sampled line at the bottom.
fn chain_db() -> Dataset {
    let spec = SynthSpec {
        ranks: 1,
        threads: 1,
        contexts: 60,
        metrics: 1,
        samples: 400,
        chain: DEPTH,
        ..SynthSpec::default()
    };
    open_files("deep.d", SynthDb::new(&spec).unwrap().to_files())
}

/// Bottom-up "expand all" (as the page asks: up to 100,000 rows) and the hot path on the
/// recursion: callers row k of `recurse` holds DEPTH - k instances, so both are bounded by a
/// work budget, and the rows they open carry the chain's values. On a chain every `recurse`
/// row's instances include the innermost call, which alone has a sample (value L): each shows
/// L inclusive and L exclusive; the `main` row below callers level k stands for call k + 1,
/// whose subtree holds the sample but no exclusive cost of its own.
#[test]
fn bottom_up_expand_all_on_the_100000_deep_chain() {
    let ds = chain_db();
    let mut pv = ProfileView::new(&ds);
    pv.meta(&ds);
    // L: the inclusive value of the outermost and of the innermost `recurse` (top-down).
    let (leaf, _) = deepest(&ds);
    let mut top_value = |cct: u32| {
        let w = revealed_row(&mut pv, &ds, TableKind::TopDown, cct);
        (w.values[0], w.values[1])
    };
    let innermost = ds.cct.tree.parent[leaf as usize];
    let path = ds.cct.tree.path(leaf);
    let outermost = *path
        .iter()
        .find(|&&n| ds.frame_name(n) == "recurse")
        .unwrap();
    let (l, _) = top_value(leaf);
    assert!(l > 0.0);
    assert_eq!(top_value(innermost).0, l);
    assert_eq!(
        top_value(outermost).0,
        l,
        "nothing else is sampled on the chain"
    );

    let (rows, regrouped) = work::count(Work::TreeNodes, || {
        pv.table_expand_all(&ds, TableKind::BottomUp, 100_000)
            .unwrap()
    });
    assert!(
        regrouped <= BOUNDED_WORK,
        "expand all regrouped {regrouped} instances"
    );
    let w = pv
        .table_window(&ds, TableKind::BottomUp, 0, rows as usize)
        .unwrap();
    let top = (0..w.rows.node.len())
        .find(|&r| w.rows.depth[r] == 1 && w.labels[r] == "recurse")
        .unwrap();
    let mut deepest_recurse = 0;
    let mut mains = 0;
    for r in top..w.rows.node.len() {
        if r > top && w.rows.depth[r] <= 1 {
            break;
        }
        let (incl, excl) = (w.values[2 * r], w.values[2 * r + 1]);
        match w.labels[r].as_str() {
            "recurse" => {
                assert_eq!((incl, excl), (l, l), "row {r} depth {}", w.rows.depth[r]);
                deepest_recurse = deepest_recurse.max(w.rows.depth[r]);
            }
            "main" => {
                assert_eq!((incl, excl), (l, 0.0), "row {r} depth {}", w.rows.depth[r]);
                mains += 1;
            }
            other => panic!("unexpected caller {other} at row {r}"),
        }
    }
    // Each callers level of `recurse` shows `recurse` and `main`; the budget opens tens of
    // levels (4,000,000 instances at 100,000 a level), not the quadratic whole.
    assert!(
        (30..=45).contains(&deepest_recurse),
        "expanded {deepest_recurse} levels"
    );
    assert_eq!(mains, deepest_recurse - 1);
    eprintln!("bottom-up expand all: {rows} rows, {deepest_recurse} levels, {regrouped} instances");

    // The hot path down the callers of `recurse` is bounded the same way.
    let (end, regrouped) = work::count(Work::TreeNodes, || {
        pv.table_hot_path(&ds, TableKind::BottomUp, top, 0.5)
            .unwrap()
    });
    assert!(
        regrouped <= BOUNDED_WORK,
        "hot path regrouped {regrouped} instances"
    );
    let w = pv
        .table_window(&ds, TableKind::BottomUp, end as usize, 1)
        .unwrap();
    assert_eq!(w.values[0], l);
}

/// Exports of both deep datasets, timed: each is linear in its output or refuses at once.
#[test]
fn exports_of_the_deep_chains() {
    use hpcscope::export::{export, Format};
    let ds = chain_db();
    let (leaf, _) = deepest(&ds);
    let mut pv = ProfileView::new(&ds);
    pv.meta(&ds);
    let l = revealed_row(&mut pv, &ds, TableKind::TopDown, leaf).values[0];
    let mut t = Laps(std::time::Instant::now());
    // Folded: the chain's sampled line, under DEPTH `recurse` frames.
    let folded = export(&ds, Format::Folded, 0).unwrap();
    let line = folded.lines().max_by_key(|l| l.len()).unwrap();
    let (stack, value) = line.rsplit_once(' ').unwrap();
    let frames: Vec<&str> = stack.split(';').collect();
    assert_eq!(
        frames.iter().filter(|&&f| f == "recurse").count(),
        DEPTH as usize
    );
    assert_eq!(value.parse::<f64>().unwrap(), l);
    t.lap("folded");
    // Speedscope: the longest sample's stack is the chain.
    let json = export(&ds, Format::Speedscope, 0).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = v["shared"]["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    let samples = v["profiles"][0]["samples"].as_array().unwrap();
    let longest = samples
        .iter()
        .map(|s| s.as_array().unwrap())
        .max_by_key(|s| s.len())
        .unwrap();
    let deep = longest
        .iter()
        .filter(|f| names[f.as_u64().unwrap() as usize] == "recurse")
        .count();
    assert_eq!(deep, DEPTH as usize);
    t.lap("speedscope");
    let chrome = export(&ds, Format::Chrome, 0).unwrap();
    // A count of the event text, not a parse: 1,000,000 events take seconds to parse unoptimised.
    let calls = chrome.matches("{\"name\":\"recurse\",").count();
    // Each stay of a trace line in the chain's line opens the whole chain; the spans stop at
    // the export's budget, and the note says so.
    assert!(calls > 0 && calls <= 1_000_000, "{calls} recurse spans");
    assert!(chrome.contains("1000000 spans in all"));
    t.lap("chrome");

    // The uftrace recording has self time at every level: its folded and sampled-speedscope
    // texts would be O(DEPTH^2) (tens of gigabytes) and are refused before any is written;
    // the Chrome trace is one span per call.
    let ds = open_files("uftrace.data", deep_recording(DEPTH));
    let e = export(&ds, Format::Folded, 0).unwrap_err();
    assert!(e.to_string().contains("too deep"), "{e}");
    let e = export(&ds, Format::Speedscope, 0).unwrap_err();
    assert!(e.to_string().contains("too deep"), "{e}");
    t.lap("uftrace folded, speedscope refused");
    let chrome = export(&ds, Format::Chrome, 0).unwrap();
    let v: serde_json::Value = serde_json::from_str(&chrome).unwrap();
    let ev = v["traceEvents"].as_array().unwrap();
    let calls = ev.iter().filter(|e| e["name"] == "recurse").count();
    assert_eq!(calls, DEPTH as usize);
    // The innermost call lasts 100 ns (records are 100 ns apart). The recording has
    // 2 * DEPTH + 2 samples, over the 200,000 read per line: the outermost call's end (the
    // second to last record) is not read, so it ends at the trace's end, 2 * DEPTH steps after
    // its start.
    let durs: Vec<f64> = ev
        .iter()
        .filter(|e| e["name"] == "recurse")
        .map(|e| e["dur"].as_f64().unwrap())
        .collect();
    let min = durs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = durs.iter().copied().fold(0.0, f64::max);
    assert_eq!(min, 0.1);
    assert_eq!(max, (2 * DEPTH as u64) as f64 * 0.1);
    t.lap("uftrace chrome");
}
