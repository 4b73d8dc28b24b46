//! Unit tests of the XML-era reader: a small database written here byte by byte (experiment.xml,
//! two metric-db files, an hpctrace file), and the errors of malformed and oversized inputs.

use super::mdb::{Merged, END_MARKER};
use super::metric_db::{rank_thread, MetricDbFile};
use crate::bytes::Source;
use crate::formats::{self, InputFile};
use crate::model::{LexicalType, Relation, ScopeKind};

const XML: &str = r##"<?xml version="1.0"?>
<!DOCTYPE HPCToolkitExperiment [ <!ENTITY boom "&boom;&boom;"> ]>
<HPCToolkitExperiment version="2.2"><Header n="tiny"/>
<SecCallPathProfile i="0" n="tiny"><SecHeader>
<MetricTable>
<Metric i="2" n="T (sec):Sum (I)" o="0" v="derived-incr" t="inclusive" partner="3"><MetricFormula t="combine" frm="sum($2, $2)"/><Info><NV n="units" v="events"/></Info></Metric>
<Metric i="3" n="T (sec):Sum (E)" o="-1" v="derived-incr" t="exclusive" partner="2"><MetricFormula t="combine" frm="sum($3, $3)"/></Metric>
<Metric i="4" n="R:Sum (I)" o="1" v="derived-incr" t="inclusive" partner="5" fmt="%6.2f %%" show="3" show-percent="0"><MetricFormula t="view" frm="100*#0/$3"/></Metric>
<Metric i="5" n="R:Sum (E)" o="-1" v="derived-incr" t="exclusive" partner="4" show="3"><MetricFormula t="view" frm="100*#0/$3"/></Metric>
<Metric i="6" n="U:Sum (I)" o="2" v="derived-incr" t="inclusive" show="0"><MetricFormula t="view" frm="avg($2) + @2 + $6 + $99"/></Metric>
</MetricTable>
<MetricDBTable>
<MetricDB i="0" n="T (sec) (I)" t="inclusive" partner="1" db-glob="*.metric-db" db-id="0" db-num-metrics="2" db-header-sz="24"/>
<MetricDB i="1" n="T (sec) (E)" t="exclusive" partner="0" db-glob="*.metric-db" db-id="1" db-num-metrics="2" db-header-sz="24"/>
</MetricDBTable>
<LoadModuleTable><LoadModule i="7" n="/bin/a"/></LoadModuleTable>
<FileTable><File i="8" n="a.c"/><File i="9" n="b.h"/></FileTable>
<ProcedureTable><Procedure i="10" n="main" v="0x40"/><Procedure i="11" n="inl"/></ProcedureTable>
</SecHeader><SecCallPathProfileData>
<M n="2" v="6"/>
<PF i="2" s="10" l="5" lm="7" f="8" n="10"><M n="2" v="6"/>
<L i="3" s="20" l="6-9"><M n="2" v="4"/>
<Pr i="4" s="11" l="2" f="9" n="11" a="1"><M n="2" v="4"/>
<S i="5" s="21" l="3" it="77"><M n="2" v="4"/><M n="3" v="4"/></S>
</Pr></L>
<S i="6" s="22" l="12" it="78"><M n="2" v="2"/><M n="3" v="2"/></S>
</PF>
</SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>
"##;

/// A metric-db file: magic, version, 'b', node and metric counts, then rows of big-endian f64.
fn metric_db(rows: &[[f64; 2]]) -> Vec<u8> {
    let mut b = b"HPCPROF-metricdb__00.10b".to_vec();
    b.extend((rows.len() as u32).to_be_bytes()); // node count
    b.extend(2u32.to_be_bytes()); // metric count
    for r in rows {
        for v in r {
            b.extend(v.to_be_bytes());
        }
    }
    b
}

/// An hpctrace file (version 01.01, flags 0) with (time, call-path id) records.
fn hpctrace(records: &[(u64, u32)]) -> Vec<u8> {
    let mut b = b"HPCRUN-trace______01.01b".to_vec();
    b.extend(0u64.to_be_bytes()); // flags
    for &(t, id) in records {
        b.extend(t.to_be_bytes());
        b.extend(id.to_be_bytes());
    }
    b
}

fn group(files: Vec<(&str, Vec<u8>)>) -> crate::formats::DatasetGroup {
    let inputs = files
        .into_iter()
        .map(|(p, b)| InputFile {
            path: p.to_string(),
            source: Source::from_vec(p, b),
        })
        .collect();
    let (mut groups, _) = formats::group(inputs);
    assert_eq!(groups.len(), 1);
    groups.remove(0)
}

/// The error of opening a group that must fail.
fn open_err(g: crate::formats::DatasetGroup) -> crate::error::Error {
    match formats::open(&g) {
        Ok(_) => panic!("opened"),
        Err(e) => e,
    }
}

