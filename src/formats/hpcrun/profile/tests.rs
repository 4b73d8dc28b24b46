//! Hand-made profile fixtures in both 04.00 shapes (also used by the folder tests in ../tests.rs)
//! and the profile reader's unit tests.

use super::v4::{FOOTER_MAGIC, LAST_NODE_END};
use super::*;
use crate::error::ErrorKind;

/// Writes hpcrun primitives big-endian, for hand-made fixtures.
#[derive(Default)]
pub struct W(pub Vec<u8>);
impl W {
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
        self
    }
}

/// A minimal 04.00 file (112-byte footer): two metrics (real CPUTIME, integer CYCLES with
/// period 1000), loadmap {1: /bin/app}, tree primary root 1 -> 2 (app+0x10) -> 3 (app+0x20),
/// values: node 3 CPUTIME 0.5 and CYCLES 7; node 2 CPUTIME 0.25.
pub fn v4_fixture() -> Vec<u8> {
    v4_fixture_as(false)
}

/// The same content in the early 04.00 shape: 96-byte footer, no dictionary, 18-byte CCT
/// nodes, 10-byte id-tuple elements.
pub fn v4_fixture_as(early: bool) -> Vec<u8> {
    v4_build(
        early,
        &[
            (1, 0, 0, 0x5e50_7269_6d61_7279),
            (2, 1, 1, 0x10),
            (3, 2, 1, 0x20),
        ],
        &[
            (2, vec![(0.25f64.to_bits(), 0)]),
            (3, vec![(0.5f64.to_bits(), 0), (7, 1)]),
        ],
    )
}

/// A 04.00 file with the fixture's header, load map and metrics, and the given CCT nodes
/// (id, parent, load module, address) and value blocks (cct id, [(value bits, metric id)]).
pub fn v4_build(
    early: bool,
    nodes: &[(u32, u32, u16, u64)],
    blocks: &[(u32, Vec<(u64, u16)>)],
) -> Vec<u8> {
    v4_build_nv(early, &[], nodes, blocks)
}

