//! Address resolution for uftrace records: a task's session at a time (task.txt), the session's
//! modules (sid-*.map) and dlopen'ed libraries (DLOP lines) with their bases, then the module's
//! symbol table (greatest symbol start <= address). Addresses with no map or no symbol keep their
//! hex value as name, as uftrace shows them. Also finds the argument spec of a function.

use super::dbg::{parse_arg_list, ArgSpec, DebugInfo, FuncSpecs};
use super::demangle::demangle;
use super::info::UftraceInfo;
use super::map::MapModule;
use super::pattern;
use super::sym::SymbolTable;
use super::task::TaskFile;
use crate::model::Function;
use std::collections::HashMap;
use std::sync::Arc;

/// Most `-A`/`-R` pattern entries kept from the info file (each is matched against every function).
pub const MAX_EXPLICIT: usize = 256;

/// Event ids uftrace gives scheduler switches when it replays them as functions.
pub const EVENT_ID_PERF_SCHED_OUT: u64 = 200002;
pub const EVENT_ID_PERF_SCHED_OUT_PREEMPT: u64 = 200007;
pub const SCHED_NAME: &str = "linux:schedule";
pub const SCHED_PREEMPT_NAME: &str = "linux:schedule (pre-empted)";
/// The pseudo-function of the tree frames standing for LOST regions and the unknown callers
/// after them (uftrace replay prints `/* LOST N records!! */` there).
pub const LOST_NAME: &str = "LOST";

#[derive(Debug, Default)]
pub struct ModuleData {
    pub path: String,
    /// The module's `.sym` file, parsed on first use (a recording carries tables of every
    /// library loaded, most never called).
    pub sym_src: Option<crate::bytes::Source>,
    symtab: std::sync::OnceLock<Option<Arc<SymbolTable>>>,
    /// Why the table could not be read, for a warning.
    pub sym_err: std::sync::OnceLock<crate::error::Error>,
    pub dbg: Option<Arc<DebugInfo>>,
    /// The main executable of a session: absolute symbol addresses when the recording says so.
    pub is_exe: bool,
}

#[derive(Clone, Debug, Default)]
pub struct SessionData {
    pub sid: String,
    pub pid: u32,
    pub time_ns: u64,
    /// (base, end, module index) sorted by base.
    pub maps: Vec<(u64, u64, u32)>,
    /// (base, module index) of dlopen'ed libraries, sorted by base.
    pub dlopens: Vec<(u64, u32)>,
}

/// What an address names: a symbol of a module, a bare address, or a pseudo-function (scheduler
/// switches, LOST regions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FuncKey {
    Sym(u32, u32),
    Addr(u64),
    Sched,
    SchedPreempt,
    Lost,
}

/// A function as the model shows it (its name demangled as uftrace shows it; no source line),
/// with its raw symbol name.
#[derive(Clone, Debug)]
pub struct FuncInfo {
    pub function: Function,
    /// Raw symbol name (mangled), for auto-args lookups; empty without a symbol.
    pub raw: String,
}

impl From<Function> for FuncInfo {
    /// A function without a symbol.
    fn from(function: Function) -> FuncInfo {
        FuncInfo {
            function,
            raw: String::new(),
        }
    }
}

#[derive(Default)]
pub struct Resolver {
    pub modules: Vec<ModuleData>,
    pub sessions: Vec<SessionData>,
    pub tasks: TaskFile,
    pub sym_rel: bool,
    pub lp64: bool,
    pub funcs: Vec<FuncInfo>,
    pub func_index: HashMap<FuncKey, u32>,
    /// Per function, its specs (filled by `compute_specs`).
    pub specs: Vec<Option<Arc<FuncSpecs>>>,
    explicit: Vec<(String, Vec<ArgSpec>)>,
    auto_args: bool,
    auto: HashMap<String, FuncSpecs>,
    pattern_type: String,
}

impl ModuleData {
    pub fn symtab(&self) -> Option<&SymbolTable> {
        self.symtab
            .get_or_init(|| {
                let src = self.sym_src.as_ref()?;
                match SymbolTable::parse(src) {
                    Ok(t) => Some(Arc::new(t)),
                    Err(e) => {
                        let _ = self.sym_err.set(e);
                        None
                    }
                }
            })
            .as_deref()
    }
}

