//! The one XML tokenizer of hpcscope, for experiment.xml (prof2 and XML era), .hpcstruct files and
//! the summary probes: a pull reader over a byte slice (XML 1.0 §2.4-§3.1, §4.1, §2.7) giving start
//! tags with their attributes, end tags and text. Comments, processing instructions and the DOCTYPE
//! are skipped, and DTD entities are never expanded. Depth, names and attributes are bounded.

#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::work::{self, Work};
use memchr::memchr;
use std::borrow::Cow;

/// Bounds on one document; past any of them the reader fails with `TooLarge`, naming the offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Elements open at once (start tags less end tags).
    pub max_depth: usize,
    /// Bytes of one tag or attribute name.
    pub max_name_len: usize,
    /// Attributes of one tag.
    pub max_attrs: usize,
    /// Bytes of one attribute value as written (before its references are decoded).
    pub max_value_len: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            // A call path nests two elements per call (C, then PF): room for twice the
            // 100,000-deep chains the model is tested with.
            max_depth: 1 << 20,
            max_name_len: 1024,
            max_attrs: 1024,
            // C++ procedure names and file paths run to kilobytes, not to 16 MiB.
            max_value_len: 16 << 20,
        }
    }
}

/// One piece of a document.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Token<'a> {
    /// `<name a="v">`, or `<name a="v"/>` (then [`Tag::empty`] and no end tag follows).
    Start(Tag<'a>),
    /// `</name>`. Whether it closes the innermost open element is the caller's to check: some
    /// readers fail on a mismatch, others (.hpcstruct) tolerate one.
    End(EndTag<'a>),
    /// Character data between tags, or a CDATA section.
    Text(Text<'a>),
}

/// A start tag. Its attributes are checked when the tag is read and decoded when asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tag<'a> {
    pub name: &'a str,
    /// Offset of the `<`.
    pub offset: usize,
    /// `<x/>`: no end tag follows.
    pub empty: bool,
    /// The text between the name and `>` or `/>`, already checked to be `key="value"` pairs.
    attrs: &'a [u8],
    attrs_offset: usize,
}

impl<'a> Tag<'a> {
    /// The attributes in document order.
    pub fn attrs(&self) -> Attrs<'a> {
        Attrs {
            rest: self.attrs,
            offset: self.attrs_offset,
        }
    }

    /// The first attribute named `name`.
    pub fn attr(&self, name: &str) -> Option<Attr<'a>> {
        self.attrs().find(|a| a.name == name)
    }

    /// The decoded value of attribute `name` (borrowed when it holds no reference).
    pub fn value(&self, name: &str) -> Option<Cow<'a, str>> {
        self.attr(name).map(|a| a.value())
    }
}

/// An end tag.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EndTag<'a> {
    pub name: &'a str,
    /// Offset of the `<`.
    pub offset: usize,
}

/// Character data as written: [`Text::value`] decodes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Text<'a> {
    pub raw: &'a [u8],
    /// Offset of the first byte (of `<![CDATA[` for a CDATA section).
    pub offset: usize,
    /// A CDATA section: its text is literal, references are not decoded.
    pub cdata: bool,
}

impl<'a> Text<'a> {
    pub fn value(&self) -> Cow<'a, str> {
        if self.cdata {
            String::from_utf8_lossy(self.raw)
        } else {
            decode(self.raw)
        }
    }
}

/// One attribute: its name and its value as written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attr<'a> {
    pub name: &'a str,
    pub raw: &'a [u8],
    /// Offset of the value's first byte (after the quote).
    pub offset: usize,
}

impl<'a> Attr<'a> {
    /// The value with its references decoded (borrowed when it holds none).
    pub fn value(&self) -> Cow<'a, str> {
        decode(self.raw)
    }
}

/// The attributes of a [`Tag`], parsed again from the text the reader checked.
#[derive(Clone, Debug)]
pub struct Attrs<'a> {
    rest: &'a [u8],
    offset: usize,
}

