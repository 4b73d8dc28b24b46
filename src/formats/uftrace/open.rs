//! Opening a uftrace recording (seed 004 and FORMATS-NOTES "uftrace"): sorts the folder's files by
//! role, reads `info` and `task.txt`, each session's `sid-*.map` and its modules' `.sym`/`.dbg`, and
//! the scheduler events, then runs the pass over every task and builds the dataset and report.

use super::dat::DatReader;
use super::info::UftraceInfo;
use super::perf::PerfEvent;
use super::report::{self, UftraceReport};
use super::resolve::{self, Resolver};
use super::scan::{Scan, TaskPass, TaskScan};
use super::stream::Streaming;
use super::{dbg, map, perf, task, to_model, DAT, DBG, INFO, MAP, PERF_DAT, SYM, TASK_TXT};
use crate::bytes::Source;
use crate::error::{Error, Result, Warning};
use crate::formats::{base_name, DatasetGroup, InputFile};
use crate::model::Dataset;
use std::collections::HashMap;
use std::sync::Arc;

/// The files of a recording by role.
struct Files<'a> {
    info: Option<&'a InputFile>,
    task: Option<&'a InputFile>,
    /// By session id.
    maps: HashMap<String, &'a InputFile>,
    /// By module base name (with a build-id suffix for newer uftrace).
    syms: HashMap<String, &'a InputFile>,
    dbgs: HashMap<String, &'a InputFile>,
    /// By task id.
    dats: Vec<(u32, &'a InputFile)>,
    perf: Vec<&'a InputFile>,
}

fn collect(group: &DatasetGroup) -> Files<'_> {
    let mut f = Files {
        info: None,
        task: None,
        maps: HashMap::new(),
        syms: HashMap::new(),
        dbgs: HashMap::new(),
        dats: Vec::new(),
        perf: Vec::new(),
    };
    for (kind, file) in &group.files {
        let name = base_name(&file.path);
        match *kind {
            INFO => f.info = Some(file),
            TASK_TXT => f.task = Some(file),
            MAP => {
                let sid = name
                    .trim_start_matches("sid-")
                    .trim_end_matches(".map")
                    .to_string();
                f.maps.insert(sid, file);
            }
            SYM => {
                f.syms
                    .insert(name.trim_end_matches(".sym").to_string(), file);
            }
            DBG => {
                f.dbgs
                    .insert(name.trim_end_matches(".dbg").to_string(), file);
            }
            DAT => {
                if let Ok(tid) = name.trim_end_matches(".dat").parse::<u32>() {
                    f.dats.push((tid, file));
                }
            }
            PERF_DAT => f.perf.push(file),
            _ => {}
        }
    }
    // perf-cpu2.dat before perf-cpu10.dat, as uftrace's glob order does not matter for a merge by
    // time but a stable order keeps ties deterministic.
    crate::sort::sort_by_key(&mut f.perf, |p| {
        base_name(&p.path)
            .trim_start_matches("perf-cpu")
            .trim_end_matches(".dat")
            .parse::<u32>()
            .unwrap_or(u32::MAX)
    });
    f
}

/// Opens a recording: the dataset and the `uftrace report` tables from the same pass.
pub fn open_report(group: &DatasetGroup) -> Result<(Dataset, UftraceReport)> {
    Streaming::new(group, false)?.finish(group)
}

/// A recording with its headers read, before, during and after the pass over its tasks.
pub(super) struct Prepared {
    info: Option<UftraceInfo>,
    pub scan: Scan,
    perf_events: Vec<PerfEvent>,
    /// The tasks with a data file and that file, in the order the pass reads them.
    pub files: Vec<(u32, Source)>,
    pub tasks: Vec<TaskScan>,
    pub warnings: Vec<Warning>,
}

