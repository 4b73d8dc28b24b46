//! Source line tables of a small folded tree, with exact expected values: which file and line
//! each value lands on (callee and inlined lines in their own files), the hottest statement.

use super::*;
use crate::analysis::folded::{from_folded, node_of_path, FoldedScopes};
use crate::analysis::values::{exclusive_from_point, inclusive_from_point};

// Statements, a loop nest whose loops and one statement share header line 5, a call site, an
// inlined call and a recursion through the same line.
const TEXT: &str = "\
main[app:m.c];line@m.c:3 10
main[app:m.c];loop@m.c:5;line@m.c:6 20
main[app:m.c];loop@m.c:5;line@m.c:6;solve[app:s.c];line@s.c:9 30
main[app:m.c];loop@m.c:5;loop@m.c:5;line@m.c:5 4
main[app:m.c];line@m.c:7;inline@helper[app:h.h];line@h.h:2 6
main[app:m.c];line@m.c:8;rec[app:m.c];line@m.c:8;rec[app:m.c];line@m.c:8 5
";

fn table() -> (crate::model::Dataset, LineTable) {
    let ds = from_folded(TEXT, FoldedScopes::Point).unwrap();
    // Point values: each folded line's count at the node its path ends at.
    let mut point = vec![0.0; ds.cct.tree.len()];
    for l in TEXT.lines() {
        let (path, count) = l.rsplit_once(' ').unwrap();
        point[node_of_path(&ds, path).unwrap() as usize] += count.parse::<f64>().unwrap();
    }
    let incl = inclusive_from_point(&ds, &point);
    let excl = exclusive_from_point(&ds, &point);
    let t = line_table(&ds, &incl, &excl);
    (ds, t)
}

fn file_index(ds: &crate::model::Dataset, name: &str) -> u32 {
    ds.source_files.iter().position(|f| f.path == name).unwrap() as u32
}

fn values(t: &LineTable, file: u32) -> Vec<(u32, f64, f64, u8)> {
    t.file(file)
        .iter()
        .map(|v| (v.line, v.inclusive, v.exclusive, v.flags))
        .collect()
}

#[test]
fn lines_of_the_caller_file() {
    let (ds, t) = table();
    let m = file_index(&ds, "m.c");
    assert_eq!(
        values(&t, m),
        [
            (3, 10.0, 10.0, LINE_STATEMENT),
            // The outer loop counts once; the inner loop and the statement at the same line are
            // inside it. Only the statement's own cost is exclusive.
            (5, 54.0, 4.0, LINE_LOOP | LINE_STATEMENT),
            (6, 50.0, 20.0, LINE_STATEMENT | LINE_CALL),
            // The inlined body's cost is the call site's inclusive cost, not its exclusive.
            (7, 6.0, 0.0, LINE_STATEMENT | LINE_INLINED_CALL),
            // Recursion through line 8: inclusive once, exclusive from the innermost statement.
            (8, 5.0, 5.0, LINE_STATEMENT | LINE_CALL),
        ]
    );
}

#[test]
fn callee_and_inlined_lines_keep_their_own_file() {
    let (ds, t) = table();
    assert_eq!(
        values(&t, file_index(&ds, "s.c")),
        [(9, 30.0, 30.0, LINE_STATEMENT)]
    );
    assert_eq!(
        values(&t, file_index(&ds, "h.h")),
        [(2, 6.0, 6.0, LINE_STATEMENT)]
    );
    assert!(t.file(999).is_empty());
}

#[test]
fn hottest_statement_and_locations() {
    let (ds, t) = table();
    assert_eq!(t.hottest_statement(), Some((file_index(&ds, "s.c"), 9)));
    let loop_node = node_of_path(&ds, "main;loop@m.c:5").unwrap();
    assert_eq!(
        node_location(&ds, loop_node),
        Some((file_index(&ds, "m.c"), 5))
    );
    let stmt = node_of_path(&ds, "main;line@m.c:7;inline@helper;line@h.h:2").unwrap();
    assert_eq!(node_location(&ds, stmt), Some((file_index(&ds, "h.h"), 2)));
    // The root and a function without a definition line point nowhere.
    assert_eq!(node_location(&ds, 0), None);
    assert_eq!(node_location(&ds, node_of_path(&ds, "main").unwrap()), None);
}

#[test]
fn no_statements_no_hottest() {
    let ds = from_folded("a;b 3\n", FoldedScopes::Point).unwrap();
    let n = ds.cct.tree.len();
    let t = line_table(&ds, &vec![1.0; n], &vec![1.0; n]);
    assert_eq!(t.hottest_statement(), None);
    assert!(t.file(0).is_empty());
}
