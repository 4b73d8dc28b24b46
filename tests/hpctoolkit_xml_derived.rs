//! View formulas of XML-era databases (`<MetricFormula t="view">`, columns hpcviewer computes when
//! shown) in `hpcscope dump --json`'s `formula_metrics`, against values recomputed here
//! independently: the raw values are scanned from the experiment.xml text (and the metric-db files
//! for per-thread values), and each formula the databases hold is applied by hand with
//! hpcviewer.e4's rules (`MetricVarMap`: `$n` the column with id n, `#n` the column of order n, 0
//! when none; in an exclusive column `#n` is column n's value where its partner has one; a view
//! column read by another is its own formula; graphbuilder's division by 0 gives 0).
//! The corpus database hpcviewer-acc_f3 (`#44/#62`, `100*(#47/#48)`) is skipped without
//! ../shared; the generated database (`hpcscope fixture xml`) always runs, per thread too.

use std::collections::HashMap;
use std::path::Path;

mod common;

/// One `<Metric>` of the MetricTable, as the text states it.
#[derive(Debug)]
struct Col {
    id: u32,
    name: String,
    order: Option<i64>,
    exclusive: bool,
    partner: Option<u32>,
    view: Option<String>,
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let tag = format!(" {tag}");
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    let end = tag[at..].find('"')?;
    Some(tag[at..at + end].to_string())
}

fn columns(xml: &str) -> Vec<Col> {
    let table = &xml[xml.find("<MetricTable>").unwrap()..xml.find("</MetricTable>").unwrap()];
    table
        .split("<Metric ")
        .skip(1)
        .map(|m| {
            let tag = &m[..m.find('>').unwrap()];
            let view = m
                .split("<MetricFormula ")
                .skip(1)
                .find(|f| attr(f, "t").as_deref() == Some("view"))
                .and_then(|f| attr(f, "frm"));
            Col {
                id: attr(tag, "i").unwrap().parse().unwrap(),
                name: attr(tag, "n").unwrap(),
                order: attr(tag, "o")
                    .and_then(|o| o.parse().ok())
                    .filter(|&o: &i64| o >= 0),
                exclusive: attr(tag, "t").as_deref() == Some("exclusive"),
                partner: attr(tag, "partner").and_then(|p| p.parse().ok()),
                view,
            }
        })
        .collect()
}

/// The value `summary_values` found in column `col` of context `ctx` (0 when none).
fn stored(vals: &HashMap<u32, HashMap<u32, f64>>, ctx: u32, col: u32) -> f64 {
    vals.get(&ctx)
        .and_then(|m| m.get(&col))
        .copied()
        .unwrap_or(0.0)
}

/// `<M n v>` values by scope id (0 for those before the first scope: the root's) and column.
fn summary_values(xml: &str) -> HashMap<u32, HashMap<u32, f64>> {
    let data = &xml[xml.find("<SecCallPathProfileData>").unwrap()..];
    let mut out: HashMap<u32, HashMap<u32, f64>> = HashMap::new();
    let mut open: Vec<u32> = Vec::new();
    for piece in data.split('<').skip(1) {
        let tag = &piece[..piece.find('>').unwrap()];
        let name = tag.split([' ', '/']).next().unwrap();
        if let Some(closing) = tag.strip_prefix('/') {
            if ["PF", "Pr", "L", "C", "S", "A"].contains(&closing) {
                open.pop();
            }
        } else if name == "M" {
            let scope = open.last().copied().unwrap_or(0);
            let (n, v) = (attr(tag, "n").unwrap(), attr(tag, "v").unwrap());
            out.entry(scope)
                .or_default()
                .insert(n.parse().unwrap(), v.parse().unwrap());
        } else if ["PF", "Pr", "L", "C", "S", "A"].contains(&name) {
            open.push(attr(tag, "i").unwrap().parse().unwrap());
            if tag.ends_with('/') {
                open.pop();
            }
        }
    }
    out
}

