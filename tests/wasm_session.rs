//! The wasm `Session` as the page's Worker uses it, run by wasm-bindgen-test in headless Chromium
//! inside a dedicated Worker (`cargo test --target wasm32-unknown-unknown --test wasm_session`).
#![cfg(target_arch = "wasm32")]

use hpcscope::wasm::Session;
use serde_json::Value;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

fn json(v: JsValue) -> Value {
    serde_wasm_bindgen::from_value(v).expect("plain data")
}

/// A meta.db cut off after its magic and version: the General Properties pointer at 0x18 is gone.
fn truncated_meta() -> Vec<u8> {
    b"HPCTOOLKITmeta\x04\x00\0\0\0\0".to_vec()
}

#[wasm_bindgen_test]
fn example_opens_with_counts() {
    let mut s = Session::new();
    let r = json(s.open_example().unwrap());
    let d = &r["datasets"][0];
    // The writer's example database, read through grouping, probe and the HPCToolkit reader.
    assert_eq!(d["format"], "hpctoolkit");
    assert_eq!(d["layout"], "v4.0 final");
    assert_eq!(d["title"], "hpcscope example");
    assert_ne!(d["status"], "failed");
    assert_eq!(d["id"], 1);
    let counts = d["counts"].as_array().unwrap();
    assert!(
        counts.iter().any(|c| c[0] == "metrics" && c[1] == 3.0),
        "{d}"
    );
    assert_eq!(json(s.summaries().unwrap()).as_array().unwrap().len(), 1);
}

#[wasm_bindgen_test]
fn bad_inputs_report_file_structure_offset() {
    let mut s = Session::new();
    s.open_example().unwrap();
    s.add_file("db/meta.db".into(), truncated_meta());
    s.add_file("random.bin".into(), vec![0x9c, 0x00, 0xff, 0x12, 0x55]);
    assert_eq!(s.pending_count(), 2);
    let r = json(s.open_pending().unwrap());
    let errors = r["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{r}");
    let meta = errors.iter().find(|e| e["file"] == "db/meta.db").unwrap();
    assert_eq!(meta["kind"], "truncated");
    assert_eq!(meta["offset_hex"], "0x18");
    assert_eq!(meta["offset"], 24.0);
    let random = errors.iter().find(|e| e["file"] == "random.bin").unwrap();
    assert_eq!(random["kind"], "unrecognized");
    // The example is still there next to the broken database.
    assert_eq!(json(s.summaries().unwrap()).as_array().unwrap().len(), 2);
    assert!(s.remove(1));
    assert!(s.summary(1).unwrap().is_undefined());
}

#[wasm_bindgen_test]
fn blob_source_reads_like_bytes() {
    // A hpcrun header, read once from bytes and once lazily from a Blob via FileReaderSync.
    let mut b = b"HPCRUN-profile____04.00b".to_vec();
    b.extend_from_slice(&1u32.to_be_bytes());
    b.extend_from_slice(&12u32.to_be_bytes());
    b.extend_from_slice(b"program-name");
    b.extend_from_slice(&5u32.to_be_bytes());
    b.extend_from_slice(b"blobs");
    let parts = js_sys::Array::new();
    parts.push(&js_sys::Uint8Array::from(&b[..]));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).unwrap();

    let mut s = Session::new();
    s.add_file("a.m/x-000000-000-0-1-0.hpcrun".into(), b.clone());
    let from_bytes = json(s.open_pending().unwrap());
    s.add_blob("b.m/x-000000-000-0-1-0.hpcrun".into(), blob)
        .unwrap();
    let from_blob = json(s.open_pending().unwrap());
    let a = &from_bytes["datasets"][0];
    let b = &from_blob["datasets"][0];
    assert_eq!(a["layout"], "hpcrun profile 04.00b");
    assert_eq!(b["layout"], a["layout"]);
    assert_eq!(b["title"], "blobs");
    assert_eq!(b["title"], a["title"]);
    assert_eq!(b["total_bytes"], a["total_bytes"]);
}

