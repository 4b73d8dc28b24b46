//! A `uftrace.data` recording of a generated run of a small threaded program, as uftrace 0.13
//! writes one (seed 004, FORMATS-NOTES "uftrace"): `info` (binary header and every text section),
//! `task.txt`, `sid-<sid>.map`, `<exe>.sym` and per task `<tid>.dat` of ENTRY/EXIT records, with
//! an integer and a string argument and a return value as record payloads.

use super::rng::Rng;

/// Session id (names the map file), first task id (= pid) and the recording's start (ns on the
/// monotonic clock, as `task.txt` and the records give times).
pub const SID: &str = "5eedcafe0badf00d";
pub const PID: u32 = 5001;
pub const T0_NS: u64 = 3_922_537_000_000;
pub const EXE: &str = "/opt/synth/bin/ufsynth";
/// Load address of the executable; `.sym` offsets are relative to it.
pub const BASE: u64 = 0x55d5_a0c0_0000;
const BUILD_ID: &str = "5eed000000000000000000000000000000c0ffee";

/// A function of the executable: its `.sym` offset and type (`T` text, `P` PLT entry of a
/// library call).
#[derive(Clone, Copy, Debug)]
pub struct UfFunction {
    pub name: &'static str,
    pub offset: u64,
    pub plt: bool,
}

pub const FUNCTIONS: [UfFunction; 9] = [
    UfFunction {
        name: "malloc",
        offset: 0x1030,
        plt: true,
    },
    UfFunction {
        name: "free",
        offset: 0x1040,
        plt: true,
    },
    UfFunction {
        name: "main",
        offset: 0x1189,
        plt: false,
    },
    UfFunction {
        name: "worker",
        offset: 0x1220,
        plt: false,
    },
    UfFunction {
        name: "setup",
        offset: 0x1290,
        plt: false,
    },
    UfFunction {
        name: "compute",
        offset: 0x1300,
        plt: false,
    },
    UfFunction {
        name: "kernel",
        offset: 0x1390,
        plt: false,
    },
    UfFunction {
        name: "helper",
        offset: 0x13d0,
        plt: false,
    },
    UfFunction {
        name: "finish",
        offset: 0x1410,
        plt: false,
    },
];
const MALLOC: u8 = 0;
const FREE: u8 = 1;
const MAIN: u8 = 2;
const WORKER: u8 = 3;
const SETUP: u8 = 4;
const COMPUTE: u8 = 5;
const KERNEL: u8 = 6;
const HELPER: u8 = 7;
const FINISH: u8 = 8;
/// End of the last function (`? __func_end` in the `.sym` file).
const FUNC_END: u64 = 0x1450;
/// The string `setup` receives.
pub const SETUP_ARG: &str = "input.cfg";

/// What to generate.
#[derive(Clone, Debug)]
pub struct UftraceSpec {
    /// Task 0 runs `main`, the others (threads of the same process) `worker`.
    pub tasks: u32,
    /// Calls of `compute` per task.
    pub iterations: u32,
    pub seed: u64,
}

impl Default for UftraceSpec {
    fn default() -> UftraceSpec {
        UftraceSpec {
            tasks: 3,
            iterations: 12,
            seed: 7,
        }
    }
}

/// Argument or return value of a call, as recorded.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    Int(i64),
    Str(String),
}

/// One call of a task, in entry order.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub func: u8,
    /// Index of the caller in the task's calls; `None` at depth 0.
    pub parent: Option<usize>,
    pub depth: u16,
    pub entry_ns: u64,
    pub exit_ns: u64,
    pub arg: Option<ArgValue>,
    pub retval: Option<ArgValue>,
}

/// One task: its id and its calls.
#[derive(Clone, Debug)]
pub struct TaskRun {
    pub tid: u32,
    /// When the task started (its `TASK` line).
    pub start_ns: u64,
    pub calls: Vec<Call>,
}

/// One ENTRY or EXIT record of a task, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub time_ns: u64,
    pub exit: bool,
    /// Index of the call in the task's calls.
    pub call: usize,
}

