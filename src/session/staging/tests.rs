//! Staging tests: deferred reads want their range and read it staged, evicted ranges are read
//! synchronously within a frame, unadvised reads defer a few times, hostile ranges are refused.

use super::*;

fn file(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 % 251) as u8).collect()
}

#[test]
fn deferred_reads_want_their_range_then_read_the_staged_bytes() {
    let data = file(1 << 20);
    let st = Staging::new(data.len() as u64, 1);
    let d = data.clone();
    let reads = Rc::new(Cell::new(0u32));
    let r2 = reads.clone();
    let f = Staged::new(
        move |a: u64, b: u64| {
            r2.set(r2.get() + 1);
            Ok(d[a as usize..b as usize].to_vec())
        },
        st.clone(),
    );
    // Not deferring: read through.
    assert_eq!(f.fetch(10, 20).unwrap(), data[10..20]);
    assert_eq!(reads.get(), 1);
    st.set_defer(true);
    let mut buf = vec![0u8; 1000];
    assert_eq!(f.fetch_into(5000, &mut buf), Err(PENDING.to_string()));
    assert_eq!(st.take_want(), Some((5000, 6000)));
    assert_eq!(reads.get(), 1);
    st.put(5000, 1000, |b| b.copy_from_slice(&data[5000..6000]))
        .unwrap();
    // Any part of a staged range is served from it, deferring or not.
    f.fetch_into(5000, &mut buf).unwrap();
    assert_eq!(buf, data[5000..6000]);
    assert_eq!(f.fetch(5500, 5600).unwrap(), data[5500..5600]);
    assert_eq!(reads.get(), 1);
    // Advice grows the want along the sequential range, up to WANT_MAX.
    f.advise(100_000, 300_000);
    assert!(f.fetch_into(100_000, &mut buf).is_err());
    assert_eq!(st.take_want(), Some((100_000, 300_000)));
    // A read outside the advice wants only itself.
    assert!(f.fetch_into(400_000, &mut buf).is_err());
    assert_eq!(st.take_want(), Some((400_000, 401_000)));
    st.set_defer(false);
    assert!(f.fetch_into(400_000, &mut buf).is_ok());
    assert_eq!(reads.get(), 2);
    let s = st.stats();
    assert_eq!((s.staged_reads, s.staged_bytes), (1, 1000));
    assert_eq!((s.sync_reads, s.sync_bytes), (2, 1010));
}

#[test]
fn evicted_ranges_are_read_synchronously_so_calls_progress() {
    let size = 3 * STAGE_BYTES;
    let st = Staging::new(size, 1);
    let chunk = WANT_MAX;
    for i in 0..4 {
        st.put(i * chunk, chunk, |b| b.fill(i as u8)).unwrap();
    }
    // 4 x 8 MiB in a 24 MiB stage: the first is gone.
    assert_eq!(st.held(), STAGE_BYTES);
    let f = Staged::new(|a: u64, b: u64| Ok(vec![9u8; (b - a) as usize]), st.clone());
    st.set_defer(true);
    let mut buf = vec![0u8; 16];
    f.fetch_into(0, &mut buf).unwrap();
    assert_eq!(buf, [9u8; 16], "evicted: read through, not deferred again");
    f.fetch_into(chunk, &mut buf).unwrap();
    assert_eq!(buf, [1u8; 16]);
    st.forget_evicted();
    assert!(f.fetch_into(0, &mut buf).is_err());
    assert_eq!(st.take_want(), Some((0, 16)));
    // Ranges staged for an earlier frame and evicted now are fetched again, not read
    // synchronously.
    st.put(4 * chunk, chunk, |b| b.fill(4)).unwrap();
    assert!(f.fetch_into(chunk, &mut buf).is_err());
    assert_eq!(st.take_want(), Some((chunk, chunk + 16)));
}

#[test]
fn reads_without_advice_are_deferred_a_few_times_then_read_through() {
    let st = Staging::new(1 << 30, 1);
    let f = Staged::new(|a: u64, b: u64| Ok(vec![1u8; (b - a) as usize]), st.clone());
    st.set_defer(true);
    let mut buf = vec![0u8; 64];
    for i in 0..UNADVISED_MAX as u64 {
        assert!(f.fetch_into(i << 20, &mut buf).is_err());
        assert!(st.take_want().is_some());
    }
    f.fetch_into(99 << 20, &mut buf).unwrap();
    assert!(!st.wants());
    // Advice (a reader announcing its scan) defers again: the advised range and the reads
    // that follow it.
    f.advise(200 << 20, 201 << 20);
    assert!(f.fetch_into(200 << 20, &mut buf).is_err());
    assert_eq!(st.take_want(), Some((200 << 20, 201 << 20)));
    assert!(f.fetch_into(300 << 20, &mut buf).is_err());
    assert_eq!(st.take_want(), Some((300 << 20, (300 << 20) + 64)));
}

#[test]
fn hostile_ranges_are_refused() {
    let st = Staging::new(1000, 1);
    assert!(st.put(900, 200, |_| {}).is_err());
    assert!(st.put(u64::MAX - 5, 10, |_| {}).is_err());
    assert!(st.put(0, 0, |_| {}).is_err());
    assert!(st.put(0, STAGE_BYTES + 1, |_| {}).is_err());
    let f = Staged::new(|_: u64, _: u64| Err("no".to_string()), st.clone());
    st.set_defer(true);
    // A read larger than WANT_MAX is not deferred (it would never fit).
    let mut big = vec![0u8; (WANT_MAX + 1) as usize];
    assert_eq!(f.fetch_into(0, &mut big), Err("no".to_string()));
    assert!(!st.wants());
}

