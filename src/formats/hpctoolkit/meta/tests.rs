//! Unit tests of meta.db reading on small files built here: the final and April-2022 draft layouts,
//! flex-field packing, and damaged strides, flex fields and section pointers as errors.

use super::*;

/// Builds a small meta.db: bytes appended 8-aligned, header section pointers patched in.
struct B(Vec<u8>);
impl B {
    fn at(&self) -> u64 {
        self.0.len() as u64
    }
    fn align(&mut self) {
        while !self.0.len().is_multiple_of(8) {
            self.0.push(0);
        }
    }
    fn str(&mut self, s: &str) -> u64 {
        let p = self.at();
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
        p
    }
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn pad(&mut self, n: usize) {
        self.0.extend(std::iter::repeat_n(0, n));
    }
    fn section(&mut self, i: u64, p: u64, sz: u64) {
        let o = (0x10 + 0x10 * i) as usize;
        self.0[o..o + 8].copy_from_slice(&sz.to_le_bytes());
        self.0[o + 8..o + 16].copy_from_slice(&p.to_le_bytes());
    }
}

/// One context record: header, then flex words. `propagation` only in the final layout.
#[allow(clippy::too_many_arguments)]
fn ctx(
    b: &mut B,
    april: bool,
    children: (u64, u64),
    id: u32,
    flags: u8,
    rel: u8,
    lex: u8,
    flex: &[u64],
) {
    b.u64(children.0); // szChildren
    b.u64(children.1); // pChildren
    b.u32(id); // ctxId
    b.u8(flags); // flags
    b.u8(rel); // relation
    b.u8(lex); // lexicalType
    b.u8(flex.len() as u8); // nFlexWords
    if !april {
        b.u16(1); // propagation
        b.pad(6);
    }
    for &w in flex {
        b.u64(w); // flex words
    }
}

/// The head of a metrics section: pMetrics, one metric and the three record sizes; returns its
/// offset.
fn metrics_head(b: &mut B, metrics: u64, sizes: [u8; 3]) -> u64 {
    let msec = b.at();
    b.u64(metrics);
    b.u32(1);
    for s in sizes {
        b.u8(s);
    }
    msec
}

/// The April-2022 metrics section (metric name, scope names and formula strings given); returns
/// its header's offset.
fn metrics_april(b: &mut B, [mname, point, exec, formula]: [u64; 4]) -> u64 {
    // Summary {pFormula, combine, statMetricId} (16), scopes {pScope, nSummaries,
    // propMetricId, pSummaries} (24), metric {pName, nScopes, pScopes} (24).
    let sums = b.at();
    b.u64(formula);
    b.u8(0); // combine: sum
    b.u8(0);
    b.u16(7); // statMetricId
    b.pad(4);
    let scopes = b.at();
    b.u64(point);
    b.u16(0); // nSummaries
    b.u16(2); // propMetricId
    b.pad(4);
    b.u64(0); // pSummaries
    b.u64(exec);
    b.u16(1);
    b.u16(3);
    b.pad(4);
    b.u64(sums);
    let metrics = b.at();
    b.u64(mname);
    b.u16(2); // nScopes
    b.pad(6);
    b.u64(scopes);
    let msec = metrics_head(b, metrics, [24, 24, 16]); // szMetric, szScope, szSummary
    b.align();
    msec
}

/// The final-layout metrics section (metric name, scope names and formula strings given); returns
/// its header's offset.
fn metrics_final(b: &mut B, [mname, point, exec, formula]: [u64; 4]) -> u64 {
    // Scope table {pScopeName, type, propagationIndex} (16).
    let scopes = b.at();
    b.u64(point);
    b.u8(1); // type point
    b.u8(0xff);
    b.pad(6);
    b.u64(exec);
    b.u8(2); // type execution
    b.u8(0xff);
    b.pad(6);
    let insts = b.at();
    for (sc, id) in [(scopes, 2u16), (scopes + 16, 3)] {
        b.u64(sc); // pScope
        b.u16(id); // propMetricId
        b.pad(6);
    }
    let sums = b.at();
    b.u64(scopes + 16); // pScope: execution
    b.u64(formula); // pFormula
    b.u8(0); // combine: sum
    b.u8(0);
    b.u16(7); // statMetricId
    b.pad(4);
    let metrics = b.at();
    b.u64(mname); // pName
    b.u64(insts); // pScopeInsts
    b.u64(sums); // pSummaries
    b.u16(2); // nScopeInsts
    b.u16(1); // nSummaries
    b.pad(4);
    let msec = metrics_head(b, metrics, [32, 16, 24]); // szMetric, szScopeInst, szSummary
    b.u8(0);
    b.u64(scopes); // pScopes
    b.u16(2); // nScopes
    b.u8(16); // szScope
    b.align();
    msec
}

