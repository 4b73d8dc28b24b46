//! Stable sorting for cold paths (opening a file, building a summary) with one compiled sort for
//! every element type: the order is found on indices through a `dyn` comparator, then applied by
//! following its cycles. Each `slice::sort_by*` call site compiles its own copy of std's sort
//! (several KB of wasm); hot paths (tables, flame children, values, trace records) keep std's.
use std::cmp::Ordering;

/// The stable order of `n` items under `cmp` (which compares items by position): `order[i]` is
/// the position of the item that goes to place `i`. Not generic, so compiled once.
fn stable_order(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Moves `v[order[i]]` to place `i` for every `i`, in place; `order` is a permutation and is used
/// up (each place is marked done by pointing it at itself).
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..v.len() {
        let mut at = start;
        // A cycle start -> order[start] -> ...: each swap brings one item to its place.
        while order[at] != start {
            let from = order[at];
            v.swap(at, from);
            order[at] = at;
            at = from;
        }
        order[at] = at;
    }
}

/// Up to this many items, an insertion sort in place (no allocation; small code per type).
const SMALL: usize = 12;

/// Like `slice::sort_by` (stable: equal items keep their order).
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() <= SMALL {
        // Stable: an item moves left only past strictly greater ones.
        for i in 1..v.len() {
            let mut j = i;
            while j > 0 && cmp(&v[j - 1], &v[j]) == Ordering::Greater {
                v.swap(j - 1, j);
                j -= 1;
            }
        }
        return;
    }
    let order = {
        let items: &[T] = v;
        stable_order(items.len(), &mut |a, b| cmp(&items[a], &items[b]))
    };
    permute(v, order);
}

/// Like `slice::sort_by_key` (stable: equal keys keep their order).
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), so the test needs no crate.
    fn numbers(seed: u64, n: usize, modulo: u64) -> Vec<u64> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % modulo
            })
            .collect()
    }

    #[test]
    fn same_order_as_std_stable_sort_ties_included() {
        for (seed, n, modulo) in [
            (1, 0, 1),
            (2, 1, 5),
            (3, 2, 2),
            (8, 12, 3),
            (9, 13, 3),
            (4, 17, 3),
            (5, 100, 10),
            (6, 1000, 7),
            (7, 5000, 100_000),
        ] {
            // (key, original position): ties on key are told apart by position.
            let items: Vec<(u64, usize)> = numbers(seed, n, modulo).into_iter().zip(0..).collect();
            let mut want = items.clone();
            want.sort_by_key(|p| p.0);
            let mut got = items.clone();
            sort_by_key(&mut got, |p| p.0);
            assert_eq!(got, want, "seed {seed}, {n} items, keys < {modulo}");
            let mut want = items.clone();
            want.sort_by_key(|p| std::cmp::Reverse(p.0));
            let mut got = items;
            sort_by(&mut got, |a, b| b.0.cmp(&a.0));
            assert_eq!(
                got, want,
                "descending: seed {seed}, {n} items, keys < {modulo}"
            );
        }
    }

    #[test]
    fn moves_owned_items_without_copies() {
        // Strings (not Copy): every item ends up exactly once, stable among equal lengths.
        let mut v: Vec<String> = ["ccc", "a", "bb", "b", "dddd", "c", "aa"]
            .map(String::from)
            .to_vec();
        sort_by_key(&mut v, |s| s.len());
        assert_eq!(v, ["a", "b", "c", "bb", "aa", "ccc", "dddd"]);
    }

    #[test]
    fn already_sorted_and_reversed() {
        let mut up: Vec<u32> = (0..50).collect();
        sort_by_key(&mut up, |&x| x);
        assert_eq!(up, (0..50).collect::<Vec<_>>());
        let mut down: Vec<u32> = (0..50).rev().collect();
        sort_by(&mut down, |a, b| a.cmp(b));
        assert_eq!(down, (0..50).collect::<Vec<_>>());
    }
}