/// A generated run: the files are written from it and tests check the reader against it.
#[derive(Clone, Debug)]
pub struct Recording {
    pub spec: UftraceSpec,
    pub tasks: Vec<TaskRun>,
}

impl Recording {
    pub fn generate(spec: &UftraceSpec) -> Recording {
        let tasks = (0..spec.tasks.max(1))
            .map(|k| {
                let mut g = Gen {
                    rng: Rng::new(spec.seed.wrapping_add(k as u64)),
                    t: T0_NS + 20_000 + k as u64 * 45_000,
                    calls: Vec::new(),
                };
                let start_ns = g.t - 1_500;
                if k == 0 {
                    g.main(spec.iterations);
                } else {
                    g.worker(spec.iterations);
                }
                TaskRun {
                    tid: PID + k,
                    start_ns,
                    calls: g.calls,
                }
            })
            .collect();
        Recording {
            spec: spec.clone(),
            tasks,
        }
    }

    pub fn function_name(func: u8) -> &'static str {
        FUNCTIONS[func as usize].name
    }

    /// Function names from the outermost call down to call `i` of `task`.
    pub fn call_path(&self, task: usize, i: usize) -> Vec<&'static str> {
        let calls = &self.tasks[task].calls;
        let mut out = Vec::new();
        let mut at = Some(i);
        while let Some(c) = at {
            out.push(Self::function_name(calls[c].func));
            at = calls[c].parent;
        }
        out.reverse();
        out
    }

    /// Records of a task in time order: each call's ENTRY, its children's records, its EXIT.
    pub fn records(&self, task: usize) -> Vec<Record> {
        let calls = &self.tasks[task].calls;
        let mut out: Vec<Record> = Vec::with_capacity(2 * calls.len());
        for (i, c) in calls.iter().enumerate() {
            out.push(Record {
                time_ns: c.entry_ns,
                exit: false,
                call: i,
            });
            out.push(Record {
                time_ns: c.exit_ns,
                exit: true,
                call: i,
            });
        }
        // Times are distinct within a task; an EXIT never shares a time with an ENTRY.
        out.sort_by_key(|r| r.time_ns);
        out
    }

    /// Every file of the `uftrace.data` folder (names relative to it).
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        let exe_base = EXE.rsplit('/').next().unwrap_or(EXE);
        let mut out = vec![
            ("info".to_string(), self.info()),
            ("task.txt".to_string(), self.task_txt().into_bytes()),
            (format!("sid-{SID}.map"), map_file().into_bytes()),
            (format!("{exe_base}.sym"), sym_file().into_bytes()),
        ];
        for (k, t) in self.tasks.iter().enumerate() {
            out.push((format!("{}.dat", t.tid), self.dat(k)));
        }
        out
    }

    /// The 40-byte header (magic, version 4, little-endian, 64-bit, feature and info masks, max
    /// stack) and the text sections in uftrace's order, each group's `lines=` count first.
    fn info(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(2048);
        b.extend_from_slice(b"Ftrace!\0");
        b.extend_from_slice(&4u32.to_le_bytes());
        b.extend_from_slice(&40u16.to_le_bytes());
        b.push(1); // ELFDATA2LSB
        b.push(2); // ELFCLASS64
                   // PLTHOOK, TASK_SESSION, ARGUMENT, RETVAL, SYM_REL_ADDR, MAX_STACK.
        b.extend_from_slice(&0x7bu64.to_le_bytes());
        b.extend_from_slice(&0x3fffu64.to_le_bytes()); // every info section
        b.extend_from_slice(&1024u16.to_le_bytes());
        b.extend_from_slice(&[0; 6]);
        let tids: Vec<String> = self.tasks.iter().map(|t| t.tid.to_string()).collect();
        let last = self
            .tasks
            .iter()
            .flat_map(|t| t.calls.iter().map(|c| c.exit_ns))
            .max()
            .unwrap_or(T0_NS);
        let elapsed = last - T0_NS;
        let text = format!(
            "exename:{EXE}\nbuild_id:{BUILD_ID}\nexit_status:0\n\
             cmdline:uftrace record -A setup@arg1/s -A compute@arg1 -R compute@retval {EXE}\n\
             cpuinfo:lines=2\ncpuinfo:nr_cpus=4 / 4 (online/possible)\ncpuinfo:desc=Synthetic CPU\n\
             meminfo:3.2 / 15.6 GB (free / total)\n\
             osinfo:lines=3\nosinfo:kernel=Linux 6.1.0\nosinfo:hostname=synth\n\
             osinfo:distro=\"Debian GNU/Linux 12 (bookworm)\"\n\
             taskinfo:lines=2\ntaskinfo:nr_tid={}\ntaskinfo:tids={}\n\
             usageinfo:lines=6\nusageinfo:systime=0.000120\nusageinfo:usrtime=0.000950\n\
             usageinfo:ctxsw=2 / 1 (voluntary / involuntary)\nusageinfo:maxrss=4096\n\
             usageinfo:pagefault=0 / 180 (major / minor)\nusageinfo:iops=0 / 0 (read / write)\n\
             loadinfo:0.10 / 0.20 / 0.30\n\
             argspec:lines=2\nargspec:setup@arg1/s;compute@arg1\nretspec:compute@retval\n\
             record_date:Mon Jan  1 00:00:00 2024\nelapsed_time:{}.{:09} sec\n\
             pattern_type:regex\n\
             uftrace_version:v0.13 ( x86_64 dwarf python3 luajit tui perf sched dynamic )\n",
            tids.len(),
            tids.join(","),
            elapsed / 1_000_000_000,
            elapsed % 1_000_000_000
        );
        b.extend_from_slice(text.as_bytes());
        b
    }

    /// The session of the process, then one TASK line per task (ids in start order).
    fn task_txt(&self) -> String {
        let ts = |ns: u64| format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000);
        let mut s = format!(
            "SESS timestamp={} pid={PID} sid={SID} exename=\"{EXE}\"\n",
            ts(T0_NS)
        );
        for t in &self.tasks {
            s += &format!(
                "TASK timestamp={} tid={} pid={PID}\n",
                ts(t.start_ns),
                t.tid
            );
        }
        s
    }

    /// A task's records: 16 bytes each (time, then the word: type, "more", magic 5, depth,
    /// address), ENTRYs with arguments and EXITs with return values followed by their payload.
    fn dat(&self, task: usize) -> Vec<u8> {
        let calls = &self.tasks[task].calls;
        let mut b = Vec::with_capacity(calls.len() * 40);
        for r in self.records(task) {
            let c = &calls[r.call];
            let payload = if r.exit { &c.retval } else { &c.arg };
            let f = &FUNCTIONS[c.func as usize];
            // Library calls are recorded at their PLT entry, others just inside the function.
            let addr = BASE + f.offset + if f.plt { 0 } else { 8 };
            let word = r.exit as u64
                | ((payload.is_some() as u64) << 2)
                | (5 << 3)
                | ((c.depth as u64 & 0x3ff) << 6)
                | (addr << 16);
            b.extend_from_slice(&r.time_ns.to_le_bytes());
            b.extend_from_slice(&word.to_le_bytes());
            if let Some(v) = payload {
                let mut p = Vec::new();
                match v {
                    ArgValue::Int(x) => p.extend_from_slice(&x.to_le_bytes()),
                    ArgValue::Str(s) => {
                        p.extend_from_slice(&(s.len() as u16).to_le_bytes());
                        p.extend_from_slice(s.as_bytes());
                    }
                }
                // Each item padded to 4 bytes, the whole payload to 8.
                p.resize(p.len().div_ceil(4) * 4, 0);
                p.resize(p.len().div_ceil(8) * 8, 0);
                b.extend_from_slice(&p);
            }
        }
        b
    }
}

