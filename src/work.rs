//! Counted work, for tests that guard against hangs and quadratic behaviour without a clock: the
//! hot loops add what they do (bytes scanned or read, matcher steps, tree nodes visited) to
//! per-thread counters, and a test compares the counts for an input of size n and 2n. The
//! counters exist only in builds with debug assertions (tests); release builds add nothing.

#[cfg(debug_assertions)]
use std::cell::Cell;

/// What is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// Bytes the XML tokenizer and the reference decoder examine (formats/xml).
    XmlBytes,
    /// Bytes read from byte sources (bytes.rs: `Source` and `Slice` reads).
    BytesRead,
    /// Steps of the demangler, and bytes it searches or prints (uftrace/demangle).
    Demangle,
    /// Steps and character comparisons of uftrace's pattern matchers (uftrace/pattern).
    PatternSteps,
    /// Calling-context nodes and instances visited by tree merges and table expansions.
    TreeNodes,
    /// Terms of metric formulas built from a taxonomy (hpctoolkit/taxonomy).
    FormulaTerms,
    /// Element scopes an .hpcstruct reader looks at to match an end tag (hpcrun/hpcstruct).
    StructScopes,
}

#[cfg(debug_assertions)]
const KINDS: usize = 7;

/// Whether this build counts: false in release builds, where [`add`] does nothing.
pub const COUNTED: bool = cfg!(debug_assertions);

#[cfg(debug_assertions)]
thread_local! {
    static COUNTS: [Cell<u64>; KINDS] = const { [const { Cell::new(0) }; KINDS] };
}

/// Adds `n` units of `what` to this thread's counter.
#[inline(always)]
pub fn add(what: Work, n: usize) {
    #[cfg(debug_assertions)]
    COUNTS.with(|c| {
        let cell = &c[what as usize];
        cell.set(cell.get().saturating_add(n as u64));
    });
    #[cfg(not(debug_assertions))]
    let _ = (what, n);
}

/// This thread's count of `what` so far (0 in release builds).
pub fn total(what: Work) -> u64 {
    #[cfg(debug_assertions)]
    return COUNTS.with(|c| c[what as usize].get());
    #[cfg(not(debug_assertions))]
    {
        let _ = what;
        0
    }
}

/// Runs `f` and returns its result with the units of `what` it did on this thread.
pub fn count<T>(what: Work, f: impl FnOnce() -> T) -> (T, u64) {
    let before = total(what);
    let r = f();
    (r, total(what) - before)
}

/// The work of `f(n)` and of `f(2 * n)` (a build that does not count gives zeros).
pub fn doubled(what: Work, n: usize, f: impl Fn(usize)) -> (u64, u64) {
    let ((), small) = count(what, || f(n));
    let ((), big) = count(what, || f(2 * n));
    (small, big)
}

/// Checks that doubling the input of `f` (from `n`) multiplies its work by at most `max_ratio`:
/// about 2 for linear code, 4 for quadratic. Prints both counts. Panics in a build that does not
/// count, so such a test cannot pass without checking.
pub fn assert_scales(what: Work, label: &str, n: usize, max_ratio: f64, f: impl Fn(usize)) {
    let (small, big) = doubled(what, n, f);
    let ratio = big as f64 / small.max(1) as f64;
    eprintln!("{label}: {what:?} {small} for n = {n}, {big} for 2n (x{ratio:.2})");
    assert!(
        small > 0,
        "{label}: no {what:?} counted (work is counted only in builds with debug assertions)"
    );
    assert!(
        ratio <= max_ratio,
        "{label}: twice the input cost {ratio:.2} times the work ({small} -> {big} {what:?})"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_kind_and_scales() {
        let ((), n) = count(Work::TreeNodes, || {
            add(Work::TreeNodes, 3);
            add(Work::XmlBytes, 5);
            add(Work::TreeNodes, 4);
        });
        assert_eq!(n, 7);
        assert_scales(Work::TreeNodes, "linear", 100, 2.1, |n| {
            add(Work::TreeNodes, n)
        });
        let quadratic = doubled(Work::TreeNodes, 100, |n| add(Work::TreeNodes, n * n));
        assert_eq!(quadratic, (10_000, 40_000));
    }
}