impl Prepared {
    /// Reads everything but the task data: headers, maps, symbols, scheduler events.
    pub fn new(group: &DatasetGroup) -> Result<Prepared> {
        let files = collect(group);
        let mut warnings: Vec<Warning> = Vec::new();
        let info = read_info(group, &files, &mut warnings)?;
        let little = info.as_ref().map(|i| i.little_endian()).unwrap_or(true);
        let task_file = read_task_txt(group, &files, &mut warnings)?;
        let mut res = Resolver::new(info.as_ref(), task_file);
        add_sessions(&mut res, group, &files, &mut warnings);
        add_dlopens(&mut res);
        attach_module_files(&mut res, &files, &mut warnings);

        let tids = task_order(info.as_ref(), &files);
        let perf_events = sched_events(&files, little, &tids, &mut warnings)?;
        let scan = Scan::new(res, little, &perf_events);
        let mut task_files = Vec::new();
        for &tid in &tids {
            if let Some((_, f)) = files.dats.iter().find(|(t, _)| *t == tid) {
                task_files.push((tid, f.source.clone()));
            }
        }
        Ok(Prepared {
            info,
            scan,
            perf_events,
            files: task_files,
            tasks: Vec::new(),
            warnings,
        })
    }

    /// Runs task `tid`'s pass over `reader` (of `src`) merged with its scheduler events, and
    /// ends it; the pass back when a fed reader ran out of bytes first.
    pub fn read(
        &mut self,
        mut pass: TaskPass,
        tid: u32,
        src: &Source,
        reader: &mut DatReader,
    ) -> Option<TaskPass> {
        let events: Vec<&PerfEvent> = self.perf_events.iter().filter(|e| e.tid == tid).collect();
        if !pass.run(&mut self.scan, reader, &events) {
            return Some(pass);
        }
        let t = pass.finish(&mut self.scan, tid, src.clone(), &mut self.warnings);
        self.tasks.push(t);
        None
    }

    /// The dataset and report once every task has been read.
    pub fn complete(self, group: &DatasetGroup) -> Result<(Dataset, UftraceReport)> {
        let Prepared {
            info,
            mut scan,
            tasks,
            mut warnings,
            ..
        } = self;
        for m in &scan.res.modules {
            if let Some(e) = m.sym_err.get() {
                warnings.push(e.clone());
            }
        }
        // Make every function's spec known for replays.
        for f in 0..scan.res.funcs.len() as u32 {
            scan.res.spec_cached(f);
        }

        let tree = to_model::cct(&scan.tree, &scan.res, &group.root)?;
        let report = report::report(&tasks, &scan.tree, &scan.res);
        let ds = to_model::dataset(
            group,
            info.as_ref(),
            scan,
            tasks,
            tree,
            &report.counts,
            warnings,
        )?;
        Ok((ds, report))
    }
}

/// The `info` file; without one, a little-endian 64-bit recording is assumed if it has task data.
fn read_info(
    group: &DatasetGroup,
    files: &Files,
    warnings: &mut Vec<Warning>,
) -> Result<Option<UftraceInfo>> {
    match files.info {
        Some(f) => Ok(Some(UftraceInfo::parse(&f.source)?)),
        None => {
            if files.dats.is_empty() {
                return Err(Error::unrecognized(
                    &group.root,
                    "uftrace recording without info file",
                ));
            }
            warnings.push(Error::mismatch(
                &group.root,
                "no info file: assuming a little-endian 64-bit recording",
            ));
            Ok(None)
        }
    }
}

/// `task.txt` (sessions, tasks, forks, dlopens); empty when missing.
fn read_task_txt(
    group: &DatasetGroup,
    files: &Files,
    warnings: &mut Vec<Warning>,
) -> Result<task::TaskFile> {
    Ok(match files.task {
        Some(f) => task::TaskFile::parse(&f.source, warnings)?,
        None => {
            if !files.dats.is_empty() {
                warnings.push(Error::mismatch(
                    &group.root,
                    "no task.txt: addresses are shown without symbols",
                ));
            }
            task::TaskFile::default()
        }
    })
}

