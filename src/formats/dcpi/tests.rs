//! Tests of the DCPI reader: hand-written bytes, round trips through `crate::synth::dcpi`'s
//! writer, warnings and errors at their offsets, the flat model view and its histogram.

use super::*;
use crate::bytes::Source;
use crate::error::ErrorKind;
use crate::formats::{group, InputFile};
// Inputs are written by the generators' DCPI writer (round trips check it against this reader).
use crate::synth::dcpi::{layout, write};

/// A small profile: required lines, one optional, two unknown lines, two chunks.
fn sample() -> DcpiProfile {
    let mut p = DcpiProfile {
        header: vec![
            HeaderLine::new("image", "3a5f09c2"),
            HeaderLine::new("epoch", "9703141230"),
            HeaderLine::new("platform", "alpha dec-3000"),
            HeaderLine::new("event", "cycles"),
            HeaderLine::new("period", "65536"),
            HeaderLine::new("tsize", "4096"),
            HeaderLine::new("cpuspeed", "300"),
            HeaderLine::new("path", "/usr/bin/solver"),
            HeaderLine::parse("tstart\t120000000"),
            HeaderLine::new("future-key", "some value with  spaces"),
        ],
        chunks: vec![
            DcpiChunk {
                offset: 0x10,
                counts: vec![3, 0, 5],
            },
            DcpiChunk {
                offset: 0x100,
                counts: vec![7],
            },
        ],
        footer: DcpiFooter {
            total_offsets: 0,
            total_samples: 0,
        },
    };
    p.set_footer_from_chunks();
    p
}

fn dataset_of(bytes: Vec<u8>) -> Result<Dataset> {
    let (groups, _) = group(vec![InputFile::from_vec("solver.prof", bytes)]);
    assert_eq!(groups.len(), 1);
    crate::formats::open(&groups[0])
}

#[test]
fn reads_hand_written_bytes() {
    let mut b = b"image 1f\nepoch 9703141230\nplatform alpha\nevent cycles\nperiod 4096\ntsize 64\ncpuspeed 300\nsamples\n".to_vec();
    assert_eq!(b.len() % 4, 0, "header chosen 4-aligned");
    b.extend_from_slice(&[0x08, 0, 0, 0]); // chunk offset 8
    b.extend_from_slice(&[2, 0, 0, 0]); // number 2
    b.extend_from_slice(&[4, 0, 0, 0]); // count at address 8: 4
    b.extend_from_slice(&[0, 1, 0, 0]); // count at address 9: 256
    b.extend_from_slice(&[2, 0, 0, 0]); // total_offsets 2
    b.extend_from_slice(&[4, 1, 0, 0]); // total_samples 260
    let p = parse(&Source::from_vec("t.prof", b.clone())).unwrap();
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(p.profile.header.len(), 7);
    assert_eq!(p.profile.get("event"), Some("cycles"));
    assert_eq!(p.layout.binary_start, 96);
    assert_eq!(
        p.profile.chunks,
        vec![DcpiChunk {
            offset: 8,
            counts: vec![4, 256]
        }]
    );
    assert_eq!(p.profile.footer.total_samples, 260);
    assert_eq!(
        p.profile.address_counts().collect::<Vec<_>>(),
        vec![(8, 4), (9, 256)]
    );
    // The writer reproduces these bytes exactly (the header was already 4-aligned).
    assert_eq!(write(&p.profile), b);
}

#[test]
fn round_trip_keeps_every_field_and_unknown_lines() {
    let p = sample();
    let bytes = write(&p);
    let layout = layout(&p);
    assert_eq!(layout.binary_start % 4, 0);
    assert_eq!(layout.footer_offset + 8, bytes.len() as u64);
    let back = parse(&Source::from_vec("s.prof", bytes.clone())).unwrap();
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    assert_eq!(back.profile, p);
    assert_eq!(back.layout, layout);
    let unknown: Vec<_> = back
        .profile
        .header
        .iter()
        .filter(|l| l.class == LineClass::Unknown)
        .map(|l| l.raw.as_str())
        .collect();
    assert_eq!(
        unknown,
        ["tstart\t120000000", "future-key some value with  spaces"]
    );
    // Rewriting what was read gives the same bytes again.
    assert_eq!(write(&back.profile), bytes);
    assert_eq!(back.profile.footer.total_offsets, 3);
    assert_eq!(back.profile.footer.total_samples, 15);
}

