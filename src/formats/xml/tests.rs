//! Unit tests of the XML tokenizer: tokens, attributes and entities of small documents, offsets
//! and depth, and hostile input (malformed, deep, entity bombs, random bytes) that must stay bounded.

use super::*;
use crate::error::ErrorKind;
use crate::work::{assert_scales, Work::XmlBytes};

/// The tokens of `doc` written out: `<a k=v>`, `<a k=v/>`, `</a>`, `text:..`, `cdata:..`.
fn tokens(doc: &[u8]) -> Result<Vec<String>> {
    Reader::new(doc, "t.xml")
        .map(|t| {
            Ok(match t? {
                Token::Start(t) => {
                    let attrs: String = t
                        .attrs()
                        .map(|a| format!(" {}={}", a.name, a.value()))
                        .collect();
                    let slash = if t.empty { "/" } else { "" };
                    format!("<{}{attrs}{slash}>", t.name)
                }
                Token::End(t) => format!("</{}>", t.name),
                Token::Text(t) if t.cdata => format!("cdata:{}", t.value()),
                Token::Text(t) => format!("text:{}", t.value()),
            })
        })
        .collect()
}

/// The error `doc` ends with (the reader stops after it).
fn error(doc: &[u8]) -> Error {
    let mut r = Reader::new(doc, "t.xml");
    loop {
        match r.next() {
            Some(Ok(_)) => {}
            Some(Err(e)) => {
                assert!(r.next().is_none(), "the reader goes on after {e}");
                return e;
            }
            None => panic!("no error in {:?}", String::from_utf8_lossy(doc)),
        }
    }
}

#[test]
fn tokens_of_a_small_document() {
    let doc = b"<?xml version=\"1.0\"?>\n\
<!DOCTYPE x [ <!ELEMENT a (b)> <!ATTLIST a n CDATA \"]>\"> <!-- it's ]> here --> ]>\n\
<!-- <C i='9'/> -->\
<a n=\"&lt;root&gt; &amp; &#65;&#x42; &bogus;\" v='1'>t &amp; u<b/><![CDATA[<x&amp;>]]><?pi x?></a >";
    assert_eq!(
        tokens(doc).unwrap(),
        [
            "text:\n",
            "text:\n",
            "<a n=<root> & AB &bogus; v=1>",
            "text:t & u",
            "<b/>",
            "cdata:<x&amp;>",
            "</a>",
        ]
    );
}

