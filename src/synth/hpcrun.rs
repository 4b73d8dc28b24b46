//! An hpcrun measurement folder written from a generated run of a small program: per thread one
//! `HPCRUN-profile____04.00b` (112-byte footer, id tuple, metric table, load map, CCT, sparse
//! values) and one `HPCRUN-trace______01.01b`, plus `structs/<program>.hpcstruct`. Follows seed
//! 002, HPCToolkit's hpcrun-fmt.h / hpcrun-sparse.c and FORMATS-NOTES "hpcrun measurement files".

use super::bytes::ByteWriter;
use super::rng::Rng;
use crate::bytes::Endian;
use crate::formats::hpcrun::DEFAULT_ID_NAMES;
use std::collections::BTreeMap;

/// Host id, process id and the first sample's time (ns since the epoch) of every run.
pub const HOST_ID: u32 = 0x5eed_c0de;
pub const PID: u32 = 31337;
pub const T0_NS: u64 = 1_700_000_000_000_000_000;
/// Sampling period: 128 Hz, so each sample's CPUTIME (2^-7 s) is exact in binary and every sum of
/// them is too, in any order.
pub const PERIOD_NS: u64 = 7_812_500;
pub const CPUTIME_PER_SAMPLE_S: f64 = 1.0 / 128.0;
/// The CYCLES metric's period: hpcprof (and the reader) multiplies stored counts by it.
pub const CYCLES_PERIOD: u64 = 1000;
/// The shared library every path into `exp` ends in; it has no structure file, so its frames are
/// shown as `libm.so.6+0x<offset>`.
pub const LIBM: &str = "/usr/lib/x86_64-linux-gnu/libm.so.6";
/// Offset in [`LIBM`] of the samples taken inside `exp`.
pub const LIBM_EXP_SAMPLE: u64 = 0x2a0f4;

/// A function of the executable: statement `k` covers `entry + 0x10 k .. entry + 0x10 (k + 1)`
/// and is line `line + 1 + k`; statements `loop_stmts.0 ..= loop_stmts.1` form one loop whose
/// head is the first of them.
#[derive(Clone, Copy, Debug)]
pub struct SynthFunction {
    pub name: &'static str,
    pub entry: u64,
    pub line: u32,
    pub statements: u8,
    pub loop_stmts: Option<(u8, u8)>,
}

pub const FUNCTIONS: [SynthFunction; 8] = [
    SynthFunction {
        name: "main",
        entry: 0x1100,
        line: 10,
        statements: 6,
        loop_stmts: None,
    },
    SynthFunction {
        name: "worker",
        entry: 0x1200,
        line: 30,
        statements: 4,
        loop_stmts: Some((1, 2)),
    },
    SynthFunction {
        name: "init",
        entry: 0x1300,
        line: 50,
        statements: 4,
        loop_stmts: None,
    },
    SynthFunction {
        name: "solve",
        entry: 0x1400,
        line: 70,
        statements: 6,
        loop_stmts: Some((1, 4)),
    },
    SynthFunction {
        name: "compute",
        entry: 0x1500,
        line: 90,
        statements: 5,
        loop_stmts: Some((0, 2)),
    },
    SynthFunction {
        name: "kernel",
        entry: 0x1600,
        line: 110,
        statements: 5,
        loop_stmts: None,
    },
    SynthFunction {
        name: "exchange",
        entry: 0x1700,
        line: 130,
        statements: 3,
        loop_stmts: None,
    },
    SynthFunction {
        name: "output",
        entry: 0x1800,
        line: 150,
        statements: 3,
        loop_stmts: None,
    },
];
const MAIN: u8 = 0;
const WORKER: u8 = 1;
const INIT: u8 = 2;
const SOLVE: u8 = 3;
const COMPUTE: u8 = 4;
const KERNEL: u8 = 5;
const EXCHANGE: u8 = 6;
const OUTPUT: u8 = 7;

/// One frame of a call path: a statement of an executable's function (a call site, or where the
/// sample was taken when it is the last frame), or the sampled instruction in libm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Site {
    App { func: u8, stmt: u8 },
    LibmExp,
}

const fn app(func: u8, stmt: u8) -> Site {
    Site::App { func, stmt }
}