#[test]
fn a_many_wants_staging_collects_every_range_up_to_its_limits() {
    let size = 4 * STAGE_BYTES;
    let st = Staging::new_many(size);
    let f = Staged::new(
        |_: u64, _: u64| Err("no synchronous read".to_string()),
        st.clone(),
    );
    st.set_defer(true);
    let mut buf = vec![0u8; 1000];
    assert!(!st.wants_full());
    for i in 0..3u64 {
        assert_eq!(f.fetch_into(i * 10_000, &mut buf), Err(PENDING.to_string()));
    }
    // An overlapping read waits for the range already wanted.
    assert_eq!(f.fetch_into(500, &mut buf), Err(PENDING.to_string()));
    assert!(!st.wants_full());
    // A batch wants each of its ranges.
    assert_eq!(
        f.fetch_many(&[(100_000, 100_100), (200_000, 200_100)]),
        Err(PENDING.to_string())
    );
    assert_eq!(
        st.take_wants(),
        vec![
            (0, 1000),
            (10_000, 11_000),
            (20_000, 21_000),
            (100_000, 100_100),
            (200_000, 200_100)
        ]
    );
    assert!(!st.wants());
    // At most WANTS_MAX ranges, then the call is full (reads still wait).
    for i in 0..WANTS_MAX as u64 + 3 {
        assert!(f.fetch_into(i * 10_000, &mut buf).is_err());
    }
    assert!(st.wants_full());
    assert_eq!(st.take_wants().len(), WANTS_MAX);
    // At most WANTS_BYTES.
    f.advise(0, size);
    let mut big = vec![0u8; 10];
    for i in 0..4 {
        assert!(f.fetch_into(i * WANT_MAX, &mut big).is_err());
    }
    let w = st.take_wants();
    assert_eq!(w.len() as u64, WANTS_BYTES.div_ceil(WANT_MAX));
    // Not deferring: read through (and here, fail as the backend does).
    st.set_defer(false);
    assert_eq!(
        f.fetch_into(0, &mut buf),
        Err("no synchronous read".to_string())
    );
}

#[test]
fn neighbouring_staged_ranges_serve_a_read_across_them_and_say_where_they_end() {
    let data = file(1 << 20);
    let st = Staging::new_many(data.len() as u64);
    let f = Staged::new(
        |_: u64, _: u64| -> Result<Vec<u8>, String> { Err("no synchronous read".into()) },
        st.clone(),
    );
    for (a, b) in [(0u64, 4096u64), (4096, 10_000), (20_000, 30_000)] {
        st.put(a, b - a, |buf| {
            buf.copy_from_slice(&data[a as usize..b as usize])
        })
        .unwrap();
    }
    // 1000..9000 lies in two neighbouring ranges; 9000..21000 crosses a gap.
    assert_eq!(f.fetch(1000, 9000).unwrap(), data[1000..9000]);
    assert!(f.fetch(9000, 21_000).is_err());
    assert_eq!(st.held_until(100), Some(10_000));
    assert_eq!(st.held_until(25_000), Some(30_000));
    assert_eq!(st.held_until(15_000), None);
    // A range staged again inside an older one (the same bytes of the file).
    st.put(2000, 100, |buf| buf.copy_from_slice(&data[2000..2100]))
        .unwrap();
    assert_eq!(f.fetch(1990, 2110).unwrap(), data[1990..2110]);
    assert_eq!(f.fetch(2050, 2100).unwrap(), data[2050..2100]);
    // Released once the file is open: nothing held, nothing served; what is staged from then
    // on (trace steps) goes to the ring.
    assert_eq!(st.held(), 4096 + 5904 + 10_000 + 100);
    st.release();
    assert_eq!(st.held(), 0);
    assert!(f.fetch(0, 10).is_err());
    st.put(0, 100, |b| b.copy_from_slice(&data[..100])).unwrap();
    assert_eq!(f.fetch(0, 100).unwrap(), data[..100]);
    assert_eq!(st.held(), 100);
}

#[test]
fn named_ranges_become_wants_only_while_an_open_is_planned() {
    let size = 64 * WANT_MAX;
    let st = Staging::new_many(size);
    st.put(0, 4096, |b| b.fill(1)).unwrap();
    // Not deferring: advice only.
    st.will_need(&[(8192, 16_384)]);
    assert!(!st.wants());
    st.begin_plan();
    st.will_need(&[
        // Held already, wanted (overlapping the next), too large for one want, past the end.
        (0, 4096),
        (8192, 16_384),
        (12_000, 20_000),
        (WANT_MAX * 2, WANT_MAX * 3 + 1),
        (size, size + 10),
    ]);
    // More than WANTS_MAX ranges are fine (the Worker queues them), up to WANTS_BYTES in all.
    let many: Vec<(u64, u64)> = (0..40u64)
        .map(|i| {
            (
                WANT_MAX * 10 + i * WANT_MAX,
                WANT_MAX * 10 + i * WANT_MAX + (1 << 20),
            )
        })
        .collect();
    st.will_need(&many);
    let wants = st.take_wants();
    assert_eq!(wants[0], (8192, 16_384));
    assert_eq!(wants.len(), 1 + (WANTS_BYTES as usize >> 20) - 1);
    assert!(wants.iter().map(|(a, b)| b - a).sum::<u64>() <= WANTS_BYTES);
    st.set_defer(false);
    st.will_need(&[(30_000, 40_000)]);
    assert!(!st.wants());
}
