//! prof2 pre-release databases: the corpus database (experiment.xml tree, big-endian profile.db,
//! zero-filled cct.db, empty trace.db) against values read from its bytes by hand and hpcviewer's
//! own test (`DataSummaryTest`: summary metric 512 at the root > 27, "27.1234130859375"), and
//! round trips of every file through the fixture writer, binary meta.db included.

use hpcscope::bytes::{Endian, Source};
use hpcscope::formats::prof2::meta::{Lexical, MetaContext, MetaDb};
use hpcscope::formats::prof2::profile::ProfileDb;
use hpcscope::formats::prof2::{cct::CctDb, trace::TraceDb};
use hpcscope::formats::{self, InputFile};
use hpcscope::model::{Dataset, LexicalType, Relation, TraceSample};
use hpcscope::synth::prof2 as writer;

mod common;

fn corpus_files() -> Option<Vec<(String, Vec<u8>)>> {
    let dir = common::corpus_dir("hpctoolkit/prof2/hpcviewer-empty-trace")?;
    let mut out = Vec::new();
    for name in [
        "FORMATS.md",
        "cct.db",
        "experiment.xml",
        "profile.db",
        "trace.db",
    ] {
        out.push((
            format!("empty-trace/{name}"),
            std::fs::read(dir.join(name)).unwrap(),
        ));
    }
    Some(out)
}

fn open(files: Vec<(String, Vec<u8>)>) -> hpcscope::Result<Dataset> {
    let inputs = files
        .into_iter()
        .map(|(p, b)| InputFile::from_vec(p, b))
        .collect();
    let (groups, _) = formats::group(inputs);
    let g = groups
        .iter()
        .find(|g| g.format_id() == formats::prof2::ID)
        .ok_or_else(|| hpcscope::Error::unrecognized("", "no prof2 group"))?;
    formats::open(g)
}

fn node(ds: &Dataset, ctx: u32) -> u32 {
    ds.cct.node_of_ctx(ctx).unwrap()
}

#[test]
fn corpus_summary_root_value_and_empty_trace() {
    let Some(files) = corpus_files() else { return };
    let ds = open(files).unwrap();
    assert_eq!(ds.format, "prof2");
    assert_eq!(ds.layout, "prof2 pre-release 1.0 (big-endian)");
    assert_eq!(ds.title, "loop");
    ds.cct.check().unwrap();

    // Metric ids: MetricDB 2/1 per thread, partials 512/256 in the summary (see prof2/mod.rs).
    assert_eq!(ds.metrics.len(), 1);
    let m = &ds.metrics[0];
    assert_eq!((m.name.as_str(), m.unit.as_str()), ("REALTIME (sec)", "s"));
    assert_eq!(m.inclusive(true), Some(512));
    assert_eq!(m.exclusive(true), Some(256));
    assert_eq!(m.inclusive(false), Some(2));
    assert_eq!(m.exclusive(false), Some(1));

    assert_eq!(ds.summary_profile, Some(0));
    assert_eq!(ds.profiles.len(), 2);
    assert_eq!(ds.profiles[1].label(&ds.id_names), "NODE 0 / THREAD 0");
    assert!(ds.profiles[1].id_tuple[0].physical);
    assert_eq!(ds.profiles[1].id_tuple[0].physical_id, 0x2a80_3c80);
    assert!(!ds.profiles[1].id_tuple[1].physical); // kind 0xc003: logical only

    // Root: the bytes 403b1f97fe8ef7fa at profile.db 0x630, metric id 0x0200.
    let root_value = f64::from_bits(0x403b_1f97_fe8e_f7fa);
    let summary = ds.data.profile_values(0).unwrap();
    assert_eq!(summary.get(0, 512), root_value);
    assert!(root_value > 27.0 && (root_value - 27.123413).abs() < 1e-6);
    let thread = ds.data.profile_values(1).unwrap();
    assert_eq!(thread.get(0, 2), root_value);

    // main (ctx 2): inclusive 27.123311, exclusive 15.515846; the libmonitor path (ctx 31)
    // holds the rest of the root's time.
    let main = node(&ds, 2);
    assert_eq!(ds.frame_name(main), "main");
    assert!((summary.get(main, 512) - 27.123311).abs() < 1e-9);
    assert!((summary.get(main, 256) - 15.515846).abs() < 1e-9);
    let monitor = node(&ds, 31);
    assert_eq!(
        ds.frame_name(monitor),
        "<unknown procedure> 0xd711 [libmonitor.so.0.0.0]"
    );
    assert!((summary.get(main, 512) + summary.get(monitor, 512) - root_value).abs() < 1e-12);
    assert_eq!(ds.frame_name(node(&ds, 1)), "<program root>");
    assert_eq!(
        ds.cct.frame[node(&ds, 6) as usize].lexical_type,
        LexicalType::Loop
    );
    assert_eq!(ds.frame_name(node(&ds, 9)), "alien.h:8");
    // The negative-id call site -16 is replaced by its callee, inlined_function (ctx 16).
    assert_eq!(ds.cct.tree.parent[node(&ds, 16) as usize], node(&ds, 3));
    assert_eq!(ds.cct.tree.len(), 28);

    // cct.db is zero-filled: context values come from profile.db, for both profiles.
    let cv = ds.data.context_values(main).unwrap();
    let ids: Vec<(u32, u16)> = cv.iter().map(|&(p, m, _)| (p, m)).collect();
    assert_eq!(ids, vec![(0, 256), (0, 512), (1, 1), (1, 2)]);
    assert_eq!(ds.warnings.len(), 1, "{:?}", ds.warnings);
    assert!(ds.warnings[0]
        .what
        .contains("cct.db stores only zero values"));

    // The empty trace: one calling-context line for profile 1, no samples, no time range.
    let t = ds.trace.as_ref().unwrap();
    assert_eq!((t.min_time, t.max_time), (None, None));
    assert_eq!(t.lines.len(), 1);
    assert_eq!((t.lines[0].prof_index, t.lines[0].samples), (1, 0));
    assert!(ds
        .facts
        .contains(&("trace".into(), "no samples (1 empty lines)".into())));
    assert_eq!(ds.data.trace_samples(0, 0, 10).unwrap(), vec![]);
    assert_eq!(ds.data.trace_find(0, 5).unwrap(), None);
}

