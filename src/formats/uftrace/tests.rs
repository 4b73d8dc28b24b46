//! Unit tests of the `info` header and text (info.rs) and of the summary probe that reads them
//! through the same functions (probe.rs); byte arrays per seed 004, "The info file".

use super::info::*;
use crate::bytes::{Endian, Source};
use crate::formats::{group, probe, InputFile};

fn info_bytes(text: &str) -> Vec<u8> {
    info_bytes_in(Endian::Little, text)
}

/// The same header as [`info_bytes`], written by a machine of byte order `e`.
fn info_bytes_in(e: Endian, text: &str) -> Vec<u8> {
    // (value, size) of the fields after the magic: version, header size, byte order (1 little,
    // 2 big), 64-bit, features, info mask, max stack, reserved.
    let order = if e == Endian::Big { 2 } else { 1 };
    let fields = [
        (4, 4),
        (40, 2),
        (order, 1),
        (2, 1),
        (0x363, 8),
        (0x3bff, 8),
        (1024, 2),
        (0, 6),
    ];
    let mut b = MAGIC.to_vec();
    for (v, n) in fields {
        match e {
            Endian::Little => b.extend_from_slice(&u64::to_le_bytes(v)[..n]),
            Endian::Big => b.extend_from_slice(&u64::to_be_bytes(v)[8 - n..]),
        }
    }
    b.extend_from_slice(text.as_bytes());
    b
}

#[test]
fn parses_header_and_lines() {
    let src = Source::from_vec(
        "info",
        info_bytes(
            "exename:/bin/x\ntaskinfo:lines=2\ntaskinfo:nr_tid=2\ntaskinfo:tids=5,7\nauto-args:1\n",
        ),
    );
    let i = UftraceInfo::parse(&src).unwrap();
    assert_eq!(i.header.version, 4);
    assert_eq!(i.header.max_stack, 1024);
    assert_eq!(i.exename(), Some("/bin/x"));
    assert_eq!(i.tids(), vec![5, 7]);
    assert!(i.auto_args());
    assert_eq!(
        i.feature_names(),
        "PLTHOOK | TASK_SESSION | SYM_REL_ADDR | MAX_STACK | PERF_EVENT | AUTO_ARGS"
    );
}

#[test]
fn rejects_bad_magic_and_short_header() {
    let mut b = info_bytes("");
    b[0] = b'X';
    assert!(UftraceInfo::parse(&Source::from_vec("info", b)).is_err());
    let mut b = info_bytes("");
    b[12] = 8;
    assert!(UftraceInfo::parse(&Source::from_vec("info", b)).is_err());
    assert!(UftraceInfo::parse(&Source::from_vec("info", MAGIC.to_vec())).is_err());
}

#[test]
fn big_endian_header_numbers_are_read_in_its_byte_order() {
    let src = Source::from_vec("info", info_bytes_in(Endian::Big, "exename:/bin/x\n"));
    let h = InfoHeader::read(&src).unwrap();
    assert_eq!(
        h,
        InfoHeader {
            version: 4,
            header_size: 40,
            endian: Endian::Big,
            class: 2,
            feat_mask: 0x363,
            info_mask: 0x3bff,
            max_stack: 1024,
        }
    );
    let i = UftraceInfo::parse(&src).unwrap();
    assert!(!i.little_endian());
    assert_eq!(i.exename(), Some("/bin/x"));
    assert_eq!(
        i.feature_names(),
        "PLTHOOK | TASK_SESSION | SYM_REL_ADDR | MAX_STACK | PERF_EVENT | AUTO_ARGS"
    );
}

#[test]
fn endian_byte_other_than_1_or_2_is_an_error() {
    let mut b = info_bytes("");
    b[14] = 3;
    let e = InfoHeader::read(&Source::from_vec("info", b)).unwrap_err();
    assert!(e.to_string().contains("endian byte 3"), "{e}");
}

#[test]
fn text_lines_stop_at_the_limit() {
    let src = Source::from_vec("info", info_bytes("exename:/bin/x\ncmdline:x -y\n"));
    let h = InfoHeader::read(&src).unwrap();
    // 15 bytes hold the first line and its newline only.
    let lines = h.text_lines(&src, 15).unwrap();
    assert_eq!(lines, vec![("exename".to_string(), "/bin/x".to_string())]);
    assert_eq!(h.text_lines(&src, 1 << 20).unwrap().len(), 2);
}

fn probe_of(info: Vec<u8>) -> probe::Probe {
    let files = vec![
        InputFile {
            path: "u/uftrace.data/info".into(),
            source: Source::from_vec("info", info),
        },
        InputFile {
            path: "u/uftrace.data/1.dat".into(),
            source: Source::from_vec("1.dat", vec![0; 16]),
        },
    ];
    let (groups, _) = group(files);
    assert_eq!(groups.len(), 1);
    probe::probe(&groups[0])
}

#[test]
fn probe_reads_the_header_as_the_reader_does() {
    let p = probe_of(info_bytes_in(
        Endian::Big,
        "exename:/usr/bin/demo\ncmdline:demo -x\n",
    ));
    assert_eq!(p.format, "uftrace");
    assert_eq!(p.layout, "uftrace file version 4");
    assert_eq!(p.title, "demo");
    assert_eq!(p.fact_value("byte order"), Some("big-endian"));
    assert_eq!(p.fact_value("ELF class"), Some("64-bit"));
    assert_eq!(p.fact_value("command line"), Some("demo -x"));
    assert!(p.problem.is_none());
    // A header size smaller than the header is rejected by both.
    let mut b = info_bytes("exename:/usr/bin/demo\n");
    b[12] = 8;
    assert!(UftraceInfo::parse(&Source::from_vec("info", b.clone())).is_err());
    assert!(probe_of(b).problem.is_some());
}
