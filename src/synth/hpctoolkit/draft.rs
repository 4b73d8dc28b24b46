//! Written databases turned into what the 2022 drafts of the format left behind
//! (../shared/FORMATS-NOTES.md): profile.db in the May-2022 draft layout (Profile Infos of 40
//! bytes without flags, the first profile being the summary), and a cct.db that lacks the values
//! of some contexts, as hpcprof drafts of April 2022 wrote for some databases.

use crate::synth::SynthDb;

fn u64_at(b: &[u8], at: usize) -> usize {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x) as usize
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as usize
}

/// A final-layout profile.db (as [`SynthDb::write_profile`] writes it) in the May-2022 draft
/// layout: `szProfile` 40, each Profile Info without its flags word, packed from the same place.
pub fn may_draft_profile(final_bytes: &[u8]) -> Vec<u8> {
    let mut b = final_bytes.to_vec();
    let sec = u64_at(&b, 0x18);
    let (p_profiles, n) = (u64_at(&b, sec), u32_at(&b, sec + 8));
    let old = b[sec + 0x0c] as usize;
    b[sec + 0x0c] = 40;
    for i in 0..n {
        let rec: Vec<u8> = b[p_profiles + old * i..p_profiles + old * i + 40].to_vec();
        b[p_profiles + 40 * i..p_profiles + 40 * (i + 1)].copy_from_slice(&rec);
    }
    b[p_profiles + 40 * n..p_profiles + old * n].fill(0);
    b
}

/// A cct.db without the values of contexts `ctxs`: their Context Infos say no values and no
/// metrics (the value bytes stay in the file, unreferenced).
pub fn cct_without_values(bytes: &[u8], ctxs: &[u32]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let sec = u64_at(&b, 0x18);
    let (p_ctxs, n, sz) = (u64_at(&b, sec), u32_at(&b, sec + 8), b[sec + 0x0c] as usize);
    for &c in ctxs.iter().filter(|&&c| (c as usize) < n) {
        let rec = p_ctxs + sz * c as usize;
        // nValues (u64 at 0x00) and nMetrics (u16 at 0x10).
        b[rec..rec + 8].fill(0);
        b[rec + 0x10..rec + 0x12].fill(0);
    }
    b
}

impl SynthDb {
    /// The database in the May-2022 draft layout, its cct.db lacking the values of every second
    /// context that has some (ctxIds 1, ...; the global context keeps its values), with its
    /// taxonomy: (file name, bytes), and the ctxIds whose values cct.db lacks.
    pub fn draft_lacking_values(&self) -> (Vec<(String, Vec<u8>)>, Vec<u32>) {
        let mut files = self.to_files();
        let cct = files.iter().position(|f| f.0 == "cct.db");
        let mut dropped = Vec::new();
        if let Some(k) = cct {
            let b = &files[k].1;
            let sec = u64_at(b, 0x18);
            let (p_ctxs, n, sz) = (u64_at(b, sec), u32_at(b, sec + 8), b[sec + 0x0c] as usize);
            let with_values: Vec<u32> = (1..n as u32)
                .filter(|&c| u64_at(b, p_ctxs + sz * c as usize) > 0)
                .collect();
            dropped = with_values.into_iter().step_by(2).collect();
            files[k].1 = cct_without_values(&files[k].1, &dropped);
        }
        for f in files.iter_mut().filter(|f| f.0 == "profile.db") {
            f.1 = may_draft_profile(&f.1);
        }
        files.push((
            super::taxonomy::TAXONOMY_PATH.to_string(),
            self.metrics_yaml().into_bytes(),
        ));
        (files, dropped)
    }
}
