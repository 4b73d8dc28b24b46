//! A generated XML-era HPCToolkit database (experiment.xml v2.2 as hpcprof-mpi wrote it, one
//! `.metric-db` and one `.hpctrace` per thread) of about a requested size, for tests without
//! ../shared and the load benchmark. Values are multiples of 2^-10 s, so sums are exact; the
//! MetricTable also has view-formula columns ([`VIEW_COLUMNS`]).

use super::rng::Rng;

/// What to generate.
#[derive(Clone, Debug)]
pub struct XmlDbSpec {
    pub threads: u32,
    /// Scopes of the call-path tree (the database grows about 100 bytes per scope for the XML
    /// and 16 bytes per scope and thread for the metric-db files).
    pub scopes: u32,
    /// Trace records per thread.
    pub trace_records: u32,
    pub seed: u64,
}

impl Default for XmlDbSpec {
    fn default() -> XmlDbSpec {
        XmlDbSpec {
            threads: 4,
            scopes: 2000,
            trace_records: 1000,
            seed: 1,
        }
    }
}

impl XmlDbSpec {
    /// A spec whose database is about `bytes` big with `threads` threads.
    pub fn of_size(bytes: u64, threads: u32) -> XmlDbSpec {
        let per_scope = 100 + 16 * threads.max(1) as u64;
        XmlDbSpec {
            threads: threads.max(1),
            scopes: (bytes / per_scope).clamp(8, 50_000_000) as u32,
            trace_records: 10_000,
            seed: 1,
        }
    }
}

const SAMPLE_SEC: f64 = 1.0 / 1024.0;
const PROCS: [&str; 8] = [
    "main", "solve", "exchange", "MPI_Wait", "compute", "kernel", "io_write", "reduce",
];

/// One scope: its element, parent (index), procedure, line; `it` for statements.
struct Scope {
    tag: &'static str,
    parent: u32,
    proc_: u32,
    line: u32,
}

/// The tree in document (pre)order; scope `k` has id `k + 2` (id 1 is hpcprof's root).
fn tree(spec: &XmlDbSpec, rng: &mut Rng) -> Vec<Scope> {
    let n = spec.scopes.max(2) as usize;
    let mut out = Vec::with_capacity(n);
    out.push(Scope {
        tag: "PF",
        parent: u32::MAX,
        proc_: 0,
        line: 10,
    });
    // Open frames (PF) a new scope may go under: a random walk up and down a stack keeps the
    // tree deep and bushy at once.
    let mut stack: Vec<u32> = vec![0];
    while out.len() < n {
        let top = *stack.last().unwrap_or(&0);
        let r = rng.below(10);
        if r < 2 && stack.len() > 1 {
            stack.pop();
            continue;
        }
        let line = 1 + rng.below(400) as u32;
        if r < 6 && out.len() + 2 <= n && stack.len() < 200 {
            // A call: C then PF.
            let c = out.len() as u32;
            out.push(Scope {
                tag: "C",
                parent: top,
                proc_: 0,
                line,
            });
            out.push(Scope {
                tag: "PF",
                parent: c,
                proc_: rng.below(PROCS.len() as u64) as u32,
                line: 1 + rng.below(400) as u32,
            });
            stack.push(out.len() as u32 - 1);
        } else {
            out.push(Scope {
                tag: "S",
                parent: top,
                proc_: 0,
                line,
            });
        }
    }
    out
}

