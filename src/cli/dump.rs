//! `hpcscope dump --json DIR`: a full transcript of a dataset.

pub fn run(_args: &[String]) -> Result<(), String> {
    Err("dump is not implemented yet".into())
}
