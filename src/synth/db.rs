//! A planned synthetic HPCToolkit database ([`SynthDb`]): the spec, the generated tree, metric
//! names and each leaf's static properties (weight, activity, event rates), from which any
//! profile's values and trace line are regenerated on demand (values.rs, trace.rs).

use super::names::Family;
use super::rng::Rng;
use super::spec::SynthSpec;
use super::tree::{self, SynthTree, ENTRY_APPLICATION_THREAD, ENTRY_MAIN_THREAD};

/// One CPUTIME sample is 2^-10 s, so sums of seconds stay exact in f64.
pub const CPUTIME_PER_SAMPLE: f64 = 1.0 / 1024.0;

const METRIC_NAMES: [&str; 6] = [
    "CPUTIME (sec)",
    "PAPI_TOT_CYC",
    "PAPI_TOT_INS",
    "PAPI_L2_TCM",
    "PAPI_FP_OPS",
    "PAPI_BR_MSP",
];
/// Events per sample of metrics 1.. (cycles at 2.6 GHz, ...).
const METRIC_RATES: [f64; 6] = [0.0, 2.6e6, 3.1e6, 2.0e4, 3.5e6, 1.5e4];

/// Identifier kinds of the profiles' id tuples (indexes into meta.db's identifier names).
const KIND_NODE: u8 = 1;
const KIND_RANK: u8 = 2;
const KIND_THREAD: u8 = 3;
const RANKS_PER_NODE: u32 = 4;

/// A planned database: names, the tree and everything needed to regenerate any profile's values.
pub struct SynthDb {
    pub spec: SynthSpec,
    /// The tree and its names.
    pub tree: SynthTree,
    pub metric_names: Vec<String>,
    pub(super) leaves: Leaves,
    /// Node ranges of the main-thread and application-thread entry subtrees.
    pub(super) main_range: (u32, u32),
    pub(super) app_range: Option<(u32, u32)>,
    pub(super) trace_period_ns: u64,
}

/// The sampled leaves (in node order) and their static properties.
pub(super) struct Leaves {
    pub node: Vec<u32>,
    /// Expected samples per profile before the rank/thread factors.
    pub weight: Vec<f64>,
    /// Chance that a profile samples the leaf at all.
    pub activity: Vec<f64>,
    /// Communication (MPI) leaves: busier on faster ranks.
    pub comm: Vec<bool>,
    /// leaves x metrics: events per sample (0 where the metric never fires).
    pub rate: Vec<f64>,
}

impl SynthDb {
    /// Plans a database: names, the tree in preorder with shuffled ctx ids, per-leaf weights.
    pub fn new(spec: &SynthSpec) -> Result<SynthDb, String> {
        spec.check()?;
        let (t, mut rng) = tree::generate(spec);
        let range_of = |kind: u16| {
            t.nodes
                .iter()
                .position(|x| x.entry == Some(kind))
                .map(|i| (i as u32, t.subtree_end[i]))
        };
        let main_range = range_of(ENTRY_MAIN_THREAD).unwrap_or((1, 2));
        let app_range = range_of(ENTRY_APPLICATION_THREAD);
        let metrics = spec.metrics as usize;
        let leaves = Leaves::new(&t, &mut rng, main_range.1, metrics);
        // Expected CPU time of a main-thread profile, spread over the trace samples.
        let main_samples: f64 = leaves
            .node
            .iter()
            .zip(leaves.weight.iter().zip(&leaves.activity))
            .filter(|(&l, _)| l < main_range.1)
            .map(|(_, (w, a))| w * a)
            .sum();
        let cpu_ns = main_samples * CPUTIME_PER_SAMPLE * 1e9;
        let trace_period_ns = (cpu_ns / spec.samples.max(1) as f64).clamp(1e3, 1e9) as u64;
        let metric_names = (0..metrics)
            .map(|m| match METRIC_NAMES.get(m) {
                Some(s) => s.to_string(),
                None => format!("EVENT_{m:03}"),
            })
            .collect();
        Ok(SynthDb {
            spec: spec.clone(),
            tree: t,
            metric_names,
            leaves,
            main_range,
            app_range,
            trace_period_ns,
        })
    }

    /// Number of non-summary profiles (profile indexes 1..=profiles(); 0 is the summary).
    pub fn profiles(&self) -> u32 {
        self.spec.ranks * self.spec.threads
    }

    pub fn metrics(&self) -> usize {
        self.metric_names.len()
    }

    /// (rank, thread) of profile index `prof` (1-based).
    pub fn rank_thread(&self, prof: u32) -> (u32, u32) {
        let i = prof.saturating_sub(1);
        (i / self.spec.threads, i % self.spec.threads)
    }

    /// Identifier tuple of profile `prof`: (kind, logical id, physical id, is physical).
    pub fn id_tuple(&self, prof: u32) -> Vec<(u8, u32, u64, bool)> {
        let (r, t) = self.rank_thread(prof);
        let node = r / RANKS_PER_NODE;
        let mut out = vec![(KIND_NODE, node, 0x0a00_0100 + node as u64, true)];
        if self.spec.ranks > 1 {
            out.push((KIND_RANK, r, r as u64, false));
        }
        out.push((KIND_THREAD, t, t as u64, false));
        out
    }

    /// Node range of the entry point profile `prof` runs under.
    pub(super) fn range(&self, prof: u32) -> (u32, u32) {
        let (_, t) = self.rank_thread(prof);
        match self.app_range {
            Some(r) if t > 0 => r,
            _ => self.main_range,
        }
    }

    /// Node index of a ctx id.
    pub fn node_of_ctx(&self, ctx: u32) -> Option<u32> {
        self.tree.node_of_ctx.get(ctx as usize).copied()
    }
}

impl Leaves {
    /// Every leaf of the tree but the entry points, with a weight, an activity and a rate per
    /// metric drawn from `rng` in node order; nodes below `main_end` run under the main thread.
    fn new(t: &SynthTree, rng: &mut Rng, main_end: u32, metrics: usize) -> Leaves {
        let mut l = Leaves {
            node: Vec::new(),
            weight: Vec::new(),
            activity: Vec::new(),
            comm: Vec::new(),
            rate: Vec::new(),
        };
        let mut hot_in_main = false;
        let mut hot_in_app = false;
        for i in 1..t.nodes.len() {
            if t.subtree_end[i] != i as u32 + 1 || t.nodes[i].entry.is_some() {
                continue;
            }
            let u = rng.unit();
            let comm = t.family[i] == Family::Mpi;
            let weight = if comm {
                1.0 + 150.0 * u * u
            } else {
                1.0 + 400.0 * u * u * u * u
            };
            // One leaf of each entry is active in every profile, so no profile is empty.
            let hot = if (i as u32) < main_end {
                &mut hot_in_main
            } else {
                &mut hot_in_app
            };
            let activity = if !*hot {
                *hot = true;
                1.0
            } else {
                0.45 + 0.55 * rng.unit()
            };
            l.node.push(i as u32);
            l.weight.push(weight);
            l.activity.push(activity);
            l.comm.push(comm);
            for m in 0..metrics {
                let rate = match m {
                    0 => 1.0,
                    _ => {
                        let base = METRIC_RATES.get(m).copied().unwrap_or(1.0e5);
                        let sparse = m >= 3 && rng.chance(0.4);
                        let comm_ins = if comm && m == 2 { 0.3 } else { 1.0 };
                        if sparse {
                            0.0
                        } else {
                            base * comm_ins * (0.5 + rng.unit())
                        }
                    }
                };
                l.rate.push(rate);
            }
        }
        l
    }
}
