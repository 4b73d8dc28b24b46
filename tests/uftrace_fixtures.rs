//! The recordings of tests/fixtures/uftrace (made with Debian's uftrace 0.13, see its README)
//! against what uftrace printed for them: `report` row for row and character for character,
//! the LOST lines of `replay` (counts, and where the timeline stands after each), and the names
//! of the tree and the exports, which must be the report's.

use hpcscope::export::{self, Format};
use hpcscope::formats::{self, uftrace};
use std::path::{Path, PathBuf};

mod common;

fn fixtures() -> PathBuf {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/uftrace"
    ))
    .to_path_buf()
}

/// Every fixture folder holding a recording and uftrace's report of it.
fn recordings() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("uftrace.data").is_dir() && p.join("expected/report.txt").is_file())
        .collect();
    out.sort();
    out
}

fn open(dir: &Path) -> (hpcscope::model::Dataset, uftrace::UftraceReport) {
    let g = common::uftrace_group(&dir.join("uftrace.data"));
    uftrace::open_report(&g).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn reports_equal_uftrace_report() {
    let dirs = recordings();
    let names: Vec<String> = dirs
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    for want in [
        "cxx-clones",
        "cxx-names",
        "fork-inherit",
        "fork-noevent",
        "lost-multi",
        "lost-sched",
        "lost-single",
        "unresolved",
    ] {
        assert!(names.iter().any(|n| n == want), "fixture {want} missing");
    }
    for dir in dirs {
        let (_, rep) = open(&dir);
        let want = read(&dir.join("expected/report.txt"));
        assert_eq!(
            hpcscope::cli::report::format_table(&rep.functions),
            want,
            "{}",
            dir.display()
        );
    }
}

/// Names uftrace shows in `replay`: `f() {`, `f();`, `} /* f */` (not the LOST or scheduler
/// comment lines). A leaf call of a name ending in `()` prints as `f();`: `known` tells which.
fn replay_names(text: &str, known: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let Some((_, body)) = line.split_once('|') else {
            continue;
        };
        let body = body.trim();
        let name = if let Some(n) = body.strip_prefix("} /* ") {
            n.strip_suffix(" */").map(str::to_string)
        } else if let Some(n) = body.strip_suffix(" {") {
            match n.strip_suffix("()") {
                Some(short) if !known.iter().any(|k| k == n) => Some(short.to_string()),
                _ => Some(n.to_string()),
            }
        } else if let Some(n) = body.strip_suffix(';') {
            match n.strip_suffix("()") {
                Some(short) if !known.iter().any(|k| k == n) => Some(short.to_string()),
                _ => Some(n.to_string()),
            }
        } else {
            None
        };
        if let Some(n) = name {
            out.push(n);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The C++ names as uftrace prints them are the very strings of the report, the tree and every
/// export.
#[test]
fn names_are_the_same_in_every_view() {
    let dir = fixtures().join("cxx-names");
    let (ds, rep) = open(&dir);
    let known: Vec<String> = rep.functions.iter().map(|r| r.function.clone()).collect();
    let replayed = replay_names(&read(&dir.join("expected/replay.txt")), &known);
    for name in [
        "make_label::cxx11",
        "make_label",
        "_GLOBAL__sub_I_make_label::cxx11",
        "main::$_0::operator()",
        "main::$_1::operator()",
        "geo::Vec2::operator(cast)",
        "geo::Vec2::operator+=",
        "_GLOBAL__N_1::helper",
        "Box::as",
        "std::vector::_M_realloc_insert",
    ] {
        assert!(
            rep.functions.iter().any(|r| r.function == name),
            "report: {name}"
        );
        assert!(replayed.iter().any(|n| n == name), "replay: {name}");
    }
    // Every function of the tree is named as uftrace's replay names it, and back.
    let mut tree: Vec<String> = (1..ds.cct.tree.len() as u32)
        .map(|n| ds.frame_name(n))
        .filter(|n| !n.starts_with("linux:"))
        .collect();
    tree.sort();
    tree.dedup();
    assert_eq!(tree, replayed);
    // The exports write the same strings.
    let folded = export::export(&ds, Format::Folded, 0).unwrap();
    let speedscope = export::export(&ds, Format::Speedscope, 0).unwrap();
    for name in &replayed {
        assert!(folded.contains(name.as_str()), "folded: {name}");
        assert!(
            speedscope.contains(&serde_json::to_string(name).unwrap()),
            "speedscope: {name}"
        );
    }
}

/// Frames no record entered (the callers a forked child returns through): uftrace 0.13 names
/// them `<0>` when still open at the end; a dlopen'ed library without its symbol table gives
/// `<address>` rows, one per address.
#[test]
fn unknown_addresses_are_named_as_uftrace_names_them() {
    // The second child exits inside finish_child: main and spawn, entered by its parent,
    // are still open in its records at the end.
    let (_, rep) = open(&fixtures().join("fork-noevent"));
    let zero = rep.functions.iter().find(|r| r.function == "<0>").unwrap();
    assert_eq!(zero.calls, 2);
    let exit = rep.functions.iter().find(|r| r.function == "exit").unwrap();
    assert_eq!((exit.total_ns, exit.calls), (0, 1));
    // With scheduler events, each child's first record is a switch at depth 0: nothing open.
    let (_, rep) = open(&fixtures().join("fork-inherit"));
    assert!(rep.functions.iter().all(|r| r.function != "<0>"));

    let (_, rep) = open(&fixtures().join("unresolved"));
    let hex: Vec<&str> = rep
        .functions
        .iter()
        .map(|r| r.function.as_str())
        .filter(|n| n.starts_with("<7f"))
        .collect();
    assert_eq!(hex.len(), 2, "{hex:?}");
    for n in hex {
        let inner = n.trim_start_matches('<').trim_end_matches('>');
        assert!(u64::from_str_radix(inner, 16).is_ok(), "{n}");
    }
}

/// One record of a .dat file (no payloads in these fixtures): time, kind (0 entry, 1 exit,
/// 2 LOST), depth, address.
fn records(dat: &Path) -> Vec<(u64, u64, u64, u64)> {
    let b = std::fs::read(dat).unwrap();
    b.chunks_exact(16)
        .map(|r| {
            let t = u64::from_le_bytes(r[..8].try_into().unwrap());
            let w = u64::from_le_bytes(r[8..].try_into().unwrap());
            (t, w & 3, (w >> 6) & 0x3ff, w >> 16)
        })
        .collect()
}

/// uftrace's replay of the recordings with LOST records: as many LOST lines as records, with
/// their counts (`some` for 0); in the timeline each gap is a `LOST` frame under the root from
/// the last record before it, and the record after it sits at the depth replay shows it (its
/// recorded depth, the callers it returns through being LOST frames, unless a scheduler switch
/// came first and rebuilt the stack at depth 0, as uftrace does).
#[test]
fn lost_regions_match_uftrace_replay() {
    for name in ["lost-single", "lost-multi", "lost-sched"] {
        let dir = fixtures().join(name);
        let (ds, rep) = open(&dir);
        let replay = read(&dir.join("expected/replay.txt"));
        let lines: Vec<&str> = replay.lines().collect();
        let lost_lines: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].contains("/* LOST "))
            .collect();
        let counts: Vec<u64> = lost_lines
            .iter()
            .map(|&i| {
                let w = lines[i].split("/* LOST ").nth(1).unwrap();
                w.split(' ').next().unwrap().parse().unwrap_or(0)
            })
            .collect();
        assert_eq!(rep.counts.lost_records, lost_lines.len() as u64, "{name}");
        assert_eq!(rep.counts.lost, counts.iter().sum::<u64>(), "{name}");
        assert!(rep.functions.iter().all(|r| r.function != "LOST"), "{name}");

        let dat = std::fs::read_dir(dir.join("uftrace.data"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.extension().is_some_and(|x| x == "dat")
                    && p.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with(|c: char| c.is_ascii_digit())
            })
            .unwrap();
        let recs = records(&dat);
        let samples = ds.data.trace_samples(0, 0, 1 << 20).unwrap();
        let mut checked = 0;
        for (k, i) in (0..recs.len()).filter(|&i| recs[i].1 == 2).enumerate() {
            let Some(&(t, kind, depth, _)) = recs[i + 1..].iter().find(|r| r.1 != 2) else {
                continue;
            };
            let before = recs[..i].iter().rev().find(|r| r.1 != 2).map(|r| r.0);
            // The gap: a LOST frame under the root, from the last record before it (or the
            // last scheduler switch, which uftrace counts as a record too).
            let s = samples.iter().position(|s| s.time == t).unwrap();
            let g = (0..s)
                .rev()
                .find(|&j| ds.frame_name(samples[j].node) == "LOST")
                .unwrap_or_else(|| panic!("{name}: no LOST frame before gap {k}"));
            let gap = samples[g];
            assert_eq!(ds.cct.tree.depth[gap.node as usize], 1, "{name}: gap {k}");
            if let Some(b) = before {
                assert!(
                    gap.time >= b,
                    "{name}: gap {k} starts after the last record"
                );
                if g + 1 == s {
                    assert_eq!(gap.time, b, "{name}: gap {k} starts at the last record");
                }
            }
            // The record after it stands where uftrace's replay shows its line: the first
            // function line after the LOST line (scheduler lines come first when a switch
            // does). An exit line shows the depth left open, an entry line the callee's.
            let next = lines[lost_lines[k] + 1..]
                .iter()
                .map(|l| l.split_once('|').map(|(_, b)| b).unwrap_or(""))
                .find(|b| !b.trim_start().starts_with("/*"))
                .unwrap();
            let shown = ((next.len() - next.trim_start().len()) / 2) as u64;
            let is_exit = next.trim_start().starts_with('}');
            assert_eq!(is_exit, kind == 1, "{name}: replay after gap {k}: {next}");
            let after = ds.cct.tree.depth[samples[s].node as usize] as u64;
            let want = if is_exit { shown } else { shown + 1 };
            assert_eq!(after, want, "{name}: after gap {k}: {next}");
            if shown == depth {
                checked += 1;
            }
        }
        // Where no scheduler switch comes between, that is the record's own depth.
        assert!(checked > 0 || name == "lost-sched", "{name}");
    }
}

/// The timeline is read back from checkpoints every 4,096 samples: one that falls right after
/// a LOST record must replay the stack rebuilt by the next record, as the first pass did.
#[test]
fn timeline_reads_back_lost_regions_from_any_checkpoint() {
    let dir = fixtures().join("lost-single/uftrace.data");
    let mut files = hpcscope::cli::read_inputs(&dir).unwrap();
    let dat = files
        .iter_mut()
        .find(|f| f.path.ends_with(".dat") && !f.path.contains("perf"))
        .unwrap();
    let bytes = dat.source.bytes(0, dat.source.len(), "all").unwrap();
    let recs: Vec<&[u8]> = bytes.chunks(16).filter(|r| r[8] & 3 != 2).collect();
    let span = u64::from_le_bytes(recs[recs.len() - 1][..8].try_into().unwrap())
        - u64::from_le_bytes(recs[0][..8].try_into().unwrap())
        + 1000;
    // The program's records 40 times over, later each time, with a LOST record as record
    // 4,095: the checkpoint of sample 4,096 is taken just after it.
    let mut out = Vec::new();
    let mut n = 0;
    for copy in 0..40u64 {
        for r in &recs {
            if n == 4095 {
                out.extend_from_slice(&0u64.to_le_bytes());
                out.extend_from_slice(&(2u64 | 5 << 3 | 7 << 16).to_le_bytes());
                n += 1;
                continue;
            }
            let t = u64::from_le_bytes(r[..8].try_into().unwrap()) + copy * span;
            out.extend_from_slice(&t.to_le_bytes());
            out.extend_from_slice(&r[8..]);
            n += 1;
        }
    }
    dat.source = hpcscope::bytes::Source::from_vec(dat.path.clone(), out);
    let (groups, _) = formats::group(files);
    let (ds, rep) = uftrace::open_report(&groups[0]).unwrap();
    assert_eq!(rep.counts.lost_records, 1);
    ds.cct.check().unwrap();
    let all = ds.data.trace_samples(0, 0, 1 << 20).unwrap();
    assert!(all.len() > 8192);
    assert_eq!(ds.frame_name(all[4095].node), "LOST");
    for start in [4090u64, 4095, 4096, 4097, 8191, 8192] {
        assert_eq!(
            ds.data.trace_samples(0, start, 64).unwrap(),
            all[start as usize..start as usize + 64].to_vec(),
            "from sample {start}"
        );
    }
}
