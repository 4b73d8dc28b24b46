//! `hpcscope load DIR [--repeat N]`: times opening a dataset to a usable tree with inclusive and
//! exclusive values of every metric in the summary (or first) profile, for benchmarks.

use crate::formats;
use std::path::Path;
use std::time::Instant;

/// What one load produced, so the work cannot be skipped and the numbers can be checked.
pub struct Loaded {
    pub nodes: usize,
    pub profiles: usize,
    pub root_inclusive: f64,
    pub exclusive_total: f64,
    /// Milliseconds spent finding the files, opening the dataset, and building the columns.
    pub phases_ms: [f64; 3],
}

/// Opens `dir` and builds the dense inclusive and exclusive columns of every metric.
pub fn load(dir: &Path) -> Result<Loaded, String> {
    let t0 = Instant::now();
    let inputs = super::read_inputs(dir)?;
    let (groups, _) = formats::group(inputs);
    let g = groups
        .first()
        .ok_or_else(|| format!("{}: no dataset recognised", dir.display()))?;
    let t1 = Instant::now();
    let ds = formats::open(g).map_err(|e| e.to_string())?;
    let t2 = Instant::now();
    let prof = ds.summary_profile.unwrap_or(0);
    let summary = ds.summary_profile.is_some();
    let values = if prof < ds.profiles.len() {
        ds.data
            .profile_values_shared(prof)
            .map_err(|e| e.to_string())?
    } else {
        Default::default()
    };
    let n = ds.cct.tree.len();
    // Inclusive then exclusive id of every metric (NO_ID when the metric lacks one), all built
    // in one pass over the values.
    const NO_ID: u16 = u16::MAX;
    let ids: Vec<u16> = ds
        .metrics
        .iter()
        .flat_map(|m| {
            [
                m.inclusive(summary).unwrap_or(NO_ID),
                m.exclusive(summary).unwrap_or(NO_ID),
            ]
        })
        .collect();
    let wanted: Vec<u16> = ids.iter().copied().filter(|&i| i != NO_ID).collect();
    let mut built = values.columns(&wanted, n).into_iter();
    let columns: Vec<Option<Vec<f64>>> = ids
        .iter()
        .map(|&i| if i == NO_ID { None } else { built.next() })
        .collect();
    let root_inclusive = columns
        .first()
        .and_then(|c| c.as_ref())
        .and_then(|c| c.first().copied())
        .unwrap_or(0.0);
    let exclusive_total = columns
        .get(1)
        .and_then(|c| c.as_ref())
        .map(|c| c.iter().sum())
        .unwrap_or(0.0);
    let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
    let t3 = Instant::now();
    Ok(Loaded {
        phases_ms: [ms(t0, t1), ms(t1, t2), ms(t2, t3)],
        nodes: n,
        profiles: ds.profiles.len(),
        root_inclusive,
        exclusive_total,
    })
}

pub fn run(args: &[String]) -> Result<(), String> {
    let (dir, repeat) = match args {
        [dir] => (dir, 1),
        [dir, flag, n] if flag == "--repeat" => {
            (dir, n.parse::<usize>().map_err(|_| "bad --repeat")?.max(1))
        }
        _ => return Err("usage: hpcscope load DIR [--repeat N]".into()),
    };
    let mut times = Vec::with_capacity(repeat);
    let mut last = None;
    let cpu0 = cpu_ticks();
    for _ in 0..repeat {
        let t = Instant::now();
        let l = load(Path::new(dir))?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        last = Some(l);
    }
    let cpu_ms = match (cpu0, cpu_ticks()) {
        (Some(a), Some(b)) => format!("{:.3}", (b - a) as f64 * 10.0 / repeat as f64),
        _ => "n/a".into(),
    };
    times.sort_by(f64::total_cmp);
    let l = last.expect("at least one run");
    println!(
        "load_ms min {:.3} median {:.3} cpu_ms_mean {cpu_ms} (last run: files {:.3} open {:.3} columns {:.3}) runs {} nodes {} profiles {} root_inclusive {} exclusive_total {}",
        times[0],
        times[times.len() / 2],
        l.phases_ms[0],
        l.phases_ms[1],
        l.phases_ms[2],
        repeat,
        l.nodes,
        l.profiles,
        l.root_inclusive,
        l.exclusive_total
    );
    Ok(())
}

/// CPU time of this process (user + system) in clock ticks of 10 ms, from /proc/self/stat: a
/// measure that a busy shared machine does not inflate. `None` where there is no /proc.
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Fields after the command name start at field 3: utime is field 14, stime field 15.
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}