/// A database with one metric (point + execution scopes, one `sum` summary), one module,
/// one file, one function and the tree  main -> { line f.c:7, instruction lib+0x40 at f.c:9 }.
fn build(april: bool) -> Vec<u8> {
    let mut b = B(b"HPCTOOLKITmeta\x04\x00".to_vec());
    b.pad(0x80); // section table, patched below
    let title = b.str("demo");
    let desc = b.str("about");
    let kind0 = b.str("RANK");
    let mname = b.str("CPUTIME (sec)");
    let point = b.str("point");
    let exec = b.str("execution");
    let formula = b.str("$$");
    let path_m = b.str("/lib/libx.so");
    let path_f = b.str("/src/f.c");
    let fname = b.str("main");
    let ep_name = b.str("main thread");
    b.align();
    // General properties.
    let g = b.at();
    b.u64(title); // pTitle
    b.u64(desc); // pDescription
    b.section(0, g, 0x10);
    // Identifier names: pointer array then header.
    let names = b.at();
    b.u64(kind0);
    let idn = b.at();
    b.u64(names); // ppNames
    b.u8(1); // nKinds
    b.align();
    b.section(1, idn, 9);
    // Metrics.
    let msec = if april {
        metrics_april(&mut b, [mname, point, exec, formula])
    } else {
        metrics_final(&mut b, [mname, point, exec, formula])
    };
    b.section(2, msec, 0x1b);
    // Module, file, function arrays and their section headers (stride 16, 16, 40).
    let module = b.at();
    b.u32(0);
    b.pad(4);
    b.u64(path_m);
    let file = b.at();
    b.u32(1); // flags: copied
    b.pad(4);
    b.u64(path_f);
    let func = b.at();
    b.u64(fname); // pName
    b.u64(module); // pModule
    b.u64(0x1000); // offset
    b.u64(file); // pFile
    b.u32(3); // line
    b.u32(0); // flags
    for (i, p, sz) in [(5u64, module, 16u16), (6, file, 16), (7, func, 40)] {
        let h = b.at();
        b.u64(p);
        b.u32(1);
        b.u16(sz);
        b.align();
        b.section(i, h, 0x0e);
    }
    // Contexts: the two leaves, then main (their parent), then the tree header.
    let leaves = b.at();
    ctx(&mut b, april, (0, 0), 5, 2, 0, 2, &[file, 7]); // line f.c:7 (pFile, line)
    ctx(&mut b, april, (0, 0), 6, 6, 1, 3, &[file, 9, module, 0x40]); // instruction
    let leaves_len = b.at() - leaves;
    let main = b.at();
    ctx(&mut b, april, (leaves_len, leaves), 4, 1, 1, 0, &[func]); // main (pFunction)
    let main_len = b.at() - main;
    let tree = b.at();
    if april {
        b.u64(main_len); // szRoots
        b.u64(main); // pRoots
    } else {
        let ep = b.at();
        b.u64(main_len); // szChildren
        b.u64(main); // pChildren
        b.u32(1); // ctxId
        b.u16(1); // entryPoint: main thread
        b.pad(2);
        b.u64(ep_name); // pPrettyName
        let h = b.at();
        b.u64(ep); // pEntryPoints
        b.u16(1); // nEntryPoints
        b.u8(32); // szEntryPoint
        b.align();
        b.section(3, h, 0x0b);
    }
    if april {
        b.section(3, tree, 0x10);
    }
    b.0.extend_from_slice(b"_meta.db");
    b.0
}

fn check(m: &MetaDb, april: bool) {
    assert_eq!(
        (m.general.title.as_str(), m.general.description.as_str()),
        ("demo", "about")
    );
    assert_eq!(m.id_names, vec!["RANK"]);
    assert_eq!(
        m.scopes.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["point", "execution"]
    );
    let d = &m.metrics[0];
    assert_eq!(d.name, "CPUTIME (sec)");
    assert_eq!(
        d.scope_insts,
        vec![
            ScopeInst {
                scope: 0,
                prop_metric_id: 2
            },
            ScopeInst {
                scope: 1,
                prop_metric_id: 3
            }
        ]
    );
    assert_eq!(
        d.summaries,
        vec![Summary {
            scope: 1,
            formula: "$$".into(),
            combine: 0,
            stat_metric_id: 7
        }]
    );
    assert_eq!(m.code.modules[0].path, "/lib/libx.so");
    assert_eq!(
        (m.code.files[0].flags, m.code.files[0].path.as_str()),
        (1, "/src/f.c")
    );
    assert_eq!(
        m.code.functions[0],
        FunctionSpec {
            name: Some("main".into()),
            module: Some(0),
            offset: 0x1000,
            file: Some(0),
            line: 3,
            flags: 0
        }
    );
    let ids: Vec<u32> = m.contexts.iter().map(|c| c.ctx_id).collect();
    assert_eq!(ids, vec![4, 5, 6]);
    let (main, line, ins) = (&m.contexts[0], &m.contexts[1], &m.contexts[2]);
    assert_eq!(main.code.function, Some(0));
    assert_eq!(
        (
            line.parent,
            line.code.file,
            line.code.line,
            line.relation,
            line.lexical_type
        ),
        (ParentRef::Context(0), Some(0), Some(7), 0, 2)
    );
    assert_eq!(
        (
            ins.code.file,
            ins.code.line,
            ins.code.module,
            ins.code.offset
        ),
        (Some(0), Some(9), Some(0), Some(0x40))
    );
    if april {
        assert!(m.entry_points.is_empty());
        assert_eq!(main.parent, ParentRef::Root);
        assert_eq!((main.propagation, m.scopes[0].scope_type), (0, None));
    } else {
        assert_eq!(
            m.entry_points,
            vec![EntryPointSpec {
                ctx_id: 1,
                entry_point: 1,
                pretty_name: "main thread".into()
            }]
        );
        assert_eq!(main.parent, ParentRef::Entry(0));
        assert_eq!((main.propagation, m.scopes[1].scope_type), (1, Some(2)));
    }
}

