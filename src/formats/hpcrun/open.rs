//! Opening a measurement folder as one dataset: read every profile (a broken one is a warning),
//! the `.hpcstruct` files, merge the trees (merge.rs, names.rs), describe each profile by its
//! identifier tuple, open the trace lines, and leave values to be computed on demand (lazy.rs).

use super::hpcstruct::{self, StructModule};
use super::lazy::HpcrunData;
use super::merge::{MergedProfile, Merger};
use super::metrics::MetricUnion;
use super::profile::{self, RunProfile};
use super::{trace_lines, DEFAULT_ID_NAMES, HPCSTRUCT, PROFILE};
use crate::bytes::Source;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::formats::DatasetGroup;
use crate::model::{Dataset, Identifier, ProfileInfo, Relation, TraceInfo};

/// Opens a measurement folder.
pub fn open(group: &DatasetGroup) -> Result<Dataset> {
    let mut warnings: Vec<Warning> = Vec::new();
    let files = group.file_entries();
    let profiles = read_profiles(group, &mut warnings)?;
    let structs = read_structs(group, &mut warnings);
    let n_structs = structs.len();
    let union = MetricUnion::of(&profiles, &group.root)?;

    // Merge every profile's tree; remember file node -> builder node per profile.
    let mut m = Merger::new(structs, kernel_files(group));
    let merged: Vec<MergedProfile> = profiles
        .iter()
        .map(|(_, p)| m.merge_profile(p, &union.index))
        .collect();
    let tree = m.finish(&group.root, &mut warnings)?;
    let cct = tree.cct;
    let to_final = |b: u32| cct.node_of_ctx(b).unwrap_or(0);
    let points: Vec<Vec<(u32, u16, f64)>> = merged
        .iter()
        .map(|mp| {
            mp.points
                .iter()
                .map(|&(n, mi, x)| (to_final(n), mi, x))
                .collect()
        })
        .collect();

    let id_names = id_names(&profiles);
    let (mut infos, n_gpu) = profile_infos(&profiles);
    let summary_index = infos.len();
    infos.push(ProfileInfo {
        summary: true,
        id_tuple: Vec::new(),
    });
    let (traces, trace) =
        trace_lines::open_traces(group, &profiles, &merged, to_final, &mut warnings);
    let metrics = union.model_metrics();

    let first = &profiles[0].1;
    let title = first
        .nv("program-name")
        .map(str::to_string)
        .unwrap_or_else(|| group.root.clone());
    let counts = Counts {
        profiles: profiles.len(),
        gpu_streams: n_gpu,
        metrics: metrics.len(),
        contexts: cct.tree.len(),
        structs: n_structs,
        derived: union.n_derived,
    };
    let facts = facts(first, &title, &counts, trace.as_ref());
    if profiles.iter().any(|(_, p)| p.version != first.version) {
        warnings.push(Error::mismatch(
            &group.root,
            "profiles of different hpcrun versions in one folder",
        ));
    }

    let parent = cct.tree.parent.clone();
    let lexical = cct
        .frame
        .iter()
        .map(|f| f.relation == Relation::Lexical)
        .collect();
    Ok(Dataset {
        format: "hpcrun".into(),
        layout: format!("hpcrun profile {}b", first.version),
        title,
        files,
        facts,
        id_names,
        modules: tree.modules,
        source_files: tree.source_files,
        functions: tree.functions,
        cct,
        metrics,
        profiles: infos,
        summary_profile: Some(summary_index),
        trace,
        taxonomy: None,
        warnings,
        data: Box::new(HpcrunData {
            points,
            summary: Some(summary_index),
            parent,
            lexical,
            traces,
        }),
    })
}