/// Call paths of the main thread (outermost first), then of worker threads.
const MAIN_PATHS: [&[Site]; 5] = [
    &[app(MAIN, 1), app(INIT, 2)],
    &[app(MAIN, 3), app(SOLVE, 2), app(COMPUTE, 1), app(KERNEL, 3)],
    &[
        app(MAIN, 3),
        app(SOLVE, 2),
        app(COMPUTE, 1),
        app(KERNEL, 1),
        Site::LibmExp,
    ],
    &[app(MAIN, 3), app(SOLVE, 4), app(EXCHANGE, 1)],
    &[app(MAIN, 5), app(OUTPUT, 1)],
];
const WORKER_PATHS: [&[Site]; 4] = [
    &[app(WORKER, 1), app(COMPUTE, 1), app(KERNEL, 3)],
    &[
        app(WORKER, 1),
        app(COMPUTE, 1),
        app(KERNEL, 1),
        Site::LibmExp,
    ],
    &[app(WORKER, 1), app(COMPUTE, 4)],
    &[app(WORKER, 2), app(EXCHANGE, 1)],
];

/// What to generate.
#[derive(Clone, Debug)]
pub struct HpcrunSpec {
    /// Program name: names the files, the executable and its structure file.
    pub program: String,
    /// Thread 0 runs `main`, the others `worker`.
    pub threads: u32,
    /// Samples per thread.
    pub samples: u32,
    pub seed: u64,
}

impl Default for HpcrunSpec {
    fn default() -> HpcrunSpec {
        HpcrunSpec {
            program: "synthapp".into(),
            threads: 4,
            samples: 400,
            seed: 1,
        }
    }
}

/// One sample: when, in which call path (index into [`Measurement::paths`]) and how many cycles
/// (before the period).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub time_ns: u64,
    pub path: usize,
    pub cycles: u64,
}

/// A generated run: the call paths and each thread's samples, from which the files are written
/// and against which tests check what the reader makes of them.
#[derive(Clone, Debug)]
pub struct Measurement {
    pub spec: HpcrunSpec,
    pub paths: Vec<Vec<Site>>,
    /// Per thread, its samples in time order.
    pub threads: Vec<Vec<Sample>>,
}

impl Measurement {
    pub fn generate(spec: &HpcrunSpec) -> Measurement {
        let paths: Vec<Vec<Site>> = MAIN_PATHS
            .iter()
            .chain(WORKER_PATHS.iter())
            .map(|p| p.to_vec())
            .collect();
        let threads = (0..spec.threads.max(1))
            .map(|t| thread_samples(spec, t))
            .collect();
        Measurement {
            spec: spec.clone(),
            paths,
            threads,
        }
    }

    /// Path of the executable in the load map and the structure file.
    pub fn exe_path(&self) -> String {
        format!("/opt/synth/bin/{}", self.spec.program)
    }

    /// Source file of every function.
    pub fn source_path(&self) -> String {
        format!("/opt/synth/src/{}.c", self.spec.program)
    }

    /// Base name of thread `t`'s files: `program-RANK-THREAD-HOSTID-PID-GEN`.
    pub fn file_stem(&self, t: u32) -> String {
        format!("{}-000000-{t:03}-{HOST_ID:08x}-{PID}-0", self.spec.program)
    }

    /// The names the reader gives the frames of a path, outermost first, as
    /// `Dataset::frame_name` shows them: the thread's entry point, then per frame its function,
    /// enclosing loop and line (`name.c:LINE`), or the libm address.
    pub fn frame_names(&self, thread: u32, path: usize) -> Vec<String> {
        let src = short(&self.source_path()).to_string();
        let mut out = vec![if thread == 0 {
            "main thread".to_string()
        } else {
            "application thread".to_string()
        }];
        for site in &self.paths[path] {
            match *site {
                Site::App { func, stmt } => {
                    let f = &FUNCTIONS[func as usize];
                    out.push(f.name.to_string());
                    if let Some((a, b)) = f.loop_stmts {
                        if (a..=b).contains(&stmt) {
                            out.push(format!("loop at {src}:{}", stmt_line(f, a)));
                        }
                    }
                    out.push(format!("{src}:{}", stmt_line(f, stmt)));
                }
                Site::LibmExp => out.push(format!("{}+{LIBM_EXP_SAMPLE:#x}", short(LIBM))),
            }
        }
        out
    }

    /// The call frames of a path (functions, and the libm address), outermost first: what the
    /// trace view shows as the call path.
    pub fn call_path(&self, path: usize) -> Vec<String> {
        self.paths[path]
            .iter()
            .map(|s| match *s {
                Site::App { func, .. } => FUNCTIONS[func as usize].name.to_string(),
                Site::LibmExp => format!("{}+{LIBM_EXP_SAMPLE:#x}", short(LIBM)),
            })
            .collect()
    }

