//! The time-order chart on hand-built traces of the tree in mod.rs (main, solve, mpi_wait, io as
//! frames; lines and loops inside them), with exact expected calls, flags and merges.

use super::super::calls::*;
use super::super::view::LineWindow;
use super::super::{FrameIndex, Window};
use super::{trace_ds, IO, MAIN, ROOT, SOLVE, SOLVE_LINE, WAIT};

fn call(start: u64, end: u64, depth: u32, node: u32, flags: u32) -> Call {
    Call {
        start,
        end,
        depth,
        node,
        flags,
        count: 1,
    }
}

/// main [10, 70) > solve [20, 50) > mpi_wait [30, 40); main > io [60, 70). The line and the loop
/// under solve are inside solve, not calls of their own.
fn line() -> Vec<(u64, u32)> {
    vec![
        (10, MAIN),
        (20, SOLVE_LINE),
        (30, WAIT),
        (40, SOLVE),
        (50, MAIN),
        (60, IO),
        (70, ROOT),
    ]
}

/// Line 0 over offsets [t0, t1) ns at `width` px.
fn line0(t0_ns: f64, t1_ns: f64, width: u32) -> LineWindow {
    LineWindow {
        line: 0,
        t0_ns,
        t1_ns,
        width,
    }
}

/// [`line_calls`] of samples `first..first + count` of a trace of the one line `samples`.
fn calls_of(samples: Vec<(u64, u32)>, first: u64, count: u64) -> Vec<Call> {
    let ds = trace_ds(vec![samples]);
    let ix = FrameIndex::new(&ds);
    line_calls(&ds, &ix, 0, first, count).unwrap()
}

#[test]
fn every_call_of_a_line_in_end_order() {
    assert_eq!(
        calls_of(line(), 0, 7),
        [
            call(30, 40, 2, WAIT, 0),
            call(20, 50, 1, SOLVE, 0),
            call(60, 70, 1, IO, 0),
            call(10, 70, 0, MAIN, 0),
        ]
    );
    // Stopping before the end leaves main and io open at the last sample read.
    assert_eq!(
        calls_of(line(), 2, 4),
        [
            call(30, 40, 2, WAIT, CLIPPED_START),
            call(30, 50, 1, SOLVE, CLIPPED_START),
            call(60, 60, 1, IO, OPEN_END),
            call(30, 60, 0, MAIN, CLIPPED_START | OPEN_END),
        ]
    );
}

#[test]
fn calls_that_never_return() {
    // The line ends inside mpi_wait.
    assert_eq!(
        calls_of(vec![(10, MAIN), (20, WAIT), (25, WAIT)], 0, 3),
        [
            call(20, 25, 2, WAIT, NO_RETURN),
            call(20, 25, 1, SOLVE, NO_RETURN),
            call(10, 25, 0, MAIN, NO_RETURN),
        ]
    );
}

#[test]
fn exact_window_clips_at_both_ends() {
    let ds = trace_ds(vec![line()]);
    let ix = FrameIndex::new(&ds);
    let l = layout(&ds, &ix, 0, Window::new(35, 65, 30), EXACT_LIMIT).unwrap();
    assert!(l.exact);
    assert_eq!(l.samples, 4);
    assert_eq!(l.max_depth, 3);
    assert_eq!(
        l.calls,
        vec![
            call(30, 65, 0, MAIN, CLIPPED_START | OPEN_END),
            call(30, 50, 1, SOLVE, CLIPPED_START),
            call(60, 65, 1, IO, OPEN_END),
            call(30, 40, 2, WAIT, CLIPPED_START),
        ]
    );
    // The whole line: nothing clipped.
    let l = layout(&ds, &ix, 0, Window::new(0, 100, 100), EXACT_LIMIT).unwrap();
    assert_eq!(l.calls.len(), 4);
    assert!(l.calls.iter().all(|c| c.flags == 0));
    // A window before the first sample has no calls.
    let l = layout(&ds, &ix, 0, Window::new(0, 10, 100), EXACT_LIMIT).unwrap();
    assert!(l.calls.is_empty());
}