/// Every readable profile of `group` with its path. A broken file is reported and left out; the
/// dataset fails only if none is left.
fn read_profiles(
    group: &DatasetGroup,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<(String, RunProfile)>> {
    let mut profiles = Vec::new();
    let mut first_err = None;
    for f in group.files_of(PROFILE) {
        match profile::read(&f.source) {
            Ok(p) => {
                warnings.extend(p.warnings.iter().cloned());
                profiles.push((f.path.clone(), p));
            }
            Err(e) => {
                warnings.push(e.clone());
                first_err.get_or_insert(e);
            }
        }
    }
    if profiles.is_empty() {
        return Err(first_err.unwrap_or_else(|| {
            Error::new(
                ErrorKind::Mismatch,
                group.root.clone(),
                None,
                "measurement folder without a readable .hpcrun profile",
            )
        }));
    }
    Ok(profiles)
}

/// The load modules of every `.hpcstruct` file of `group`; a file that cannot be read is a
/// warning.
fn read_structs(group: &DatasetGroup, warnings: &mut Vec<Warning>) -> Vec<StructModule> {
    let mut structs = Vec::new();
    for f in group.files_of(HPCSTRUCT) {
        let text = f
            .source
            .bytes(0, f.source.len(), "hpcstruct")
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        match text.and_then(|t| hpcstruct::parse(&t, &f.path)) {
            Ok(m) => structs.extend(m),
            Err(e) => warnings.push(e),
        }
    }
    structs
}

/// The `kernel_symbols/*` files of `group` (path, bytes), read when a load module names one.
fn kernel_files(group: &DatasetGroup) -> Vec<(String, Source)> {
    group
        .files
        .iter()
        .filter(|(_, f)| f.path.contains("kernel_symbols/"))
        .map(|(_, f)| (f.path.clone(), f.source.clone()))
        .collect()
}

/// Names of identifier kinds: hpcrun's defaults, overridden by the files' dictionaries.
fn id_names(profiles: &[(String, RunProfile)]) -> Vec<String> {
    let mut id_names: Vec<String> = DEFAULT_ID_NAMES.iter().map(|s| s.to_string()).collect();
    for (_, p) in profiles {
        for (k, name) in &p.id_names {
            let k = (*k & 0x3fff) as usize;
            if k < 64 {
                if id_names.len() <= k {
                    id_names.resize(k + 1, String::new());
                }
                id_names[k] = name.clone();
            }
        }
    }
    id_names
}

/// One (non-summary) profile description per file, and how many of them are GPU streams.
fn profile_infos(profiles: &[(String, RunProfile)]) -> (Vec<ProfileInfo>, usize) {
    let mut infos = Vec::new();
    let mut n_gpu = 0usize;
    for (path, p) in profiles {
        let id_tuple = id_tuple(path, p);
        if id_tuple.iter().any(|i| i.kind == 6) {
            n_gpu += 1;
        }
        infos.push(ProfileInfo {
            summary: false,
            id_tuple,
        });
    }
    (infos, n_gpu)
}

/// The identifier tuple of profile `p` read from file `path`.
fn id_tuple(path: &str, p: &RunProfile) -> Vec<Identifier> {
    if !p.id_tuple.is_empty() {
        return p
            .id_tuple
            .iter()
            .map(|e| Identifier {
                kind: e.kind,
                logical_id: e.logical as u32,
                physical_id: e.physical,
                // "Logical only" ids carry no meaningful physical index.
                physical: e.interpret != 3,
            })
            .collect();
    }
    // 02.00 files: NODE / RANK / THREAD from the header, else the file name.
    let fname = profile::parse_file_name(path);
    let num = |key: &str, f: Option<u32>| {
        p.nv(key)
            .and_then(|v| v.trim().parse::<u32>().ok())
            .or(f)
            .unwrap_or(0)
    };
    let host = p
        .nv("host-id")
        .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
        .or(fname.as_ref().map(|f| f.host_id))
        .unwrap_or(0);
    vec![
        Identifier {
            kind: 1,
            logical_id: 0,
            physical_id: host,
            physical: true,
        },
        Identifier {
            kind: 2,
            logical_id: num("mpi-rank", fname.as_ref().map(|f| f.rank)),
            physical_id: 0,
            physical: false,
        },
        Identifier {
            kind: 3,
            logical_id: num("thread-id", fname.as_ref().map(|f| f.thread)),
            physical_id: 0,
            physical: false,
        },
    ]
}

/// What the facts of a folder count.
struct Counts {
    profiles: usize,
    gpu_streams: usize,
    metrics: usize,
    contexts: usize,
    structs: usize,
    derived: usize,
}

/// The facts shown for a folder whose first profile is `first`.
fn facts(
    first: &RunProfile,
    title: &str,
    n: &Counts,
    trace: Option<&TraceInfo>,
) -> Vec<(String, String)> {
    let mut facts = vec![
        ("program".to_string(), title.to_string()),
        (
            "profiles".to_string(),
            format!(
                "{} ({} CPU threads, {} GPU streams)",
                n.profiles,
                n.profiles - n.gpu_streams,
                n.gpu_streams
            ),
        ),
        ("metrics".to_string(), n.metrics.to_string()),
        ("contexts".to_string(), n.contexts.to_string()),
        ("structure files".to_string(), n.structs.to_string()),
    ];
    if let Some(path) = first.nv("program-path") {
        facts.insert(1, ("program path".into(), path.into()));
    }
    if n.derived > 0 {
        facts.push((
            "derived metrics (not computed)".into(),
            n.derived.to_string(),
        ));
    }
    if let Some(t) = trace {
        facts.push(("trace lines".into(), t.lines.len().to_string()));
    }
    facts
}