#[test]
fn corpus_truncated_and_bit_flipped_never_panic() {
    let Some(files) = corpus_files() else { return };
    let exercise = |ds: Dataset| {
        ds.cct.check().unwrap();
        for p in 0..ds.profiles.len() {
            let _ = ds.data.profile_values(p);
        }
        for n in (0..ds.cct.tree.len() as u32).step_by(5) {
            let _ = ds.data.context_values(n);
        }
        if let Some(t) = &ds.trace {
            for l in 0..t.lines.len() {
                let _ = ds.data.trace_samples(l, 0, 100);
                let _ = ds.data.trace_find(l, 1 << 40);
            }
        }
    };
    for (i, (_, bytes)) in files.iter().enumerate() {
        if i == 0 {
            continue; // FORMATS.md is not read
        }
        // Every byte of the small trace.db; a spread of offsets elsewhere (XML parsing dominates).
        let step = match bytes.len() {
            0..=1000 => 1,
            _ if files[i].0.ends_with(".xml") => 13,
            _ => 5,
        };
        for cut in (0..bytes.len()).step_by(step) {
            let mut f = files.clone();
            f[i].1.truncate(cut);
            if let Ok(ds) = open(f) {
                exercise(ds);
            }
        }
        for at in (0..bytes.len()).step_by(step) {
            let mut f = files.clone();
            f[i].1[at] ^= 1 << (at % 8);
            if let Ok(ds) = open(f) {
                exercise(ds);
            }
        }
    }
}

