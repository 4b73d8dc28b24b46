//! What a synthetic HPCToolkit database is made from: ranks, threads, tree size and depth,
//! metrics, trace length, seed and the optional deep chain and named functions, with the limits a
//! spec must respect before anything is generated.

/// What to synthesise. Profiles are `ranks * threads`; thread 0 of each rank runs under the
/// "main thread" entry point, other threads under "application thread" (OpenMP-style workers).
#[derive(Clone, Debug, PartialEq)]
pub struct SynthSpec {
    pub title: String,
    pub ranks: u32,
    pub threads: u32,
    /// Approximate number of contexts in the tree (entry points included).
    pub contexts: u32,
    /// Maximum call depth (function frames on a path, `main` is depth 1).
    pub depth: u32,
    pub metrics: u32,
    /// Trace samples per profile; 0 writes no trace.db.
    pub samples: u64,
    pub seed: u64,
    /// Add an "unknown entry" entry point without children, as real databases often have.
    pub unknown_entry: bool,
    /// Frames of a recursive chain under `main` (`main -> recurse -> recurse -> ...`, each call
    /// through a line call site), ending in one sampled line: `--depth` only bounds the random
    /// tree, this makes a call path exactly this deep. 0: none.
    pub chain: u32,
    /// Extra functions called from `main`, each with one sampled line, named verbatim and
    /// defined in a source file of the same name: hostile names for viewer tests.
    pub names: Vec<String>,
}

impl Default for SynthSpec {
    fn default() -> SynthSpec {
        SynthSpec {
            title: "hpcscope synthetic database".into(),
            ranks: 4,
            threads: 2,
            contexts: 1000,
            depth: 10,
            metrics: 3,
            samples: 1000,
            seed: 1,
            unknown_entry: true,
            chain: 0,
            names: Vec::new(),
        }
    }
}

/// Most metrics and contexts a spec may ask for: metric ids are u16 (15 statistics per metric)
/// and every context costs meta.db bytes held in memory.
pub const MAX_METRICS: u32 = 1000;
pub const MAX_CONTEXTS: u32 = 2_000_000;
/// Longest recursive chain (two contexts per frame: call site and callee).
pub const MAX_CHAIN: u32 = 500_000;
/// Most bytes of trace samples a spec may ask for (keeps every offset far from u64 overflow).
pub const MAX_TRACE_BYTES: u64 = 1 << 50;
/// Most extra named functions.
pub const MAX_NAMES: usize = 10_000;

impl SynthSpec {
    /// Why this spec cannot be generated, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        if self.ranks == 0 || self.threads == 0 {
            return Err("ranks and threads must be at least 1".into());
        }
        let profiles = self.ranks as u64 * self.threads as u64;
        if profiles >= u32::MAX as u64 {
            return Err(format!(
                "{profiles} profiles do not fit the format's u32 index"
            ));
        }
        if self.metrics == 0 || self.metrics > MAX_METRICS {
            return Err(format!("metrics must be 1..={MAX_METRICS}"));
        }
        if self.contexts > MAX_CONTEXTS {
            return Err(format!("contexts must be at most {MAX_CONTEXTS}"));
        }
        if self.chain > MAX_CHAIN {
            return Err(format!("chain must be at most {MAX_CHAIN}"));
        }
        if self.names.len() > MAX_NAMES {
            return Err(format!("at most {MAX_NAMES} extra function names"));
        }
        let trace_bytes = profiles
            .checked_mul(self.samples)
            .and_then(|x| x.checked_mul(12));
        if trace_bytes.is_none_or(|b| b > MAX_TRACE_BYTES) {
            return Err(format!(
                "{profiles} profiles x {} samples exceed {MAX_TRACE_BYTES} bytes of trace",
                self.samples
            ));
        }
        Ok(())
    }
}
