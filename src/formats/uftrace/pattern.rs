//! Function-name patterns of uftrace options (`-A main@arg1`, `pattern_type` regex or glob):
//! a pattern without special characters matches a name exactly, as in uftrace; otherwise a small
//! backtracking matcher (regex: `. * + ? ^ $ [..] \x`; glob: `* ? [..]`).

use crate::work::{self, Work};

/// Whether `name` matches `pattern` under `pattern_type` ("regex", "glob" or "simple").
pub fn matches(pattern: &str, pattern_type: &str, name: &str) -> bool {
    let special = |c: char| ".*+?[]^$\\|()".contains(c);
    // Patterns come from the recording's info file: the matchers recurse once per pattern atom,
    // so a longer one is compared exactly rather than risk the stack (wasm has 1 MB of it).
    if pattern_type == "simple" || !pattern.chars().any(special) || pattern.len() > MAX_PATTERN {
        return pattern == name;
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Both matchers backtrack: a step budget bounds `*a*a*a...b` against a long name, which
    // would otherwise take exponential time.
    let mut budget = MAX_STEPS;
    if pattern_type == "glob" {
        return glob(&p, &n, 0, &mut budget);
    }
    // Unanchored search, like regexec.
    let (p, anchored) = match p.split_first() {
        Some(('^', rest)) => (rest.to_vec(), true),
        _ => (p, false),
    };
    if anchored {
        return re(&p, &n, &mut budget);
    }
    (0..=n.len()).any(|s| re(&p, &n[s..], &mut budget))
}

/// Longest pattern (bytes) given to the backtracking matchers.
const MAX_PATTERN: usize = 512;
/// Matcher steps per [`matches`] call.
const MAX_STEPS: u32 = 100_000;

fn glob(p: &[char], n: &[char], depth: u32, budget: &mut u32) -> bool {
    if depth > 64 || *budget == 0 {
        return false;
    }
    *budget -= 1;
    work::add(Work::PatternSteps, 1);
    match p.split_first() {
        None => n.is_empty(),
        Some(('*', rest)) => (0..=n.len()).any(|i| glob(rest, &n[i..], depth + 1, budget)),
        Some(('?', rest)) => !n.is_empty() && glob(rest, &n[1..], depth, budget),
        Some(('[', _)) => match (class(p), n.split_first()) {
            (Some((set, neg, used)), Some((c, nr))) => {
                (set.contains(c) != neg) && glob(&p[used..], nr, depth, budget)
            }
            _ => false,
        },
        Some((c, rest)) => n.first() == Some(c) && glob(rest, &n[1..], depth, budget),
    }
}

/// A bracket class at the start of `p`: its characters (ranges expanded), negation, length used.
fn class(p: &[char]) -> Option<(Vec<char>, bool, usize)> {
    let mut i = 1;
    let neg = matches!(p.get(1), Some('^') | Some('!'));
    if neg {
        i += 1;
    }
    let mut set = Vec::new();
    while let Some(&c) = p.get(i) {
        if c == ']' && !set.is_empty() {
            return Some((set, neg, i + 1));
        }
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
            let e = p[i + 2];
            if (e as u32).saturating_sub(c as u32) < 512 {
                set.extend(c..=e);
            }
            i += 3;
        } else {
            set.push(c);
            i += 1;
        }
    }
    None
}

/// Whether a character matches one regex atom.
type CharTest = Box<dyn Fn(char) -> bool>;

/// One regex atom at the start of `p`: a predicate and the atom's length.
fn atom(p: &[char]) -> Option<(CharTest, usize)> {
    match p.first()? {
        '.' => Some((Box::new(|_| true), 1)),
        '\\' => {
            let c = *p.get(1)?;
            Some((Box::new(move |x| x == c), 2))
        }
        '[' => {
            let (set, neg, used) = class(p)?;
            Some((Box::new(move |x| set.contains(&x) != neg), used))
        }
        &c => Some((Box::new(move |x| x == c), 1)),
    }
}

fn re(p: &[char], n: &[char], budget: &mut u32) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    work::add(Work::PatternSteps, 1);
    if p.is_empty() {
        return true;
    }
    if p == ['$'] {
        return n.is_empty();
    }
    let Some((pred, len)) = atom(p) else {
        return false;
    };
    match p.get(len) {
        Some('*') | Some('+') | Some('?') => {
            let op = p[len];
            let rest = &p[len + 1..];
            let max = if op == '?' { 1 } else { n.len() };
            let mut k = 0;
            while k < max && k < n.len() && pred(n[k]) {
                k += 1;
            }
            let min = usize::from(op == '+');
            (min..=k).rev().any(|i| re(rest, &n[i..], budget))
        }
        _ => !n.is_empty() && pred(n[0]) && re(&p[len..], &n[1..], budget),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_regex_glob() {
        assert!(matches("main", "regex", "main"));
        assert!(!matches("main", "regex", "domain"));
        assert!(matches("^qu.*t$", "regex", "quicksort"));
        assert!(matches("sort$", "regex", "quicksort"));
        assert!(matches("a[0-9]+b", "regex", "xa12b"));
        assert!(!matches("^a[0-9]+b$", "regex", "xa12b"));
        assert!(matches("quick*", "glob", "quicksort"));
        assert!(!matches("quick?", "glob", "quicksort"));
    }

    /// Matcher steps of one call.
    fn steps(pattern: &str, kind: &str, name: &str) -> (bool, u64) {
        work::count(Work::PatternSteps, || matches(pattern, kind, name))
    }

    #[test]
    fn hostile_patterns_are_bounded() {
        // 30 stars against 300 characters: exponential backtracking without the step budget,
        // which bounds the whole call (every start of an unanchored regex included).
        let a300 = "a".repeat(300);
        let stars = format!("{}b", "*a".repeat(30));
        let re_stars = format!("{}b", "a*".repeat(30));
        for (pattern, kind) in [(&stars, "glob"), (&re_stars, "regex")] {
            let (m, n) = steps(pattern, kind, &a300);
            assert!(!m);
            assert!(n <= MAX_STEPS as u64, "{kind}: {n} steps");
            assert!(n > 0 || !work::COUNTED, "{kind}: no steps counted");
        }
        // A 100,000-character pattern recursed once per character: compared exactly instead.
        let long = format!("{}*", "x".repeat(100_000));
        assert_eq!(steps(&long, "glob", "xx"), (false, 0));
        assert_eq!(steps(&long, "regex", "xx"), (false, 0));
        assert_eq!(steps(&long, "regex", &long), (true, 0));
    }
}
