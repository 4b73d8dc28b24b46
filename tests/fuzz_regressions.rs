//! Replays every committed fuzz finding (fuzz/regressions/<target>/*) and a few hand-made hostile
//! inputs through the fuzz harness: each must open or fail cleanly, never panic.

#[path = "../fuzz/src/harness.rs"]
#[allow(dead_code)]
mod harness;

use std::path::Path;

#[test]
fn committed_fuzz_findings_do_not_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut replayed = 0;
    for &(name, _, _) in harness::TARGETS {
        if !harness::available(name) {
            eprintln!("skipping {name}: its companion dataset (../shared/corpus) is absent");
            continue;
        }
        let Ok(entries) = std::fs::read_dir(dir.join(name)) else {
            continue;
        };
        for e in entries.flatten() {
            let bytes = std::fs::read(e.path()).unwrap();
            harness::run(name, &bytes);
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} committed fuzz inputs");
}

#[test]
fn hostile_inputs_through_every_target() {
    // Empty, tiny, all-ones, a header claiming huge counts, and each target's own seed
    // truncated and bit-flipped at a few places.
    let mut inputs: Vec<Vec<u8>> = vec![vec![], vec![0], vec![0xff; 64], vec![0xff; 4096]];
    let mut huge = b"HPCTOOLKITmeta\x04\x00".to_vec();
    huge.extend(std::iter::repeat_n(0xffu8, 256));
    inputs.push(huge);
    let mut ran = 0;
    for &(name, ds, file) in harness::TARGETS {
        if !harness::available(name) {
            eprintln!("skipping {name}: its companion dataset (../shared/corpus) is absent");
            continue;
        }
        for i in &inputs {
            harness::run(name, i);
        }
        let seed = harness::companions(ds)
            .and_then(|f| f.into_iter().find(|(p, _)| p == file).map(|(_, b)| b));
        if let Some(seed) = seed {
            harness::run(name, &seed);
            for cut in [1, 7, 16, 31, 64, 100, 257, 1000] {
                if cut < seed.len() {
                    harness::run(name, &seed[..seed.len() - cut]);
                    harness::run(name, &seed[..cut]);
                }
            }
            for pos in (0..seed.len()).step_by((seed.len() / 24).max(1)) {
                let mut m = seed.clone();
                m[pos] ^= 0xff;
                harness::run(name, &m);
            }
        }
        ran += 1;
    }
    assert!(ran >= 5, "the example-based targets always run");
}