impl<'a> Iterator for Attrs<'a> {
    type Item = Attr<'a>;
    fn next(&mut self) -> Option<Attr<'a>> {
        let b = self.rest;
        let k0 = skip_space(b, 0);
        let k1 = k0 + name_len(b.get(k0..)?);
        let name = std::str::from_utf8(b.get(k0..k1)?).ok()?;
        let eq = skip_space(b, k1);
        if b.get(eq) != Some(&b'=') {
            return None;
        }
        let q = skip_space(b, eq + 1);
        let quote = *b.get(q)?;
        let len = memchr(quote, b.get(q + 1..)?)?;
        let attr = Attr {
            name,
            raw: b.get(q + 1..q + 1 + len)?,
            offset: self.offset + q + 1,
        };
        let used = q + 1 + len + 1;
        self.rest = b.get(used..)?;
        self.offset += used;
        Some(attr)
    }
}

/// Reads the tokens of one document; stops for good at its end or at the first error.
pub struct Reader<'a> {
    bytes: &'a [u8],
    file: &'a str,
    pos: usize,
    depth: usize,
    limits: Limits,
    done: bool,
}

impl<'a> Reader<'a> {
    /// A reader of `bytes`; errors name `file`.
    pub fn new(bytes: &'a [u8], file: &'a str) -> Reader<'a> {
        Reader {
            bytes,
            file,
            pos: 0,
            depth: 0,
            limits: Limits::default(),
            done: false,
        }
    }

    pub fn with_limits(mut self, limits: Limits) -> Reader<'a> {
        self.limits = limits;
        self
    }

    /// Elements open now (start tags less end tags, never below zero).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Offset of the next byte to read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The next token; `Ok(None)` at the end of the document (and after an error).
    pub fn next_token(&mut self) -> Result<Option<Token<'a>>> {
        if self.done {
            return Ok(None);
        }
        let t = self.read_token();
        if !matches!(t, Ok(Some(_))) {
            self.done = true;
        }
        t
    }

    fn read_token(&mut self) -> Result<Option<Token<'a>>> {
        let b = self.bytes;
        loop {
            let start = self.pos;
            let rest = b.get(start..).unwrap_or_default();
            match rest {
                [] => return Ok(None),
                [b'<', b'/', ..] => return self.end_tag(start).map(Some),
                [b'<', b'?', ..] => {
                    self.pos = self.skip_past(start, 2, b"?>", "processing instruction")?
                }
                [b'<', b'!', b'-', b'-', ..] => {
                    self.pos = self.skip_past(start, 4, b"-->", "comment")?
                }
                [b'<', b'!', ..] if rest.starts_with(b"<![CDATA[") => {
                    let end = self.find_from(start + 9, b"]]>", start, "CDATA section")?;
                    self.pos = end + 3;
                    return Ok(Some(Token::Text(Text {
                        raw: b.get(start + 9..end).unwrap_or_default(),
                        offset: start,
                        cdata: true,
                    })));
                }
                [b'<', b'!', ..] => self.pos = self.skip_declaration(start)?,
                [b'<', ..] => return self.start_tag(start).map(Some),
                _ => {
                    let len = memchr(b'<', rest).unwrap_or(rest.len());
                    scanned(len + 1);
                    self.pos = start + len;
                    return Ok(Some(Token::Text(Text {
                        raw: &rest[..len],
                        offset: start,
                        cdata: false,
                    })));
                }
            }
        }
    }

    /// Where `pat` starts at or after `from`, or a truncation error for the construct at `start`.
    fn find_from(&self, from: usize, pat: &[u8], start: usize, what: &str) -> Result<usize> {
        self.bytes
            .get(from..)
            .and_then(|rest| find_short(rest, pat))
            .map(|i| from + i)
            .ok_or_else(|| {
                let end = String::from_utf8_lossy(pat);
                Error::truncated(self.file, start as u64, format!("XML {what} (no `{end}`)"))
            })
    }

    /// The offset just past `pat`, searched from `skip` bytes after `start`.
    fn skip_past(&self, start: usize, skip: usize, pat: &[u8], what: &str) -> Result<usize> {
        Ok(self.find_from(start + skip, pat, start, what)? + pat.len())
    }

    /// Skips `<!DOCTYPE ...>` (or any other `<!...>`): brackets of an internal subset nest, quoted
    /// text and comments inside it may hold `>`, `[` or `]`. Nothing declared is kept.
    fn skip_declaration(&self, start: usize) -> Result<usize> {
        let b = self.bytes;
        let mut i = start + 2;
        let mut brackets = 0usize;
        let mut quote = 0u8;
        while let Some(&c) = b.get(i) {
            scanned(1);
            if quote != 0 {
                if c == quote {
                    quote = 0;
                }
            } else {
                match c {
                    b'"' | b'\'' => quote = c,
                    b'[' => brackets += 1,
                    b']' => brackets = brackets.saturating_sub(1),
                    b'>' if brackets == 0 => return Ok(i + 1),
                    b'<' if b[i..].starts_with(b"<!--") => {
                        i = self.skip_past(i, 4, b"-->", "comment")?;
                        continue;
                    }
                    b'<' if b[i..].starts_with(b"<?") => {
                        i = self.skip_past(i, 2, b"?>", "processing instruction")?;
                        continue;
                    }
                    _ => {}
                }
            }
            i += 1;
        }
        Err(Error::truncated(
            self.file,
            start as u64,
            "XML declaration (no `>`)",
        ))
    }

    /// The name starting at `from` and the offset after it.
    fn name(&self, from: usize, start: usize, what: &str) -> Result<(&'a str, usize)> {
        let rest = self.bytes.get(from..).unwrap_or_default();
        let max = self.limits.max_name_len;
        let window = &rest[..rest.len().min(max.saturating_add(1))];
        let len = name_len(window);
        scanned(len + 1);
        if len > max {
            return Err(Error::too_large(
                self.file,
                from as u64,
                format!("XML {what} name longer than {max} bytes"),
            ));
        }
        let Some(&next) = rest.get(len) else {
            return Err(Error::truncated(
                self.file,
                start as u64,
                format!("XML {what} (the document ends in it)"),
            ));
        };
        if len == 0 {
            return Err(Error::invalid(
                self.file,
                from as u64,
                format!("XML {what} without a name ({:?} found)", next as char),
            ));
        }
        let name = std::str::from_utf8(&rest[..len]).map_err(|_| {
            Error::invalid(
                self.file,
                from as u64,
                format!("XML {what} name is not UTF-8"),
            )
        })?;
        Ok((name, from + len))
    }

    fn end_tag(&mut self, start: usize) -> Result<Token<'a>> {
        let (name, after) = self.name(start + 2, start, "end tag")?;
        let gt = skip_space(self.bytes, after);
        match self.bytes.get(gt) {
            Some(b'>') => {}
            None => {
                return Err(Error::truncated(
                    self.file,
                    start as u64,
                    format!("XML end tag </{name}> (no `>`)"),
                ))
            }
            Some(&c) => {
                return Err(Error::invalid(
                    self.file,
                    gt as u64,
                    format!("XML end tag </{name}>: {:?} before `>`", c as char),
                ))
            }
        }
        self.pos = gt + 1;
        self.depth = self.depth.saturating_sub(1);
        Ok(Token::End(EndTag {
            name,
            offset: start,
        }))
    }

    fn start_tag(&mut self, start: usize) -> Result<Token<'a>> {
        let b = self.bytes;
        let (name, attrs_start) = self.name(start + 1, start, "tag")?;
        if let Some(&c) = b.get(attrs_start) {
            if !is_space(c) && c != b'>' && c != b'/' {
                return Err(Error::invalid(
                    self.file,
                    attrs_start as u64,
                    format!("XML tag <{name}>: {:?} after its name", c as char),
                ));
            }
        }
        let truncated = || {
            Error::truncated(
                self.file,
                start as u64,
                format!("XML tag <{name}> (no `>`)"),
            )
        };
        let mut i = attrs_start;
        let mut count = 0usize;
        let (end, empty) = loop {
            let j = skip_space(b, i);
            match (b.get(j), b.get(j + 1)) {
                (None, _) | (Some(b'/'), None) => return Err(truncated()),
                (Some(b'>'), _) => break (j, false),
                (Some(b'/'), Some(b'>')) => break (j, true),
                (Some(b'/'), Some(_)) => {
                    return Err(Error::invalid(
                        self.file,
                        j as u64,
                        format!("XML tag <{name}>: `/` not followed by `>`"),
                    ))
                }
                _ => {}
            }
            // XML wants space between attributes; like the readers before this one, none is needed.
            i = self.attribute(j, start, name)?;
            count += 1;
            if count > self.limits.max_attrs {
                return Err(Error::too_large(
                    self.file,
                    start as u64,
                    format!(
                        "XML tag <{name}> with more than {} attributes",
                        self.limits.max_attrs
                    ),
                ));
            }
        };
        self.pos = end + if empty { 2 } else { 1 };
        if !empty {
            self.depth += 1;
            if self.depth > self.limits.max_depth {
                return Err(Error::too_large(
                    self.file,
                    start as u64,
                    format!(
                        "XML elements nested deeper than {} (at <{name}>)",
                        self.limits.max_depth
                    ),
                ));
            }
        }
        Ok(Token::Start(Tag {
            name,
            offset: start,
            empty,
            attrs: b.get(attrs_start..end).unwrap_or_default(),
            attrs_offset: attrs_start,
        }))
    }

    /// Checks one `key="value"` of tag `tag` (at `start`) from `at`; the offset after it.
    fn attribute(&self, at: usize, start: usize, tag: &str) -> Result<usize> {
        let b = self.bytes;
        let (key, after) = self.name(at, start, "attribute")?;
        let eq = skip_space(b, after);
        let q = skip_space(b, eq + 1);
        let (quote, v0) = match (b.get(eq), b.get(q)) {
            (Some(b'='), Some(&c)) if c == b'"' || c == b'\'' => (c, q + 1),
            (None, _) | (Some(b'='), None) => {
                return Err(Error::truncated(
                    self.file,
                    start as u64,
                    format!("XML tag <{tag}> (no `>`)"),
                ))
            }
            (Some(b'='), _) => {
                return Err(Error::invalid(
                    self.file,
                    q as u64,
                    format!("XML tag <{tag}>: attribute `{key}` value not quoted"),
                ))
            }
            _ => {
                return Err(Error::invalid(
                    self.file,
                    eq as u64,
                    format!("XML tag <{tag}>: attribute `{key}` without a value"),
                ))
            }
        };
        let max = self.limits.max_value_len;
        let window = b
            .get(v0..v0.saturating_add(max).saturating_add(1).min(b.len()))
            .unwrap_or_default();
        let found = memchr(quote, window);
        scanned(found.map_or(window.len(), |len| len + 1));
        match found {
            Some(len) => Ok(v0 + len + 1),
            None if window.len() > max => Err(Error::too_large(
                self.file,
                v0 as u64,
                format!("XML attribute `{key}` of <{tag}> longer than {max} bytes"),
            )),
            None => Err(Error::truncated(
                self.file,
                at as u64,
                format!("XML attribute `{key}` (no closing quote)"),
            )),
        }
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Token<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_token().transpose()
    }
}