fn tiny() -> Vec<(&'static str, Vec<u8>)> {
    // Rows are node ids 1..=6: the root, PF 2, L 3, Pr 4, S 5, S 6.
    let t0 = metric_db(&[[6., 0.], [6., 0.], [4., 0.], [4., 0.], [4., 4.], [2., 2.]]);
    let t1 = metric_db(&[[0.; 2]; 6]);
    vec![
        ("db/experiment.xml", XML.as_bytes().to_vec()),
        ("db/a-000000-000-1-2-0.metric-db", t0),
        ("db/a-000001-000-1-2-0.metric-db", t1),
        (
            "db/a-000000-000-1-2-0.hpctrace",
            hpctrace(&[(100, 77), (150, 78), (170, 99)]),
        ),
    ]
}

#[test]
fn tiny_database_in_the_model() {
    let ds = formats::open(&group(tiny())).unwrap();
    assert_eq!(ds.warnings.len(), 1, "{:?}", ds.warnings);
    assert!(ds.warnings[0].to_string().contains("column 6 ('U:Sum (I)' = avg($2) + @2 + $6 + $99) not computed: function 'avg' is not supported"), "{}", ds.warnings[0]);
    ds.cct.check().unwrap();
    assert_eq!(ds.layout, "experiment.xml v2.2");
    assert_eq!(ds.cct.ctx_id, vec![0, 2, 3, 4, 5, 6]);
    let f = &ds.cct.frame;
    assert_eq!(ds.frame_name(1), "main");
    assert_eq!(
        (f[2].lexical_type, f[2].code.line, f[2].code.file),
        (LexicalType::Loop, Some(6), Some(0))
    );
    assert_eq!(
        (f[3].relation, ds.frame_name(3)),
        (Relation::InlinedCall, "inl".to_string())
    );
    // A statement inside the inlined code is in the inlined procedure's file.
    assert_eq!(
        (f[4].code.file, f[4].code.line, f[4].code.module),
        (Some(1), Some(3), Some(0))
    );
    // One metric: summary columns 2/3, per-thread columns 0/1; the view-only columns are facts
    // and formula metrics (U's formula is not computed: a warning).
    assert_eq!(ds.metrics.len(), 1);
    let m = &ds.metrics[0];
    assert_eq!((m.name.as_str(), m.unit.as_str()), ("T (sec)", "s"));
    assert_eq!((m.inclusive(true), m.exclusive(true)), (Some(2), Some(3)));
    assert_eq!((m.inclusive(false), m.exclusive(false)), (Some(0), Some(1)));
    assert_eq!(m.value_id(ScopeKind::Execution, true), Some(2));
    assert!(ds
        .facts
        .iter()
        .any(|(k, v)| k == "view formulas" && v.starts_with("R:Sum (I) = 100*#0/$3; ")));
    // R = 100 * T (I) / T (E); its exclusive formula reads T (I) where T (E) has a value.
    let t = ds.taxonomy.as_ref().unwrap();
    assert_eq!(t.derived.len(), 1);
    assert_eq!(ds.view_metrics(), 2);
    let name = |m: u32, x: bool| {
        format!(
            "{}{}",
            ds.metric_label(m as usize).0,
            if x { " (E)" } else { "" }
        )
    };
    let r = &t.derived[0];
    assert_eq!(r.name, "R");
    assert_eq!(
        r.inclusive.as_ref().unwrap().text(&name),
        "100 * T (sec) / T (sec) (E)"
    );
    assert_eq!(
        r.exclusive.as_ref().unwrap().text(&name),
        "100 * (T (sec) if T (sec) (E) != 0) / T (sec) (E)"
    );
    // Nodes in table order with show flags and formats: T shown, R shown (exclusive only).
    let nodes: Vec<_> = t
        .nodes
        .iter()
        .map(|n| {
            (
                n.name.as_str(),
                n.visible,
                n.variants[0].format.as_deref(),
                n.variants[0].render.percent,
            )
        })
        .collect();
    assert_eq!(
        nodes,
        [
            ("T (sec)", true, None, true),
            ("R", true, Some("%6.2f %%"), false)
        ]
    );
    let mut view = crate::analysis::profile::ProfileView::new(&ds);
    let c = view.columns(&ds, 1).unwrap().clone();
    // Nodes: root, PF 2 (T 6/0), L 3 (4/0), Pr 4 (4/0), S 5 (4/4), S 6 (2/2).
    assert_eq!(c.inclusive, [0., 0., 0., 0., 100., 100.]);
    assert_eq!(c.exclusive, [0., 0., 0., 0., 100., 100.]);
    // Thread 0's values: the same rows, the formula per thread.
    view.set_selection(&ds, crate::analysis::values::Selection::Profile(1))
        .unwrap();
    let c = view.columns(&ds, 1).unwrap();
    assert_eq!(c.inclusive, [0., 0., 0., 0., 100., 100.]);
    // Summary values by node; thread 0's rows by id (row 1 = the root).
    let s = ds.data.profile_values(0).unwrap();
    assert_eq!(
        (s.get(0, 2), s.get(1, 2), s.get(4, 3), s.get(5, 3)),
        (6., 6., 4., 2.)
    );
    assert_eq!(ds.profiles.len(), 3);
    let t0 = ds.data.profile_values(1).unwrap();
    assert_eq!((t0.get(0, 0), t0.get(3, 0), t0.get(4, 1)), (6., 4., 4.));
    assert!(ds.data.profile_values(2).unwrap().is_empty());
    assert_eq!(
        ds.data.context_values(4).unwrap(),
        vec![(1, 0, 4.), (1, 1, 4.)]
    );
    // The trace: ids 77 and 78 are the statements' `it`; an unknown id shows as the root.
    let t = ds.trace.as_ref().unwrap();
    assert_eq!(
        (t.min_time, t.max_time, t.lines[0].prof_index),
        (Some(100), Some(170), 1)
    );
    let nodes: Vec<u32> = ds
        .data
        .trace_samples(0, 0, 3)
        .unwrap()
        .iter()
        .map(|s| s.node)
        .collect();
    assert_eq!(nodes, vec![4, 5, 0]);
    assert_eq!(ds.data.trace_find(0, 160).unwrap(), Some(1));
}