/// The session's map: the executable (with its build id, as uftrace writes it) and the stack.
fn map_file() -> String {
    format!(
        "{:x}-{:x} r-xp 00000000 00:00 0                          {EXE} build-id:{BUILD_ID}\n\
         7ffd8a400000-7ffd8a421000 rw-p 00000000 00:00 0                          [stack]\n",
        BASE,
        BASE + 0x5000
    )
}

/// The executable's symbols, by offset: PLT entries, then functions, then the end marker.
fn sym_file() -> String {
    let mut s = format!(
        "# symbols: {}\n# path name: {EXE}\n# build-id: {BUILD_ID}\n",
        FUNCTIONS.len() + 2
    );
    let mut syms: Vec<(u64, char, &str)> = FUNCTIONS
        .iter()
        .map(|f| (f.offset, if f.plt { 'P' } else { 'T' }, f.name))
        .collect();
    syms.push((0x1050, '?', "__dynsym_end"));
    syms.push((FUNC_END, '?', "__func_end"));
    syms.sort();
    for (off, ty, name) in syms {
        s += &format!("{off:016x} {ty} {name}\n");
    }
    s
}

/// Grows a task's calls, advancing the clock: every call starts some ns after the previous
/// record and ends some ns after its last child.
struct Gen {
    rng: Rng,
    t: u64,
    calls: Vec<Call>,
}