/// `v4_build` with extra header name-value pairs.
pub fn v4_build_nv(
    early: bool,
    nv: &[(&str, &str)],
    nodes: &[(u32, u32, u16, u64)],
    blocks: &[(u32, Vec<(u64, u16)>)],
) -> Vec<u8> {
    let mut w = W::default();
    w.0.extend_from_slice(b"HPCRUN-profile____04.00b");
    w.u32(1 + nv.len() as u32).str("program-name").str("app");
    for (k, v) in nv {
        w.str(k).str(v);
    }
    let hdr_end = w.0.len() as u64;
    let lm_start = w.0.len() as u64;
    w.u32(1).u16(1).str("/bin/app").u64(0);
    let lm_end = w.0.len() as u64;
    let cct_start = w.0.len() as u64;
    w.u64(nodes.len() as u64);
    for &(id, parent, lm, ip) in nodes {
        w.u32(id).u32(parent).u16(lm).u64(ip);
        if !early {
            w.u8(1);
        }
    }
    let cct_end = w.0.len() as u64;
    let mt_start = w.0.len() as u64;
    w.u32(2);
    w.str("CPUTIME (sec)").str("cpu time");
    w.0.extend_from_slice(&[1, 0, 2, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    w.u64(1).str("").str("").u16(0).u16(0).u64(0).u64(0);
    w.str("CYCLES").str("cycles");
    w.0.extend_from_slice(&[1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    w.u64(1000).str("").str("").u16(0).u16(0).u64(0).u64(0);
    let mt_end = w.0.len() as u64;
    let dx_start = w.0.len() as u64;
    if !early {
        w.u16(2).u16(1).str("NODE").u16(3).str("THREAD");
    }
    let dx_end = w.0.len() as u64;
    let sm_start = w.0.len() as u64;
    w.u16(2);
    if early {
        w.u16(1).u64(0xabc);
        w.u16(3).u64(5);
    } else {
        w.u16(0x4001).u64(0xabc).u64(0);
        w.u16(0xc003).u64(5).u64(5);
    }
    let n_vals: usize = blocks.iter().map(|b| b.1.len()).sum();
    w.u64(n_vals as u64).u32(blocks.len() as u32);
    for (_, vals) in blocks {
        for &(bits, mid) in vals {
            w.u64(bits).u16(mid);
        }
    }
    let mut start = 0u64;
    for (cid, vals) in blocks {
        w.u32(*cid).u64(start);
        start += vals.len() as u64;
    }
    w.u32(LAST_NODE_END).u64(start);
    let sm_end = w.0.len() as u64;
    let footer_start = w.0.len() as u64;
    let mut footer = vec![
        0, hdr_end, lm_start, lm_end, cct_start, cct_end, mt_start, mt_end,
    ];
    if !early {
        footer.extend([dx_start, dx_end]);
    }
    footer.extend([sm_start, sm_end, footer_start, FOOTER_MAGIC]);
    for v in footer {
        w.u64(v);
    }
    w.0
}

#[test]
fn reads_early_v4_shape() {
    let late = parse(&v4_fixture(), "t").unwrap();
    let p = parse(&v4_fixture_as(true), "t").unwrap();
    assert_eq!(p.layout, ProfileLayout::V4Footer96);
    assert_eq!(p.epochs, late.epochs);
    assert!(p.id_names.is_empty());
    assert_eq!(p.id_tuple.len(), 2);
    assert_eq!((p.id_tuple[0].kind, p.id_tuple[0].physical), (1, 0xabc));
    assert_eq!((p.id_tuple[1].kind, p.id_tuple[1].logical), (3, 5));
}

#[test]
fn reads_hand_made_v4() {
    let p = parse(&v4_fixture(), "t.hpcrun").unwrap();
    assert_eq!(p.layout, ProfileLayout::V4Footer112);
    assert_eq!(p.nv("program-name"), Some("app"));
    let e = &p.epochs[0];
    assert_eq!(e.metrics.len(), 2);
    assert_eq!(e.metrics[0].name, "CPUTIME (sec)");
    assert_eq!((e.metrics[0].ty, e.metrics[0].val_fmt), (1, 2));
    assert_eq!((e.metrics[1].val_fmt, e.metrics[1].period), (1, 1000));
    assert_eq!(e.loadmap[0].name, "/bin/app");
    assert_eq!(e.nodes.len(), 3);
    assert_eq!(e.nodes[2].ip, 0x20);
    assert_eq!(e.values, vec![(1, 0, 0.25), (2, 0, 0.5), (2, 1, 7.0)]);
    assert_eq!(
        p.id_tuple,
        vec![
            IdElem {
                kind: 1,
                interpret: 1,
                physical: 0xabc,
                logical: 0
            },
            IdElem {
                kind: 3,
                interpret: 3,
                physical: 5,
                logical: 5
            }
        ]
    );
    assert_eq!(p.id_names[1], (3, "THREAD".to_string()));
    assert!(p.warnings.is_empty());
}

#[test]
fn huge_counts_fail_fast() {
    let mut b = v4_fixture();
    // Metric count at mt_start: claim 2^31 metrics.
    let f = b.len() - 112;
    let mt_start = u64::from_be_bytes(b[f + 48..f + 56].try_into().unwrap()) as usize;
    b[mt_start..mt_start + 4].copy_from_slice(&0x8000_0000u32.to_be_bytes());
    let e = parse(&b, "t").unwrap_err();
    assert_eq!(e.kind, ErrorKind::TooLarge);
}

#[test]
fn file_names() {
    let p = parse_file_name("m/testmeas-loops-cuda-000000-500-590a0502-3293-0.hpcrun").unwrap();
    assert_eq!(p.program, "testmeas-loops-cuda");
    assert_eq!((p.rank, p.thread, p.pid, p.generation), (0, 500, 3293, 0));
    assert_eq!(p.host_id, 0x590a0502);
    assert!(parse_file_name("x.hpcrun").is_none());
}

#[test]
fn rejects_other_magic_and_versions() {
    assert_eq!(
        parse(b"HPCRUN-trace______01.01b", "t").unwrap_err().kind,
        ErrorKind::BadMagic
    );
    assert_eq!(
        parse(b"HPCRUN-profile____03.00b\0\0\0\0", "t")
            .unwrap_err()
            .kind,
        ErrorKind::Unsupported
    );
}
