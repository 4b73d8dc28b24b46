//! Values of a synthetic HPCToolkit database, regenerated on demand: each profile's point values
//! (a pure function of seed, profile and leaf) propagated up the tree in hpcprof's scopes, and
//! the summary statistics over all profiles that profile.db and cct.db are laid out from.

use super::db::{SynthDb, CPUTIME_PER_SAMPLE};
use super::rng::{hash, mix, unit};

/// Propagation scopes every metric is instantiated in: (name, type, propagation index).
/// Types: 1 point, 2 execution, 3 transitive (bit 0 = "function": lexical children propagate).
pub const SCOPES: [(&str, u8, u8); 3] =
    [("point", 1, 255), ("function", 3, 0), ("execution", 2, 255)];
pub const SCOPE_POINT: usize = 0;
pub const SCOPE_FUNCTION: usize = 1;
pub const SCOPE_EXECUTION: usize = 2;
/// Summary statistics of each scope, in hpcprof's order: (formula, combine 0 sum / 1 min / 2 max).
pub const STATS: [(&str, u8); 5] = [("1", 0), ("$$", 0), ("($$^2)", 0), ("$$", 1), ("$$", 2)];
pub const STAT_COUNT: usize = 0;
pub const STAT_SUM: usize = 1;
pub const STAT_SUMSQ: usize = 2;
pub const STAT_MIN: usize = 3;
pub const STAT_MAX: usize = 4;

impl SynthDb {
    /// Value id of metric `m` in scope `s` (non-summary profiles and cct.db).
    pub fn prop_metric_id(m: usize, s: usize) -> u16 {
        (3 * m + s) as u16
    }

    /// Value id of statistic `stat` of metric `m` in scope `s` (summary profile).
    pub fn stat_metric_id(m: usize, stat: usize, s: usize) -> u16 {
        (15 * m + 3 * stat + s) as u16
    }

    pub(super) fn slots(&self) -> usize {
        self.metrics() * 3
    }

    /// Fills `buf` (nodes x metrics x 3 scopes, index `(node * metrics + m) * 3 + s`) with every
    /// value of profile `prof`. Only node 0 and the profile's entry subtree are written; the rest of
    /// `buf` is left as it was (callers read those ranges only).
    pub(super) fn fill_profile(&self, prof: u32, buf: &mut Vec<f64>) {
        let k = self.slots();
        buf.resize(self.tree.nodes.len() * k, 0.0);
        let (a, z) = self.range(prof);
        buf[..k].fill(0.0);
        buf[a as usize * k..z as usize * k].fill(0.0);
        let (rank, thread) = self.rank_thread(prof);
        let seed = self.spec.seed;
        let f_rank = 0.8 + 0.4 * unit(hash(seed, 11, rank as u64, 0));
        let f_thread = 0.9 + 0.2 * unit(hash(seed, 13, rank as u64, thread as u64));
        let lo = self.leaves.node.partition_point(|&l| l < a);
        let hi = self.leaves.node.partition_point(|&l| l < z);
        let m_count = self.metrics();
        for li in lo..hi {
            let leaf = self.leaves.node[li] as usize;
            let h = hash(seed, 17, prof as u64, leaf as u64);
            if unit(h) >= self.leaves.activity[li] {
                continue;
            }
            let factor = if self.leaves.comm[li] {
                2.0 - f_rank
            } else {
                f_rank * f_thread
            };
            let w = self.leaves.weight[li] * factor * (0.6 + 0.8 * unit(mix(h)));
            let samples = w.round().max(1.0);
            let base = leaf * k;
            buf[base] = samples * CPUTIME_PER_SAMPLE;
            for m in 1..m_count {
                let rate = self.leaves.rate[li * m_count + m];
                if rate > 0.0 {
                    let noise = 0.9 + 0.2 * unit(mix(h ^ m as u64));
                    buf[base + 3 * m] = (samples * rate * noise).round();
                }
            }
        }
        // Propagation, children before parents: execution takes every descendant, function only
        // through contexts whose propagation bit is set (lexical children).
        for i in (a as usize..z as usize).rev() {
            let p = self.tree.nodes[i].parent as usize;
            let prop = self.tree.nodes[i].propagate;
            for m in 0..m_count {
                let s = (i * m_count + m) * 3;
                let point = buf[s];
                buf[s + 1] += point;
                buf[s + 2] += point;
                let d = (p * m_count + m) * 3;
                buf[d + 2] += buf[s + 2];
                if prop {
                    buf[d + 1] += buf[s + 1];
                }
            }
        }
    }

