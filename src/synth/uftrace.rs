//! Writer of a synthetic `uftrace.data` recording (seed 004: `info` header + text, `task.txt`,
//! `sid-<sid>.map`, `<exe>.sym`, `<tid>.dat` of 16-byte records): one task where `main` calls
//! `recurse` nested `depth` times, then everything returns. Real uftrace stops at 1024 levels
//! (`--depth`), so this is how the readers and views meet a 100,000-deep call path.

use super::bytes::ByteWriter;

/// Task (and process) id of the recording.
pub const TID: u32 = 4242;
/// Session id naming `sid-<SID>.map`.
pub const SID: &str = "00000000deadbeef";
/// Load address of the executable in the map; `.sym` offsets are relative to it.
pub const BASE: u64 = 0x5555_5555_4000;
/// Offsets of `main` and `recurse` in the executable (`.sym` lines).
pub const MAIN_OFFSET: u64 = 0x1129;
pub const RECURSE_OFFSET: u64 = 0x1149;
/// Recording start (ns) and the step between consecutive records.
pub const T0_NS: u64 = 1_000_000_000;
pub const STEP_NS: u64 = 100;

/// Record word: type in bits 0-1, magic 5 in bits 3-5, depth (modulo 1024, as the 10-bit field
/// wraps) in bits 6-15, address in bits 16-63 (FORMATS-NOTES).
fn word(kind: u64, depth: u64, addr: u64) -> u64 {
    kind | (5 << 3) | ((depth & 0x3ff) << 6) | (addr << 16)
}

/// Files of the recording: `main` at depth 0, `recurse` at depths 1..=depth, ENTRYs then EXITs,
/// one record every [`STEP_NS`]. Names are relative to the `uftrace.data` directory.
pub fn deep_recording(depth: u32) -> Vec<(String, Vec<u8>)> {
    let exe = "/opt/synth/bin/deep";
    let mut info = ByteWriter::le();
    info.bytes(b"Ftrace!\0");
    info.u32(4); // file version
    info.u16(40); // header size
    info.u8(1); // little-endian
    info.u8(2); // 64-bit
    info.u64((1u64 << 1) | (1 << 5)); // TASK_SESSION | SYM_REL_ADDR
    info.u64((1u64 << 0) | (1 << 3) | (1 << 7)); // exe, cmdline, tasks
    info.u16(1024); // max stack (what uftrace would write)
    info.zeros(6);
    info.bytes(
        format!(
            "exename:{exe}\ncmdline:uftrace record {exe}\ntaskinfo:lines=2\n\
             taskinfo:nr_tid=1\ntaskinfo:tids={TID}\n"
        )
        .as_bytes(),
    );
    let task = format!(
        "SESS timestamp=0.{:09} pid={TID} sid={SID} exename=\"{exe}\"\n\
         TASK timestamp=0.{:09} tid={TID} pid={TID}\n",
        T0_NS - 2,
        T0_NS - 1
    );
    let map = format!(
        "{:x}-{:x} r-xp 00000000 00:00 0                          {exe}\n\
         7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]\n",
        BASE,
        BASE + 0x2000
    );
    let sym = format!(
        "# symbols: 3\n# path name: {exe}\n{MAIN_OFFSET:016x} T main\n\
         {RECURSE_OFFSET:016x} T recurse\n{:016x} ? __sym_end\n",
        RECURSE_OFFSET + 0x40
    );
    let mut dat = ByteWriter::le();
    let mut t = T0_NS;
    let mut push = |dat: &mut ByteWriter, w: u64| {
        dat.u64(t);
        dat.u64(w);
        t += STEP_NS;
    };
    // Record addresses are call sites inside the function (resolved to the greatest symbol <=).
    let addr = |d: u32| {
        BASE + if d == 0 {
            MAIN_OFFSET + 4
        } else {
            RECURSE_OFFSET + 4
        }
    };
    for d in 0..=depth {
        push(&mut dat, word(0, d as u64, addr(d)));
    }
    for d in (0..=depth).rev() {
        push(&mut dat, word(1, d as u64, addr(d)));
    }
    vec![
        ("info".into(), info.into_bytes()),
        ("task.txt".into(), task.into_bytes()),
        (format!("sid-{SID}.map"), map.into_bytes()),
        ("deep.sym".into(), sym.into_bytes()),
        (format!("{TID}.dat"), dat.into_bytes()),
    ]
}
