//! The prof2 sample database (seed 000): fixtures for tests, `hpcscope fixture prof2` and browser
//! tests, using every optional part of the format in a small solver run.

use super::{cct_db, meta_db, profile_db, trace_db, ProfileFixture, TraceLineFixture};
use crate::bytes::Endian;
use crate::formats::prof2::meta::{
    Callee, CodeTables, FunctionSpec, Lexical, MetaContext, MetaDb, MetaMetric, MetaScope,
    MetaSummary, PathSpec,
};
use crate::formats::prof2::profile::IdElem;
use crate::formats::prof2::Version;
use crate::model::CodeRef;

fn path(flags: u32, p: &str) -> PathSpec {
    PathSpec {
        flags,
        path: p.into(),
    }
}

/// A meta.db using every optional part of seed 000: caller lines, inlined calls, loops, lines,
/// points, anonymous functions, functions without binaries, several scopes and summaries.
pub fn sample_meta() -> MetaDb {
    MetaDb {
        version: Version { major: 4, minor: 0 },
        title: "solver run".into(),
        id_names: ["SUMMARY", "NODE", "RANK", "THREAD"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        metrics: sample_metrics(),
        code: CodeTables {
            modules: vec![path(0, "/bin/solver"), path(0, "/lib/libm.so.6")],
            files: vec![path(1, "solver.c"), path(0, "/usr/include/math.h")],
            functions: sample_functions(),
        },
        contexts: sample_contexts(),
    }
}

/// REALTIME in two scopes (execution with sum and max summaries, function with a sum), cycles in
/// the point scope without summaries.
fn sample_metrics() -> Vec<MetaMetric> {
    vec![
        MetaMetric {
            name: "REALTIME (sec)".into(),
            scopes: vec![
                MetaScope {
                    raw_mid: 1,
                    scope: "execution".into(),
                    summaries: vec![
                        MetaSummary {
                            summary_mid: 512,
                            combine: 0,
                            formula: "$$".into(),
                        },
                        MetaSummary {
                            summary_mid: 514,
                            combine: 2,
                            formula: "$$".into(),
                        },
                    ],
                },
                MetaScope {
                    raw_mid: 2,
                    scope: "function".into(),
                    summaries: vec![MetaSummary {
                        summary_mid: 256,
                        combine: 0,
                        formula: "$$".into(),
                    }],
                },
            ],
        },
        MetaMetric {
            name: "cycles".into(),
            scopes: vec![MetaScope {
                raw_mid: 3,
                scope: "point".into(),
                summaries: vec![],
            }],
        },
    ]
}

/// `main`, `sqrt` (no offset, no line) and an anonymous function without binary or file.
fn sample_functions() -> Vec<FunctionSpec> {
    vec![
        FunctionSpec {
            name: Some("main".into()),
            module: Some(0),
            offset: 0x1040,
            file: Some(0),
            line: 10,
            flags: 0,
        },
        FunctionSpec {
            name: Some("sqrt".into()),
            module: Some(1),
            offset: u64::MAX,
            file: Some(1),
            line: 0,
            flags: 0,
        },
        FunctionSpec {
            name: None,
            module: None,
            offset: u64::MAX,
            file: None,
            line: 0,
            flags: 0,
        },
    ]
}

/// Seven contexts in preorder, parents as indexes into the list.
fn sample_contexts() -> Vec<MetaContext> {
    let ctx = |ctx_id, parent, callee, lexical| MetaContext {
        ctx_id,
        parent,
        callee,
        lexical,
    };
    let lexical = |lex_type, flags, code| Lexical {
        lex_type,
        flags,
        code,
    };
    vec![
        // 0: main, called from the root
        ctx(
            1,
            None,
            Some(Callee {
                call_type: 0,
                flags: 0,
                caller_file: None,
                caller_line: None,
            }),
            lexical(0, 0x1, CodeRef::of_function(0)),
        ),
        // 1: loop at solver.c:12
        ctx(
            2,
            Some(0),
            None,
            lexical(1, 0x2, CodeRef::at_line(Some(0), Some(12))),
        ),
        // 2: line solver.c:13 that is a call line
        ctx(
            3,
            Some(1),
            None,
            lexical(2, 0x2 | 0x8, CodeRef::at_line(Some(0), Some(13))),
        ),
        // 3: sqrt inlined, with an explicit caller line
        ctx(
            4,
            Some(2),
            Some(Callee {
                call_type: 1,
                flags: 1,
                caller_file: Some(0),
                caller_line: Some(13),
            }),
            lexical(
                0,
                0x3,
                CodeRef {
                    function: Some(1),
                    ..CodeRef::at_line(Some(1), Some(99))
                },
            ),
        ),
        // 4: an instruction in libm
        ctx(
            5,
            Some(3),
            None,
            lexical(3, 0x4, CodeRef::at_point(Some(1), 0x2f40)),
        ),
        // 5: an anonymous function called from main, with every lexical field
        ctx(
            6,
            Some(0),
            Some(Callee {
                call_type: 0,
                flags: 1,
                caller_file: Some(0),
                caller_line: Some(20),
            }),
            lexical(
                0,
                0x7,
                CodeRef {
                    function: Some(2),
                    file: Some(0),
                    line: Some(30),
                    module: Some(0),
                    offset: Some(0x1100),
                },
            ),
        ),
        // 6: a second root
        ctx(7, None, None, Lexical::new(0, 0)),
    ]
}

/// Profiles for the sample meta.db: a summary (partials 512/256) and two threads (ids 1, 2),
/// whose values add up to the summary's.
pub fn sample_profiles() -> Vec<ProfileFixture> {
    let id = |kind, physical, logical| IdElem {
        kind,
        physical,
        logical,
    };
    let thread = |logical, total, own, leaf| ProfileFixture {
        id_tuple: vec![id(2, 5, 5), id(0xc003, 0, logical)],
        values: node_values((1, 2), total, own, leaf),
    };
    vec![
        ProfileFixture {
            id_tuple: vec![id(0, 0, 0)],
            values: node_values((512, 256), 10.0, 1.5, 8.5),
        },
        thread(0, 4.0, 1.0, 3.0),
        thread(1, 6.0, 0.5, 5.5),
    ]
}

/// A profile's values at nodes 0, 1 and 4 under the metric ids (inclusive, exclusive), each
/// node's pairs sorted by id: `total` inclusive at the root and at node 1, `own` exclusive at
/// node 1, and `leaf` both inclusive and exclusive at node 4.
fn node_values(ids: (u16, u16), total: f64, own: f64, leaf: f64) -> Vec<(u32, Vec<(u16, f64)>)> {
    let (incl, excl) = ids;
    let sorted = |mut v: Vec<(u16, f64)>| {
        v.sort_by_key(|&(id, _)| id);
        v
    };
    vec![
        (0, vec![(incl, total)]),
        (1, sorted(vec![(incl, total), (excl, own)])),
        (4, sorted(vec![(incl, leaf), (excl, leaf)])),
    ]
}

/// Two calling-context lines (one sample names an unknown context, 99) and an empty metric line.
pub fn sample_trace() -> Vec<TraceLineFixture> {
    vec![
        TraceLineFixture {
            prof_info_idx: 1,
            trace_type: 0,
            samples: vec![(1_000, 1), (1_500, 4), (2_000, 99), (3_000, 5)],
        },
        TraceLineFixture {
            prof_info_idx: 2,
            trace_type: 0,
            samples: vec![(1_200, 4)],
        },
        TraceLineFixture {
            prof_info_idx: 2,
            trace_type: 1,
            samples: vec![],
        },
    ]
}

/// The four files of the sample database in byte order `e`: (file name, bytes).
pub fn sample_database(e: Endian) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("meta.db", meta_db(&sample_meta(), e)),
        ("profile.db", profile_db(&sample_profiles(), e)),
        ("cct.db", cct_db(&sample_profiles(), e)),
        ("trace.db", trace_db(&sample_trace(), e)),
    ]
}
