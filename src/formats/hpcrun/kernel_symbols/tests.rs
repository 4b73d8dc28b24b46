//! Unit tests of the kernel symbol table reader: text symbols chosen by greatest start, other
//! lines skipped and counted, broken xz refused.

use super::*;

#[test]
fn text_symbols_by_greatest_start() {
    let (k, bad) = parse(
        b"ffffffff81000000 T _stext\nffffffff81000100 t helper [mymod]\nffffffff81000200 D data\nnot a line\nffffffff81000300 T after\n",
        "k",
    )
    .unwrap();
    assert_eq!(bad, 1);
    assert_eq!(k.len(), 3);
    assert_eq!(k.lookup(0xffffffff81000050).unwrap().1, "_stext [vmlinux]");
    assert_eq!(
        k.lookup(0xffffffff81000250).unwrap(),
        (0xffffffff81000100, "helper [mymod] [vmlinux]")
    );
    assert!(k.lookup(0x10).is_none());
}

#[test]
fn bad_xz_is_an_error() {
    assert!(parse(&[0xFD, b'7', b'z', b'X', b'Z', 0, 1, 2, 3], "k").is_err());
}