#[test]
fn corrupted_footer_is_reported_at_its_offset() {
    let p = sample();
    let mut bytes = write(&p);
    let footer = layout(&p).footer_offset as usize;
    bytes[footer + 4] ^= 0x40; // total_samples 15 -> 79
    let back = parse(&Source::from_vec("s.prof", bytes.clone())).unwrap();
    assert_eq!(back.warnings.len(), 1, "{:?}", back.warnings);
    let w = &back.warnings[0];
    assert_eq!(w.kind, ErrorKind::Mismatch);
    assert_eq!(w.offset, Some(footer as u64 + 4));
    assert!(w.to_string().contains("total_samples 79"), "{w}");
    bytes[footer] = 9; // total_offsets 3 -> 9
    let back = parse(&Source::from_vec("s.prof", bytes)).unwrap();
    let offs: Vec<_> = back.warnings.iter().map(|w| w.offset).collect();
    assert_eq!(offs, vec![Some(footer as u64), Some(footer as u64 + 4)]);
    // The dataset still opens and shows the warning.
    let ds = dataset_of({
        let mut b = write(&p);
        b[footer] = 1;
        b
    })
    .unwrap();
    assert_eq!(ds.warnings.len(), 1);
    assert!(ds
        .facts
        .iter()
        .any(|(k, v)| k == "footer" && v.contains("DO NOT")));
}

#[test]
fn header_rules_missing_repeated_malformed() {
    let mut p = sample();
    p.header.retain(|l| l.key != "cpuspeed");
    p.header.push(HeaderLine::new("image", "77"));
    p.header.push(HeaderLine::new("epoch", "97-03-14"));
    p.header.push(HeaderLine::parse("lonely"));
    let bytes = write(&p);
    let back = parse(&Source::from_vec("s.prof", bytes)).unwrap();
    let texts: Vec<String> = back.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(back.warnings.len(), 5, "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("no `cpuspeed` line")));
    assert!(texts.iter().any(|t| t.contains("2 `image` lines")));
    assert!(texts.iter().any(|t| t.contains("2 `epoch` lines")));
    assert!(texts
        .iter()
        .any(|t| t.contains("\"97-03-14\" is not a time")));
    assert!(texts
        .iter()
        .any(|t| t.contains("\"lonely\" is not `word value`")));
    // The first image line is the one used; the repeated one is kept for rewriting.
    assert_eq!(back.profile.get("image"), Some("3a5f09c2"));
    assert_eq!(
        back.profile.header.last().unwrap().class,
        LineClass::Malformed
    );
    assert_eq!(write(&back.profile), write(&p));
}

#[test]
fn chunk_order_and_overlap_are_reported() {
    let mut p = sample();
    p.chunks.push(DcpiChunk {
        offset: 0x100, // same offset as the previous chunk
        counts: vec![1],
    });
    p.chunks.push(DcpiChunk {
        offset: 0x200,
        counts: vec![1; 4],
    });
    p.chunks.push(DcpiChunk {
        offset: 0x202, // inside 0x200..0x204
        counts: vec![1],
    });
    p.set_footer_from_chunks();
    let back = parse(&Source::from_vec("s.prof", write(&p))).unwrap();
    let layout = layout(&p);
    let got: Vec<(Option<u64>, bool)> = back
        .warnings
        .iter()
        .map(|w| (w.offset, w.what.contains("overlaps")))
        .collect();
    assert_eq!(
        got,
        vec![
            (Some(layout.chunk_offsets[2]), false),
            (Some(layout.chunk_offsets[4]), true)
        ]
    );
}

#[test]
fn fatal_problems_are_errors_with_offsets() {
    // No samples line.
    let e = parse(&Source::from_vec(
        "x",
        b"image 1\nepoch 9703141230\n".to_vec(),
    ))
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Truncated);
    // Binary section shorter than the footer.
    let e = parse(&Source::from_vec("x", b"image 1\nsamples\n\0\0\0".to_vec())).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::Truncated, Some(16)));
    // A chunk claiming more counts than the file holds.
    let mut b = b"image 1\nsamples\n".to_vec();
    b.extend_from_slice(&[0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0]);
    b.extend_from_slice(&[0; 8]);
    let e = parse(&Source::from_vec("x", b)).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::Truncated, Some(16)));
    assert!(e.what.contains("4294967295 counts"), "{e}");
    // A control byte in the header.
    let e = parse(&Source::from_vec(
        "x",
        b"image 1\nev\x01ent x\nsamples\n".to_vec(),
    ))
    .unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::Invalid, Some(10)));
}