#[test]
fn meta_db_round_trips_in_both_byte_orders() {
    let m = writer::sample_meta();
    for e in [Endian::Big, Endian::Little] {
        let bytes = writer::meta_db(&m, e);
        let mut w = Vec::new();
        let back = MetaDb::read(&Source::from_vec("meta.db", bytes.clone()), &mut w).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(back, m, "{e:?}");
        // Rewriting what was read gives the same bytes.
        assert_eq!(writer::meta_db(&back, e), bytes);
    }
    // The model view: preorder, relations, names.
    let t = m.to_tree();
    t.cct.check().unwrap();
    assert_eq!(t.cct.ctx_id, vec![0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(t.cct.tree.depth, vec![0, 1, 2, 3, 4, 5, 2, 1]);
    assert_eq!(t.cct.frame[4].relation, Relation::InlinedCall);
    assert_eq!(t.cct.frame[2].relation, Relation::Lexical);
    assert_eq!(t.cct.frame[5].lexical_type, LexicalType::Instruction);
    assert_eq!(t.cct.frame[5].code.module, Some(1));
    assert_eq!(t.metrics[0].inclusive(true), Some(512));
    assert_eq!(t.metrics[0].exclusive(false), Some(2));
}

#[test]
fn meta_db_deep_tree_is_read_iteratively() {
    let mut m = writer::sample_meta();
    m.contexts.clear();
    for i in 0..100_000u32 {
        m.contexts.push(MetaContext {
            ctx_id: i + 1,
            parent: i.checked_sub(1),
            callee: None,
            lexical: Lexical::new(2, 0),
        });
    }
    let bytes = writer::meta_db(&m, Endian::Big);
    let back = MetaDb::read(&Source::from_vec("meta.db", bytes), &mut Vec::new()).unwrap();
    assert_eq!(back.contexts.len(), 100_000);
    assert_eq!(back.contexts[99_999].parent, Some(99_998));
    let t = back.to_tree();
    assert_eq!(t.cct.tree.depth[100_000], 100_000);
}

#[test]
fn meta_db_truncated_flipped_and_cyclic_are_errors_or_warnings() {
    let bytes = writer::meta_db(&writer::sample_meta(), Endian::Big);
    for cut in 0..bytes.len() {
        let r = MetaDb::read(
            &Source::from_vec("m", bytes[..cut].to_vec()),
            &mut Vec::new(),
        );
        if let Ok(m) = r {
            m.to_tree().cct.check().unwrap();
        }
    }
    for at in 0..bytes.len() {
        for bit in [0x01u8, 0x80] {
            let mut b = bytes.clone();
            b[at] ^= bit;
            if let Ok(m) = MetaDb::read(&Source::from_vec("m", b), &mut Vec::new()) {
                m.to_tree().cct.check().unwrap();
            }
        }
    }
    // A node whose children block is the root block: a cycle, reported, not followed forever.
    let mut one = writer::sample_meta();
    one.contexts.truncate(1);
    let mut b = writer::meta_db(&one, Endian::Big);
    let ctree_ptr = u64::from_be_bytes(b[64..72].try_into().unwrap());
    let root = ctree_ptr + 8;
    let node = root as usize;
    let root_size = u64::from_be_bytes(b[ctree_ptr as usize..root as usize].try_into().unwrap());
    b[node + 4..node + 12].copy_from_slice(&root.to_be_bytes());
    b[node + 12..node + 20].copy_from_slice(&root_size.to_be_bytes());
    let e = MetaDb::read(&Source::from_vec("m", b), &mut Vec::new()).unwrap_err();
    assert!(e.what.contains("cycle"), "{e}");
}

#[test]
fn profile_cct_trace_round_trip() {
    let profs = writer::sample_profiles();
    for e in [Endian::Big, Endian::Little] {
        let mut w = Vec::new();
        let p = ProfileDb::read(
            &Source::from_vec("profile.db", writer::profile_db(&profs, e)),
            &mut w,
        )
        .unwrap();
        assert_eq!(p.endian, e);
        assert_eq!(p.profiles.len(), 3);
        for (i, f) in profs.iter().enumerate() {
            assert_eq!(p.profiles[i].id_tuple, f.id_tuple);
            let want: Vec<(u32, u16, f64)> = f
                .values
                .iter()
                .flat_map(|(c, v)| v.iter().map(move |&(m, x)| (*c, m, x)))
                .collect();
            assert_eq!(p.values(i).unwrap(), want);
            assert_eq!(p.context_values(i, 4).unwrap(), f.values[2].1);
            assert_eq!(p.context_values(i, 3).unwrap(), vec![]);
        }
        let c = CctDb::read(
            &Source::from_vec("cct.db", writer::cct_db(&profs, e)),
            &mut w,
        )
        .unwrap();
        assert_eq!(c.num_ctx, 5);
        assert_eq!(
            c.values(4).unwrap(),
            vec![
                (1, 1, 3.0),
                (1, 2, 5.5),
                (2, 1, 3.0),
                (2, 2, 5.5),
                (256, 0, 8.5),
                (512, 0, 8.5)
            ]
        );
        assert_eq!(c.values(2).unwrap(), vec![]);
        assert!(c.has_nonzero_values(8).unwrap());
        let t = TraceDb::read(
            &Source::from_vec("trace.db", writer::trace_db(&writer::sample_trace(), e)),
            e,
            &mut w,
        )
        .unwrap();
        assert_eq!((t.min_time, t.max_time), (1_000, 3_000));
        assert_eq!(t.samples(0, 1, 2).unwrap(), vec![(1_500, 4), (2_000, 99)]);
        assert_eq!(t.find(0, 1_999).unwrap(), Some(1));
        assert_eq!(t.find(0, 999).unwrap(), None);
        assert!(w.is_empty(), "{w:?}");
    }
}

#[test]
fn dataset_from_binary_meta_db_and_every_file() {
    let e = Endian::Big;
    let files = vec![
        (
            "db/meta.db".to_string(),
            writer::meta_db(&writer::sample_meta(), e),
        ),
        (
            "db/profile.db".to_string(),
            writer::profile_db(&writer::sample_profiles(), e),
        ),
        (
            "db/cct.db".to_string(),
            writer::cct_db(&writer::sample_profiles(), e),
        ),
        (
            "db/trace.db".to_string(),
            writer::trace_db(&writer::sample_trace(), e),
        ),
    ];
    let ds = open(files.clone()).unwrap();
    assert!(ds.warnings.is_empty(), "{:?}", ds.warnings);
    assert_eq!(ds.title, "solver run");
    assert_eq!(ds.layout, "prof2 pre-release 1.0 (big-endian)");
    assert!(ds
        .facts
        .contains(&("tree from".into(), "meta.db (version 4.0)".into())));
    assert_eq!(ds.profiles[2].label(&ds.id_names), "RANK 5 / THREAD 1");
    let names: Vec<String> = (0..ds.cct.tree.len() as u32)
        .map(|n| ds.frame_name(n))
        .collect();
    assert_eq!(
        names,
        [
            "<root>",
            "main",
            "loop at solver.c:12",
            "solver.c:13",
            "sqrt",
            "libm.so.6+0x2f40",
            "<unknown function>",
            "<unknown>"
        ]
    );
    let s = ds.data.profile_values(0).unwrap();
    assert_eq!(s.get(node(&ds, 4), 512), 8.5);
    assert_eq!(s.get(0, 512), 10.0);
    // cct.db has real values here, so context values come from it.
    assert_eq!(
        ds.data.context_values(node(&ds, 1)).unwrap(),
        vec![
            (0, 256, 1.5),
            (0, 512, 10.0),
            (1, 1, 4.0),
            (1, 2, 1.0),
            (2, 1, 6.0),
            (2, 2, 0.5)
        ]
    );
    let t = ds.trace.as_ref().unwrap();
    assert_eq!((t.min_time, t.max_time), (Some(1_000), Some(3_000)));
    assert_eq!(
        t.lines.len(),
        2,
        "the metric trace line is not a calling-context line"
    );
    assert_eq!(
        ds.data.trace_samples(0, 0, 10).unwrap(),
        vec![
            TraceSample {
                time: 1_000,
                node: node(&ds, 1)
            },
            TraceSample {
                time: 1_500,
                node: node(&ds, 4)
            },
            // A context id the tree does not know shows as the root: no node outside the tree.
            TraceSample {
                time: 2_000,
                node: 0
            },
            TraceSample {
                time: 3_000,
                node: node(&ds, 5)
            },
        ]
    );
    assert_eq!(ds.data.trace_find(1, 5_000).unwrap(), Some(0));

    // Without meta.db and experiment.xml there is no tree: an error that says so.
    let e = open(files[1..].to_vec()).err().unwrap();
    assert!(e.what.contains("no calling-context tree"), "{e}");
    // A broken meta.db next to an experiment.xml falls back to the XML (with a warning).
    let xml = br#"<HPCToolkitExperiment version="4.0"><Header n="x"/><SecCallPathProfile><SecCallPathProfileData><PF i="1"/></SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>"#;
    let mut f = files.clone();
    f[0].1.truncate(100);
    f.push(("db/experiment.xml".into(), xml.to_vec()));
    let ds = open(f).unwrap();
    assert_eq!(ds.title, "x");
    assert!(ds
        .warnings
        .iter()
        .any(|w| w.what.contains("meta.db unreadable")));
}
