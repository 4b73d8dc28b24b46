//! Replays whole fuzz corpora (one folder per target, as scripts/fuzz.sh leaves them under
//! target/fuzz-corpus) through the fuzz harness and lists every panic with its location. The
//! campaign's `-O` builds have overflow checks off, so run this with them on:
//!
//! ```text
//! CARGO_TARGET_DIR=target/ovf CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true \
//!   CARGO_PROFILE_RELEASE_PANIC=unwind CARGO_PROFILE_RELEASE_LTO=false \
//!   HPCSCOPE_REPLAY=target/fuzz-corpus cargo test --release --test fuzz_corpus_replay -- --nocapture
//! ```
//! (`HPCSCOPE_REPLAY_ONLY=a,b` limits the targets). Without HPCSCOPE_REPLAY it does nothing.

#[path = "../fuzz/src/harness.rs"]
#[allow(dead_code)]
mod harness;

use std::sync::Mutex;

static WHERE: Mutex<String> = Mutex::new(String::new());

#[test]
fn replay_fuzz_corpora() {
    let Ok(root) = std::env::var("HPCSCOPE_REPLAY") else {
        eprintln!("skipping: HPCSCOPE_REPLAY (a folder of fuzz corpora) not set");
        return;
    };
    let only = std::env::var("HPCSCOPE_REPLAY_ONLY").ok();
    std::panic::set_hook(Box::new(|i| {
        *WHERE.lock().unwrap_or_else(|e| e.into_inner()) = format!("{:?}", i.location());
    }));
    let mut panics = 0;
    for &(name, _, _) in harness::TARGETS {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|x| x == name))
        {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(format!("{root}/{name}")) else {
            continue;
        };
        let t = std::time::Instant::now();
        let (mut n, mut bad) = (0, 0);
        for e in entries.flatten() {
            let Ok(bytes) = std::fs::read(e.path()) else {
                continue;
            };
            n += 1;
            if std::panic::catch_unwind(|| harness::run(name, &bytes)).is_err() {
                bad += 1;
                let at = WHERE.lock().unwrap_or_else(|e| e.into_inner()).clone();
                println!("PANIC {name} {}: {at}", e.path().display());
            }
        }
        panics += bad;
        println!(
            "{name}: {n} inputs, {bad} panics, {:.1} s",
            t.elapsed().as_secs_f64()
        );
    }
    let _ = std::panic::take_hook();
    assert_eq!(panics, 0, "inputs that panic (listed above)");
}