#[test]
fn reads_final_and_april_draft_layouts() {
    for (april, layout, stride) in [(false, Layout::Final, 32), (true, Layout::DraftApril, 24)] {
        let src = Source::from_vec("meta.db", build(april));
        assert_eq!(metric_stride(&src).unwrap(), stride);
        let mut w = Vec::new();
        check(&read(&src, layout, &mut w).unwrap(), april);
        // The final layout reads without a warning.
        assert!(april || w.is_empty(), "{w:?}");
    }
}

#[test]
fn stride_smaller_than_known_fields_is_an_error() {
    // szFunction shrinks below the 40 known bytes: an error, not a misread. (Larger strides,
    // e.g. profile.db's 48 against 44 known bytes, are read by the corpus tests.)
    let mut bytes = build(false);
    let s = read_sections(&Source::from_vec("meta.db", bytes.clone())).unwrap();
    let at = (s.functions.1 + 0x0c) as usize;
    bytes[at..at + 2].copy_from_slice(&32u16.to_le_bytes());
    let mut w = Vec::new();
    let e = read(&Source::from_vec("meta.db", bytes), Layout::Final, &mut w).unwrap_err();
    assert!(e.to_string().contains("stride 32 smaller"), "{e}");
}

#[test]
fn flex_field_beyond_flex_words_is_an_error() {
    let mut bytes = build(false);
    // The line context (ctx 5) says hasPoint too, but has only 2 flex words.
    let pos = bytes
        .windows(4)
        .position(|w| w == 5u32.to_le_bytes())
        .unwrap();
    bytes[pos + 4] = 6; // flags: srcloc + point
    let mut w = Vec::new();
    let e = read(&Source::from_vec("meta.db", bytes), Layout::Final, &mut w).unwrap_err();
    assert!(e.to_string().contains("beyond its 2 flex words"), "{e}");
}

#[test]
fn flex_packing_follows_spec() {
    // function + srcloc + point: pFunction 0, pFile 8, line 16, pModule 24, offset 32.
    let mut f = Flex { claimed: 0 };
    assert_eq!(
        [
            f.allocate(8),
            f.allocate(8),
            f.allocate(4),
            f.allocate(8),
            f.allocate(8)
        ],
        [0, 8, 16, 24, 32]
    );
    // srcloc + point: pFile 0, line 8, pModule 16, offset 24 (line's word is not shared).
    let mut f = Flex { claimed: 0 };
    assert_eq!(
        [f.allocate(8), f.allocate(4), f.allocate(8), f.allocate(8)],
        [0, 8, 16, 24]
    );
    // Two u32 share a word even with a u64 between them.
    let mut f = Flex { claimed: 0 };
    assert_eq!([f.allocate(4), f.allocate(8), f.allocate(4)], [0, 8, 4]);
}

#[test]
fn section_pointer_near_u64_max_is_an_error() {
    // Found by replaying u64::MAX in every field with overflow checks on.
    let mut b = build(false);
    b[0x38..0x40].copy_from_slice(&u64::MAX.to_le_bytes());
    let src = Source::from_vec("meta.db", b);
    assert!(metric_stride(&src).is_err());
}

#[test]
fn pointer_to_index() {
    let t = Table {
        ptr: 0x100,
        count: 3,
        stride: 0x10,
    };
    assert_eq!(index_in(&t, 0x100), Some(0));
    assert_eq!(index_in(&t, 0x120), Some(2));
    assert_eq!(index_in(&t, 0x130), None);
    assert_eq!(index_in(&t, 0x108), None);
    assert_eq!(index_in(&t, 0x80), None);
}
