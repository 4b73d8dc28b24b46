//! Report page tests: base64 and escaping, every file packed and decodable, the trace left out
//! without a Trace view or over the bound, refusal when even that is over, and bad templates.

use super::*;
use crate::synth::{SynthDb, SynthSpec};
use std::io::Read;

/// A template with every marker and nothing else of the real one's size.
const TEMPLATE: &str =
    "<title>{{TITLE}}</title><meta content=\"{{VERSION}}\"><p>{{META}}</p>{{NOTES}}\
<x-view views=\"{{VIEWS}}\" view=\"{{VIEW}}\"></x-view>\
<script type=\"application/octet-stream\" id=\"d\" data-files=\"{{DATA_FILES}}\">{{DATA}}</script>";

fn decode_base64(text: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut out = Vec::new();
    for q in text.as_bytes().chunks(4) {
        let pad = q.iter().filter(|&&c| c == b'=').count();
        let n = q
            .iter()
            .map(|&c| if c == b'=' { 0 } else { u32::from(val(c)) })
            .fold(0u32, |n, v| (n << 6) | v);
        out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
    }
    out
}

/// Between `start` and the next `end` after it in `s`.
fn between<'a>(s: &'a str, start: &str, end: &str) -> &'a str {
    let a = s.find(start).expect(start) + start.len();
    &s[a..a + s[a..].find(end).expect(end)]
}

/// A synthetic HPCToolkit database with a trace written to a fresh folder, grouped as the CLI does.
fn synth_group(name: &str, samples: u64) -> (std::path::PathBuf, DatasetGroup) {
    let dir = std::env::temp_dir().join(format!("hpcscope-report-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let spec = SynthSpec {
        title: "Report <test> & \"quotes\"".into(),
        ranks: 2,
        threads: 2,
        contexts: 200,
        samples,
        ..SynthSpec::default()
    };
    SynthDb::new(&spec).unwrap().write_dir(&dir).unwrap();
    let (mut groups, _) = formats::group(crate::cli::read_inputs(&dir).unwrap());
    (dir, groups.remove(0))
}

fn all_views() -> Vec<String> {
    VIEWS.iter().map(|v| v.to_string()).collect()
}

#[test]
fn base64_matches_rfc_4648_vectors() {
    let cases = [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ];
    for (plain, coded) in cases {
        assert_eq!(base64(plain.as_bytes()), coded);
        assert_eq!(base64_len(plain.len()), coded.len());
        assert_eq!(decode_base64(coded), plain.as_bytes());
    }
    let bytes: Vec<u8> = (0..=255).collect();
    assert_eq!(decode_base64(&base64(&bytes)), bytes);
}

#[test]
fn escapes_markup_and_quotes() {
    assert_eq!(
        escape_html("<img src=x onerror='a'>&\""),
        "&lt;img src=x onerror=&#39;a&#39;&gt;&amp;&quot;"
    );
}

#[test]
fn packs_every_file_and_escapes_the_title() {
    let (dir, group) = synth_group("all", 500);
    let r = build(TEMPLATE, &group, &all_views(), 50_000_000).unwrap();
    let names: Vec<&str> = r
        .files
        .iter()
        .map(|(p, _)| p.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(names, ["cct.db", "meta.db", "profile.db", "trace.db"]);
    assert!(r.dropped.is_empty());
    assert!(
        r.html
            .contains("<title>Report &lt;test&gt; &amp; &quot;quotes&quot;</title>"),
        "{}",
        &r.html[..200]
    );
    assert!(r
        .html
        .contains("views=\"summary profile timeline histogram\" view=\"profile\""));
    // The data decodes to the files, in list order.
    let packed = decode_base64(
        between(&r.html, "id=\"d\" data-files=\"", "</script>")
            .split('>')
            .nth(1)
            .unwrap(),
    );
    assert_eq!(packed.len(), r.packed_bytes);
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&packed[..])
        .read_to_end(&mut raw)
        .unwrap();
    let mut want = Vec::new();
    for (p, _) in &r.files {
        want.extend(std::fs::read(dir.parent().unwrap().join(p)).unwrap());
    }
    assert_eq!(raw, want);
    let list = between(&r.html, "data-files=\"", "\"").replace("&quot;", "\"");
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list[3]["size"].as_u64(), Some(r.files[3].1));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn no_trace_view_leaves_the_trace_out() {
    let (dir, group) = synth_group("views", 500);
    let views = vec!["summary".to_string(), "profile".to_string()];
    let r = build(TEMPLATE, &group, &views, 50_000_000).unwrap();
    assert!(r.files.iter().all(|(p, _)| !p.ends_with("trace.db")));
    assert!(
        r.dropped.is_empty(),
        "not dropped for size: never asked for"
    );
    assert!(r.html.contains("views=\"summary profile\""));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn over_the_bound_drops_the_trace_then_refuses() {
    let (dir, group) = synth_group("bound", 60_000);
    let full = build(TEMPLATE, &group, &all_views(), 50_000_000).unwrap();
    let small = build(TEMPLATE, &group, &["profile".to_string()], 50_000_000).unwrap();
    assert!(
        full.html.len() > small.html.len() + 100_000,
        "{} vs {}",
        full.html.len(),
        small.html.len()
    );
    // Room for everything but the trace: the trace goes, with the Trace view and a note.
    let max = (full.html.len() - 1) as u64;
    let r = build(TEMPLATE, &group, &all_views(), max).unwrap();
    assert!(r.html.len() as u64 <= max);
    assert_eq!(r.dropped.len(), 1);
    assert!(r.dropped[0].0.ends_with("trace.db"));
    assert!(!r.views.contains(&"timeline".to_string()));
    assert!(r.html.contains("Left out to keep this page small"));
    // Room for neither: an error saying so, nothing built.
    let err = build(TEMPLATE, &group, &all_views(), small.html.len() as u64 / 2).unwrap_err();
    assert!(
        matches!(
            err,
            ReportError::TooLarge {
                trace_left_out: true,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("even without the trace"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_template_without_markers_is_refused() {
    let (dir, group) = synth_group("template", 0);
    let err = build("<html>{{TITLE}}</html>", &group, &all_views(), 50_000_000).unwrap_err();
    assert!(matches!(err, ReportError::Template(_)), "{err:?}");
    std::fs::remove_dir_all(dir).unwrap();
}
