//! `uftrace.data/task.txt`: sessions (SESS), tasks (TASK), forked children (FORK) and libraries
//! loaded by dlopen (DLOP), each line with a `sec.nsec` timestamp (seed 004, "The task.txt file";
//! FORMATS-NOTES: a forked child has a FORK line and no TASK line, exec starts a new SESS).

use crate::bytes::Source;
use crate::error::{Error, Result, Warning};

#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    pub time_ns: u64,
    pub pid: u32,
    /// Session id: names `sid-<sid>.map`.
    pub sid: String,
    pub exename: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    pub time_ns: u64,
    pub tid: u32,
    pub pid: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fork {
    pub time_ns: u64,
    pub pid: u32,
    pub ppid: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Dlopen {
    pub time_ns: u64,
    pub tid: u32,
    pub sid: String,
    pub base: u64,
    pub libname: String,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskFile {
    pub sessions: Vec<Session>,
    pub tasks: Vec<Task>,
    pub forks: Vec<Fork>,
    pub dlopens: Vec<Dlopen>,
}

/// `sec.nsec` as nanoseconds; the fraction has up to 9 digits.
pub fn parse_timestamp(s: &str) -> Option<u64> {
    let (sec, frac) = s.split_once('.').unwrap_or((s, "0"));
    let sec: u64 = sec.parse().ok()?;
    if frac.is_empty() || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut ns: u64 = frac.parse().ok()?;
    for _ in frac.len()..9 {
        ns *= 10;
    }
    sec.checked_mul(1_000_000_000)?.checked_add(ns)
}

/// `key=value` fields of a line; a value in double quotes may hold spaces.
fn fields(line: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim();
        let after = &rest[eq + 1..];
        let (value, next) = if let Some(q) = after.strip_prefix('"') {
            match q.find('"') {
                Some(end) => (&q[..end], &q[end + 1..]),
                None => (q, ""),
            }
        } else {
            match after.find(' ') {
                Some(sp) => (&after[..sp], &after[sp..]),
                None => (after, ""),
            }
        };
        out.push((key, value));
        rest = next;
    }
    out
}

impl TaskFile {
    /// Parses every line; malformed lines become warnings (the recording still opens).
    pub fn parse(src: &Source, warnings: &mut Vec<Warning>) -> Result<TaskFile> {
        if src.len() > 64 << 20 {
            return Err(Error::too_large(src.name(), 0, "task.txt"));
        }
        let bytes = src.bytes(0, src.len(), "task.txt")?;
        let text = String::from_utf8_lossy(&bytes);
        let mut out = TaskFile::default();
        let mut off = 0u64;
        for line in text.split('\n') {
            let line_off = off;
            off += line.len() as u64 + 1;
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
            if out.add(kind, &fields(rest)).is_none() {
                warnings.push(Error::invalid(
                    src.name(),
                    line_off,
                    format!("unreadable task.txt line '{}'", truncate(line, 80)),
                ));
            }
        }
        Ok(out)
    }

    /// Adds the record of a `kind` line with `fields`; `None` (nothing added) when the kind is
    /// unknown or a field it needs is missing or unreadable.
    fn add(&mut self, kind: &str, fields: &[(&str, &str)]) -> Option<()> {
        let get = |k: &str| fields.iter().find(|(key, _)| *key == k).map(|(_, v)| *v);
        let num = |k: &str| get(k).and_then(|v| v.parse::<u32>().ok());
        let time_ns = get("timestamp").and_then(parse_timestamp)?;
        match kind {
            "SESS" => self.sessions.push(Session {
                time_ns,
                pid: num("pid")?,
                sid: get("sid")?.to_string(),
                exename: get("exename").unwrap_or("").to_string(),
            }),
            "TASK" => self.tasks.push(Task {
                time_ns,
                tid: num("tid")?,
                pid: num("pid")?,
            }),
            "FORK" => self.forks.push(Fork {
                time_ns,
                pid: num("pid")?,
                ppid: num("ppid")?,
            }),
            "DLOP" => self.dlopens.push(Dlopen {
                time_ns,
                tid: num("tid")?,
                sid: get("sid").unwrap_or("").to_string(),
                base: get("base").and_then(|b| u64::from_str_radix(b, 16).ok())?,
                libname: get("libname")?.to_string(),
            }),
            _ => return None,
        }
        Some(())
    }

    /// Process id of a task: its TASK line, else itself (a forked child's pid is its tid).
    pub fn pid_of(&self, tid: u32) -> u32 {
        self.tasks
            .iter()
            .find(|t| t.tid == tid)
            .map(|t| t.pid)
            .unwrap_or(tid)
    }
    /// Parent process of a forked process.
    pub fn ppid_of(&self, pid: u32) -> Option<u32> {
        self.forks.iter().find(|f| f.pid == pid).map(|f| f.ppid)
    }
}

fn truncate(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_line_kinds() {
        let text = "SESS timestamp=1940.773484169 pid=16990 sid=45afcbec07b49cd7 exename=\"/home/demo/fork exec\"\n\
TASK timestamp=1940.773545620 tid=16990 pid=16990\n\
DLOP timestamp=1940.773551319 tid=16990 sid=45afcbec07b49cd7 base=7f049070f000 libname=\"./libplug.so\"\n\
FORK timestamp=1940.773924038 pid=16992 ppid=16990\n\
GARBAGE here\n";
        let mut w = Vec::new();
        let t = TaskFile::parse(
            &Source::from_vec("task.txt", text.as_bytes().to_vec()),
            &mut w,
        )
        .unwrap();
        assert_eq!(t.sessions[0].time_ns, 1_940_773_484_169);
        assert_eq!(t.sessions[0].exename, "/home/demo/fork exec");
        assert_eq!(t.tasks[0].tid, 16990);
        assert_eq!(t.dlopens[0].base, 0x7f049070f000);
        assert_eq!(t.dlopens[0].libname, "./libplug.so");
        assert_eq!(t.forks[0].ppid, 16990);
        assert_eq!(t.pid_of(16992), 16992);
        assert_eq!(t.ppid_of(16992), Some(16990));
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn timestamps() {
        assert_eq!(parse_timestamp("1.5"), Some(1_500_000_000));
        assert_eq!(parse_timestamp("2.000000001"), Some(2_000_000_001));
        assert_eq!(parse_timestamp("x.1"), None);
        assert_eq!(parse_timestamp("1.1234567890"), None);
        assert_eq!(parse_timestamp("99999999999999999999.1"), None);
    }
}