#[test]
fn window_over_the_limit_is_sampled_per_column() {
    let ds = trace_ds(vec![line()]);
    let ix = FrameIndex::new(&ds);
    // Columns at 0, 10, ... 70: one per sample, so the sampled boxes are the exact calls.
    let l = layout(&ds, &ix, 0, Window::new(0, 80, 8), 3).unwrap();
    assert!(!l.exact);
    assert_eq!(
        l.calls,
        vec![
            call(10, 70, 0, MAIN, SAMPLED),
            call(20, 50, 1, SOLVE, SAMPLED),
            call(60, 70, 1, IO, SAMPLED),
            call(30, 40, 2, WAIT, SAMPLED),
        ]
    );
    // Four columns at 0, 20, 40, 60 miss mpi_wait and see solve from 20 to 60.
    let l = layout(&ds, &ix, 0, Window::new(0, 80, 4), 3).unwrap();
    assert_eq!(
        l.calls,
        vec![
            call(20, 80, 0, MAIN, SAMPLED | OPEN_END),
            call(20, 60, 1, SOLVE, SAMPLED),
            call(60, 80, 1, IO, SAMPLED | OPEN_END),
        ]
    );
}

#[test]
fn calls_narrower_than_a_pixel_merge_per_depth() {
    // main, then ten 1 ns io calls 2 ns apart, then a 300 ns io call; 100 ns per pixel.
    let mut s = vec![(0, MAIN)];
    for k in 0..10 {
        s.push((100 + 2 * k, IO));
        s.push((101 + 2 * k, MAIN));
    }
    s.push((400, IO));
    s.push((700, MAIN));
    s.push((2000, ROOT));
    let ds = trace_ds(vec![s]);
    let ix = FrameIndex::new(&ds);
    let l = layout(&ds, &ix, 0, Window::new(0, 1000, 10), EXACT_LIMIT).unwrap();
    let merged = Call {
        count: 10,
        ..call(100, 119, 1, IO, MERGED)
    };
    assert_eq!(
        l.calls,
        vec![
            call(0, 1000, 0, MAIN, OPEN_END),
            merged,
            call(400, 700, 1, IO, 0),
        ]
    );
    // At 1 ns per pixel every call is its own box.
    let l = layout(&ds, &ix, 0, Window::new(0, 1000, 1000), EXACT_LIMIT).unwrap();
    assert_eq!(l.calls.len(), 12);
    assert!(l
        .calls
        .iter()
        .all(|c| c.count == 1 && c.flags & MERGED == 0));
}

#[test]
fn bounds_of_a_call_from_inside_it() {
    let ds = trace_ds(vec![line()]);
    let ix = FrameIndex::new(&ds);
    let b = call_bounds(&ds, &ix, 0, 35, 1, u64::MAX).unwrap().unwrap();
    assert_eq!((b.node, b.start, b.end), (SOLVE, 20, Some(50)));
    assert!(b.start_exact && b.end_exact);
    let b = call_bounds(&ds, &ix, 0, 35, 0, u64::MAX).unwrap().unwrap();
    assert_eq!((b.node, b.start, b.end), (MAIN, 10, Some(70)));
    // Read at most one sample each way: the bounds found so far, marked inexact.
    let b = call_bounds(&ds, &ix, 0, 45, 0, 1).unwrap().unwrap();
    assert_eq!((b.start, b.end), (30, Some(50)));
    assert!(!b.start_exact && !b.end_exact);
    // No call that deep, and no call before the first sample.
    assert_eq!(call_bounds(&ds, &ix, 0, 35, 3, u64::MAX).unwrap(), None);
    assert_eq!(call_bounds(&ds, &ix, 0, 5, 0, u64::MAX).unwrap(), None);
    // A call open at the line's end has no end.
    let ds = trace_ds(vec![vec![(10, MAIN), (20, WAIT)]]);
    let b = call_bounds(&ds, &ix, 0, 20, 2, u64::MAX).unwrap().unwrap();
    assert_eq!(
        (b.node, b.start, b.end, b.end_exact),
        (WAIT, 20, None, true)
    );
}