    /// Every file of the measurement folder (paths relative to it).
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        for (t, samples) in self.threads.iter().enumerate() {
            let t = t as u32;
            let cct = ThreadCct::new(self, t, samples);
            out.push((
                format!("{}.hpcrun", self.file_stem(t)),
                self.profile(t, samples, &cct),
            ));
            out.push((
                format!("{}.hpctrace", self.file_stem(t)),
                trace(samples, &cct),
            ));
        }
        out.push((
            format!("structs/{}.hpcstruct", self.spec.program),
            self.hpcstruct().into_bytes(),
        ));
        out
    }

    /// One thread's profile in the 04.00 layout with the 112-byte footer; sections start on
    /// 1 KiB boundaries as hpcrun writes them.
    fn profile(&self, t: u32, samples: &[Sample], cct: &ThreadCct) -> Vec<u8> {
        let mut w = ByteWriter::new(Endian::Big);
        w.bytes(b"HPCRUN-profile____04.00b");
        let (first, last) = time_range(samples);
        let nv: [(&str, String); 11] = [
            ("program-name", self.spec.program.clone()),
            ("program-path", self.exe_path()),
            ("env-path", "/usr/local/bin:/usr/bin:/bin".into()),
            ("job-id", String::new()),
            ("mpi-rank", "0".into()),
            ("thread-id", t.to_string()),
            ("host-id", format!("{HOST_ID:x}")),
            ("process-id", PID.to_string()),
            ("trace-min-time", first.to_string()),
            ("trace-max-time", last.to_string()),
            ("trace-disorder", "0".into()),
        ];
        w.u32(nv.len() as u32);
        for (k, v) in &nv {
            hpcfmt_str(&mut w, k);
            hpcfmt_str(&mut w, v);
        }
        let mut footer = vec![0, w.pos()];
        section(&mut w, &mut footer, |w| {
            w.u32(2);
            for (id, name) in [(1u16, self.exe_path()), (2, LIBM.to_string())] {
                w.u16(id);
                hpcfmt_str(w, &name);
                w.u64(if id == 1 { 1 } else { 0 });
            }
        });
        section(&mut w, &mut footer, |w| {
            w.u64(cct.nodes.len() as u64);
            for n in &cct.nodes {
                w.u32(n.id);
                w.u32(n.parent);
                w.u16(n.lm_id);
                w.u64(n.ip);
                w.u8(1); // unwound
            }
        });
        section(&mut w, &mut footer, |w| {
            w.u32(2);
            // ty 1 (raw), value type unset, format 2 (real) / 1 (integer), shown with percentages.
            metric_desc(w, "CPUTIME (sec)", 2, 1);
            metric_desc(w, "CYCLES", 1, CYCLES_PERIOD);
        });
        section(&mut w, &mut footer, |w| {
            w.u16(DEFAULT_ID_NAMES.len() as u16);
            for (k, name) in DEFAULT_ID_NAMES.iter().enumerate() {
                w.u16(k as u16);
                hpcfmt_str(w, name);
            }
        });
        section(&mut w, &mut footer, |w| sparse_values(w, t, cct));

        w.align(0x400);
        let footer_start = w.pos();
        for v in footer {
            w.u64(v);
        }
        w.u64(footer_start);
        w.u64(u64::from_be_bytes(*b"HPCRUNsm"));
        w.into_bytes()
    }

    /// The executable's structure: one file, a procedure per function with one statement per
    /// 16 bytes, loops around their statements.
    fn hpcstruct(&self) -> String {
        let mut x = String::from(
            "<?xml version=\"1.0\"?>\n<HPCToolkitStructure i=\"0\" version=\"4.9\" n=\"\">\n",
        );
        x += &format!(
            "<LM i=\"1\" n=\"{}\" has-calls=\"1\" v=\"{{}}\">\n<F i=\"2\" n=\"{}\">\n",
            self.exe_path(),
            self.source_path()
        );
        let mut id = 3;
        let mut next = || {
            id += 1;
            id
        };
        for f in &FUNCTIONS {
            let end = f.entry + 0x10 * f.statements as u64;
            x += &format!(
                "<P i=\"{}\" n=\"{}\" l=\"{}\" v=\"{{[{:#x}-{:#x})}}\">\n",
                next(),
                f.name,
                f.line,
                f.entry,
                f.entry + 1
            );
            for k in 0..f.statements {
                if f.loop_stmts.map(|l| l.0) == Some(k) {
                    let (a, b) = f.loop_stmts.unwrap_or((k, k));
                    x += &format!(
                        "<L i=\"{}\" l=\"{}\" f=\"{}\" v=\"{{[{:#x}-{:#x})}}\">\n",
                        next(),
                        stmt_line(f, a),
                        self.source_path(),
                        stmt_addr(f, a),
                        stmt_addr(f, b) + 0x10
                    );
                }
                x += &format!(
                    "<S i=\"{}\" l=\"{}\" v=\"{{[{:#x}-{:#x})}}\"/>\n",
                    next(),
                    stmt_line(f, k),
                    stmt_addr(f, k),
                    (stmt_addr(f, k) + 0x10).min(end)
                );
                if f.loop_stmts.map(|l| l.1) == Some(k) {
                    x += "</L>\n";
                }
            }
            x += "</P>\n";
        }
        x += "</F>\n</LM>\n</HPCToolkitStructure>\n";
        x
    }
}