#[test]
fn dataset_flat_view_values_and_histogram() {
    let ds = dataset_of(write(&sample())).unwrap();
    assert_eq!(ds.format, "dcpi");
    assert_eq!(ds.layout, "DCPI profile");
    assert_eq!(ds.title, "/usr/bin/solver");
    assert!(ds.warnings.is_empty());
    ds.cct.check().unwrap();
    // root, image, chunk 0x10 with addresses 0x10 and 0x12, chunk 0x100 with 0x100.
    assert_eq!(ds.cct.tree.len(), 7);
    let names: Vec<String> = (0..7).map(|n| ds.frame_name(n)).collect();
    assert_eq!(
        names,
        [
            "<root>",
            "solver",
            "0x120000010-0x120000012",
            "solver+0x10",
            "solver+0x12",
            "0x120000100-0x120000100",
            "solver+0x100"
        ]
    );
    assert_eq!(ds.cct.tree.depth, vec![0, 1, 2, 3, 3, 2, 3]);
    let v = ds.data.profile_values(0).unwrap();
    let m = &ds.metrics[0];
    assert_eq!(m.name, "cycles");
    let inc = m.inclusive(true).unwrap();
    let exc = m.exclusive(true).unwrap();
    assert_eq!(m.inclusive(false), Some(inc));
    assert_eq!(v.column(inc, 7), vec![15.0, 15.0, 8.0, 3.0, 5.0, 7.0, 7.0]);
    assert_eq!(v.column(exc, 7), vec![0.0, 0.0, 0.0, 3.0, 5.0, 0.0, 7.0]);
    assert_eq!(
        ds.data.context_values(4).unwrap(),
        vec![(0, exc, 5.0), (0, inc, 5.0)]
    );
    // Addresses 0x120000010 ..= 0x120000100 (241 addresses) in 3 bins of 81.
    let h = ds.data.address_histogram(3).unwrap();
    assert_eq!(
        h,
        vec![
            (0x120000010, 8),
            (0x120000010 + 81, 0),
            (0x120000010 + 162, 7)
        ]
    );
    assert_eq!(histogram(&sample(), 1000).len(), 241);
    assert_eq!(histogram(&sample(), usize::MAX).len(), 241);
    assert_eq!(histogram(&sample(), 0), vec![]);
    // Addresses past the top of the address space saturate instead of wrapping.
    let mut top = sample();
    top.header
        .push(HeaderLine::new("tstart", "fffffffffffffff0"));
    top.header.retain(|l| l.raw != "tstart\t120000000");
    assert_eq!(histogram(&top, 4), vec![(u64::MAX, 15)]);
    assert!(ds
        .facts
        .iter()
        .any(|(k, v)| k == "epoch" && v == "9703141230 (1997-03-14 12:30 UTC)"));
    assert!(ds
        .facts
        .iter()
        .any(|(k, v)| k == "future-key (unknown line, kept)" && v == "some value with  spaces"));
}

#[test]
fn truncated_and_bit_flipped_never_panic() {
    let bytes = write(&sample());
    for cut in 0..bytes.len() {
        if let Ok(p) = parse(&Source::from_vec("f", bytes[..cut].to_vec())) {
            to_dataset(p, "f", 0).unwrap().cct.check().unwrap();
        }
    }
    for i in 0..bytes.len() {
        for bit in [0x01u8, 0x10, 0x80] {
            let mut b = bytes.clone();
            b[i] ^= bit;
            if let Ok(p) = parse(&Source::from_vec("f", b)) {
                let ds = to_dataset(p, "f", 0).unwrap();
                ds.cct.check().unwrap();
                let _ = ds.data.address_histogram(64).unwrap();
            }
        }
    }
    // A huge `number` right before the footer must not allocate.
    let mut b = b"image 1\nsamples\n".to_vec();
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0x40]);
    b.extend_from_slice(&[0; 8]);
    assert!(parse(&Source::from_vec("f", b)).is_err());
}