/// Where the short `pat` (`-->`, `?>`, `]]>`) first occurs in `hay`: each of its first bytes is
/// compared with at most `pat.len()` bytes, so the search is linear.
fn find_short(hay: &[u8], pat: &[u8]) -> Option<usize> {
    let (&first, tail) = pat.split_first()?;
    let mut from = 0;
    while let Some(i) = hay.get(from..).and_then(|h| memchr(first, h)) {
        scanned(i + pat.len());
        let at = from + i;
        if hay.get(at + 1..)?.starts_with(tail) {
            return Some(at);
        }
        from = at + 1;
    }
    scanned(hay.len().saturating_sub(from));
    None
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// Bytes that may stand in a name: anything but space and XML's delimiters (names are not
/// checked against XML's name classes: the readers only compare them).
fn is_name_byte(c: u8) -> bool {
    NAME_BYTE[c as usize]
}

/// How many bytes at the start of `b` are name bytes.
fn name_len(b: &[u8]) -> usize {
    b.iter().position(|&c| !is_name_byte(c)).unwrap_or(b.len())
}

/// [`is_name_byte`] as a table: names and attribute keys are scanned byte by byte.
static NAME_BYTE: [bool; 256] = {
    let mut t = [true; 256];
    let not = b" \t\n\r<>/=\"'&";
    let mut i = 0;
    while i < not.len() {
        t[not[i] as usize] = false;
        i += 1;
    }
    t
};

fn skip_space(b: &[u8], from: usize) -> usize {
    let n = b
        .get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&c| is_space(c))
        .count();
    scanned(n + 1);
    from + n
}