#[test]
fn merged_files_read_like_the_files_they_hold() {
    // experiment-1.mdb holding both metric-db files (thread 0's first), with the end marker.
    let files = tiny();
    let (t0, t1) = (files[1].1.clone(), files[2].1.clone());
    let mut m = 0u32.to_be_bytes().to_vec(); // application type
    m.extend(2u32.to_be_bytes()); // file count
    let data = 8 + 2 * 16;
    for (proc_, off) in [(0u32, data), (1, data + t0.len())] {
        m.extend(proc_.to_be_bytes());
        m.extend(0u32.to_be_bytes()); // thread
        m.extend((off as u64).to_be_bytes());
    }
    m.extend(&t0);
    m.extend(&t1);
    m.extend(END_MARKER.to_be_bytes());
    let mut w = Vec::new();
    let merged = Merged::open(&Source::from_vec("experiment-1.mdb", m.clone()), &mut w).unwrap();
    assert!(w.is_empty());
    assert_eq!(merged.entries[1].len, t1.len() as u64);
    let ds = formats::open(&group(vec![
        ("db/experiment.xml", XML.as_bytes().to_vec()),
        ("db/experiment-1.mdb", m),
    ]))
    .unwrap();
    assert_eq!(ds.profiles.len(), 3);
    assert_eq!(ds.data.profile_values(1).unwrap().get(3, 0), 4.);
    assert_eq!(ds.profiles[2].id_tuple[0].logical_id, 1);
}

#[test]
fn malformed_xml_names_file_offset_and_line() {
    let bad = XML.replace("</L>", "</S>");
    let e = open_err(group(vec![("db/experiment.xml", bad.into_bytes())]));
    let s = e.to_string();
    assert!(
        s.contains("line 25") && s.contains("closes <L>") && s.contains("experiment.xml"),
        "{s}"
    );
    assert!(e.offset.is_some());
    let cut = &XML.as_bytes()[..XML.find("<S i=\"6\"").unwrap()];
    let e = open_err(group(vec![("db/experiment.xml", cut.to_vec())]));
    assert!(e.to_string().contains("ends inside"), "{e}");
}

#[test]
fn huge_claimed_counts_are_errors() {
    // A metric-db claiming 2^32-1 nodes in 32 bytes.
    let mut b = metric_db(&[]);
    b[24..28].copy_from_slice(&u32::MAX.to_be_bytes());
    let e = MetricDbFile::open(
        &Source::from_vec("t.metric-db", b.clone()),
        0,
        b.len() as u64,
    )
    .unwrap_err();
    assert!(e.to_string().contains("4294967295 nodes"), "{e}");
    // A merged file claiming 2^32-1 entries.
    let mut m = 0u32.to_be_bytes().to_vec();
    m.extend(u32::MAX.to_be_bytes());
    let e = Merged::open(&Source::from_vec("experiment.mt", m), &mut Vec::new()).unwrap_err();
    assert!(e.to_string().contains("claims 4294967295 files"), "{e}");
    // The open of the database names the metric-db file.
    let mut files = tiny();
    files[1].1 = b;
    let e = open_err(group(files));
    assert!(
        e.to_string().contains("a-000000-000-1-2-0.metric-db"),
        "{e}"
    );
}

#[test]
fn rank_and_thread_from_file_names() {
    assert_eq!(
        rank_thread("d/1.cpi-000003-000-a8c00270-160446-0.metric-db"),
        Some((3, 0))
    );
    assert_eq!(
        rank_thread("acc_f3.out-000000-500-2a803c80-3444792-0.hpctrace"),
        Some((0, 500))
    );
    assert_eq!(rank_thread("x.hpctrace"), None);
}