#[test]
fn packed_boxes_and_details_of_clipped_calls() {
    use super::super::order_view::{
        call_detail, replay_duration, replay_text, time_order_with, CELLS,
    };
    use super::super::view::TimelineCache;
    let ds = trace_ds(vec![line()]);
    let mut cache = TimelineCache::default();
    // Offsets from the run start (10): [25, 55) is [35, 65). Not kept: the window is scanned.
    let o = time_order_with(&ds, &mut cache, &line0(25.0, 55.0, 30), 0).unwrap();
    assert_eq!(o.info.boxes, 4);
    assert_eq!(o.info.line_start_ns, Some(0.0));
    assert_eq!(o.info.line_end_ns, Some(60.0));
    assert_eq!(
        o.times,
        vec![20.0, 55.0, 20.0, 40.0, 50.0, 55.0, 20.0, 30.0]
    );
    assert_eq!(o.cells.len(), 4 * CELLS);
    assert_eq!(
        &o.cells[..CELLS],
        &[0, 1, CLIPPED_START | OPEN_END, 1, MAIN]
    );
    // main, clipped at both ends: its real bounds.
    let d = call_detail(&ds, &mut cache, 0).unwrap().unwrap();
    assert_eq!(
        (d.name.as_str(), d.span.start_ns, d.span.end_ns),
        ("main", 0.0, 60.0)
    );
    assert!(d.span.start_exact && d.span.end_exact && d.returned);
    assert_eq!(d.text, "main();");
    assert_eq!(d.duration, "0.060 us");
    // io, open at the window's end.
    let d = call_detail(&ds, &mut cache, 2).unwrap().unwrap();
    assert_eq!(
        (d.name.as_str(), d.span.start_ns, d.span.end_ns),
        ("io", 50.0, 60.0)
    );
    assert!(call_detail(&ds, &mut cache, 4).unwrap().is_none());

    assert_eq!(replay_duration(130), "0.130 us");
    assert_eq!(replay_duration(44_085), "44.085 us");
    assert_eq!(replay_duration(1_234_567), "1.234 ms");
    assert_eq!(replay_duration(3_500_000_000), "3.500  s");
    let args = ["10".to_string()];
    assert_eq!(replay_text("fib", &args, Some("55"), true), "fib(10) = 55;");
    assert_eq!(replay_text("main", &[], None, false), "main() {");
    assert_eq!(
        replay_text("main::$_0::operator()", &[], None, true),
        "main::$_0::operator();"
    );
}

#[test]
fn bounds_found_once_serve_later_windows() {
    use super::super::order_view::{call_detail, time_order_with};
    use super::super::view::TimelineCache;
    let ds = trace_ds(vec![line()]);
    let mut cache = TimelineCache::default();
    time_order_with(&ds, &mut cache, &line0(25.0, 55.0, 30), 0).unwrap();
    call_detail(&ds, &mut cache, 0).unwrap().unwrap();
    assert_eq!(cache.call_bounds.len(), 1);
    // Another window inside main: its clipped main box uses the bounds found before.
    time_order_with(&ds, &mut cache, &line0(35.0, 45.0, 30), 0).unwrap();
    let d = call_detail(&ds, &mut cache, 0).unwrap().unwrap();
    assert_eq!(
        (d.name.as_str(), d.span.start_ns, d.span.end_ns),
        ("main", 0.0, 60.0)
    );
    assert_eq!(cache.call_bounds.len(), 1);
    // solve, clipped in this window, is searched for.
    let solve = call_detail(&ds, &mut cache, 1).unwrap().unwrap();
    assert_eq!(
        (solve.name.as_str(), solve.span.start_ns, solve.span.end_ns),
        ("solve", 10.0, 40.0)
    );
    assert_eq!(cache.call_bounds.len(), 2);
}

#[test]
fn windows_cut_from_a_kept_line_have_real_bounds() {
    use super::super::order_view::{call_detail, time_order};
    use super::super::view::TimelineCache;
    let ds = trace_ds(vec![line()]);
    let ix = FrameIndex::new(&ds);
    // A line with more calls than may be kept keeps none.
    let none = LineCalls::read_at_most(&ds, &ix, 0, 3).unwrap();
    assert!(!none.kept && none.calls.is_empty());
    let lc = LineCalls::read_at_most(&ds, &ix, 0, 4).unwrap();
    assert!(lc.kept);
    assert_eq!(lc.first, vec![0, 1, 3, 4]);
    let l = layout_of(&ds, &lc, Window::new(35, 65, 30)).unwrap();
    assert_eq!(l.samples, 4);
    assert_eq!(
        l.calls,
        vec![
            call(10, 70, 0, MAIN, 0),
            call(20, 50, 1, SOLVE, 0),
            call(60, 70, 1, IO, 0),
            call(30, 40, 2, WAIT, 0),
        ]
    );
    // A call ending at the window's start is not in it; one starting at its end neither.
    let l = layout_of(&ds, &lc, Window::new(40, 60, 20)).unwrap();
    let nodes: Vec<u32> = l.calls.iter().map(|c| c.node).collect();
    assert_eq!(nodes, vec![MAIN, SOLVE]);
    // The view keeps the line: no bounds search for a call crossing the window.
    let mut cache = TimelineCache::default();
    time_order(&ds, &mut cache, &line0(25.0, 55.0, 30)).unwrap();
    assert!(cache.line_calls.is_some());
    let d = call_detail(&ds, &mut cache, 0).unwrap().unwrap();
    assert_eq!(
        (d.name.as_str(), d.span.start_ns, d.span.end_ns),
        ("main", 0.0, 60.0)
    );
    assert!(d.span.start_exact && d.span.end_exact);
    assert!(cache.call_bounds.is_empty());
}