/// Counts bytes examined (tests check that the tokenizer's work is linear in the document).
#[inline(always)]
fn scanned(n: usize) {
    work::add(Work::XmlBytes, n);
}

/// Replaces the five predefined entities (`&lt;` `&gt;` `&amp;` `&quot;` `&apos;`) and character
/// references (`&#65;`, `&#x41;`); anything else, DTD entities included, stays as written. Bytes
/// that are not UTF-8 become U+FFFD. One pass: each `&` looks only at the reference it starts.
pub fn decode(raw: &[u8]) -> Cow<'_, str> {
    let Some(first) = memchr(b'&', raw) else {
        scanned(raw.len());
        return String::from_utf8_lossy(raw);
    };
    scanned(first + 1);
    let mut out = String::with_capacity(raw.len());
    let mut copied = 0;
    let mut amp = first;
    loop {
        let next_from = match reference(&raw[amp..]) {
            Some((c, len)) => {
                out.push_str(&String::from_utf8_lossy(&raw[copied..amp]));
                out.push(c);
                copied = amp + len;
                copied
            }
            None => amp + 1,
        };
        match memchr(b'&', &raw[next_from..]) {
            Some(k) => {
                scanned(k + 1);
                amp = next_from + k
            }
            None => {
                scanned(raw.len() - next_from);
                break;
            }
        }
    }
    out.push_str(&String::from_utf8_lossy(&raw[copied..]));
    Cow::Owned(out)
}

