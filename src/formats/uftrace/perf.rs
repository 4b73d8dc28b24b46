//! `perf-cpu<N>.dat`: perf_event records uftrace saved per CPU (`uftrace record` with perf
//! events), each a `perf_event_header` {u32 type, u16 misc, u16 size} and a body; uftrace turns
//! the scheduler switches into `linux:schedule` pseudo-functions.

// Read here: PERF_RECORD_SWITCH (14; misc bit 13 = out, bit 14 = preempted) with a sample_id
// {pid, tid, time}, FORK (7) / EXIT (4) {pid, ppid, tid, ptid, time}, COMM (3) {pid, tid,
// comm[], sample_id}.

use crate::bytes::Source;
use crate::error::{Error, Result, Warning};

pub const PERF_RECORD_COMM: u32 = 3;
pub const PERF_RECORD_EXIT: u32 = 4;
pub const PERF_RECORD_FORK: u32 = 7;
pub const PERF_RECORD_SWITCH: u32 = 14;
const MISC_SWITCH_OUT: u16 = 1 << 13;
const MISC_SWITCH_OUT_PREEMPT: u16 = 1 << 14;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PerfKind {
    SchedIn,
    SchedOut,
    SchedOutPreempt,
    TaskNew,
    TaskExit,
    Comm(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerfEvent {
    pub time: u64,
    pub tid: u32,
    pub kind: PerfKind,
}

/// Reads every event of one per-CPU file. A truncated tail becomes a warning.
pub fn parse_perf(
    src: &Source,
    little: bool,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<PerfEvent>> {
    let mut out = Vec::new();
    let len = src.len();
    let mut off = 0u64;
    let u32_at = |o: u64, w: &str| -> Result<u32> {
        if little {
            src.u32_le_at(o, w)
        } else {
            src.u32_be_at(o, w)
        }
    };
    let u16_at = |o: u64, w: &str| -> Result<u16> {
        if little {
            src.u16_le_at(o, w)
        } else {
            src.u16_be_at(o, w)
        }
    };
    let u64_at = |o: u64, w: &str| -> Result<u64> {
        if little {
            src.u64_le_at(o, w)
        } else {
            src.u64_be_at(o, w)
        }
    };
    while off < len {
        let step = (|| -> Result<(u64, Option<PerfEvent>)> {
            let ty = u32_at(off, "perf event type")?;
            let misc = u16_at(off + 4, "perf event misc")?;
            let size = u16_at(off + 6, "perf event size")? as u64;
            if size < 8 {
                return Err(Error::invalid(
                    src.name(),
                    off,
                    format!("perf event size {size}"),
                ));
            }
            src.check(off, size, "perf event")?;
            let body = off + 8;
            let ev = match ty {
                PERF_RECORD_SWITCH if size >= 24 => {
                    let tid = u32_at(body + 4, "switch tid")?;
                    let time = u64_at(body + 8, "switch time")?;
                    let kind = if misc & MISC_SWITCH_OUT == 0 {
                        PerfKind::SchedIn
                    } else if misc & MISC_SWITCH_OUT_PREEMPT != 0 {
                        PerfKind::SchedOutPreempt
                    } else {
                        PerfKind::SchedOut
                    };
                    Some(PerfEvent { time, tid, kind })
                }
                PERF_RECORD_FORK | PERF_RECORD_EXIT if size >= 32 => {
                    let tid = u32_at(body + 8, "task tid")?;
                    let time = u64_at(body + 16, "task time")?;
                    let kind = if ty == PERF_RECORD_FORK {
                        PerfKind::TaskNew
                    } else {
                        PerfKind::TaskExit
                    };
                    Some(PerfEvent { time, tid, kind })
                }
                PERF_RECORD_COMM if size >= 8 + 8 + 16 => {
                    let tid = u32_at(body + 4, "comm tid")?;
                    let comm_len = size - 8 - 8 - 16;
                    let comm = src.bytes(body + 8, comm_len, "comm name")?;
                    let nul = comm.iter().position(|&b| b == 0).unwrap_or(comm.len());
                    let name = String::from_utf8_lossy(&comm[..nul]).into_owned();
                    let time = u64_at(off + size - 8, "comm time")?;
                    Some(PerfEvent {
                        time,
                        tid,
                        kind: PerfKind::Comm(name),
                    })
                }
                _ => None,
            };
            Ok((size, ev))
        })();
        match step {
            Ok((size, ev)) => {
                if let Some(ev) = ev {
                    out.push(ev);
                }
                off += size;
            }
            Err(e) => {
                warnings.push(e);
                break;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_switch_and_comm() {
        // From recorded-threads perf-cpu1.dat: a sched-in of 16971, then a task exit.
        let mut b = vec![0x0e, 0, 0, 0, 0, 0, 0x18, 0];
        b.extend_from_slice(&16969u32.to_le_bytes());
        b.extend_from_slice(&16971u32.to_le_bytes());
        b.extend_from_slice(&1940629663365u64.to_le_bytes());
        // COMM: header (size 40), pid, tid, "threads\0", sample_id {pid, tid, time}.
        b.extend_from_slice(&[3, 0, 0, 0, 0, 0x20, 0x28, 0]);
        b.extend_from_slice(&16969u32.to_le_bytes());
        b.extend_from_slice(&16969u32.to_le_bytes());
        b.extend_from_slice(b"threads\0");
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&77u64.to_le_bytes());
        // switch out, preempted
        b.extend_from_slice(&[0x0e, 0, 0, 0, 0, 0x60, 0x18, 0]);
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&99u64.to_le_bytes());
        b.extend_from_slice(&[0x0e, 0, 0]); // truncated tail
        let mut w = Vec::new();
        let ev = parse_perf(&Source::from_vec("perf-cpu1.dat", b), true, &mut w).unwrap();
        assert_eq!(ev.len(), 3);
        assert_eq!(
            ev[0],
            PerfEvent {
                time: 1940629663365,
                tid: 16971,
                kind: PerfKind::SchedIn
            }
        );
        assert_eq!(ev[1].kind, PerfKind::Comm("threads".into()));
        assert_eq!(ev[1].time, 77);
        assert_eq!(ev[2].kind, PerfKind::SchedOutPreempt);
        assert_eq!(w.len(), 1);
    }
}
