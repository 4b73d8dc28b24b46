//! Unit tests of the parts of opening a database that no single file owns: the ctxId map and the
//! checks that pick which files belong to one run (check.rs).

use super::check::spread;
use super::database::CtxMap;

#[test]
fn ctx_map_dense_and_sparse() {
    let dense = CtxMap::new(&[0, 7, 3]);
    assert!(matches!(dense, CtxMap::Dense(_)));
    assert_eq!(
        (dense.get(7), dense.get(3), dense.get(5), dense.get(99)),
        (Some(1), Some(2), None, None)
    );
    let sparse = CtxMap::new(&[0, 4_000_000_000, 12]);
    assert!(matches!(sparse, CtxMap::Sorted(_)));
    assert_eq!(
        (sparse.get(4_000_000_000), sparse.get(12), sparse.get(13)),
        (Some(1), Some(2), None)
    );
}

#[test]
fn spread_picks_ends_evenly() {
    assert_eq!(spread(10, 4).collect::<Vec<_>>(), vec![0, 3, 6, 9]);
    assert_eq!(spread(2, 16).collect::<Vec<_>>(), vec![0, 1]);
    assert_eq!(spread(1, 16).collect::<Vec<_>>(), vec![0]);
    assert_eq!(spread(0, 16).count(), 0);
}