/// The assertions of prof2's tokenizer test, which this module replaced.
#[test]
fn tags_attributes_entities() {
    let doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE x [ <!ELEMENT a (b)> <!ATTLIST a n CDATA \"]>\"> ]>\n<!-- <C i='9'/> -->\n<a n=\"&lt;program root&gt; &amp; &#65;&#x42; &bogus;\" v='1'>text<b/></a >";
    let tags: Vec<Token> = Reader::new(doc.as_bytes(), "t.xml")
        .filter(|t| !matches!(t, Ok(Token::Text(_))))
        .collect::<Result<_>>()
        .unwrap();
    assert_eq!(tags.len(), 3);
    match &tags[0] {
        Token::Start(t) => {
            assert_eq!(t.name, "a");
            assert!(!t.empty);
            let attrs: Vec<(&str, String)> = t
                .attrs()
                .map(|a| (a.name, a.value().into_owned()))
                .collect();
            assert_eq!(attrs[0], ("n", "<program root> & AB &bogus;".to_string()));
            assert_eq!(attrs[1], ("v", "1".to_string()));
        }
        t => panic!("{t:?}"),
    }
    assert!(matches!(
        tags[1],
        Token::Start(Tag {
            name: "b",
            empty: true,
            ..
        })
    ));
    assert!(matches!(tags[2], Token::End(EndTag { name: "a", .. })));
    let bad: Vec<_> = Reader::new(b"<a n=\"x><b>", "t.xml").collect();
    assert!(bad.last().unwrap().is_err());
}

#[test]
fn offsets_and_depth() {
    let doc = b"<r>\n  <e k = 'v' j=\"w\"/>x</r>";
    let mut r = Reader::new(doc, "t.xml");
    let Some(Token::Start(root)) = r.next_token().unwrap() else {
        panic!()
    };
    assert_eq!((root.offset, r.depth(), r.position()), (0, 1, 3));
    assert!(matches!(
        r.next_token().unwrap(),
        Some(Token::Text(Text { offset: 3, .. }))
    ));
    let Some(Token::Start(e)) = r.next_token().unwrap() else {
        panic!()
    };
    assert_eq!((e.offset, e.empty, r.depth()), (6, true, 1));
    let k = e.attr("k").unwrap();
    assert_eq!((k.name, k.raw, k.offset), ("k", &b"v"[..], 14));
    assert_eq!(doc[k.offset], b'v');
    assert_eq!(e.attr("j").unwrap().offset, 20);
    assert_eq!(e.value("j").as_deref(), Some("w"));
    assert_eq!(e.value("missing"), None);
    assert!(matches!(
        r.next_token().unwrap(),
        Some(Token::Text(Text { offset: 24, .. }))
    ));
    assert!(matches!(
        r.next_token().unwrap(),
        Some(Token::End(EndTag {
            name: "r",
            offset: 25
        }))
    ));
    assert_eq!(r.depth(), 0);
    assert_eq!(r.next_token().unwrap(), None);
    assert_eq!(r.next_token().unwrap(), None);
}

#[test]
fn references_decode_once_and_only_the_predefined_ones() {
    assert_eq!(decode(b"a&lt;b&#x41;&#66;&bogus;"), "a<bAB&bogus;");
    assert_eq!(decode(b"&quot;&apos;&gt;&amp;lt;"), "\"'>&lt;");
    // Leading zeros are allowed; a value past U+10FFFF, a surrogate, an upper-case X, a missing
    // ';' or no digits stay as written.
    assert_eq!(decode(b"&#0000065;&#x000042;"), "AB");
    assert_eq!(
        decode(b"&#99999999999;&#xD800;&#X41;&#65&#;&#x;&"),
        "&#99999999999;&#xD800;&#X41;&#65&#;&#x;&"
    );
    assert_eq!(decode("é&amp;ü".as_bytes()), "é&ü");
    assert_eq!(decode(b"a\xffb&amp;\xe2"), "a\u{fffd}b&\u{fffd}");
    assert!(matches!(decode(b"plain"), Cow::Borrowed("plain")));
}

#[test]
fn many_ampersands_decode_in_one_pass() {
    // '&' without ';', a reference with that many leading zeros, '&#1' repeated: twice the text
    // is twice the bytes examined, not four times.
    assert_scales(XmlBytes, "'&' without ';'", 500_000, 2.2, |n| {
        let s = "&".repeat(n);
        assert_eq!(decode(s.as_bytes()), s);
    });
    assert_scales(XmlBytes, "leading zeros", 500_000, 2.2, |n| {
        let zeros = format!("&#{}65;", "0".repeat(n));
        assert_eq!(decode(zeros.as_bytes()), "A");
    });
    assert_scales(XmlBytes, "'&#1' without ';'", 150_000, 2.2, |n| {
        let digits = "&#1".repeat(n);
        assert_eq!(decode(digits.as_bytes()), digits);
    });
}

#[test]
fn malformed_documents_name_what_and_where() {
    for (doc, kind, offset, what) in [
        (
            &b"<a n=\"x>"[..],
            ErrorKind::Truncated,
            3,
            "no closing quote",
        ),
        (b"<a n=x>", ErrorKind::Invalid, 5, "not quoted"),
        (b"<a n>", ErrorKind::Invalid, 4, "without a value"),
        (
            b"<a b c=\"1\">",
            ErrorKind::Invalid,
            5,
            "`b` without a value",
        ),
        (b"<a n=", ErrorKind::Truncated, 0, "<a> (no `>`)"),
        (b"<a/b>", ErrorKind::Invalid, 2, "not followed by `>`"),
        (b"<a /", ErrorKind::Truncated, 0, "<a> (no `>`)"),
        (b"< a>", ErrorKind::Invalid, 1, "without a name"),
        (b"<a=\"1\">", ErrorKind::Invalid, 2, "after its name"),
        (b"<a\xff>", ErrorKind::Invalid, 1, "not UTF-8"),
        (b"<a", ErrorKind::Truncated, 0, "ends in it"),
        (b"x<", ErrorKind::Truncated, 1, "ends in it"),
        (b"</a ", ErrorKind::Truncated, 0, "no `>`"),
        (b"</a", ErrorKind::Truncated, 0, "ends in it"),
        (b"</a b>", ErrorKind::Invalid, 4, "before `>`"),
        (b"</>", ErrorKind::Invalid, 2, "without a name"),
        (b"<a><!-- x", ErrorKind::Truncated, 3, "comment"),
        (b"<?pi", ErrorKind::Truncated, 0, "processing instruction"),
        (b"<![CDATA[x]]", ErrorKind::Truncated, 0, "CDATA"),
        (
            b"<!DOCTYPE a [ <!ELEMENT a ANY>",
            ErrorKind::Truncated,
            0,
            "declaration",
        ),
        (
            b"<!DOCTYPE a [ <!-- ]> ",
            ErrorKind::Truncated,
            14,
            "comment",
        ),
        (b"<!DOCTYPE a \"]>", ErrorKind::Truncated, 0, "declaration"),
    ] {
        let e = error(doc);
        let show = String::from_utf8_lossy(doc);
        assert_eq!((e.kind, e.offset), (kind, Some(offset)), "{show}: {e}");
        assert!(e.what.contains(what), "{show}: {e}");
        assert_eq!(e.file, "t.xml");
    }
}

#[test]
fn depth_is_bounded() {
    let small = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    let ok = b"<a><b/><c><d></d></c><e><f>x</f></e></a>";
    assert!(Reader::new(ok, "t").with_limits(small).all(|t| t.is_ok()));
    let deep = b"<a><b><c><d>";
    let e = Reader::new(deep, "t")
        .with_limits(small)
        .find_map(|t| t.err())
        .unwrap();
    assert_eq!((e.kind, e.offset), (ErrorKind::TooLarge, Some(9)));
    assert!(e.what.contains("deeper than 3"), "{e}");

    // At the bound, n open elements pass and one more fails: at the default (2^20) and at a
    // bound of n and 2n, where twice the depth costs twice the bytes examined.
    let deepest = |n: usize| {
        let limits = Limits {
            max_depth: n,
            ..Limits::default()
        };
        let doc = "<a>".repeat(n + 1);
        let mut r = Reader::new(doc.as_bytes(), "t").with_limits(limits);
        let mut starts = 0;
        let e = loop {
            match r.next().unwrap() {
                Ok(_) => starts += 1,
                Err(e) => break e,
            }
        };
        assert_eq!(starts, n);
        assert_eq!(
            (e.kind, e.offset),
            (ErrorKind::TooLarge, Some(3 * n as u64))
        );
    };
    deepest(Limits::default().max_depth);
    assert_scales(
        XmlBytes,
        "elements open at the bound",
        100_000,
        2.2,
        deepest,
    );
}

#[test]
fn names_attribute_counts_and_values_are_bounded() {
    let small = Limits {
        max_name_len: 4,
        max_attrs: 2,
        max_value_len: 8,
        ..Limits::default()
    };
    let read = |doc: &[u8]| -> Result<usize> {
        Reader::new(doc, "t")
            .with_limits(small)
            .try_fold(0, |n, t| t.map(|_| n + 1))
    };
    assert_eq!(read(b"<abcd a='12345678' bcde='x'/>").unwrap(), 1);
    for (doc, offset) in [
        (&b"<abcde/>"[..], 1),
        (b"<a abcde='1'/>", 3),
        (b"</abcde>", 2),
        (b"<a a='1' b='2' c='3'/>", 0),
        (b"<a a='123456789'/>", 6),
    ] {
        let e = read(doc).unwrap_err();
        assert_eq!(
            (e.kind, e.offset),
            (ErrorKind::TooLarge, Some(offset)),
            "{e}"
        );
    }
    // The default bounds: a 1 MiB value passes; a value past 16 MiB fails without being read
    // to the end of the document.
    let mib = format!("<a n=\"{}\"/>", "v".repeat(1 << 20));
    assert_eq!(tokens(mib.as_bytes()).unwrap()[0].len(), (1 << 20) + 7);
    let huge = format!("<a n=\"{}", "v".repeat((16 << 20) + 10));
    let e = error(huge.as_bytes());
    assert_eq!((e.kind, e.offset), (ErrorKind::TooLarge, Some(6)));
    let many = format!("<a {}/>", "k='1' ".repeat(1025));
    assert_eq!(error(many.as_bytes()).kind, ErrorKind::TooLarge);
}

/// "Billion laughs" and external entities: declared entities are never expanded, so a reference to
/// one stays text as written.
#[test]
fn entity_bombs_stay_unexpanded() {
    let mut doc =
        String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n");
    for i in 1..10 {
        let prev = if i == 1 {
            "lol".to_string()
        } else {
            format!("lol{}", i - 1)
        };
        doc += &format!("<!ENTITY lol{i} \"{}\">\n", format!("&{prev};").repeat(10));
    }
    doc += "<!ENTITY xxe SYSTEM \"file:///etc/passwd\">\n]>\n<lolz a=\"&lol9;\">&lol9;&xxe;</lolz>";
    let (read, scanned) = crate::work::count(XmlBytes, || tokens(doc.as_bytes()));
    assert_eq!(
        read.unwrap(),
        [
            "text:\n",
            "text:\n",
            "<lolz a=&lol9;>",
            "text:&lol9;&xxe;",
            "</lolz>"
        ]
    );
    // One pass over the declarations: each byte is examined about once.
    assert!(
        scanned <= 2 * doc.len() as u64,
        "{scanned} bytes examined for {}",
        doc.len()
    );
}

/// Shapes that make naive tokenizers quadratic: each is one pass (twice the document, twice the
/// bytes examined).
#[test]
fn hostile_shapes_stay_linear() {
    assert_scales(XmlBytes, "declarations", 150_000, 2.2, |n| {
        let decls = format!("{}<a n=\"m\"/>", "<!x>".repeat(n));
        assert_eq!(tokens(decls.as_bytes()).unwrap(), ["<a n=m/>"]);
    });
    assert_scales(XmlBytes, "unclosed comments", 150_000, 2.2, |n| {
        let comments = "<!--".repeat(n);
        assert_eq!(error(comments.as_bytes()).offset, Some(0));
    });
    assert_scales(XmlBytes, "'<' alone", 500_000, 2.2, |n| {
        let opens = "<".repeat(n);
        assert_eq!(error(opens.as_bytes()).offset, Some(1));
    });
    assert_scales(XmlBytes, "quotes in a DOCTYPE", 500_000, 2.2, |n| {
        let quotes = format!("<!DOCTYPE [{}", "'".repeat(2 * n + 1));
        assert_eq!(error(quotes.as_bytes()).kind, ErrorKind::Truncated);
    });
    assert_scales(XmlBytes, "tags of 1,000 '&' values", 150, 2.2, |n| {
        let attrs = format!("<a {}/>", "k='&' ".repeat(1000)).repeat(n);
        assert_eq!(tokens(attrs.as_bytes()).unwrap().len(), n);
    });
}

/// Every prefix of a document and random documents: tokens or one error, never a panic, and never
/// more tokens than bytes (each token takes at least one).
#[test]
fn prefixes_and_random_bytes_never_panic() {
    let doc = b"<?xml version='1.0'?><!DOCTYPE a [<!ATTLIST a n CDATA '>'>]><a n='&lt;'>\
<b m=\"x\"/>t&amp;<![CDATA[c]]><!-- c --></a>";
    assert!(tokens(doc).is_ok());
    for len in 0..doc.len() {
        let n = Reader::new(&doc[..len], "t").count();
        assert!(n <= len, "{len}");
    }
    let alphabet = b"<>/=\"'&;!?-[]ab #x1\n";
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = (x % 48) as usize;
        let doc: Vec<u8> = (0..len)
            .map(|i| alphabet[((x >> (i % 60)) as usize + i * 7) % alphabet.len()])
            .collect();
        let mut n = 0;
        for t in Reader::new(&doc, "t") {
            n += 1;
            if let Ok(Token::Start(t)) = t {
                for a in t.attrs() {
                    assert!(a.value().len() <= len);
                }
            }
        }
        assert!(n <= len, "{:?}", String::from_utf8_lossy(&doc));
    }
}

#[test]
fn first_attr_of_a_header() {
    // The assertions of the probes' `xml_attr`, which this replaced.
    let t = b"<HeaderX n=\"no\"/><Header n=\"yes\">";
    assert_eq!(first_attr(t, "Header", "n").as_deref(), Some("yes"));
    assert_eq!(first_attr(t, "Missing", "n"), None);
    // Comments are skipped, values decoded, and the header may be cut after the element.
    let head =
        b"<?xml?><!-- <Header n=\"c\"> --><X version='2.2'><Header n=\"a &amp; b\"><Info n=\"cut";
    assert_eq!(first_attr(head, "Header", "n").as_deref(), Some("a & b"));
    assert_eq!(first_attr(head, "X", "version").as_deref(), Some("2.2"));
    assert_eq!(first_attr(head, "Header", "missing"), None);
    assert_eq!(first_attr(head, "Info", "n"), None);
}