/// The trace-step protocol as www/engine.js drives it, over a trace.db dropped as a Blob: a step
/// answers `null` while it wants a read, `take_wanted_read()` names `{stage, start, end, blob}`
/// of that Blob, the bytes go back through `stage_bytes`, and `timeline_refine` goes on. The
/// final frame equals the exact frame of the same database read from bytes.
#[wasm_bindgen_test]
fn trace_steps_over_a_blob_stop_at_reads_and_continue_once_staged() {
    use hpcscope::synth::{SynthDb, SynthSpec};
    let get = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &k.into()).unwrap();
    let ranks = 2u32;
    // 20,000 samples of 12 bytes per line: every line read is longer than a Blob block (64 KiB).
    let db = SynthDb::new(&SynthSpec {
        ranks,
        threads: 1,
        contexts: 50,
        depth: 4,
        samples: 20_000,
        ..Default::default()
    })
    .unwrap();
    let files = db.to_files();
    let mut mem = Session::new();
    let mut lazy = Session::new();
    for (n, b) in &files {
        mem.add_file(format!("db/{n}"), b.clone());
        if n == "trace.db" {
            let parts = js_sys::Array::new();
            parts.push(&js_sys::Uint8Array::from(&b[..]));
            let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).unwrap();
            lazy.add_blob(format!("db/{n}"), blob).unwrap();
        } else {
            lazy.add_file(format!("db/{n}"), b.clone());
        }
    }
    let mem_id = json(mem.open_pending().unwrap())["datasets"][0]["id"]
        .as_u64()
        .unwrap() as u32;
    let lazy_id = json(lazy.open_pending().unwrap())["datasets"][0]["id"]
        .as_u64()
        .unwrap() as u32;
    let meta = json(mem.timeline_meta(mem_id).unwrap());
    let run_ns = meta["duration_ns"].as_f64().expect("run length") + 1.0;
    let rows: Vec<u32> = (0..ranks).collect();
    // The frame as the page sends it: a plain object.
    let frame = || {
        js_sys::JSON::parse(&format!(
            r#"{{"t0_ns": 0, "t1_ns": {run_ns}, "width": 300, "height": {ranks}, "depth": 3}}"#
        ))
        .unwrap()
    };
    let want = mem
        .timeline_frame(mem_id, rows.clone(), frame(), true)
        .unwrap();

    let reader = web_sys::FileReaderSync::new().unwrap();
    let mut answer = lazy.timeline_begin(lazy_id, 0, rows, frame(), 1e9).unwrap();
    let mut reads = 0;
    while answer.is_null() {
        let w = lazy.take_wanted_read().unwrap();
        assert!(
            !w.is_undefined(),
            "a step answered null without a wanted read"
        );
        let (start, end) = (
            get(&w, "start").as_f64().unwrap(),
            get(&w, "end").as_f64().unwrap(),
        );
        let blob: web_sys::Blob = get(&w, "blob").into();
        let part = blob.slice_with_f64_and_f64(start, end).unwrap();
        let bytes = js_sys::Uint8Array::new(&reader.read_as_array_buffer(&part).unwrap());
        let stage = get(&w, "stage").as_f64().unwrap() as u32;
        lazy.stage_bytes(stage, start, &bytes).unwrap();
        reads += 1;
        assert!(reads <= 100, "{reads} staged reads");
        answer = lazy.timeline_refine(lazy_id, 0, true, 1e9).unwrap();
    }
    assert!(lazy.take_wanted_read().unwrap().is_undefined());
    // One read per line, each line whole (the scan's advice).
    assert_eq!(reads, ranks);
    let answer: js_sys::Array = answer.into();
    let packed = js_sys::Uint32Array::from(answer.get(0)).to_vec();
    assert_eq!(json(answer.get(1))["exact"], true);
    assert_eq!(packed, want.to_vec());
    let counts = json(lazy.blob_reads().unwrap());
    assert_eq!(counts["staged_reads"], reads as f64);
    assert_eq!(counts["reread_reads"], 0.0);
}