impl Resolver {
    pub fn new(info: Option<&UftraceInfo>, tasks: TaskFile) -> Resolver {
        let mut r = Resolver {
            tasks,
            sym_rel: info
                .map(|i| i.has_feature(super::info::FEAT_SYM_REL_ADDR))
                .unwrap_or(true),
            lp64: info.map(|i| i.lp64()).unwrap_or(true),
            pattern_type: info
                .map(|i| i.pattern_type().to_string())
                .unwrap_or_default(),
            auto_args: info.map(|i| i.auto_args()).unwrap_or(false),
            ..Resolver::default()
        };
        if let Some(info) = info {
            for (k, v) in &info.lines {
                match k.as_str() {
                    "argspec" | "retspec" if !v.starts_with("lines=") => {
                        for entry in v.split(';') {
                            if let Some((pat, items)) = entry.split_once('@') {
                                let specs = parse_arg_list(items, r.lp64);
                                // Every function is matched against every pattern: a hostile
                                // info file with 100,000 of them would cost F x 100,000 matches.
                                if !specs.is_empty() && r.explicit.len() < MAX_EXPLICIT {
                                    r.explicit.push((pat.to_string(), specs));
                                }
                            }
                        }
                    }
                    "argauto" | "retauto" => {
                        for entry in v.split(';') {
                            if let Some((name, items)) = entry.split_once('@') {
                                let specs = parse_arg_list(items, r.lp64);
                                // uftrace matches these by demangled name: `_ZdlPv` also
                                // gives sized `_ZdlPvm` (both "operator delete") its spec.
                                let plain = demangle(name);
                                for key in [name.to_string(), format!("\0{plain}")] {
                                    let e = r.auto.entry(key).or_default();
                                    let list = e.list_mut(k == "retauto");
                                    if list.is_empty() {
                                        *list = specs.clone();
                                    }
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        r
    }

    /// Index of the module with `path`, added when new.
    pub fn module(&mut self, path: &str) -> u32 {
        if let Some(i) = self.modules.iter().position(|m| m.path == path) {
            return i as u32;
        }
        self.modules.push(ModuleData {
            path: path.to_string(),
            ..ModuleData::default()
        });
        (self.modules.len() - 1) as u32
    }

    pub fn add_session_maps(&mut self, sess: usize, maps: &[MapModule], exename: &str) {
        for m in maps {
            let mi = self.module(&m.path);
            if m.path == exename {
                self.modules[mi as usize].is_exe = true;
            }
            if let Some(s) = self.sessions.get_mut(sess) {
                s.maps.push((m.base, m.end, mi));
            }
        }
        if let Some(s) = self.sessions.get_mut(sess) {
            crate::sort::sort_by(&mut s.maps, |a, b| a.cmp(b));
        }
    }

    /// Session of a task (by its pid, then its parents' for a forked child) at `time`.
    pub fn session_for(&self, tid: u32, time: u64) -> Option<u32> {
        let mut pid = self.tasks.pid_of(tid);
        let mut limit = u64::MAX;
        for _ in 0..64 {
            let best = self
                .sessions
                .iter()
                .enumerate()
                .filter(|(_, s)| s.pid == pid && s.time_ns <= time && s.time_ns <= limit)
                .max_by_key(|(_, s)| s.time_ns)
                .map(|(i, _)| i as u32);
            if best.is_some() {
                return best;
            }
            match self.tasks.ppid_of(pid) {
                Some(pp) if pp != pid => {
                    limit = self
                        .tasks
                        .forks
                        .iter()
                        .find(|f| f.pid == pid)
                        .map(|f| f.time_ns)
                        .unwrap_or(u64::MAX);
                    pid = pp;
                }
                _ => break,
            }
        }
        // Records before any session of the task: its earliest own session, else the first one.
        let own = self.tasks.pid_of(tid);
        self.sessions
            .iter()
            .enumerate()
            .filter(|(_, s)| s.pid == own)
            .min_by_key(|(_, s)| s.time_ns)
            .map(|(i, _)| i as u32)
            .or(if self.sessions.is_empty() {
                None
            } else {
                Some(0)
            })
    }

    /// What `addr` names in session `sess`.
    pub fn key_of(&self, sess: Option<u32>, addr: u64) -> FuncKey {
        let Some(s) = sess.and_then(|s| self.sessions.get(s as usize)) else {
            return FuncKey::Addr(addr);
        };
        let i = s.maps.partition_point(|m| m.0 <= addr);
        let mut hit = None;
        if i > 0 {
            let (base, end, mi) = s.maps[i - 1];
            if addr < end {
                hit = Some((base, mi));
            }
        }
        if hit.is_none() {
            let j = s.dlopens.partition_point(|d| d.0 <= addr);
            if j > 0 {
                hit = Some(s.dlopens[j - 1]);
            }
        }
        if hit.is_none() && i == 0 {
            // Old libmcount recorded PLT calls of a non-PIE program as offsets into it
            // (`0x4c0` for `printf`): below every mapping, read the address as an offset into
            // the executable.
            if let Some(&(_, _, mi)) = s
                .maps
                .iter()
                .find(|m| self.modules.get(m.2 as usize).is_some_and(|md| md.is_exe))
            {
                hit = Some((0, mi));
            }
        }
        let Some((base, mi)) = hit else {
            return FuncKey::Addr(addr);
        };
        let Some(m) = self.modules.get(mi as usize) else {
            return FuncKey::Addr(addr);
        };
        let Some(tab) = m.symtab() else {
            return FuncKey::Addr(addr);
        };
        let off = if m.is_exe && !self.sym_rel {
            addr
        } else {
            addr.wrapping_sub(base)
        };
        match tab.lookup(off) {
            Some(si) => FuncKey::Sym(mi, si as u32),
            None => FuncKey::Addr(addr),
        }
    }

    /// Function id of a key, added when new.
    pub fn func(&mut self, key: FuncKey) -> u32 {
        if let Some(&f) = self.func_index.get(&key) {
            return f;
        }
        let info = match key {
            FuncKey::Sym(mi, si) => {
                let sym = self.modules[mi as usize]
                    .symtab()
                    .and_then(|t| t.symbols.get(si as usize));
                let raw = sym.map(|s| s.name.clone()).unwrap_or_default();
                let function = Function {
                    module: Some(mi),
                    offset: sym.map(|s| s.addr),
                    ..Function::named(demangle(&raw))
                };
                FuncInfo { function, raw }
            }
            // uftrace prints an unknown address as `<hex>`.
            FuncKey::Addr(a) => FuncInfo::from(Function {
                offset: Some(a),
                ..Function::named(format!("<{a:x}>"))
            }),
            FuncKey::Sched => FuncInfo::from(Function::named(SCHED_NAME)),
            FuncKey::Lost => FuncInfo::from(Function::named(LOST_NAME)),
            FuncKey::SchedPreempt => FuncInfo::from(Function::named(SCHED_PREEMPT_NAME)),
        };
        let id = self.funcs.len() as u32;
        self.funcs.push(info);
        self.func_index.insert(key, id);
        id
    }

    /// Specs of a function: explicit `-A`/`-R` patterns first, else (with auto-args) the module's
    /// debug info, else uftrace's built-in list for library functions.
    pub fn specs_of(&self, func: u32) -> FuncSpecs {
        let Some(f) = self.funcs.get(func as usize) else {
            return FuncSpecs::default();
        };
        let mut out = FuncSpecs::default();
        for (pat, specs) in &self.explicit {
            if pattern::matches(pat, &self.pattern_type, &f.function.name)
                || (!f.raw.is_empty() && pattern::matches(pat, &self.pattern_type, &f.raw))
            {
                for s in specs {
                    let list = out.list_mut(s.idx == super::dbg::RETVAL);
                    list.retain(|x| !(x.idx == s.idx && x.float_arg == s.float_arg));
                    list.push(s.clone());
                }
            }
        }
        if !out.args.is_empty() || !out.rets.is_empty() || !self.auto_args {
            return out;
        }
        if let (Some(mi), Some(off)) = (f.function.module, f.function.offset) {
            if let Some(d) = self.modules.get(mi as usize).and_then(|m| m.dbg.as_ref()) {
                if let Some(specs) = d.funcs.get(&off) {
                    return specs.clone();
                }
            }
        }
        let by_raw = (!f.raw.is_empty()).then(|| self.auto.get(&f.raw)).flatten();
        by_raw
            .or_else(|| self.auto.get(&format!("\0{}", f.function.name)))
            .cloned()
            .unwrap_or_default()
    }

    /// Computes the specs of every function known so far (cached for payload sizing).
    pub fn spec_cached(&mut self, func: u32) -> Arc<FuncSpecs> {
        let i = func as usize;
        if self.specs.len() <= i {
            self.specs.resize(i + 1, None);
        }
        if let Some(s) = &self.specs[i] {
            return s.clone();
        }
        let s = Arc::new(self.specs_of(func));
        self.specs[i] = Some(s.clone());
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Source;

    #[test]
    fn explicit_patterns_are_capped() {
        // An info file whose argspec names 10,000 patterns: each function would be matched
        // against all of them.
        let mut b = b"Ftrace!\0".to_vec();
        b.extend_from_slice(&4u32.to_le_bytes()); // version
        b.extend_from_slice(&40u16.to_le_bytes()); // header size
        b.extend_from_slice(&[1, 2]); // little-endian, 64-bit
        b.extend_from_slice(&0x363u64.to_le_bytes()); // features
        b.extend_from_slice(&0x3bffu64.to_le_bytes()); // info mask
        b.extend_from_slice(&1024u16.to_le_bytes()); // max stack
        b.extend_from_slice(&[0; 6]);
        let specs: Vec<String> = (0..10_000).map(|i| format!("f{i}@arg1")).collect();
        b.extend_from_slice(format!("argspec:{}\n", specs.join(";")).as_bytes());
        let info = UftraceInfo::parse(&Source::from_vec("info", b)).unwrap();
        let r = Resolver::new(Some(&info), TaskFile::default());
        assert_eq!(r.explicit.len(), MAX_EXPLICIT);
        assert_eq!(r.explicit[0].0, "f0");
    }
}
