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