    /// Every non-zero value of profile `prof` as (ctx id, metric id, value), sorted by ctx id then
    /// metric id; `prof` 0 gives the summary profile (statistics ids). For tests and small uses.
    pub fn profile_values(&self, prof: u32) -> Vec<(u32, u16, f64)> {
        let mut out = Vec::new();
        let k = self.slots();
        if prof == 0 {
            let st = self.stats();
            for ctx in 0..self.tree.nodes.len() as u32 {
                let node = self.tree.node_of_ctx[ctx as usize] as usize;
                self.summary_values(&st, node, |id, v| out.push((ctx, id, v)));
            }
            return out;
        }
        let mut buf = Vec::new();
        self.fill_profile(prof, &mut buf);
        let (a, z) = self.range(prof);
        for ctx in 0..self.tree.nodes.len() as u32 {
            let node = self.tree.node_of_ctx[ctx as usize];
            if node != 0 && (node < a || node >= z) {
                continue;
            }
            for j in 0..k {
                let v = buf[node as usize * k + j];
                if v != 0.0 {
                    out.push((ctx, j as u16, v));
                }
            }
        }
        out
    }

    /// The summary profile's non-zero values at `node`, in stat-id order: every statistic of every
    /// (metric, scope).
    pub(super) fn summary_values(&self, st: &SynthStats, node: usize, mut f: impl FnMut(u16, f64)) {
        let k = self.slots();
        for m in 0..self.metrics() {
            for stat in 0..STATS.len() {
                for s in 0..3 {
                    let v = st.stat(node * k + 3 * m + s, stat);
                    if v != 0.0 {
                        f(Self::stat_metric_id(m, stat, s), v);
                    }
                }
            }
        }
    }

    /// Counting pass: regenerates every profile once and gathers the summary statistics and the
    /// sizes every offset of profile.db and cct.db depends on.
    pub fn stats(&self) -> SynthStats {
        let k = self.slots();
        let n = self.tree.nodes.len();
        let p = self.profiles();
        let mut st = SynthStats {
            slots: k,
            count: vec![0; n * k],
            sum: vec![0.0; n * k],
            sumsq: vec![0.0; n * k],
            min: vec![f64::INFINITY; n * k],
            max: vec![0.0; n * k],
            prof_values: vec![0; p as usize + 1],
            prof_ctxs: vec![0; p as usize + 1],
        };
        let mut buf = Vec::new();
        for prof in 1..=p {
            self.fill_profile(prof, &mut buf);
            let (a, z) = self.range(prof);
            let mut values = 0u64;
            let mut ctxs = 0u32;
            for node in std::iter::once(0).chain(a as usize..z as usize) {
                let mut any = false;
                let base = node * k;
                for (j, &v) in (base..).zip(&buf[base..base + k]) {
                    if v != 0.0 {
                        any = true;
                        values += 1;
                        st.count[j] += 1;
                        st.sum[j] += v;
                        st.sumsq[j] += v * v;
                        st.min[j] = st.min[j].min(v);
                        st.max[j] = st.max[j].max(v);
                    }
                }
                ctxs += any as u32;
            }
            st.prof_values[prof as usize] = values;
            st.prof_ctxs[prof as usize] = ctxs;
        }
        let (mut values, mut ctxs) = (0u64, 0u32);
        for node in 0..n {
            let c = st.count[node * k..node * k + k]
                .iter()
                .filter(|&&c| c > 0)
                .count() as u64;
            values += c * STATS.len() as u64;
            ctxs += (c > 0) as u32;
        }
        st.prof_values[0] = values;
        st.prof_ctxs[0] = ctxs;
        st
    }
}

/// Per (node, metric, scope) statistics over all profiles, and per-profile value counts.
pub struct SynthStats {
    slots: usize,
    /// Per slot (node x metric x scope): profiles with a value, their sum, sum of squares, min, max.
    pub(super) count: Vec<u32>,
    sum: Vec<f64>,
    sumsq: Vec<f64>,
    min: Vec<f64>,
    max: Vec<f64>,
    /// Per profile (0 = summary): values and contexts with values.
    pub(super) prof_values: Vec<u64>,
    pub(super) prof_ctxs: Vec<u32>,
}

impl SynthStats {
    /// Statistic `stat` of slot `j` (0 when no profile has a value there).
    fn stat(&self, j: usize, stat: usize) -> f64 {
        if self.count[j] == 0 {
            return 0.0;
        }
        match stat {
            STAT_COUNT => self.count[j] as f64,
            STAT_SUM => self.sum[j],
            STAT_SUMSQ => self.sumsq[j],
            STAT_MIN => self.min[j],
            _ => self.max[j],
        }
    }
    /// cct.db values of a node: (value count, non-empty metric ids).
    pub(super) fn ctx_counts(&self, node: usize) -> (u64, u16) {
        let s = &self.count[node * self.slots..(node + 1) * self.slots];
        (
            s.iter().map(|&c| c as u64).sum(),
            s.iter().filter(|&&c| c > 0).count() as u16,
        )
    }
}