/// The character of the reference at the start of `s` (which starts with `&`) and its length.
fn reference(s: &[u8]) -> Option<(char, usize)> {
    let body = s.get(1..)?;
    for (name, c) in [
        (&b"lt;"[..], '<'),
        (b"gt;", '>'),
        (b"amp;", '&'),
        (b"quot;", '"'),
        (b"apos;", '\''),
    ] {
        if body.starts_with(name) {
            return Some((c, 1 + name.len()));
        }
    }
    let (radix, digits) = match body {
        [b'#', b'x', ..] => (16, 3),
        [b'#', ..] => (10, 2),
        _ => return None,
    };
    let mut v = 0u32;
    let mut i = digits;
    while let Some(d) = s.get(i).and_then(|&c| char::from(c).to_digit(radix)) {
        v = v.checked_mul(radix)?.checked_add(d)?;
        i += 1;
    }
    scanned(i + 1);
    if i == digits || s.get(i) != Some(&b';') {
        return None;
    }
    Some((char::from_u32(v)?, i + 1))
}

/// The decoded value of attribute `key` of the first `<tag>` element of `bytes`: for headers, which
/// may be cut anywhere after it. None when the element or its attribute is missing, or the XML
/// breaks before it.
pub fn first_attr(bytes: &[u8], tag: &str, key: &str) -> Option<String> {
    for t in Reader::new(bytes, "") {
        if let Token::Start(t) = t.ok()? {
            if t.name == tag {
                return t.value(key).map(Cow::into_owned);
            }
        }
    }
    None
}