/// Line of statement `k` of `f`.
pub fn stmt_line(f: &SynthFunction, k: u8) -> u32 {
    f.line + 1 + k as u32
}

fn stmt_addr(f: &SynthFunction, k: u8) -> u64 {
    f.entry + 0x10 * k as u64
}

fn short(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Samples of thread `t`: runs of 1-8 samples on one path. The main thread initialises for the
/// first 5% of its samples and writes output in the last 5%; workers start a little later.
fn thread_samples(spec: &HpcrunSpec, t: u32) -> Vec<Sample> {
    let mut rng = Rng::new(spec.seed ^ (t as u64).wrapping_mul(0x9E37_79B9));
    let n = spec.samples as u64;
    let start_ns = T0_NS + t as u64 * 3 * PERIOD_NS;
    let mut out = Vec::with_capacity(n as usize);
    let mut path = 0usize;
    let mut run_left = 0u64;
    for i in 0..n {
        if run_left == 0 {
            run_left = 1 + rng.below(8);
            path = if t == 0 {
                if i * 20 < n {
                    0
                } else if i * 20 >= n * 19 {
                    4
                } else {
                    1 + rng.below(3) as usize
                }
            } else {
                MAIN_PATHS.len() + rng.below(WORKER_PATHS.len() as u64) as usize
            };
        }
        run_left -= 1;
        out.push(Sample {
            // Jitter below a quarter period keeps the times increasing.
            time_ns: start_ns + i * PERIOD_NS + rng.below(PERIOD_NS / 4),
            path,
            cycles: 1000 + rng.below(1000),
        });
    }
    out
}

fn time_range(samples: &[Sample]) -> (u64, u64) {
    let first = samples.first().map_or(T0_NS, |s| s.time_ns);
    let last = samples.last().map_or(T0_NS, |s| s.time_ns);
    (first, last)
}

/// One node of a profile's calling-context tree.
struct CctNode {
    id: u32,
    parent: u32,
    lm_id: u16,
    ip: u64,
}

/// A thread's tree as hpcrun writes it: `^Primary`, the thread's entry fence, then one node per
/// (parent, instruction): return addresses of calls, the sampled instruction last.
struct ThreadCct {
    nodes: Vec<CctNode>,
    /// Node id of each path's sampled instruction (paths this thread never sampled: absent).
    leaf_of_path: BTreeMap<usize, u32>,
    /// Per leaf node id: (samples, cycles), in node id order.
    values: BTreeMap<u32, (u64, u64)>,
}

/// Placeholder addresses of load module 0 (HPCToolkit placeholders.h): 8 ASCII bytes.
const PRIMARY: u64 = u64::from_be_bytes(*b"^Primary");
const FENCE_MAIN: u64 = u64::from_be_bytes(*b"| Main  ");
const FENCE_THREAD: u64 = u64::from_be_bytes(*b"| Thread");

impl ThreadCct {
    fn new(m: &Measurement, t: u32, samples: &[Sample]) -> ThreadCct {
        let mut nodes = vec![
            CctNode {
                id: 1,
                parent: 0,
                lm_id: 0,
                ip: PRIMARY,
            },
            CctNode {
                id: 2,
                parent: 1,
                lm_id: 0,
                ip: if t == 0 { FENCE_MAIN } else { FENCE_THREAD },
            },
        ];
        let mut index: BTreeMap<(u32, u16, u64), u32> = BTreeMap::new();
        let mut leaf_of_path = BTreeMap::new();
        let mut values: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
        for s in samples {
            let leaf = *leaf_of_path.entry(s.path).or_insert_with(|| {
                let sites = &m.paths[s.path];
                let mut parent = 2;
                for (k, site) in sites.iter().enumerate() {
                    let last = k + 1 == sites.len();
                    let (lm_id, ip) = site_address(site, last);
                    parent = *index.entry((parent, lm_id, ip)).or_insert_with(|| {
                        // Ids go up by 2 from 10, as hpcrun's are neither dense nor from 0.
                        let id = 10 + 2 * (nodes.len() as u32 - 2);
                        nodes.push(CctNode {
                            id,
                            parent,
                            lm_id,
                            ip,
                        });
                        id
                    });
                }
                parent
            });
            let v = values.entry(leaf).or_default();
            v.0 += 1;
            v.1 += s.cycles;
        }
        ThreadCct {
            nodes,
            leaf_of_path,
            values,
        }
    }
}

/// Load module and address of a frame: a call site's return address (inside its statement, past
/// the call), or the sampled instruction.
fn site_address(site: &Site, sampled: bool) -> (u16, u64) {
    match *site {
        Site::App { func, stmt } => {
            let f = &FUNCTIONS[func as usize];
            (1, stmt_addr(f, stmt) + if sampled { 4 } else { 0xa })
        }
        Site::LibmExp => (2, LIBM_EXP_SAMPLE),
    }
}

/// One section of a profile: it starts on a 1 KiB boundary, and the footer holds its start and
/// end offsets.
fn section(w: &mut ByteWriter, footer: &mut Vec<u64>, write: impl FnOnce(&mut ByteWriter)) {
    w.align(0x400);
    footer.push(w.pos());
    write(w);
    footer.push(w.pos());
}

/// `hpcfmt_str`: a u32 length, then the bytes.
fn hpcfmt_str(w: &mut ByteWriter, s: &str) {
    w.u32(s.len() as u32);
    w.bytes(s.as_bytes());
}

/// A 04.00 metric descriptor (`hpcrun_fmt_metricDesc_fwrite`): name, description, the portable
/// flag bytes, period, formula, format, then the frequency flag and 18 bytes of multiplexing data.
fn metric_desc(w: &mut ByteWriter, name: &str, val_fmt: u8, period: u64) {
    hpcfmt_str(w, name);
    hpcfmt_str(w, name);
    w.bytes(&[1, 0, val_fmt, 0, 0, 0, 1, 1]);
    w.zeros(8);
    w.u64(period);
    hpcfmt_str(w, "");
    hpcfmt_str(w, "");
    w.zeros(20);
}

/// The sparse-values section: the id tuple (NODE host, THREAD t), the value count and context
/// count, the (value, metric id) pairs, one (context id, first pair) block per sampled context and
/// the `end!` sentinel.
fn sparse_values(w: &mut ByteWriter, t: u32, cct: &ThreadCct) {
    w.u16(2);
    w.u16(0x4001); // NODE: physical host id, logical id 0
    w.u64(HOST_ID as u64);
    w.u64(0);
    w.u16(0xc003); // THREAD: logical only
    w.u64(t as u64);
    w.u64(t as u64);
    w.u64(2 * cct.values.len() as u64);
    w.u32(cct.values.len() as u32);
    for &(samples, cycles) in cct.values.values() {
        w.u64((samples as f64 * CPUTIME_PER_SAMPLE_S).to_bits());
        w.u16(0);
        w.u64(cycles);
        w.u16(1);
    }
    for (k, &id) in cct.values.keys().enumerate() {
        w.u32(id);
        w.u64(2 * k as u64);
    }
    w.u32(u32::from_be_bytes(*b"end!"));
    w.u64(2 * cct.values.len() as u64);
}

/// A trace in the 01.01 layout: magic line, flags (0: full contexts, no data-centric ids), then
/// (time, context id) records.
fn trace(samples: &[Sample], cct: &ThreadCct) -> Vec<u8> {
    let mut w = ByteWriter::new(Endian::Big);
    w.bytes(b"HPCRUN-trace______01.01b");
    w.u64(0);
    for s in samples {
        w.u64(s.time_ns);
        w.u32(cct.leaf_of_path.get(&s.path).copied().unwrap_or(0));
    }
    w.into_bytes()
}