/// One session per `SESS` line, with the modules of its `sid-<id>.map`.
fn add_sessions(
    res: &mut Resolver,
    group: &DatasetGroup,
    files: &Files,
    warnings: &mut Vec<Warning>,
) {
    let sessions = res.tasks.sessions.clone();
    for s in &sessions {
        res.sessions.push(resolve::SessionData {
            sid: s.sid.clone(),
            pid: s.pid,
            time_ns: s.time_ns,
            ..Default::default()
        });
        let idx = res.sessions.len() - 1;
        match files.maps.get(&s.sid) {
            Some(mf) => match map::parse_map(&mf.source) {
                Ok(mods) => res.add_session_maps(idx, &mods, &s.exename),
                Err(e) => warnings.push(e),
            },
            None => warnings.push(Error::mismatch(
                &group.root,
                format!(
                    "no map for session {}: its addresses stay unresolved",
                    s.sid
                ),
            )),
        }
    }
}

/// Libraries loaded with dlopen, by base address in the session that loaded them.
fn add_dlopens(res: &mut Resolver) {
    for d in res.tasks.dlopens.clone() {
        let mi = res.module(&d.libname);
        let sess = res
            .sessions
            .iter()
            .position(|s| s.sid == d.sid)
            .or_else(|| res.session_for(d.tid, d.time_ns).map(|s| s as usize));
        if let Some(s) = sess.and_then(|s| res.sessions.get_mut(s)) {
            s.dlopens.push((d.base, mi));
            crate::sort::sort_by(&mut s.dlopens, |a, b| a.cmp(b));
        }
    }
}

/// Symbol tables (read when first needed) and debug info of each module, by base name.
fn attach_module_files(res: &mut Resolver, files: &Files, warnings: &mut Vec<Warning>) {
    let lp64 = res.lp64;
    for m in res.modules.iter_mut() {
        let b = base_name(&m.path).to_string();
        let sym = files.syms.get(&b).or_else(|| {
            // Newer uftrace may suffix names with a build id: `libc.so.6-<id>.sym`.
            files
                .syms
                .iter()
                .find(|(k, _)| k.starts_with(&format!("{b}-")))
                .map(|(_, v)| v)
        });
        m.sym_src = sym.map(|f| f.source.clone());
        if let Some(f) = files.dbgs.get(&b) {
            match dbg::DebugInfo::parse(&f.source, lp64) {
                Ok(d) => m.dbg = Some(Arc::new(d)),
                Err(e) => warnings.push(e),
            }
        }
    }
}

/// Task ids with a data file: first in the order `info` lists them, then the rest ascending.
fn task_order(info: Option<&UftraceInfo>, files: &Files) -> Vec<u32> {
    let info_tids = info.map(|i| i.tids()).unwrap_or_default();
    let mut tids: Vec<u32> = Vec::new();
    for t in &info_tids {
        if files.dats.iter().any(|(d, _)| d == t) && !tids.contains(t) {
            tids.push(*t);
        }
    }
    let mut rest: Vec<u32> = files
        .dats
        .iter()
        .map(|(t, _)| *t)
        .filter(|t| !tids.contains(t))
        .collect();
    crate::sort::sort_by_key(&mut rest, |&t| t); // a few task ids: the shared sort (src/sort.rs)
    tids.extend(rest);
    tids
}

/// Scheduler events of the tasks `tids`, merged over CPUs by time.
fn sched_events(
    files: &Files,
    little: bool,
    tids: &[u32],
    warnings: &mut Vec<Warning>,
) -> Result<Vec<PerfEvent>> {
    let mut perf_events: Vec<PerfEvent> = Vec::new();
    for p in &files.perf {
        perf_events.extend(perf::parse_perf(&p.source, little, warnings)?);
    }
    perf_events.retain(|e| tids.contains(&e.tid));
    crate::sort::sort_by_key(&mut perf_events, |e| e.time);
    Ok(perf_events)
}
