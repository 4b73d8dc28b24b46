//! Source files of a session: hpcprof's `src/` layout found for recorded paths, text read
//! bounded and checked, files added by the page, and per-line values that agree with the tree.

use super::*;
use crate::synth::{SynthDb, SynthSpec};

#[test]
fn recorded_paths_map_to_the_src_folder() {
    assert_eq!(candidates("src/a/b.c"), ["src/a/b.c"]);
    assert_eq!(candidates("/opt/x/b.c"), ["src/opt/x/b.c"]);
    assert_eq!(candidates("./rel/b.c"), ["src/rel/b.c"]);
    assert!(candidates("[inline]").is_empty());
    assert!(candidates("<unknown>").is_empty());
    assert!(candidates("/a/../../etc/passwd").is_empty());
    assert!(candidates("").is_empty());
}

#[test]
fn text_is_checked_and_bounded() {
    let shown = |text: &str, line_count, cut_lines| ShownText {
        cut_lines,
        max_line_chars: MAX_LINE_CHARS as u32,
        text: text.to_string(),
        line_count,
    };
    assert_eq!(decode_text(b"a\r\nb\n"), Some(shown("a\nb\n", 3, 0)));
    assert_eq!(decode_text(b"ELF\0\x01\x02"), None);
    // Mostly control bytes and not UTF-8: binary.
    assert_eq!(decode_text(&[0x01, 0x02, 0x03, 0xff, 0x04, 0x05]), None);
    // Latin-1 text stays text.
    let t = decode_text(b"caf\xe9 ok\n").unwrap();
    assert_eq!((t.text.as_str(), t.line_count), ("caf\u{fffd} ok\n", 2));
    let long = "x".repeat(MAX_LINE_CHARS + 10);
    let t = decode_text(format!("{long}\nshort").as_bytes()).unwrap();
    assert_eq!((t.line_count, t.cut_lines), (2, 1));
    assert_eq!(
        t.text.lines().next().unwrap().chars().count(),
        MAX_LINE_CHARS + 1
    );
    assert!(t.text.ends_with("…\nshort"));
}

/// A generated database dropped as folder `db` (with its `src/` when `with_sources`).
fn open_synth(with_sources: bool) -> (Session, u32, SynthDb) {
    let spec = SynthSpec {
        contexts: 400,
        ranks: 1,
        threads: 2,
        samples: 0,
        ..SynthSpec::default()
    };
    let db = SynthDb::new(&spec).unwrap();
    let mut s: Session = Session::new();
    for (name, bytes) in db.to_files() {
        s.add_file(format!("db/{name}"), bytes);
    }
    if with_sources {
        for (name, text) in db.source_files() {
            s.add_file(format!("db/{name}"), text.into_bytes());
        }
    }
    let report = s.open_pending();
    assert_eq!(report.datasets.len(), 1, "{report:?}");
    let id = report.datasets[0].id;
    (s, id, db)
}

#[test]
fn dropped_sources_are_shown_with_line_values() {
    let (mut s, id, _) = open_synth(true);
    let hot = s
        .source_hottest(id, 0)
        .unwrap()
        .expect("a hottest statement");
    assert!(hot.available, "{hot:?}");
    assert!(hot.path.starts_with("/opt/synth/src/"), "{hot:?}");
    let t = s.source_text(id, &hot.path, hot.line, 0).unwrap();
    assert_eq!(t.status, "shown");
    assert_eq!(
        t.read_from.as_deref(),
        Some(format!("db/src{}", hot.path).as_str())
    );
    assert!(t.shown.line_count >= hot.line && !t.truncated);
    // The hottest line has the largest exclusive value of all files' lines.
    let at = t.values.lines.iter().find(|v| v.line == hot.line).unwrap();
    assert!(at.exclusive > 0.0 && at.flags & crate::analysis::source::LINE_STATEMENT != 0);
    let paths: Vec<String> = s
        .dataset(id)
        .unwrap()
        .source_files
        .iter()
        .map(|f| f.path.clone())
        .collect();
    let mut best = 0.0f64;
    for p in paths {
        let other = s.source_text(id, &p, 1, 0).unwrap();
        for v in &other.values.lines {
            best = best.max(v.exclusive);
        }
    }
    assert_eq!(at.exclusive, best);
    // A short name finds the recorded file.
    let short = hot.path.rsplit('/').next().unwrap();
    assert_eq!(s.source_text(id, short, 1, 0).unwrap().path, hot.path);
    // Removing the dataset forgets its sources.
    assert!(s.remove(id));
    assert!(s.source_text(id, &hot.path, 1, 0).is_err());
}

#[test]
fn missing_files_say_where_they_would_be_and_can_be_added() {
    let (mut s, id, _) = open_synth(false);
    let hot = s.source_hottest(id, 0).unwrap().unwrap();
    assert!(!hot.available);
    let t = s.source_text(id, &hot.path, hot.line, 0).unwrap();
    assert_eq!(t.status, "missing");
    assert_eq!(t.candidates, [format!("src{}", hot.path)]);
    assert!(
        !t.values.lines.is_empty(),
        "values are known without the text"
    );
    s.source_add(id, hot.path.clone(), b"one\ntwo\n".to_vec(), 1 << 30)
        .unwrap();
    let t = s.source_text(id, &hot.path, hot.line, 0).unwrap();
    assert_eq!(
        (t.status.as_str(), t.shown.line_count, t.truncated),
        ("shown", 3, true)
    );
    assert_eq!(t.size, (1u64 << 30) as f64);
    s.source_add(id, hot.path.clone(), vec![0, 1, 2], 3)
        .unwrap();
    assert_eq!(s.source_text(id, &hot.path, 1, 0).unwrap().status, "binary");
    assert!(s.source_add(99, "x".into(), vec![], 0).is_err());
    // A node's location names its file.
    let ds = s.dataset(id).unwrap();
    let node = (0..ds.cct.tree.len() as u32)
        .find(|&n| crate::analysis::source::node_location(ds, n).is_some())
        .unwrap();
    assert!(s.source_location(id, node).unwrap().is_some());
    assert_eq!(s.source_location(id, 0).unwrap(), None);
}