impl Gen {
    fn tick(&mut self, lo: u64, hi: u64) {
        self.t += lo + self.rng.below(hi - lo);
    }

    fn enter(&mut self, func: u8, parent: Option<usize>, arg: Option<ArgValue>) -> usize {
        self.tick(40, 160);
        let depth = parent.map_or(0, |p| self.calls[p].depth + 1);
        self.calls.push(Call {
            func,
            parent,
            depth,
            entry_ns: self.t,
            exit_ns: 0,
            arg,
            retval: None,
        });
        self.calls.len() - 1
    }

    fn exit(&mut self, i: usize, work_lo: u64, work_hi: u64) {
        self.tick(work_lo, work_hi);
        self.calls[i].exit_ns = self.t;
    }

    fn leaf(&mut self, func: u8, parent: usize, lo: u64, hi: u64) {
        let i = self.enter(func, Some(parent), None);
        self.exit(i, lo, hi);
    }

    /// `compute(n)` calls `kernel` n times and `helper` once, and returns n(n+1)/2.
    fn compute(&mut self, parent: usize) {
        let n = 1 + self.rng.below(4) as i64;
        let i = self.enter(COMPUTE, Some(parent), Some(ArgValue::Int(n)));
        for _ in 0..n {
            self.leaf(KERNEL, i, 800, 3000);
        }
        self.leaf(HELPER, i, 100, 400);
        self.calls[i].retval = Some(ArgValue::Int(n * (n + 1) / 2));
        self.exit(i, 50, 200);
    }

    fn main(&mut self, iterations: u32) {
        let m = self.enter(MAIN, None, None);
        let s = self.enter(SETUP, Some(m), Some(ArgValue::Str(SETUP_ARG.into())));
        self.leaf(MALLOC, s, 60, 200);
        self.exit(s, 300, 900);
        for _ in 0..iterations {
            self.compute(m);
        }
        let f = self.enter(FINISH, Some(m), None);
        self.leaf(FREE, f, 40, 120);
        self.exit(f, 200, 600);
        self.exit(m, 100, 300);
    }

    fn worker(&mut self, iterations: u32) {
        let w = self.enter(WORKER, None, None);
        for _ in 0..iterations {
            self.compute(w);
        }
        self.exit(w, 100, 300);
    }
}

/// Per function: (total ns, self ns, calls) over every task, as `uftrace report` sums them
/// (no function here is recursive, so totals add up plainly).
pub fn function_totals(rec: &Recording) -> Vec<(&'static str, u64, u64, u64)> {
    let mut out: Vec<(&'static str, u64, u64, u64)> =
        FUNCTIONS.iter().map(|f| (f.name, 0, 0, 0)).collect();
    for t in &rec.tasks {
        let mut child_ns = vec![0u64; t.calls.len()];
        for c in &t.calls {
            if let Some(p) = c.parent {
                child_ns[p] += c.exit_ns - c.entry_ns;
            }
        }
        for (i, c) in t.calls.iter().enumerate() {
            let d = c.exit_ns - c.entry_ns;
            let row = &mut out[c.func as usize];
            row.1 += d;
            row.2 += d - child_ns[i];
            row.3 += 1;
        }
    }
    out.retain(|r| r.3 > 0);
    out
}