/// hpcviewer's value of column `c` where `stored(col)` gives the stored values.
fn value(cols: &[Col], c: &Col, stored: &dyn Fn(u32) -> f64) -> f64 {
    let Some(frm) = &c.view else {
        return stored(c.id);
    };
    let by_id = |id: u32| cols.iter().find(|k| k.id == id).unwrap();
    let dollar = |n: u32| value(cols, by_id(n), stored);
    // `#n`: the column of order n; for an exclusive column, its value where its partner has one.
    let hash = |n: i64| -> f64 {
        let Some(b) = cols.iter().rev().find(|k| k.order == Some(n)) else {
            return 0.0;
        };
        if c.exclusive {
            let Some(p) = b.partner else { return 0.0 };
            if value(cols, by_id(p), stored) != 0.0 {
                value(cols, b, stored)
            } else {
                0.0
            }
        } else if b.id == c.id {
            0.0
        } else {
            value(cols, b, stored)
        }
    };
    let div = |a: f64, b: f64| if b != 0.0 { a / b } else { 0.0 };
    let nums: Vec<i64> = frm
        .split(|ch: char| !ch.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    // The formulas of the databases tested, each written out by hand.
    let shape: String = frm
        .chars()
        .map(|ch| if ch.is_ascii_digit() { '9' } else { ch })
        .collect();
    match shape.as_str() {
        "#99/#99" => div(hash(nums[0]), hash(nums[1])),
        "999*(#99/#99)" => 100.0 * div(hash(nums[1]), hash(nums[2])),
        "999*$9/$9" => div(100.0 * dollar(3), dollar(2)),
        "999*#9/$9" => div(100.0 * hash(0), dollar(2)),
        "max(9999*$9, 9)" => (1000.0 * dollar(2)).max(0.0),
        "#9/999" => div(hash(1), 100.0),
        _ => panic!("formula {frm} not written out in this test"),
    }
}

/// The base name of a column ("GKER:STMEM (B)" of "GKER:STMEM (B):Sum (I)").
fn base(name: &str) -> &str {
    let n = name
        .strip_suffix(" (I)")
        .or(name.strip_suffix(" (E)"))
        .unwrap_or(name);
    n.strip_suffix(":Sum").unwrap_or(n)
}

fn dump(dir: &Path) -> serde_json::Value {
    let inputs = hpcscope::cli::read_inputs(dir).unwrap();
    let (groups, _) = hpcscope::formats::group(inputs);
    assert_eq!(groups.len(), 1);
    let mut out = Vec::new();
    hpcscope::cli::dump::write_json(&groups[0], &mut out).unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// Compares `formula_metrics` of profile `prof` with the values of every view column computed
/// from `stored(ctx, col)` at the contexts `ctxs`. Returns how many non-zero values matched.
fn check(
    j: &serde_json::Value,
    cols: &[Col],
    prof: u64,
    ctxs: &[u32],
    stored: &dyn Fn(u32, u32) -> f64,
) -> usize {
    let fm = j["formula_metrics"].as_array().unwrap();
    let mut nonzero = 0;
    for c in cols.iter().filter(|c| c.view.is_some()) {
        let name = base(&c.name);
        let m = fm
            .iter()
            .find(|m| m["name"] == name)
            .unwrap_or_else(|| panic!("{name} not in formula_metrics"));
        let mut got: HashMap<u32, f64> = HashMap::new();
        for v in m["values"].as_array().unwrap() {
            if v[0].as_u64() == Some(prof) {
                let x = v[if c.exclusive { 3 } else { 2 }].as_f64().unwrap();
                got.insert(v[1].as_u64().unwrap() as u32, x);
            }
        }
        for &ctx in ctxs {
            let want = value(cols, c, &|col| stored(ctx, col));
            let have = got.get(&ctx).copied().unwrap_or(0.0);
            let tol = 1e-12 * want.abs().max(have.abs());
            assert!(
                (want - have).abs() <= tol,
                "{} at ctx {ctx} of profile {prof}: want {want}, dump has {have}",
                c.name
            );
            nonzero += (want != 0.0) as usize;
        }
    }
    nonzero
}

#[test]
fn corpus_acc_f3_view_formulas() {
    let Some(dir) = common::corpus_dir("hpctoolkit/xml/hpcviewer-acc_f3") else {
        return;
    };
    let xml = std::fs::read_to_string(dir.join("experiment.xml")).unwrap();
    let cols = columns(&xml);
    assert_eq!(cols.iter().filter(|c| c.view.is_some()).count(), 20);
    let vals = summary_values(&xml);
    let mut ctxs: Vec<u32> = vals.keys().copied().collect();
    ctxs.sort();
    let j = dump(&dir);
    assert_eq!(j["formula_metrics"].as_array().unwrap().len(), 10);
    let n = check(&j, &cols, 0, &ctxs, &|ctx, col| stored(&vals, ctx, col));
    // GPU kernel launches: their static/dynamic/local memory per launch, threads per block ...
    assert!(n >= 40, "only {n} non-zero formula values checked");
}

#[test]
fn generated_database_view_formulas_per_thread() {
    let dir = std::env::temp_dir().join(format!("hpcscope-xml-derived-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let spec = hpcscope::synth::hpctoolkit_xml::XmlDbSpec {
        threads: 3,
        scopes: 600,
        trace_records: 10,
        seed: 7,
    };
    for (name, bytes) in hpcscope::synth::hpctoolkit_xml::database(&spec) {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let xml = std::fs::read_to_string(dir.join("experiment.xml")).unwrap();
    let cols = columns(&xml);
    assert_eq!(cols.iter().filter(|c| c.view.is_some()).count(), 4);
    let vals = summary_values(&xml);
    let ctxs: Vec<u32> = std::iter::once(0).chain(2..602).collect();
    let j = dump(&dir);
    assert!(j["formula_metrics"].as_array().unwrap().len() == 3);
    let n = check(&j, &cols, 0, &ctxs, &|ctx, col| stored(&vals, ctx, col));
    assert!(n > 300, "only {n} non-zero summary values checked");
    // Per thread: the metric-db rows (big-endian f64, columns 0 = inclusive and 1 = exclusive
    // CPUTIME, summary columns 2 and 3); row r is scope id r + 1, id 1 the root (ctx 0).
    let profiles = j["profiles"].as_array().unwrap();
    let mut threads = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let fname = p.file_name().unwrap().to_string_lossy().into_owned();
        if !fname.ends_with(".metric-db") {
            continue;
        }
        let parts: Vec<&str> = fname.split('-').collect();
        let (rank, thread): (u64, u64) = (parts[1].parse().unwrap(), parts[2].parse().unwrap());
        let prof = profiles
            .iter()
            .position(|pr| {
                let t = pr["id_tuple"].as_array().unwrap();
                !pr["summary"].as_bool().unwrap()
                    && t[0]["logical_id"].as_u64() == Some(rank)
                    && t[1]["logical_id"].as_u64() == Some(thread)
            })
            .unwrap() as u64;
        let b = std::fs::read(&p).unwrap();
        let row = |ctx: u32, k: usize| -> f64 {
            let r = if ctx == 0 { 0 } else { ctx as usize - 1 };
            let at = 32 + (r * 2 + k) * 8;
            f64::from_be_bytes(b[at..at + 8].try_into().unwrap())
        };
        let stored = |ctx: u32, col: u32| match col {
            2 => row(ctx, 0),
            3 => row(ctx, 1),
            _ => 0.0,
        };
        let n = check(&j, &cols, prof, &ctxs, &stored);
        assert!(
            n > 100,
            "thread {rank}.{thread}: only {n} non-zero values checked"
        );
        threads += 1;
    }
    assert_eq!(threads, 3);
    let _ = std::fs::remove_dir_all(&dir);
}
