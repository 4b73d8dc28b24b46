//! The test YAML reader (tests/common/yaml.rs over saphyr) on what HPCToolkit's golden transcripts
//! hold: tags, anchors and aliases, nulls, folded scalars, u64 beyond i64; and floats read
//! correctly rounded, bit for bit, on decimal strings that are hard to round.

use common::yaml::{self, Value};

mod common;

#[test]
fn tags_anchors_aliases_and_nulls() {
    let doc = yaml::parse(
        "!db/v4
meta: !meta.db/v4
  modules:
  - &id001 !meta.db/v4/Module  # /a.out []
    path: /x/a.out
  - &id002 !meta.db/v4/Module
    path: 'it''s'
  functions:
  - !meta.db/v4/Function
    name: a long name that
      continues on the next line
    module: *id002
    file:
    line: ~
    flags: !meta.db/v4/Function.Flags [is_summary, has_point]
  empty: {}
  max: 9223372036854775808
",
    )
    .unwrap();
    assert_eq!(doc.tag.as_deref(), Some("!db/v4"));
    let meta = doc.get("meta");
    assert_eq!(meta.tag.as_deref(), Some("!meta.db/v4"));
    let modules = meta.get("modules").seq();
    assert_eq!(modules[1].get("path").str(), Some("it's"));
    let f = &meta.get("functions").seq()[0];
    assert_eq!(f.tag.as_deref(), Some("!meta.db/v4/Function"));
    assert_eq!(
        f.get("name").str(),
        Some("a long name that continues on the next line")
    );
    assert_eq!(yaml::position(modules, f.get("module").alias()), Some(1));
    assert!(f.get("file").is_null() && f.get("line").is_null());
    assert_eq!(f.get("flags").flags(), ["is_summary", "has_point"]);
    assert!(matches!(meta.get("empty").value, Value::Map(ref m) if m.is_empty()));
    assert_eq!(meta.get("max").u64(), Some(1 << 63));
    assert_eq!(doc.anchors()[&f.get("module").alias().unwrap()].anchor, 2);
}

#[test]
fn broken_yaml_is_an_error() {
    assert!(yaml::parse("a: [1, 2").is_err());
    assert!(yaml::parse("a: b\n- c").is_err());
}

/// Decimal strings near rounding boundaries, each with the bits of the correctly rounded double
/// (round to nearest, ties to even): read through the YAML reader, and by serde_json built with
/// `float_roundtrip` (the parser transcripts are compared with) as a second witness where the
/// result is finite (JSON has no infinities).
#[test]
fn floats_are_correctly_rounded() {
    let cases: &[(&str, u64)] = &[
        // As hpctesttool writes them (Python repr): shortest round-trip strings.
        ("0.20111400000000001", 0.201_114_000_000_000_01f64.to_bits()),
        ("1.210259", 1.210259f64.to_bits()),
        ("0.1", 0x3FB9_9999_9999_999A),
        // 2^53 + 1 is a tie: even mantissa wins (2^53); one more digit tips it up.
        ("9007199254740993", 0x4340_0000_0000_0000),
        ("9007199254740993.0000000000000001", 0x4340_0000_0000_0001),
        // The tie between 1 and 1 + 2^-52, exactly, then just above it.
        (
            "1.00000000000000011102230246251565404236316680908203125",
            0x3FF0_0000_0000_0000,
        ),
        (
            "1.00000000000000011102230246251565404236316680908203125001",
            0x3FF0_0000_0000_0001,
        ),
        // The largest subnormal and the smallest normal (the string that hung old parsers).
        ("2.2250738585072011e-308", 0x000F_FFFF_FFFF_FFFF),
        ("2.2250738585072012e-308", 0x0010_0000_0000_0000),
        // The smallest subnormal, and half of it: a tie that rounds to even (zero).
        ("4.9406564584124654e-324", 0x0000_0000_0000_0001),
        ("2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324", 0),
        ("2.4703282292062328e-324", 0x0000_0000_0000_0001),
        // The largest double, and the first string that rounds past it.
        ("1.7976931348623157e308", 0x7FEF_FFFF_FFFF_FFFF),
        ("1.7976931348623159e308", 0x7FF0_0000_0000_0000),
        ("-0.0", 0x8000_0000_0000_0000),
        (".inf", 0x7FF0_0000_0000_0000),
        ("-.inf", 0xFFF0_0000_0000_0000),
    ];
    let doc: String = cases
        .iter()
        .enumerate()
        .map(|(i, (s, _))| format!("{i}: {s}  # a comment\n"))
        .collect();
    let read = yaml::parse(&doc).unwrap();
    for (i, (s, bits)) in cases.iter().enumerate() {
        let got = read.get(&i.to_string()).f64();
        assert_eq!(got.to_bits(), *bits, "YAML {s}: got {got:e}");
        if got.is_finite() {
            let json: f64 = serde_json::from_str(s).unwrap();
            assert_eq!(json.to_bits(), *bits, "serde_json {s}");
        }
    }
}
