//! Tests of the profile views on folded datasets: the flame window, search, node info, tables and
//! selection.

use super::*;
use crate::analysis::folded::{from_folded, from_folded_profiles, node_of_path, FoldedScopes};

const TEXT: &str = "main[app:m.c];init[app:m.c] 20\nmain[app:m.c];solve[app:s.c];MPI_Wait[libmpi.so] 30\nmain[app:m.c];solve[app:s.c] 10\nmain[app:m.c];loop@m.c:5;line@m.c:6;solve[app:s.c] 15\n";

/// Names of the frames of a window, in its order.
fn frame_names<'a>(pv: &'a ProfileView, w: &FlameWindow) -> Vec<&'a str> {
    w.frames
        .rects
        .node
        .iter()
        .map(|&n| pv.names.of(n))
        .collect()
}

#[test]
fn flame_window_search_and_info() {
    let ds = from_folded(TEXT, FoldedScopes::Point).unwrap();
    let mut pv = ProfileView::new(&ds);
    pv.flame_config(&ds, 0, true, true).unwrap();
    let w = pv.flame_layout(&ds, 0, &Viewport::full(1000.0)).unwrap();
    let names = frame_names(&pv, &w);
    assert_eq!(names, ["<root>", "main", "solve", "MPI_Wait", "init"]);
    assert_eq!(w.values.inclusive, [75.0, 75.0, 55.0, 30.0, 20.0]);
    assert_eq!(w.values.exclusive, [0.0, 0.0, 25.0, 30.0, 20.0]);
    let meta = pv.meta(&ds);
    assert_eq!(
        meta.tables.modules[w.frames.labels.module[3] as usize],
        "libmpi.so"
    );
    let s = pv.search(&ds, "mpi_w", false, true);
    assert_eq!((s.frames, s.total, s.root_total), (1, 30.0, 75.0));
    let w = pv.flame_layout(&ds, 0, &Viewport::full(1000.0)).unwrap();
    assert_eq!(w.flags[3] & 1, 1);
    assert_eq!(w.flags[2] & 1, 0);
    // Go to match: the hottest match (MPI_Wait 30), not the first in preorder (init 20).
    pv.search(&ds, "^(init|MPI_Wait)$", true, false);
    let hot = pv.search_first().unwrap();
    assert_eq!(pv.names.of(hot), "MPI_Wait");
    assert!(pv.search(&ds, "(", true, false).error.is_some());
    // The tooltip of the inner solve shows the merged frame's values.
    let inner = node_of_path(&ds, "main;loop@m.c:5;line@m.c:6;solve").unwrap();
    let info = pv.node_info(&ds, inner, 0).unwrap();
    assert_eq!((info.inclusive, info.exclusive), (55.0, 25.0));
    assert_eq!(info.place.file.as_deref(), Some("s.c"));
    assert_eq!(info.place.module.as_deref(), Some("app"));
    assert_eq!(info.path, ["<root>", "main", "solve"]);
    let path: Vec<&str> = pv
        .flame_path(inner)
        .iter()
        .map(|&n| pv.names.of(n))
        .collect();
    assert_eq!(path, ["<root>", "main", "solve"]);
    // Unmerged: the loop and line come back; zoom into the inner solve.
    pv.flame_config(&ds, 0, false, false).unwrap();
    let w = pv
        .flame_layout(&ds, inner, &Viewport::full(1000.0))
        .unwrap();
    let names = frame_names(&pv, &w);
    assert_eq!(names, ["<root>", "main", "loop at m.c:5", "m.c:6", "solve"]);
    assert_eq!(w.flags[2] & 4, 4);
    assert_eq!(*w.values.inclusive.last().unwrap(), 15.0);
}

#[test]
fn tables_and_selection() {
    let ds = from_folded_profiles("a;b 3\na;c 1\n", 3).unwrap();
    let mut pv = ProfileView::new(&ds);
    let w = pv.table_window(&ds, TableKind::TopDown, 0, 10).unwrap();
    assert_eq!(w.labels, ["<root>", "a"]);
    assert_eq!(w.values, [24.0, 0.0, 24.0, 0.0]);
    pv.table_expand(&ds, TableKind::TopDown, 1).unwrap();
    pv.set_selection(&ds, Selection::Profile(0)).unwrap();
    let w = pv.table_window(&ds, TableKind::TopDown, 0, 10).unwrap();
    assert_eq!(w.labels, ["<root>", "a", "b", "c"]);
    assert_eq!(w.values, [4.0, 0.0, 4.0, 0.0, 3.0, 3.0, 1.0, 1.0]);
    assert!(pv.set_selection(&ds, Selection::Profile(9)).is_err());
    let w = pv.table_window(&ds, TableKind::BottomUp, 0, 10).unwrap();
    assert_eq!(w.labels, ["<all functions>", "a", "b", "c"]);
    let w = pv.table_window(&ds, TableKind::Flat, 0, 10).unwrap();
    assert_eq!(w.labels, ["<program>", "<unknown module>"]);
    let c = node_of_path(&ds, "a;c").unwrap();
    let r = pv.table_reveal(&ds, TableKind::Flat, c).unwrap().unwrap();
    let w = pv
        .table_window(&ds, TableKind::Flat, r as usize, 1)
        .unwrap();
    assert_eq!((w.labels[0].as_str(), w.values[0]), ("c", 1.0));
    let (profs, vals) = pv.distribution(&ds, 0, c, false).unwrap();
    assert_eq!((profs, vals), (vec![0, 1, 2], vec![1.0, 2.0, 3.0]));
}