/// Exclusive time of each statement in each thread (0 elsewhere), thread-major.
fn exclusive(spec: &XmlDbSpec, scopes: &[Scope], rng: &mut Rng) -> Vec<Vec<f64>> {
    (0..spec.threads)
        .map(|_| {
            scopes
                .iter()
                .map(|s| {
                    if s.tag == "S" && rng.chance(0.7) {
                        (1 + rng.below(64)) as f64 * SAMPLE_SEC
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect()
}

/// Inclusive values from exclusive ones (children come after their parent).
fn inclusive(scopes: &[Scope], excl: &[f64]) -> Vec<f64> {
    let mut incl = excl.to_vec();
    for k in (1..scopes.len()).rev() {
        let p = scopes[k].parent as usize;
        incl[p] += incl[k];
    }
    incl
}

/// Exclusive of the frames too (function scope: a frame holds its statements' time).
fn frame_exclusive(scopes: &[Scope], excl: &[f64]) -> Vec<f64> {
    let mut out = excl.to_vec();
    for (k, s) in scopes.iter().enumerate() {
        if s.tag == "S" && s.parent != u32::MAX {
            out[s.parent as usize] += excl[k];
        }
    }
    out
}

fn metric_db(incl: &[f64], excl: &[f64]) -> Vec<u8> {
    // Rows are ids 1..=n+1: id 1 is the root, id k + 2 scope k.
    let rows = incl.len() + 1;
    let mut b = Vec::with_capacity(32 + rows * 16);
    b.extend_from_slice(b"HPCPROF-metricdb__00.10b");
    b.extend((rows as u32).to_be_bytes());
    b.extend(2u32.to_be_bytes());
    b.extend(incl[0].to_be_bytes()); // the root: everything under the top frame
    b.extend(0f64.to_be_bytes());
    for (i, e) in incl.iter().zip(excl) {
        b.extend(i.to_be_bytes());
        b.extend(e.to_be_bytes());
    }
    b
}

fn hpctrace(scopes: &[Scope], records: u32, rng: &mut Rng) -> Vec<u8> {
    let stmts: Vec<u32> = (0..scopes.len() as u32)
        .filter(|&k| scopes[k as usize].tag == "S")
        .collect();
    let mut b = b"HPCRUN-trace______01.01b".to_vec();
    b.extend(0u64.to_be_bytes());
    let mut t = 1_600_000_000_000_000_000u64;
    for _ in 0..records {
        t += 1_000 + rng.below(1_000_000);
        let k = stmts
            .get(rng.below(stmts.len().max(1) as u64) as usize)
            .copied()
            .unwrap_or(0);
        b.extend(t.to_be_bytes());
        b.extend((k + 2).to_be_bytes()); // the statement's `it` (= its id here)
    }
    b
}

/// A view-formula column of the MetricTable.
pub struct ViewColumn {
    pub id: u32,
    pub name: &'static str,
    /// `o`: the order `#n` names (-1: none).
    pub order: i32,
    /// `t`: inclusive or exclusive.
    pub t: &'static str,
    pub partner: u32,
    pub show: u8,
    pub fmt: &'static str,
    pub formula: &'static str,
}

/// The view-formula columns of the generated MetricTable.
pub const VIEW_COLUMNS: [ViewColumn; 4] = [
    ViewColumn {
        id: 4,
        name: "SELF (%):Sum (I)",
        order: 1,
        t: "inclusive",
        partner: 5,
        show: 1,
        fmt: "%6.2f %%",
        formula: "100*$3/$2",
    },
    ViewColumn {
        id: 5,
        name: "SELF (%):Sum (E)",
        order: -1,
        t: "exclusive",
        partner: 4,
        show: 3,
        fmt: "%6.2f %%",
        formula: "100*#0/$2",
    },
    ViewColumn {
        id: 6,
        name: "CPUTIME (ms):Sum (I)",
        order: 2,
        t: "inclusive",
        partner: 6,
        show: 1,
        fmt: "%.3e",
        formula: "max(1000*$2, 0)",
    },
    ViewColumn {
        id: 7,
        name: "SELF:Sum (I)",
        order: 3,
        t: "inclusive",
        partner: 7,
        show: 0,
        fmt: "%6.2f",
        formula: "#1/100",
    },
];

fn header(out: &mut String) {
    out.push_str("<?xml version=\"1.0\"?>\n<!DOCTYPE HPCToolkitExperiment [\n<!-- generated by hpcscope: no DTD kept -->\n]>\n");
    out.push_str(
        "<HPCToolkitExperiment version=\"2.2\">\n<Header n=\"synth\">\n  <Info/>\n</Header>\n",
    );
    out.push_str("<SecCallPathProfile i=\"0\" n=\"synth\">\n<SecHeader>\n  <MetricTable>\n");
    for (i, p, t, o) in [(2, 3, "inclusive", 0), (3, 2, "exclusive", -1)] {
        let s = if t == "inclusive" { "I" } else { "E" };
        out.push_str(&format!(
            "    <Metric i=\"{i}\" n=\"CPUTIME (sec):Sum ({s})\" o=\"{o}\" v=\"derived-incr\" t=\"{t}\" partner=\"{p}\" show=\"1\" show-percent=\"1\">\n      <MetricFormula t=\"combine\" frm=\"sum(${i}, ${i})\"/>\n      <MetricFormula t=\"finalize\" frm=\"${i}\"/>\n    </Metric>\n"
        ));
    }
    // View formulas hpcviewer computes when shown (no `M` values): what share of a scope's time
    // is its own (`#0` in the exclusive column reads the inclusive time where the exclusive one
    // has a value), the time in ms with a function, and a formula reading another view column.
    for c in &VIEW_COLUMNS {
        out.push_str(&format!(
            "    <Metric i=\"{}\" n=\"{}\" o=\"{}\" v=\"derived-incr\" t=\"{}\" partner=\"{}\" fmt=\"{}\" show=\"{}\" show-percent=\"0\">\n      <MetricFormula t=\"view\" frm=\"{}\"/>\n    </Metric>\n",
            c.id, c.name, c.order, c.t, c.partner, c.fmt, c.show, c.formula
        ));
    }
    out.push_str("  </MetricTable>\n  <MetricDBTable>\n");
    for (i, p, s) in [(0, 1, "I"), (1, 0, "E")] {
        let t = if s == "I" { "inclusive" } else { "exclusive" };
        out.push_str(&format!("    <MetricDB i=\"{i}\" n=\"CPUTIME (sec) ({s})\" t=\"{t}\" partner=\"{p}\" db-glob=\"*.metric-db\" db-id=\"{i}\" db-num-metrics=\"2\" db-header-sz=\"24\"/>\n"));
    }
    out.push_str("  </MetricDBTable>\n  <TraceDBTable>\n    <TraceDB i=\"0\" u=\"1000000000\" db-glob=\"*.hpctrace\" db-header-sz=\"32\"/>\n  </TraceDBTable>\n");
    out.push_str("  <LoadModuleTable>\n    <LoadModule i=\"1\" n=\"/opt/app/bin/synth\"/>\n  </LoadModuleTable>\n");
    out.push_str("  <FileTable>\n    <File i=\"1\" n=\"./src/synth.c\"/>\n  </FileTable>\n  <ProcedureTable>\n");
    for (k, p) in PROCS.iter().enumerate() {
        out.push_str(&format!("    <Procedure i=\"{}\" n=\"{p}\"/>\n", k + 1));
    }
    out.push_str("  </ProcedureTable>\n  <Info/>\n</SecHeader>\n<SecCallPathProfileData>\n");
}

/// `<M>` elements of one scope's summary values (zero values are not written).
fn m_values(out: &mut String, incl: f64, excl: f64) {
    if incl != 0.0 {
        out.push_str(&format!("<M n=\"2\" v=\"{incl}\"/>"));
    }
    if excl != 0.0 {
        out.push_str(&format!("<M n=\"3\" v=\"{excl}\"/>"));
    }
    if incl != 0.0 || excl != 0.0 {
        out.push('\n');
    }
}

/// The database's files: (name, bytes).
pub fn database(spec: &XmlDbSpec) -> Vec<(String, Vec<u8>)> {
    let mut rng = Rng::new(spec.seed);
    let scopes = tree(spec, &mut rng);
    let stmt_excl = exclusive(spec, &scopes, &mut rng);
    let mut files = Vec::new();
    let (mut sum_i, mut sum_e) = (vec![0.0; scopes.len()], vec![0.0; scopes.len()]);
    for (t, ex) in stmt_excl.iter().enumerate() {
        let incl = inclusive(&scopes, ex);
        let excl = frame_exclusive(&scopes, ex);
        for k in 0..scopes.len() {
            sum_i[k] += incl[k];
            sum_e[k] += excl[k];
        }
        let stem = format!("synth-{:06}-{:03}-a8c00270-{}-0", t / 2, t % 2, 1000 + t);
        files.push((format!("{stem}.metric-db"), metric_db(&incl, &excl)));
        files.push((
            format!("{stem}.hpctrace"),
            hpctrace(&scopes, spec.trace_records, &mut rng),
        ));
    }
    let mut x = String::with_capacity(scopes.len() * 110 + 4096);
    header(&mut x);
    m_values(&mut x, sum_i[0], 0.0);
    // Close tags: a stack of open elements, closed when the next scope is not inside them.
    let mut open: Vec<u32> = Vec::new();
    for (k, s) in scopes.iter().enumerate() {
        while let Some(&o) = open.last() {
            if o == s.parent {
                break;
            }
            x.push_str(&format!("</{}>\n", scopes[o as usize].tag));
            open.pop();
        }
        let id = k + 2;
        match s.tag {
            "PF" => x.push_str(&format!(
                "<PF i=\"{id}\" s=\"{}\" l=\"{}\" lm=\"1\" f=\"1\" n=\"{}\">\n",
                s.proc_ + 1,
                s.line,
                s.proc_ + 1
            )),
            "C" => x.push_str(&format!(
                "<C i=\"{id}\" s=\"{id}\" l=\"{}\" v=\"0x{:x}\">\n",
                s.line,
                0x400000 + id
            )),
            _ => x.push_str(&format!(
                "<S i=\"{id}\" s=\"{id}\" l=\"{}\" it=\"{id}\">\n",
                s.line
            )),
        }
        m_values(&mut x, sum_i[k], sum_e[k]);
        open.push(k as u32);
    }
    while let Some(o) = open.pop() {
        x.push_str(&format!("</{}>\n", scopes[o as usize].tag));
    }
    x.push_str("</SecCallPathProfileData>\n</SecCallPathProfile>\n</HPCToolkitExperiment>\n");
    files.insert(0, ("experiment.xml".to_string(), x.into_bytes()));
    files
}
