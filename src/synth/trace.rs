//! Trace lines of a synthetic HPCToolkit database: per profile, samples at a jittered period
//! from a per-rank start, walking the profile's sampled leaves in runs weighted by their sample
//! counts, with rare idle (ctx 0) samples never two in a row, as trace.db requires.

use super::db::SynthDb;
use super::rng::{hash, Rng};

/// Trace time origin (ns since the epoch). The sampling period is chosen per database so a trace
/// line lasts about as long as the main thread's CPU time ([`SynthDb::trace_period_ns`]).
pub const TRACE_T0_NS: u64 = 1_700_000_000_000_000_000;

impl SynthDb {
    /// Samples of the trace line of profile `prof`: (timestamp ns, ctx id).
    pub fn trace_line(&self, prof: u32) -> Vec<(u64, u32)> {
        let mut buf = Vec::new();
        let mut out = Vec::with_capacity(self.spec.samples as usize);
        let mut tl = TraceGen::new(self, prof, &mut buf);
        for i in 0..self.spec.samples {
            out.push(tl.sample(self, prof, i));
        }
        out
    }

    /// Nominal time between trace samples; each sample is late by up to half of it.
    pub fn trace_period_ns(&self) -> u64 {
        self.trace_period_ns
    }

    /// Time of sample `i` of profile `prof`: the line's start (staggered by rank and thread), `i`
    /// periods, and a jitter below half a period.
    pub(super) fn timestamp(&self, prof: u32, i: u64) -> u64 {
        let (r, t) = self.rank_thread(prof);
        let start = TRACE_T0_NS + (r as u64 * 1500 + t as u64 * 250) * 1000;
        let period = self.trace_period_ns;
        let jitter = hash(self.spec.seed, 19, prof as u64, i) % (period / 2);
        start + i * period + jitter
    }
}

/// Trace sample generator for one line: a run-length walk over the profile's sampled leaves,
/// weighted by their sample counts, with rare idle (ctx 0) samples never two in a row.
pub(super) struct TraceGen {
    rng: Rng,
    cum: Vec<f64>,
    ctx: Vec<u32>,
    cur: u32,
    prev_idle: bool,
}

impl TraceGen {
    pub(super) fn new(db: &SynthDb, prof: u32, buf: &mut Vec<f64>) -> TraceGen {
        db.fill_profile(prof, buf);
        let (a, z) = db.range(prof);
        let k = db.slots();
        let mut cum = Vec::new();
        let mut ctx = Vec::new();
        let mut total = 0.0;
        let lo = db.leaves.node.partition_point(|&l| l < a);
        let hi = db.leaves.node.partition_point(|&l| l < z);
        for &leaf in &db.leaves.node[lo..hi] {
            let v = buf[leaf as usize * k];
            if v > 0.0 {
                total += v;
                cum.push(total);
                ctx.push(db.tree.nodes[leaf as usize].ctx_id);
            }
        }
        TraceGen {
            rng: Rng::new(hash(db.spec.seed, 23, prof as u64, 0)),
            cum,
            ctx,
            cur: 0,
            prev_idle: true,
        }
    }
    fn pick(&mut self) -> u32 {
        let Some(&total) = self.cum.last() else {
            return 0;
        };
        let x = self.rng.unit() * total;
        let i = self
            .cum
            .partition_point(|&c| c <= x)
            .min(self.ctx.len() - 1);
        self.ctx[i]
    }
    pub(super) fn sample(&mut self, db: &SynthDb, prof: u32, i: u64) -> (u64, u32) {
        // An idle sample is always followed by a running one: the format forbids two in a row.
        if i == 0 || self.prev_idle || self.rng.chance(0.25) {
            if !self.prev_idle && self.rng.chance(0.02) {
                self.cur = 0;
            } else {
                self.cur = self.pick();
            }
        }
        self.prev_idle = self.cur == 0;
        (db.timestamp(prof, i), self.cur)
    }
}
